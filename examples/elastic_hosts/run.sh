#!/usr/bin/env bash
# Runs elastic_hosts.toml on three hosts of this machine (tools/cluster.sh:
# network namespaces h0, h1, h2; root needed), twice: as it is, and with
# h1's link cut after the first epoch and brought back once the others
# went on without it. Then prints the world's size over time, the host
# events, what the loss cost (recovery_by_mode) and both runs' accuracy.
#   examples/elastic_hosts/run.sh [DB]     (default results/elastic_hosts.db)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dtbench=${DTBENCH:-$root/build/bin/dtbench}
db=$(realpath -m "${1:-$root/results/elastic_hosts.db}")
mkdir -p "$(dirname "$db")"
[[ -d $root/data/mnist ]] || { echo "run.sh: no MNIST in data/mnist: run tools/fetch-datasets.sh first" >&2; exit 1; }
work=$(mktemp -d)
cluster=$work/cluster
trap '"$root/tools/cluster.sh" down "$cluster" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$root/tools/cluster.sh" up "$cluster" 3
printf '10.77.0.1:1\n10.77.0.2:1\n10.77.0.3:1\n' >"$work/hosts.txt"
on_h0() { "$root/tools/cluster.sh" on "$cluster" h0 "$@"; }
q() { "$dtbench" query "$db" "$1" --format csv | tail -n +2 | tr -d '\r'; }
run() {  # the matrix on the three hosts; its output in $work/$1.txt
  on_h0 "$dtbench" run "$here/elastic_hosts.toml" --db "$db" --set "launcher_args=$cluster/ssh" \
    --set "host_discovery=$here/discover.sh $work/hosts.txt" >"$work/$1.txt" 2>&1
}

echo "== the run as it is (no host lost)"
run clean || { cat "$work/clean.txt"; exit 1; }
grep "^\[run" "$work/clean.txt"

echo "== h1's link cut after the first epoch, back once the others went on"
next=$(( $(q "SELECT COALESCE(MAX(id), 0) FROM run") + 1 ))
run cut &
coordinator=$!
await() {  # await SQL WHAT: until SQL counts a row, for at most 2 minutes
  for _ in $(seq 600); do
    [[ $(q "$1" 2>/dev/null) -gt 0 ]] 2>/dev/null && return
    kill -0 "$coordinator" 2>/dev/null || { cat "$work/cut.txt"; echo "run.sh: the run ended before $2" >&2; exit 1; }
    sleep 0.2
  done
  echo "run.sh: no $2 after 2 minutes" >&2
  exit 1
}
await "SELECT COUNT(*) FROM epoch WHERE run_id = $next" "its first epoch"
"$root/tools/cluster.sh" link "$cluster" h1 down
await "SELECT COUNT(*) FROM world_change WHERE run_id = $next" "a new world without h1"
"$root/tools/cluster.sh" link "$cluster" h1 up
wait "$coordinator" || { cat "$work/cut.txt"; exit 1; }
grep "^\[run" "$work/cut.txt"

echo "== the world's size over time"
"$dtbench" query "$db" "SELECT run_id, generation, ROUND(at_s, 1) AS at_s, kind, world_size, cause
                        FROM world_change WHERE run_id = $next ORDER BY generation"
echo "== host events beside the ranks'"
"$dtbench" query "$db" "SELECT ROUND(at_s, 1) AS at_s, kind, detail FROM event WHERE run_id = $next
                        AND kind IN ('failure', 'blacklist', 'reset', 'recovered', 'host_added', 'join')
                        ORDER BY at_s"
echo "== what the lost host cost"
"$dtbench" query "$db" "SELECT mode, recoveries, ROUND(time_to_recover_s, 2) AS recover_s, lost_steps,
                        ROUND(samples_per_s_before) AS before, ROUND(samples_per_s_after) AS after,
                        hosts_blacklisted, hosts_added, world_size_min FROM recovery_by_mode"
echo "== test accuracy of the last epoch: the clean run, then the one that lost h1"
"$dtbench" query "$db" "SELECT e.run_id, e.test_accuracy, (SELECT COUNT(DISTINCT detail) FROM event
                        WHERE run_id = e.run_id AND kind = 'parameters') AS distinct_parameters
                        FROM epoch e WHERE e.run_id IN ($((next - 1)), $next)
                        AND e.epoch = (SELECT MAX(epoch) FROM epoch WHERE run_id = e.run_id)"
