#!/usr/bin/env bash
# A run on one host exposes nothing of dtbench to the network: while Gloo
# and MPI runs train, every TCP socket their ranks listen on or talk over is
# on loopback.
# The one exception is Open MPI 4.1's mpirun, whose out-of-band listener binds
# every interface whatever the options (docs/threat-model.md): shown, not
# failed. Skips (77) without `ss` (iproute2).
#   listening_test.sh DTBENCH MATRIX_DIR
set -euo pipefail
dtbench=$1 matrices=$2
command -v ss >/dev/null || { echo "SKIP: no ss (iproute2) here"; exit 77; }
scratch=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { "$dtbench" query "$1" "$2" --format csv 2>/dev/null | tail -n +2 | tr -d '\r'; }
export TMPDIR=$scratch

for backend in gloo mpi; do
  echo "== $backend"
  sed "s|^backend = \"gloo\"|backend = \"$backend\"|" "$matrices/long.toml" > "$scratch/$backend.toml"
  db=$scratch/$backend.db
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$dtbench" run "$scratch/$backend.toml" --db "$db" \
    > "$scratch/$backend.txt" 2>&1 &
  coordinator=$!
  for _ in $(seq 1 300); do
    [[ -f $db ]] && [[ $(q "$db" "SELECT COUNT(*) FROM step" || echo 0) -gt 0 ]] && break
    sleep 0.1
  done
  [[ $(q "$db" "SELECT COUNT(*) FROM step") -gt 0 ]] || { cat "$scratch/$backend.txt"; fail "$backend: never trained"; }
  listening=$(ss -ltnpH | grep -E '"(dtbench|mpirun|orted|prterun)"' || true)
  talking=$(ss -tnpH state established | grep -E '"(dtbench|orted|prterun)"' || true)
  echo "$listening" | awk 'NF {print "listening", $4, $6}'
  echo "$talking" | awk 'NF {print "connected", $3, $4, $5}'  # (no State column with a state filter)
  # Gloo's ranks close their listeners once connected, but talk over TCP;
  # seeing no socket at all means ss could not see them (another namespace,
  # no rights), and the check below would pass for nothing.
  [[ -n $listening$talking ]] || fail "$backend: saw no socket of dtbench or mpirun at all"
  exposed=$({ echo "$listening" | grep -v '"mpirun"' | awk 'NF {print $4}'; echo "$talking" | awk 'NF {print $3; print $4}'; } |
    grep -Ev '^(127\.0\.0\.1|\[::1\]|\[::ffff:127\.0\.0\.1\]):' || true)
  [[ -z $exposed ]] || fail "$backend: a socket beyond loopback on $exposed"
  kill -INT "$coordinator"
  wait "$coordinator" || true
done
echo "PASS"
