#!/usr/bin/env bash
# Readers never change a store, as a user runs them: report, query and runs
# on a write-protected copy work and leave its bytes and its directory as
# they were; on a writable store they leave the file's bytes unchanged;
# `query` stops at its --timeout and streams a large result in little
# memory; an older store is refused until `dtbench upgrade` brings it up.
#   read_only_cli_test.sh DTBENCH SAMPLE_STORE_TOOL [SANITIZED: ON|OFF]
set -euo pipefail
dtbench=$1 sample=$2 sanitized=${3:-OFF}
scratch=$(mktemp -d)
trap 'chmod -R u+w "$scratch"; rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$scratch/ro" "$scratch/rw"
"$sample" "$scratch/ro/store.db" >/dev/null
cp "$scratch/ro/store.db" "$scratch/rw/store.db"

echo "== a write-protected copy: read, and left as it was"
chmod a-w "$scratch/ro/store.db" "$scratch/ro"
before=$(sha256sum "$scratch/ro/store.db" | cut -d' ' -f1)
files_before=$(ls -a "$scratch/ro")
"$dtbench" report "$scratch/ro/store.db" -o "$scratch/report.html" >/dev/null || fail "report failed on a read-only copy"
"$dtbench" query "$scratch/ro/store.db" "SELECT COUNT(*) FROM scaling" >/dev/null || fail "query failed on a read-only copy"
"$dtbench" runs "$scratch/ro/store.db" >/dev/null || fail "runs failed on a read-only copy"
[[ $(sha256sum "$scratch/ro/store.db" | cut -d' ' -f1) == "$before" ]] || fail "the read-only copy changed"
[[ $(ls -a "$scratch/ro") == "$files_before" ]] || fail "files appeared beside the read-only copy: $(ls -a "$scratch/ro")"

echo "== a writable store: its bytes unchanged by readers (report used to migrate it and remake its views)"
before=$(sha256sum "$scratch/rw/store.db" | cut -d' ' -f1)
"$dtbench" report "$scratch/rw/store.db" -o "$scratch/report2.html" >/dev/null || fail "report failed"
"$dtbench" query "$scratch/rw/store.db" "SELECT * FROM run_summary" >/dev/null || fail "query failed"
[[ $(sha256sum "$scratch/rw/store.db" | cut -d' ' -f1) == "$before" ]] || fail "a reader changed the store"

echo "== query stops at its time limit"
start=$(date +%s)
if "$dtbench" query "$scratch/rw/store.db" --timeout 0.5 \
     "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c" 2>"$scratch/err.txt"; then
  fail "an endless query returned"
fi
cat "$scratch/err.txt"
grep -q "the query was stopped after 0.5 s (--timeout SECONDS allows longer; 0 for no limit)" "$scratch/err.txt" \
  || fail "no time-limit message"
(( $(date +%s) - start < 30 )) || fail "the time limit did not stop it"

echo "== query streams: 3 million rows in little memory"
rows=3000000
[[ -x /usr/bin/time ]] || fail "no /usr/bin/time to measure peak memory with (tools/install-deps.sh installs it)"
peak_kb=$( { /usr/bin/time -f "%M" "$dtbench" query "$scratch/rw/store.db" --timeout 0 --format csv \
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT $rows) SELECT x, x * 0.5 AS half FROM c" \
  | wc -l > "$scratch/lines.txt"; } 2>&1 | tail -1)
[[ $(cat "$scratch/lines.txt") == $((rows + 1)) ]] || fail "$(cat "$scratch/lines.txt") lines, not $((rows + 1))"
echo "peak RSS: $peak_kb KiB"
# Held in memory, 3 M rows of two values come to some 400 MB; streamed, the process stays near its own size.
# (Under AddressSanitizer its shadow memory and quarantine are most of the figure: not checked.)
[[ $sanitized == ON ]] || (( peak_kb < 150000 )) || fail "query held the rows: peak RSS $peak_kb KiB"

echo "== an older store: readers refuse it and name the upgrade; upgrade brings it up"
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).executescript(open(sys.argv[2]).read())' \
  "$scratch/rw/store.db" "$(dirname "$0")/../../support/schema_v4.sql"
if "$dtbench" query "$scratch/rw/store.db" "SELECT 1" 2>"$scratch/err.txt"; then fail "read an older store"; fi
grep -q "schema version 4 is older than this dtbench's .* \`dtbench upgrade $scratch/rw/store.db\` brings it up" \
  "$scratch/err.txt" || { cat "$scratch/err.txt"; fail "no upgrade hint"; }
"$dtbench" upgrade "$scratch/rw/store.db" | grep -q "schema version 4 -> " || fail "upgrade did not say what it did"
"$dtbench" query "$scratch/rw/store.db" "SELECT COUNT(*) FROM scaling WHERE speedup IS NOT NULL" --format csv \
  | tail -1 | grep -qv "^0" || fail "the upgraded store has no scaling"
"$dtbench" upgrade "$scratch/rw/store.db" | grep -q "already this dtbench's" || fail "a second upgrade did something"
echo "PASS"
