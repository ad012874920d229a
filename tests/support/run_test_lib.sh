# What the shell tests of `dtbench run` share, sourced after they set
# `dtbench` (the binary), `scratch` (their temporary folder) and `db` (the
# store they query; they may point it elsewhere as they go):
#   fail MESSAGE             print FAIL: MESSAGE and end the test
#   q SQL                    the query's rows as CSV, without the header
#   expect SQL VALUE MESSAGE fail with MESSAGE unless q SQL prints VALUE
#   workers_left             how many workers of this test still run
#   run_bounded SECONDS OUT CMD...
#                            CMD's output into OUT, its exit status returned;
#                            still running after SECONDS, the test fails and
#                            shows where each of its processes waits
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
# A run that hangs in CI otherwise ends as ctest's bare "Timeout", with its
# output in a scratch file that is then deleted: this says where it hung.
run_bounded() {
  local limit=$1 out=$2 pid deadline=$((SECONDS + $1))
  shift 2
  "$@" > "$out" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      show_waits "$pid" $(pgrep -f "dtbench worker --spec $scratch" || true)
      kill -INT "$pid" 2>/dev/null || true  # as Ctrl-C: the run stops its workers and says so
      sleep 5
      kill -KILL "$pid" 2>/dev/null || true
      pkill -KILL -f "dtbench worker --spec $scratch" || true
      echo "== its output"
      cat "$out"
      fail "still running after $limit s (a hang?): $*"
    fi
    sleep 0.1
  done
  wait "$pid"
}
show_waits() {  # show_waits PID...: each process's threads, their state and kernel wait; stacks where gdb is
  local p t
  for p in "$@"; do
    [[ -d /proc/$p ]] || continue
    echo "== process $p: $(tr '\0' ' ' < "/proc/$p/cmdline")"
    for t in /proc/"$p"/task/*; do
      echo "   thread $(basename "$t") $(cat "$t/comm" 2>/dev/null): state $(awk '{print $3}' "$t/stat" 2>/dev/null), waits in $(cat "$t/wchan" 2>/dev/null)"
    done
    if command -v gdb > /dev/null; then
      timeout 30 gdb -p "$p" -batch -ex "thread apply all bt 20" 2>/dev/null | grep -E "^(Thread|#)" || true
    fi
  done
}
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
