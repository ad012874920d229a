# What the tests on tools/cluster.sh's hosts share, sourced after they set
# `dtbench` (the one under test), `root` (the repository) and `scratch`
# (their temporary folder):
#   start_cluster N   N hosts in $scratch/cluster ($cluster); skips the test
#                     (77) where this machine cannot make a network
#                     namespace at all, fails it when it can and
#                     tools/cluster.sh still does not
# Sourcing it arranges that the cluster is taken down, and $scratch removed
# unless KEEP is set, when the test exits.
#   on_h0 COMMAND...  runs COMMAND on host h0
#   await_first_epoch RUN NAME   waits until run RUN stored an epoch (its
#                     ranks train), else fails naming NAME (run_test_lib's q)
#   ranks_left        dtbench workers still running on any host of the cluster
#   nothing_left NAME waits up to 10 s for ranks_left to be 0, else fails naming NAME
cluster=$scratch/cluster
# The cluster's network is the switch built with the dtbench under test.
export DTBENCH_SWITCH=${DTBENCH_SWITCH:-$(dirname "$dtbench")/dtbench-switch}
# Open MPI's own allocations at exit are not ours to report (as for run_test.sh's MPI cases).
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
can_make_namespaces() {
  [[ $(id -u) -eq 0 ]] && command -v ip >/dev/null && command -v nsenter >/dev/null &&
    ip netns add "dtbprobe$$" 2>/dev/null && ip netns delete "dtbprobe$$"
}
cleanup_cluster() {
  "$root/tools/cluster.sh" down "$cluster" >/dev/null 2>&1 || true
  [[ -n ${KEEP:-} ]] || rm -rf "$scratch"
}
trap cleanup_cluster EXIT
start_cluster() {
  can_make_namespaces || { echo "SKIP: this machine cannot make network namespaces (root and iproute2 needed)"; exit 77; }
  "$root/tools/cluster.sh" up "$cluster" "$1" || fail "tools/cluster.sh could not make the hosts"
}
on_h0() { "$root/tools/cluster.sh" on "$cluster" h0 "$@"; }
await_first_epoch() {
  for _ in $(seq 600); do
    [[ $(q "SELECT COUNT(*) FROM epoch WHERE run_id = $1") -gt 0 ]] && return
    sleep 0.1
  done
  fail "$2: no epoch after 60 s"
}
ranks_left() {
  local ns count=0
  for ns in $(ip netns list | awk '{print $1}' | grep "^dtb$(cat "$cluster/id")-"); do
    count=$((count + $(ip netns pids "$ns" | xargs -r ps -o args= -p | grep -c "dtbench worker" || true)))
  done
  echo "$count"
}
nothing_left() {
  for _ in $(seq 100); do [[ $(ranks_left) == 0 ]] && return; sleep 0.1; done
  fail "$1: dtbench workers left running"
}
