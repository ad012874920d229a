#!/usr/bin/env bash
# dtbench project held against measurement beyond the test's one cell
# (tests/core/projection/shaped_network_test.sh): on 2 and 4 of
# tools/cluster.sh's hosts, every strategy, LeNet on every emulated profile
# and ResNet-18 (CIFAR stem, 3x8x8) on 100GbE's and InfiniBand HDR's. Per
# model a 1-rank profile; per model, host count and network a Gloo sweep of
# all-reduce, reduce-scatter and all-gather (the fitted network, each
# collective over its own fit) and the baseline on the unshaped
# network (the compute at that world size on these shared cores:
# --compute-speedup); then every strategy projected and run, and
# projection_error's error per cell printed. Root only (namespaces); about
# six minutes here.
#   bench/projection/check.sh [DTBENCH]      (from the repository root)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dtbench=$(realpath "${1:-$root/build/bin/dtbench}")
export DTBENCH_SWITCH=${DTBENCH_SWITCH:-$(dirname "$dtbench")/dtbench-switch}
scratch=$(mktemp -d)
cluster=$scratch/cluster
db=$scratch/check.db
trap '"$root/tools/cluster.sh" down "$cluster" >/dev/null 2>&1 || true; [[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
"$root/tools/cluster.sh" up "$cluster" 4 >/dev/null
on_h0() { "$root/tools/cluster.sh" on "$cluster" h0 "$@"; }
q() { "$dtbench" query "$db" "$1" --format csv | tail -n +2 | tr -d '\r'; }
matrix=$root/bench/projection/measured.toml
agent="--mca plm_rsh_agent $cluster/agent --map-by node"

lenet=(--set model=lenet --set 'dataset.synthetic.shape=[1, 28, 28]')
resnet=(--set model=resnet --set model.resnet.depth=18 --set model.resnet.stem=cifar
        --set 'dataset.synthetic.shape=[3, 8, 8]' --set max_steps_per_epoch=6)

# The model's 1-rank profile; prints its run id.
profile() {
  local name=$1
  shift
  "$dtbench" run "$matrix" --db "$db" "$@" --set world_size=1 --set strategy=allreduce --set launcher=local \
    --set 'network=""' --set 'interface=""' >/dev/null 2>&1 \
    || { echo "the $name profile failed" >&2; exit 1; }
  q "SELECT MAX(id) FROM run"
}

# One model on `hosts` hosts of `network`: the sweep, the compute at that
# world size, every strategy measured, and the projections stored.
cell() {
  local name=$1 hosts=$2 network=$3 largest=$4 profile_run=$5
  shift 5
  local where=(--set world_size="$hosts" --set "hostfile=$cluster/hostfile" --set "launcher_args=$agent")
  echo "== $name on $hosts hosts, $network" >&2
  on_h0 "$dtbench" comm --backend gloo --ranks "$hosts" --ops allreduce,reduce_scatter,allgather -b 4K \
    -e "$largest" -f 4 -w 3 -n 10 --launcher mpirun --hostfile "$cluster/hostfile" --launcher-args "$agent" --interface eth0 \
    --network "$network" --db "$db" >/dev/null 2>&1 || { echo "the sweep failed" >&2; return; }
  local sweep unshaped speedup
  sweep=$(q "SELECT MAX(id) FROM run WHERE strategy = 'sweep'")
  on_h0 "$dtbench" run "$matrix" --db "$db" "$@" "${where[@]}" --set strategy=allreduce --set network=none \
    >/dev/null 2>&1 || { echo "the unshaped run failed" >&2; return; }
  unshaped=$(q "SELECT MAX(id) FROM run")
  speedup=$(q "SELECT (SELECT AVG(forward_s + backward_s + optimizer_s) FROM step WHERE run_id = $profile_run
                       AND epoch = 2) / (SELECT MAX(c) FROM (SELECT AVG(forward_s + backward_s + optimizer_s) AS c
                       FROM step WHERE run_id = $unshaped AND epoch = 2 GROUP BY rank)) AS speedup")
  on_h0 "$dtbench" run "$matrix" --db "$db" "$@" "${where[@]}" --set network="$network" >/dev/null 2>&1 \
    || echo "some measured runs failed" >&2
  on_h0 "$dtbench" run "$matrix" --db "$db" "$@" "${where[@]}" --set network="$network" --set strategy=zero \
    --set 'strategy.zero.stage=[1, 2, 3]' >/dev/null 2>&1 || echo "some ZeRO runs failed" >&2
  "$dtbench" project --db "$db" --run "$profile_run" --fit-run "$sweep" --gpus "1,$hosts" \
    --compute-speedup "$speedup" --store >/dev/null 2>&1 || echo "the projection failed" >&2
  echo "   compute at $hosts ranks: $(printf '%.2f' "$speedup") x the profile's speed" >&2
}

lenet_run=$(profile lenet "${lenet[@]}")
resnet_run=$(profile resnet18 "${resnet[@]}")
for hosts in 2 4; do
  for network in 10gbe 25gbe 100gbe ib-hdr; do
    cell lenet "$hosts" "$network" 1M "$lenet_run" "${lenet[@]}"
  done
  # ResNet-18's 45 MB of gradients a step take seconds at 10GbE's and 25GbE's
  # emulated 12.5 and 31 MB/s: the two fastest profiles only.
  for network in 100gbe ib-hdr; do
    cell resnet18 "$hosts" "$network" 16M "$resnet_run" "${resnet[@]}"
  done
done

"$dtbench" query "$db" "
  SELECT e.model, e.gpus AS hosts, e.network, e.strategy, ROUND(e.projected_ms, 1) AS projected_ms,
         ROUND(e.measured_ms, 1) AS measured_ms, printf('%+.1f', 100 * e.error) AS error_pct
  FROM (SELECT pe.*, rm.model FROM projection_error pe JOIN run_model rm ON rm.run_id = pe.profile_run_id) e
  WHERE e.gpus > 1 ORDER BY e.model, e.gpus, e.network, e.strategy"
"$dtbench" query "$db" "
  SELECT rm.model, pe.gpus AS hosts, pe.network, COUNT(*) AS cells,
         printf('%.1f', 100 * AVG(ABS(pe.error))) AS mean_abs_error_pct,
         printf('%.1f', 100 * MAX(ABS(pe.error))) AS worst_pct,
         SUM(ABS(pe.error) <= 0.15) AS within_15_pct
  FROM projection_error pe JOIN run_model rm ON rm.run_id = pe.profile_run_id
  WHERE pe.gpus > 1 GROUP BY rm.model, pe.gpus, pe.network ORDER BY 1, 2, 3"
