#!/usr/bin/env bash
# `dtbench comm` end to end, as a user runs it: Gloo (local ranks) and MPI
# (mpirun) swept from 4 KiB to 64 MiB at 2 ranks, every row stored with no
# wrong element and a memcpy reference beside it; settings from a file's
# [comm] table with flags on top; clear errors for bad settings.
#   comm_test.sh DTBENCH EXAMPLES_DIR
set -euo pipefail
dtbench=$1 examples=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { "$dtbench" query "$1" "$2" --format csv | tail -n +2 | tr -d '\r'; }

echo "== gloo and mpi, 4K to 64M (x4 steps: 8 sizes), every collective, 2 ranks"
"$dtbench" comm --backend gloo,mpi --ranks 2 -b 4K -e 64M -f 4 -w 1 -n 3 --db "$scratch/c.db" \
  > "$scratch/out.txt" 2> "$scratch/err.txt" || { cat "$scratch/out.txt" "$scratch/err.txt"; fail "sweep failed"; }
cat "$scratch/out.txt"
grep -q "#wrong" "$scratch/out.txt" || fail "no table header"
grep -q "memcpy reference: .* GB/s per rank" "$scratch/out.txt" || fail "no memcpy reference printed"
[[ $(q "$scratch/c.db" "SELECT COUNT(*) FROM run WHERE status = 'ok' AND strategy = 'sweep'") == 2 ]] || fail "runs not ok"
# 8 sizes (4K 16K ... 64M) x 4 collectives x 2 backends
[[ $(q "$scratch/c.db" "SELECT COUNT(*) FROM collective") == 64 ]] || fail "rows missing"
[[ $(q "$scratch/c.db" "SELECT COUNT(DISTINCT bytes) FROM collective_bandwidth WHERE backend = 'mpi'") == 8 ]] || fail "sizes"
[[ $(q "$scratch/c.db" "SELECT MIN(bytes) || ' ' || MAX(bytes) FROM collective") == "4096 67108864" ]] || fail "range"
[[ $(q "$scratch/c.db" "SELECT SUM(wrong) FROM collective") == 0 ]] || fail "wrong elements"
[[ $(q "$scratch/c.db" "SELECT COUNT(*) FROM bandwidth_reference WHERE name = 'memcpy' AND gbps > 0") == 2 ]] \
  || fail "memcpy reference not stored"
[[ $(q "$scratch/c.db" "SELECT COUNT(*) FROM collective_bandwidth WHERE busbw_gbps > 0 AND of_memcpy > 0") == 64 ]] \
  || fail "bandwidth view incomplete"
# busbw = algbw x 2(n-1)/n for all-reduce: at 2 ranks they are equal
[[ $(q "$scratch/c.db" "SELECT COUNT(*) FROM collective_bandwidth WHERE op = 'allreduce' AND ABS(busbw_gbps - algbw_gbps) > 1e-9") == 0 ]] \
  || fail "all-reduce bus factor"
[[ $(q "$scratch/c.db" "SELECT COUNT(*) FROM collective_bandwidth WHERE op = 'allgather' AND ABS(busbw_gbps - algbw_gbps / 2) > 1e-9") == 0 ]] \
  || fail "all-gather bus factor"
# The latency-bandwidth fit: a row per collective and backend, printed and
# in the store, the two the same. A fit is NULL where a busy machine made
# the times shrink with size (the view says so; CI saw MPI's all-gather
# take 862 us at 4 MiB and 4,056 us at 1 MiB): then neither prints one.
[[ $(q "$scratch/c.db" "SELECT COUNT(*) FROM collective_fit WHERE sizes = 8") == 8 ]] || fail "collective_fit incomplete"
fits=$(q "$scratch/c.db" "SELECT COUNT(*) FROM collective_fit WHERE latency_us IS NOT NULL AND bus_gbps > 0")
(( fits >= 6 )) || fail "only $fits of 8 collectives fitted"
[[ $(grep -c "^# Fit t = a + bus bytes / B: " "$scratch/out.txt") == "$fits" ]] || fail "printed fits are not the stored ones"
read -r backend op stored < <(q "$scratch/c.db" "SELECT backend, op, printf('%.3f', bus_gbps) FROM collective_fit
                                 WHERE bus_gbps > 0 ORDER BY op = 'allreduce' DESC, backend = 'mpi' DESC LIMIT 1" | tr ',' ' ')
printed=$(grep "^# Fit t = a + bus bytes / B: .*($backend $op, 8 sizes)" "$scratch/out.txt" | sed -E 's/.*B = ([0-9.]+) GB.*/\1/')
[[ -n $printed && $printed == "$stored" ]] || fail "printed fit ($printed GB/s) is not the stored one ($stored, $backend $op)"

echo "== dtbench report draws one bus-bandwidth chart per collective"
"$dtbench" report "$scratch/c.db" -o "$scratch/c.html" 2>/dev/null || fail "report of the sweep failed"
[[ $(grep -c '<svg class="chart" data-kind="line"' "$scratch/c.html") == 4 ]] || fail "expected 4 bandwidth charts"
grep -q "allreduce: bus bandwidth against message size" "$scratch/c.html" || fail "all-reduce chart missing"

echo "== settings from examples/backends.toml's [comm] table, flags on top"
"$dtbench" comm "$examples/backends.toml" -e 16K -w 0 -n 2 --ops allreduce -d half,bfloat16,int8 --db "$scratch/f.db" \
  > "$scratch/f.txt" 2>&1 || { cat "$scratch/f.txt"; fail "sweep from the file failed"; }
[[ $(q "$scratch/f.db" "SELECT name FROM experiment") == backends ]] || fail "experiment not named from the file"
# 4K 8K 16K x 3 dtypes x 2 backends
[[ $(q "$scratch/f.db" "SELECT COUNT(*) || ' ' || SUM(wrong) FROM collective") == "18 0" ]] || fail "file sweep rows"
q "$scratch/f.db" "SELECT matrix_toml FROM experiment" | grep -q "max_bytes = 16384" || fail "settings not stored"

echo "== bad settings are named"
if "$dtbench" comm --backend gloo -b 64K -e 4K --db "$scratch/x.db" 2> "$scratch/e1.txt"; then fail "accepted -b > -e"; fi
grep -q "must be at least 1 and at most -e" "$scratch/e1.txt" || { cat "$scratch/e1.txt"; fail "size error"; }
if "$dtbench" comm --backend glooo --db "$scratch/x.db" 2> "$scratch/e2.txt"; then fail "accepted a missing backend"; fi
grep -q "glooo" "$scratch/e2.txt" || { cat "$scratch/e2.txt"; fail "backend error"; }
printf '[experiment]\nname = "x"\n[comm]\nmax_byte = "1M"\n' > "$scratch/bad.toml"
if "$dtbench" comm "$scratch/bad.toml" --db "$scratch/x.db" 2> "$scratch/e3.txt"; then fail "accepted an unknown key"; fi
grep -q "bad.toml: unknown key 'max_byte' in \[comm\]" "$scratch/e3.txt" || { cat "$scratch/e3.txt"; fail "key error"; }
echo "ok"
