#!/usr/bin/env bash
# How faithful the emulated networks are: on tools/cluster.sh's two hosts,
# one rank each, `dtbench comm` sweeps Gloo's broadcast and allreduce
# (4 KiB to 4 MiB by 4) on every profile, three rounds interleaved, and
# prints each fit beside what the network applied: the fitted latency over
# the profile's one-way latency (Gloo's transport waits for the receiver's
# ready notice, so a broadcast costs 2 latencies, a 2-rank ring allreduce
# 4) and the fitted bandwidth over the link's. Root only (namespaces).
#   bench/network_profiles/fit.sh [DTBENCH]      (from the repository root)
set -euo pipefail
# shellcheck source=two_hosts.sh
source "$(dirname "$0")/two_hosts.sh"
for round in 1 2 3; do
  for profile in none 10gbe 25gbe 100gbe ib-hdr; do
    "$root/tools/cluster.sh" on "$cluster" h0 "$dtbench" comm --backend gloo --ranks 2 --ops broadcast,allreduce \
      -b 4K -e 4M -f 4 -w 3 -n 10 --launcher mpirun --hostfile "$cluster/hostfile" \
      --launcher-args "--mca plm_rsh_agent $cluster/agent --map-by node" --interface eth0 \
      --network "$profile" --name "round$round" --db "$scratch/fit.db" >/dev/null 2>&1 \
      || echo "round $round, $profile: the sweep failed" >&2
  done
done
"$dtbench" query "$scratch/fit.db" "
  SELECT n.profile, f.op, COUNT(*) AS rounds, n.latency_us AS link_us, n.link_gbps,
         printf('%.0f', AVG(f.latency_us)) AS fit_us,
         CASE WHEN n.latency_us > 0 THEN
           printf('%.2f', MIN(f.latency_us / (CASE f.op WHEN 'broadcast' THEN 2 ELSE 4 END * n.latency_us))) || '-' ||
           printf('%.2f', MAX(f.latency_us / (CASE f.op WHEN 'broadcast' THEN 2 ELSE 4 END * n.latency_us))) END
           AS fit_of_model,
         printf('%.4f', AVG(f.bus_gbps)) AS fit_gbps,
         CASE WHEN n.link_gbps > 0 THEN
           printf('%.2f', MIN(f.bus_gbps / n.link_gbps)) || '-' || printf('%.2f', MAX(f.bus_gbps / n.link_gbps)) END
           AS of_link
  FROM collective_fit f JOIN run_network n USING (run_id)
  GROUP BY n.profile, f.op ORDER BY n.latency_us DESC, f.op"
