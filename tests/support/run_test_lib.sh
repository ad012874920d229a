# What the shell tests of `dtbench run` share, sourced after they set
# `dtbench` (the binary), `scratch` (their temporary folder) and `db` (the
# store they query; they may point it elsewhere as they go):
#   fail MESSAGE             print FAIL: MESSAGE and end the test
#   q SQL                    the query's rows as CSV, without the header
#   expect SQL VALUE MESSAGE fail with MESSAGE unless q SQL prints VALUE
#   workers_left             how many workers of this test still run
#   no_gpu_here              true where `dtbench check` finds no usable GPU
#   docs_sql_runs PAGE MIN   every ```sql block of the docs page PAGE runs on
#                            $db and returns rows; fail unless it has MIN
fail() { echo "FAIL: $*"; exit 1; }
q() { "$dtbench" query "$db" "$1" --format csv | tail -n +2 | tr -d '\r'; }
expect() {
  local got
  got=$(q "$1")
  [[ $got == "$2" ]] || fail "$3 (got '$got', expected '$2')"
}
no_gpu_here() {
  local checked
  checked=$("$dtbench" check 2>/dev/null || true)  # (grep -q on a pipe would cut it short under pipefail)
  grep -q "^gpu: .*no GPU usable" <<<"$checked"
}
workers_left() { pgrep -f "dtbench worker --spec $scratch" | wc -l || true; }
docs_sql_runs() {
  local page=$1 least=$2 recipes=0 recipe output
  awk '/^```sql$/ {inside=1; n++; next} /^```$/ {inside=0; next} inside {print > ("'"$scratch"'/recipe-" n ".sql")}' "$page"
  for recipe in "$scratch"/recipe-*.sql; do
    recipes=$((recipes + 1))
    output=$("$dtbench" query "$db" "$(cat "$recipe")" --format csv) || fail "$(basename "$recipe") failed"
    (( $(printf '%s\n' "$output" | wc -l) > 1 )) || fail "$(basename "$recipe") returned no rows"
  done
  (( recipes >= least )) || fail "only $recipes SQL blocks found in $page"
}
