#!/usr/bin/env bash
# A store of months of use — 10,000 runs in 1,000 experiments, 1 M step
# rows (make_store.sql) — and the time dtbench takes to answer on it, each
# command repeated 5 times (median), as a ratio to its target:
#   dtbench query DB "SELECT * FROM scaling"    target 100 ms
#   dtbench runs DB                             target 100 ms
#   dtbench report DB (all 1,000 experiments)   target 2 s
#   dtbench query DB "SELECT * FROM verdict"    (no target: for scale beside scaling)
# and, for scale, `dtbench query DB "SELECT 1"` (opening the store) and
# sqlite3's own time for the scaling view. A ratio below 1 meets the target.
#   bench/store_scale/compare.sh            (from the repository root; sqlite3 needed)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
command -v sqlite3 >/dev/null || { echo "compare.sh: needs the sqlite3 command (apt-get install sqlite3)" >&2; exit 1; }
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
db=$scratch/store.db
build/bin/dtbench-sample-store "$db" >/dev/null  # schema and views of this dtbench
{ echo "CREATE TEMP TABLE bench_size AS SELECT 1000 AS experiments, 100 AS steps;"; cat bench/store_scale/make_store.sql; } |
  sqlite3 "$db"
echo "store: $(sqlite3 "$db" "SELECT COUNT(*) FROM run") runs, $(sqlite3 "$db" "SELECT COUNT(*) FROM experiment") experiments," \
     "$(sqlite3 "$db" "SELECT COUNT(*) FROM step") step rows, $(du -m "$db" | cut -f1) MB"

median_ms() {  # median_ms COMMAND...: wall milliseconds, median of 5
  local times=()
  for _ in 1 2 3 4 5; do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 3p
}
row() {  # row NAME TARGET_MS MEASURED_MS
  if [[ $2 == - ]]; then
    printf '%-40s %10s %12d %8s\n' "$1" - "$3" -
  else
    printf '%-40s %10d %12d %8.2f\n' "$1" "$2" "$3" "$(python3 -c "print($3 / $2)")"
  fi
}
printf '%-40s %10s %12s %8s\n' command target_ms median_ms ratio
row 'dtbench query "SELECT 1"' - "$(median_ms build/bin/dtbench query "$db" "SELECT 1")"
row 'sqlite3 "SELECT * FROM scaling"' - "$(median_ms sqlite3 "$db" "SELECT * FROM scaling")"
row 'dtbench query "SELECT * FROM scaling"' 100 "$(median_ms build/bin/dtbench query "$db" "SELECT * FROM scaling")"
row 'dtbench runs' 100 "$(median_ms build/bin/dtbench runs "$db")"
row 'dtbench report (1,000 experiments)' 2000 "$(median_ms build/bin/dtbench report "$db" -o "$scratch/r.html")"
row 'dtbench query "SELECT * FROM verdict"' - "$(median_ms build/bin/dtbench query "$db" "SELECT * FROM verdict")"
