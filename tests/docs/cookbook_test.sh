#!/usr/bin/env bash
# Every ```sql block of docs/sql-cookbook.md runs through `dtbench query`
# against the synthetic sample store and returns at least one row.
set -euo pipefail
dtbench=$1 sample_store=$2 cookbook=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$sample_store" "$scratch/sample.db"
awk '/^```sql$/ {inside=1; n++; next} /^```$/ {inside=0; next} inside {print > ("'"$scratch"'/recipe-" n ".sql")}' "$cookbook"
count=0
for recipe in "$scratch"/recipe-*.sql; do
  count=$((count + 1))
  if ! output=$("$dtbench" query "$scratch/sample.db" "$(cat "$recipe")" --format csv 2>&1); then
    echo "FAIL: $(basename "$recipe"):"; cat "$recipe"; echo "$output"; exit 1
  fi
  rows=$(($(printf '%s\n' "$output" | wc -l) - 1))
  if (( rows < 1 )); then
    echo "FAIL: $(basename "$recipe") returned no rows:"; cat "$recipe"; exit 1
  fi
  echo "ok $(basename "$recipe"): $rows rows"
done
(( count >= 8 )) || { echo "FAIL: only $count recipes found"; exit 1; }
