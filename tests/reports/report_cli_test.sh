#!/usr/bin/env bash
# `dtbench report`'s command line where a user can go wrong: --compare with
# a name two experiments share, --sql-dir that is not there or holds a file
# no query reads, a broken query of the user's named by its file, and an
# output name whose extension says no format.
#   report_cli_test.sh DTBENCH SAMPLE_STORE
set -euo pipefail
dtbench=$1 sample_store=$2
fail() { echo "FAIL: $*"; [[ -f $scratch/err.txt ]] && cat "$scratch/err.txt"; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$sample_store" "$scratch/r.db" 1.0 1.5 1.03  # three experiments, all named "sample"

echo "== --compare NAME NAME: two of that name"
"$sample_store" "$scratch/two.db" 1.0 1.5
"$dtbench" report "$scratch/two.db" --compare sample sample --format markdown > "$scratch/c.md" 2> "$scratch/err.txt" ||
  fail "compare by a name two experiments share"
grep -q "^## Comparison: experiment 2 against 1" "$scratch/c.md" || fail "the older is A, the newer B"
grep -q "| faster |" "$scratch/c.md" || fail "B (50 % faster) is not faster than A: compared with itself?"
echo "== --compare with an ambiguous name, and one experiment with itself"
if "$dtbench" report "$scratch/r.db" --compare sample 3 2> "$scratch/err.txt"; then fail "accepted an ambiguous name"; fi
grep -q "3 experiments in .* are named 'sample' (ids 1, 2, 3); name them by id" "$scratch/err.txt" || fail "ambiguous"
if "$dtbench" report "$scratch/r.db" --compare 2 2 2> "$scratch/err.txt"; then fail "compared 2 with itself"; fi
grep -q "'2' and '2' are the same experiment (id 2)" "$scratch/err.txt" || fail "itself"

echo "== --sql-dir"
if "$dtbench" report "$scratch/r.db" --sql-dir "$scratch/nope" 2> "$scratch/err.txt"; then fail "missing --sql-dir"; fi
grep -q -- "--sql-dir $scratch/nope: no such folder" "$scratch/err.txt" || fail "missing folder not named"
mkdir "$scratch/sql"
echo "SELECT 1" > "$scratch/sql/21_scaling.sql"
if "$dtbench" report "$scratch/r.db" --sql-dir "$scratch/sql" 2> "$scratch/err.txt"; then fail "a typo'd file ignored"; fi
grep -q "$scratch/sql/21_scaling.sql: no report query has this name, so it would be ignored (the queries: .*20_scaling.sql" \
  "$scratch/err.txt" || fail "typo not named"
rm "$scratch/sql/21_scaling.sql"
echo "SELECT nonsense FROM nowhere" > "$scratch/sql/20_scaling.sql"
if "$dtbench" report "$scratch/r.db" --sql-dir "$scratch/sql" 2> "$scratch/err.txt"; then fail "a broken query ran"; fi
grep -q "report query 'scaling' ($scratch/sql/20_scaling.sql): .*no such table: nowhere" "$scratch/err.txt" ||
  fail "the user's file is not named"
echo "SELECT 1 AS experiment_id" > "$scratch/sql/20_scaling.sql"
if "$dtbench" report "$scratch/r.db" --sql-dir "$scratch/sql" 2> "$scratch/err.txt"; then fail "a query lacking columns"; fi
grep -q "report query 'scaling' ($scratch/sql/20_scaling.sql): has no column 'config_key', which the report reads" \
  "$scratch/err.txt" || fail "the missing column is not named with the file"

echo "== -o with an extension that says no format"
if "$dtbench" report "$scratch/r.db" -o "$scratch/x.txt" 2> "$scratch/err.txt"; then fail "wrote x.txt"; fi
grep -q "cannot tell the format from '.txt'; name the file .html or .md, or say --format html|markdown" \
  "$scratch/err.txt" || fail "-o x.txt"
[[ ! -e $scratch/x.txt ]] || fail "x.txt written"
"$dtbench" report "$scratch/r.db" -o "$scratch/x.txt" --format markdown 2> "$scratch/err.txt" || fail "--format markdown"
grep -q "^# dtbench report" "$scratch/x.txt" || fail "x.txt is not Markdown"
echo "ok"
