#!/usr/bin/env bash
# Does a change to the MPI backend slow training? This build's dtbench
# against another's (OTHER: its dtbench binary, e.g. a worktree of the
# previous commit built with tools/build.sh), interleaved rounds of
# training.toml, alternating which goes first; per strategy each side's
# median samples/s over the rounds and the ratio this/other.
#   bench/mpi_allreduce/training_ab.sh OTHER_DTBENCH [ROUNDS=6]
set -euo pipefail
other=$1 rounds=${2:-6}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for ((round = 1; round <= rounds; ++round)); do
  sides=(this other)
  (( round % 2 )) || sides=(other this)
  for side in "${sides[@]}"; do
    bin=build/bin/dtbench
    [[ $side == other ]] && bin=$other
    "$bin" run bench/mpi_allreduce/training.toml --db "$scratch/$side.db" >"$scratch/$side.txt" 2>&1 \
      || { cat "$scratch/$side.txt"; echo "training_ab.sh: $side failed in round $round" >&2; exit 1; }
  done
done
rates() {
  build/bin/dtbench query "$scratch/$1.db" "SELECT r.strategy || COALESCE('-' || (SELECT value FROM run_param p
      WHERE p.run_id = r.id AND p.key = 'strategy.zero.stage'), '') AS strategy, e.samples / e.seconds AS rate
      FROM run r JOIN epoch e ON e.run_id = r.id" --format csv | tail -n +2 | tr -d '\r'
}
python3 - <(rates this) <(rates other) <<'PY'
import statistics, sys
def load(path):
    out = {}
    for line in open(path):
        strategy, rate = line.strip().split(",")
        out.setdefault(strategy, []).append(float(rate))
    return out
this, other = load(sys.argv[1]), load(sys.argv[2])
print(f"{'strategy':<10} {'this':>8} {'other':>8} {'ratio':>6}  rounds (this | other)")
for s in sorted(this):
    t, o = statistics.median(this[s]), statistics.median(other[s])
    print(f"{s:<10} {t:>8.0f} {o:>8.0f} {t / o:>6.2f}  {' '.join(f'{v:.0f}' for v in this[s])} | "
          f"{' '.join(f'{v:.0f}' for v in other[s])}")
PY
