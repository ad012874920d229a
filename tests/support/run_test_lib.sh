# What the shell tests of `dtbench run` share, sourced after they set
# `dtbench` (the binary), `scratch` (their temporary folder) and `db` (the
# store they query; they may point it elsewhere as they go):
#   fail MESSAGE             print FAIL: MESSAGE and end the test
#   q SQL                    the query's rows as CSV, without the header
#   expect SQL VALUE MESSAGE fail with MESSAGE unless q SQL prints VALUE
#   workers_left             how many workers of this test still run
fail() { echo "FAIL: $*"; exit 1; }
q() { "$dtbench" query "$db" "$1" --format csv | tail -n +2 | tr -d '\r'; }
expect() {
  local got
  got=$(q "$1")
  [[ $got == "$2" ]] || fail "$3 (got '$got', expected '$2')"
}
workers_left() { pgrep -f "dtbench worker --spec $scratch" | wc -l || true; }
