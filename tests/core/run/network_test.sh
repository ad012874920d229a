#!/usr/bin/env bash
# Emulated networks on tools/cluster.sh's hosts (dtbench-switch between
# them): a broadcast sweep between two hosts on the 10gbe profile fits the
# profile's latency and bandwidth within 20 % — Gloo's transport sends a
# message once the receiver has said it is ready, so a broadcast costs two
# one-way latencies plus its bytes over the link's rate; a matrix crossing
# two profiles shapes the network before each run and stores what it
# applied; the switch holds the CPUs awake while it runs (PM QoS); a
# profile named where no network is emulated, or one that does not exist,
# is refused before anything runs. Skips (77) where network namespaces
# cannot be made.
#   network_test.sh DTBENCH REPO_ROOT
set -euo pipefail
dtbench=$1 root=$2
scratch=$(mktemp -d)
db=$scratch/networks.db
# shellcheck source=../../support/run_test_lib.sh
source "$root/tests/support/run_test_lib.sh"
export TMPDIR=$scratch
# shellcheck source=../../support/cluster_test_lib.sh
source "$root/tests/support/cluster_test_lib.sh"

within_20_percent() { awk -v got="$1" -v want="$2" 'BEGIN { r = got / want; exit !(r >= 0.8 && r <= 1.2) }'; }
# What the switch says of itself (`show`: profile, frames, late, dropped).
switch_show() {
  python3 - "$cluster/switch.sock" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(b"show\n")
print(s.recv(200).decode().strip())
PY
}
# A fit off the profile says what else was going on: a busy machine (the
# processes using the most CPU) or a switch that fell behind (late frames)
# reads differently from a model that is wrong.
machine_state() {
  echo "busiest processes: $(ps -eo pcpu=,comm= --sort=-pcpu | head -3 | awk '{printf "%s%% %s; ", $1, $2}')switch: $(switch_show)"
}

echo "== outside the cluster a profile is refused before anything runs"
if "$dtbench" comm --network 25gbe --db "$db" > "$scratch/outside.txt" 2>&1; then fail "a sweep on 25gbe ran without a cluster"; fi
grep -q 'network = "25gbe" needs the emulated network of tools/cluster.sh' "$scratch/outside.txt" \
  || { cat "$scratch/outside.txt"; fail "the missing emulated network is not explained"; }
[[ ! -e $db ]] || fail "a refused sweep created the store"
if "$dtbench" comm --network 40gbe --db "$db" > "$scratch/unknown.txt" 2>&1; then fail "profile 40gbe was taken"; fi
grep -q "no profile '40gbe' (none, 10gbe, 25gbe, 100gbe, ib-hdr)" "$scratch/unknown.txt" \
  || { cat "$scratch/unknown.txt"; fail "an unknown profile is not named with the known ones"; }

start_cluster 2
# The switch holds the CPUs awake while it runs (a PM QoS request of 0 us):
# on a VM, CPUs left to halt between frames add hundreds of microseconds to
# every millisecond-long delay. The file reads the strictest request held.
if [[ -r /dev/cpu_dma_latency ]]; then
  held=$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ') || fail "cannot read /dev/cpu_dma_latency"
  [[ $held == 0 ]] || fail "the switch does not hold the CPUs awake (/dev/cpu_dma_latency reads $held)"
else
  echo "== no /dev/cpu_dma_latency here: the switch's hold on the CPUs not checked"
fi
launch=(--launcher mpirun --hostfile "$cluster/hostfile" --launcher-args "--mca plm_rsh_agent $cluster/agent --map-by node")

echo "== a broadcast sweep between two hosts on 10gbe fits the profile"
# The fit is a measurement on a shared 2-core machine: a neighbour that
# takes a core for a second inflates the mean time of the small sizes and so
# the latency (one CI run fitted 5,704 us with the switch starved at 164 %
# CPU). A sweep off the profile is taken again, up to three times, each
# attempt printed with what the machine was doing; a wrong model misses on
# every attempt. Only the sweep that fits stays in the store.
fitted=""
for attempt in 1 2 3; do
  rm -f "$db"
  on_h0 "$dtbench" comm --backend gloo --ranks 2 --ops broadcast -b 4K -e 1M -f 4 -w 3 -n 20 "${launch[@]}" \
    --interface eth0 --network 10gbe --db "$db" > "$scratch/sweep.txt" 2>&1 \
    || { cat "$scratch/sweep.txt"; fail "the shaped sweep failed"; }
  grep '^# Network\|^# Fit' "$scratch/sweep.txt"
  grep -q '^# Network 10gbe (10 Gigabit Ethernet, TCP), emulated 100x slower: 2000 us one way, 0.0125 GB/s per link (published: 20 us, 1.25 GB/s)$' \
    "$scratch/sweep.txt" || fail "the sweep does not say its network"
  fit=$(sed -n 's/^# Fit t = a + bus bytes \/ B: a = \([0-9.]*\) us, B = \([0-9.]*\) GB\/s (gloo broadcast.*/\1 \2/p' "$scratch/sweep.txt")
  read -r latency bandwidth <<<"$fit"
  if within_20_percent "$latency" 4000 && within_20_percent "$bandwidth" 0.0125; then
    fitted=yes
    break
  fi
  echo "attempt $attempt: latency $latency us (want 4000 +- 20 %), bandwidth $bandwidth GB/s (want 0.0125 +- 20 %); $(machine_state)"
done
[[ -n $fitted ]] || fail "three sweeps on 10gbe missed the profile's 2 x 2000 us and 0.0125 GB/s by more than 20 % (last: $latency us, $bandwidth GB/s)"
# The store holds the same: the fit (collective_fit) beside what the network applied.
expect "SELECT n.profile || ' ' || n.latency_us || ' ' || n.link_gbps || ' ' || n.time_scale FROM run_network n" \
  "10gbe 2000.0 0.0125 100.0" "the sweep's network stored"
ratio=$(q "SELECT f.bus_gbps / n.link_gbps FROM collective_fit f JOIN run_network n USING (run_id)")
within_20_percent "$ratio" 1 || fail "the stored fit's bandwidth is $ratio of the link's"

echo "== one matrix across two profiles: each run shaped and stored as it ran"
on_h0 "$dtbench" run "$root/tests/core/run/matrices/networks.toml" --db "$db" \
  --set "hostfile=$cluster/hostfile" --set "launcher_args=--mca plm_rsh_agent $cluster/agent --map-by node" \
  > "$scratch/matrix.txt" 2>&1 || { cat "$scratch/matrix.txt"; fail "the matrix across networks failed"; }
expect "SELECT group_concat(entry, ' ') FROM (
          SELECT trim(p.value, '\"') || ':' || r.status || ':' || n.profile AS entry
          FROM run r JOIN run_param p ON p.run_id = r.id AND p.key = 'network' JOIN run_network n ON n.run_id = r.id
          WHERE r.strategy = 'allreduce' ORDER BY r.id)" \
  "ib-hdr:ok:ib-hdr none:ok:none" "both runs, each on its network"
expect "SELECT COUNT(DISTINCT h.host) FROM rank_host h JOIN run r ON r.id = h.run_id WHERE r.strategy = 'allreduce'" \
  2 "one rank on each host"
# The last run left the network unshaped, as its cell asked.
switch_show | grep -q '^none 0 0 ' || fail "the switch is not unshaped after the last run"

echo "== every SQL block of docs/networks.md runs on this store and returns rows"
docs_sql_runs "$root/docs/networks.md" 2
echo "ok"
