#!/usr/bin/env bash
# Issue 38's JPEG pipeline against pre-decoded data: ResNet-18 at 224 px on
# one rank (matrix.toml), its samples decoded from JPEG on the loader's
# threads (jpeg_folder, decode = "cpu") or held decoded in memory
# (decode = "predecoded", the reference), at 0, 1 and 2 loader threads.
# Prints per cell the data phase's share of the step (step_breakdown's
# data_share: the step waiting for its batch) as the median over rounds with
# its range, and the data time against pre-decoded at the same thread count
# (paired within a round). Runs that shared the machine with other work are
# counted in the last column (step_breakdown's `loaded`).
# Each round runs every cell once, so rounds interleave the settings.
#   bench/jpeg_pipeline/compare.sh [ROUNDS]     (default 2; ~4 min a round here)
# Needs data/mnist (tools/fetch-datasets.sh) and a build with
# dtbench-jpeg-folder, which writes the 64 + 64 image folder it reads.
source "$(dirname "$0")/../common/bench_lib.sh"
rounds=${1:-2}
[[ -f data/mnist/train-images-idx3-ubyte ]] || {
  echo "bench/jpeg_pipeline: no data/mnist; run tools/fetch-datasets.sh first" >&2
  exit 1
}
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
build/bin/dtbench-jpeg-folder data/mnist "$scratch/jpeg" --limit 64 --size 224 --quality 90 >/dev/null

for round in $(seq 1 "$rounds"); do
  echo "== round $round of $rounds" >&2
  build/bin/dtbench run bench/jpeg_pipeline/matrix.toml --set "dataset.jpeg_folder.path=$scratch/jpeg" \
    --db "$scratch/runs.db" >"$scratch/out.txt" 2>&1 || { cat "$scratch/out.txt"; exit 1; }
done
# One row per run: its round, thread count, decode mode and breakdown.
build/bin/dtbench query "$scratch/runs.db" \
  "SELECT DENSE_RANK() OVER (ORDER BY b.experiment_id) AS round, CAST(t.value AS INTEGER) AS threads,
          TRIM(d.value, '\"') AS decode, b.step_ms, b.data_ms, b.data_share, b.loaded
   FROM step_breakdown b
   JOIN run_param t ON t.run_id = b.run_id AND t.key = 'loader_threads'
   JOIN run_param d ON d.run_id = b.run_id AND d.key = 'dataset.jpeg_folder.decode'" \
  --format csv | tail -n +2 | tr -d '\r' >"$scratch/runs.csv"
python3 - "$scratch/runs.csv" <<'PY'
import csv, statistics, sys
runs = {}
for rnd, threads, decode, step, data, share, loaded in csv.reader(open(sys.argv[1])):
    runs.setdefault((int(threads), decode), {})[int(rnd)] = (float(step), float(data), float(share), int(loaded))
def fmt(values, scale=1, digits=1):
    values = [v * scale for v in values]
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"
print("| loader threads | decode | step ms | data ms | data share % | data vs predecoded | loaded runs |")
print("|---|---|---|---|---|---|---|")
for (threads, decode), by_round in sorted(runs.items()):
    ref = runs.get((threads, "predecoded"), {})
    ratios = [by_round[r][1] / ref[r][1] for r in by_round if r in ref and ref[r][1] > 0]  # paired within a round
    cells = [fmt([v[0] for v in by_round.values()], digits=0), fmt([v[1] for v in by_round.values()]),
             fmt([v[2] for v in by_round.values()], 100), fmt(ratios, digits=2) if ratios else "-",
             f"{sum(v[3] for v in by_round.values())}/{len(by_round)}"]
    print(f"| {threads} | {decode} | " + " | ".join(cells) + " |")
PY
