#!/usr/bin/env bash
# The strategies' order on each emulated network (strategies.toml): two
# hosts of tools/cluster.sh, one LeNet rank each, Gloo; prints samples/s
# per network and strategy (mean of the 2 repeats) and each strategy's
# throughput over per-tensor allreduce's on the same network. Root only.
#   bench/network_profiles/strategies.sh [DTBENCH]   (from the repository root)
set -euo pipefail
# shellcheck source=two_hosts.sh
source "$(dirname "$0")/two_hosts.sh"
"$root/tools/cluster.sh" on "$cluster" h0 "$dtbench" run "$root/bench/network_profiles/strategies.toml" \
  --db "$scratch/s.db" --set "hostfile=$cluster/hostfile" \
  --set "launcher_args=--mca plm_rsh_agent $cluster/agent --map-by node" >/dev/null 2>&1
"$dtbench" query "$scratch/s.db" "
  WITH runs AS (
    SELECT n.profile, n.latency_us, s.strategy, s.samples_per_s, s.ms_per_step
    FROM run_summary s JOIN run_network n USING (run_id) WHERE s.status = 'ok'),
  means AS (
    SELECT profile, latency_us, strategy, AVG(samples_per_s) AS samples_per_s, AVG(ms_per_step) AS ms_per_step
    FROM runs GROUP BY profile, strategy)
  SELECT m.profile, m.strategy, round(m.samples_per_s) AS samples_per_s, round(m.ms_per_step, 1) AS ms_per_step,
         round(m.samples_per_s / a.samples_per_s, 2) AS of_allreduce
  FROM means m JOIN means a ON a.profile = m.profile AND a.strategy = 'allreduce'
  ORDER BY m.latency_us DESC, m.samples_per_s"
