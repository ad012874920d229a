# What the network benches share, sourced after `set -euo pipefail` with
# the bench's DTBENCH argument in $1: root, dtbench (and its switch),
# scratch, and $cluster, two hosts of tools/cluster.sh taken down with
# scratch when the bench exits.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dtbench=$(realpath "${1:-$root/build/bin/dtbench}")
export DTBENCH_SWITCH=${DTBENCH_SWITCH:-$(dirname "$dtbench")/dtbench-switch}
scratch=$(mktemp -d)
cluster=$scratch/cluster
trap '"$root/tools/cluster.sh" down "$cluster" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
"$root/tools/cluster.sh" up "$cluster" 2
