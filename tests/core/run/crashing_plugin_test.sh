#!/usr/bin/env bash
# Plugins that take their process down (tests/fixtures/plugins/crashing):
# dtbench names each in one line and goes on — `plugins` lists the rest,
# `check` checks the rest, `validate` refuses the matrix, and a run whose
# ranks crash in the plugin's create() stores an error naming the plugin.
#   crashing_plugin_test.sh DTBENCH CRASHING_PLUGIN_DIR TEST_PLUGIN_DIR MATRIX_DIR
set -euo pipefail
dtbench=$1 crashing=$2 good=$3 matrices=$4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export TMPDIR=$scratch
# Under AddressSanitizer, let dtbench's own crash handler run first (it then
# hands the signal to ASan's); by default ASan keeps SIGSEGV to itself.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:allow_user_segv_handler=1"
# The hanging one is given up on after a second, not the default ten.
export DTBENCH_PLUGIN_LOAD_TIMEOUT=1
paths=(--plugin-path "$crashing" --plugin-path "$good")
# A crash may show as SIGSEGV, or as SIGABRT where a sanitizer reports it first.
crash='crashed with SIG[A-Z]+'

echo "== plugins: the crashing ones are BROKEN with the cause, the rest are listed"
"$dtbench" "${paths[@]}" plugins --kind strategy > "$scratch/plugins.txt" 2>&1 \
  || { cat "$scratch/plugins.txt"; fail "plugins exited with $?"; }
cat "$scratch/plugins.txt" | grep -E "BROKEN|^ +(crashed|called)"
grep -Eq "crash_in_constructor +BROKEN" "$scratch/plugins.txt" || fail "constructor crash not listed as broken"
grep -Eq "^ +$crash while loading \(in its constructors or entry point\); not loaded" "$scratch/plugins.txt" \
  || fail "no crash cause"
grep -Eq "crash_in_entry +BROKEN" "$scratch/plugins.txt" || fail "entry point crash not listed as broken"
grep -Eq "^ +called exit\([0-9]+\) while loading" "$scratch/plugins.txt" || fail "exit() not named"
grep -Eq "hang_in_constructor +BROKEN" "$scratch/plugins.txt" || fail "a hang while loading not listed as broken"
grep -Eq "^ +did not finish within 1 s \(it hangs\?\) while loading" "$scratch/plugins.txt" \
  || fail "the hang is not named"
grep -Eq "^strategy +example_c +1\.0\.0" "$scratch/plugins.txt" || fail "the working plugins were not listed"
[[ $(grep -c "^dtbench: " "$scratch/plugins.txt" || true) == 0 ]] || fail "a child's crash report leaked out"

echo "== check: a crash in create() fails that plugin only"
if "$dtbench" "${paths[@]}" check > "$scratch/check.txt" 2>&1; then fail "check passed with crashing plugins"; fi
grep -E "FAILED|ok +strategy +example_c|self-check" "$scratch/check.txt"
grep -Eq "FAILED +strategy +.*dtbench-strategy-crash_in_create\.so: $crash while creating an instance" \
  "$scratch/check.txt" || fail "create crash not named"
grep -Eq "ok +strategy +example_c" "$scratch/check.txt" || fail "check did not go on"
grep -q "plugins: .* 5 failed" "$scratch/check.txt" || fail "not exactly the five crashing plugins failed"

echo "== validate: a matrix naming a plugin that crashes while loading is refused, naming it"
sed 's/crash_in_create/crash_in_entry/' "$matrices/crashing.toml" > "$scratch/entry.toml"
if "$dtbench" "${paths[@]}" validate "$scratch/entry.toml" > "$scratch/validate.txt" 2>&1; then
  fail "validate accepted it"
fi
cat "$scratch/validate.txt"
grep -Eq "dtbench-strategy-crash_in_entry\.so: $crash while loading" "$scratch/validate.txt" || fail "not named"

echo "== run: ranks that crash in create() fail the run with the plugin named"
if "$dtbench" "${paths[@]}" run "$matrices/crashing.toml" --db "$scratch/r.db" > "$scratch/run.txt" 2>&1; then
  fail "the run passed"
fi
error=$("$dtbench" query "$scratch/r.db" "SELECT error FROM run" --format csv | tail -n +2)
echo "$error"
# (Under a sanitizer the rank exits with a code after its report instead of dying by the signal.)
grep -Eq "rank [01]( was killed by signal [0-9]+ \(SIG[A-Z]+\))?: $crash in strategy 'crash_in_create' \(.*dtbench-strategy-crash_in_create\.so\)" \
  <<<"$error" || fail "the stored error does not name the plugin"
echo "PASS"
