#!/usr/bin/env bash
# Runs over several hosts, as on a cluster: tools/cluster.sh makes two hosts
# (network namespaces h0 and h1 on dtbench-switch, eth0 each), the coordinator
# runs on h0, and mpirun starts two ranks on each host through the
# cluster's agent (as it would through ssh), every transport on eth0
# (interface = "eth0"). Checks: a 2 hosts x 2 ranks matrix completes over
# Gloo (file store on the shared path) and over MPI, and over Gloo meeting
# through a Redis server on h0; each rank's host, local rank and address are
# stored; an interface a host lacks is an error naming the host, and so is
# a host name that does not resolve when no interface is named; a host
# whose link goes down mid-run is named with its ranks within the timeout,
# over both backends, and no rank is left running; the ssh launcher starts
# ranks through the cluster's ssh stand-in, and an elastic run on it goes
# on with h0's ranks when h1's link goes down. Skips (77) where network
# namespaces cannot be made (not root, no iproute2).
#   multihost_test.sh DTBENCH REPO_ROOT
set -euo pipefail
dtbench=$1 root=$2
scratch=$(mktemp -d)
db=$scratch/hosts.db
# shellcheck source=../../support/run_test_lib.sh
source "$root/tests/support/run_test_lib.sh"
export TMPDIR=$scratch
# shellcheck source=../../support/cluster_test_lib.sh
source "$root/tests/support/cluster_test_lib.sh"

start_cluster 2
hosts=(--set "hostfile=$cluster/hostfile" --set "launcher_args=--mca plm_rsh_agent $cluster/agent")

echo "== 2 hosts x 2 ranks over Gloo and over MPI, started by mpirun through the agent, on eth0"
on_h0 "$dtbench" run "$root/tests/core/run/matrices/two_hosts.toml" --db "$db" "${hosts[@]}" \
  > "$scratch/run.txt" 2>&1 || { cat "$scratch/run.txt"; fail "the two-host matrix failed"; }
expect "SELECT group_concat(backend || ':' || status, ' ') FROM (SELECT backend, status FROM run ORDER BY id)" \
  "gloo:ok mpi:ok" "both runs ok"
expect "SELECT group_concat(h.rank || '@' || h.host || '/' || h.local_rank || '/' || h.address, ' ')
        FROM rank_host h JOIN run r ON r.id = h.run_id WHERE r.backend = 'gloo' ORDER BY h.rank" \
  "0@h0/0/10.77.0.1 1@h0/1/10.77.0.1 2@h1/0/10.77.0.2 3@h1/1/10.77.0.2" "Gloo ranks' hosts"
expect "SELECT COUNT(*) FROM rank_host h JOIN run r ON r.id = h.run_id WHERE r.backend = 'mpi'
        AND h.host = 'h' || (h.rank / 2) AND h.local_rank = h.rank % 2" 4 "MPI ranks' hosts"
expect "SELECT COUNT(*) FROM run_param WHERE key = 'interface' AND value = '\"eth0\"'" 2 "interface stored"
expect "SELECT group_concat(DISTINCT interface) FROM rank_host" "eth0" "every rank's interface stored"
expect "SELECT COUNT(*) FROM epoch e JOIN run r ON r.id = e.run_id WHERE e.steps = 16 AND e.samples = 2048" 2 "every epoch ran (2048 samples, 16 steps of 4 x 32)"

if command -v redis-server >/dev/null; then
  echo "== Gloo's ranks meet through a Redis server on h0 (no shared directory needed)"
  # Reached from other hosts, Redis wants a password (or it stays in protected mode).
  port=$((20000 + RANDOM % 20000))
  redis=(redis-cli --no-auth-warning -h 10.77.0.1 -p "$port" -a multihost)
  on_h0 redis-server --port "$port" --bind 10.77.0.1 --requirepass multihost --save "" --appendonly no \
    --dir "$scratch" > "$scratch/redis.txt" 2>&1 &
  for _ in $(seq 50); do on_h0 "${redis[@]}" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
  on_h0 "$dtbench" run "$root/tests/core/run/matrices/two_hosts.toml" --db "$db" "${hosts[@]}" \
    --only backend=gloo --set "rendezvous_store=redis://:multihost@10.77.0.1:$port" > "$scratch/redis_run.txt" 2>&1 \
    || { cat "$scratch/redis_run.txt"; fail "the Redis run failed"; }
  [[ $(on_h0 "${redis[@]}" dbsize) -gt 0 ]] || fail "the ranks did not meet in Redis"
  on_h0 "${redis[@]}" shutdown nosave >/dev/null 2>&1 || true
else
  echo "(no redis-server here: the Redis case is not run; tools/install-deps.sh --tests installs it)"
fi

echo "== an interface a host lacks: the run fails naming it, the host and what the host has"
if on_h0 "$dtbench" run "$root/tests/core/run/matrices/two_hosts.toml" --db "$db" "${hosts[@]}" \
  --only backend=gloo --set interface=eth9 > "$scratch/bad.txt" 2>&1; then
  fail "a run on interface eth9 passed"
fi
q "SELECT error FROM run ORDER BY id DESC LIMIT 1" | grep -q 'interface = ""eth9"": no such interface on host h[01] (it has eth0, lo)' \
  || { q "SELECT error FROM run ORDER BY id DESC LIMIT 1"; fail "the missing interface is not named"; }

echo "== no interface named, and the hosts' names resolve nowhere: Gloo says so (libgloo would crash)"
if on_h0 "$dtbench" run "$root/tests/core/run/matrices/two_hosts.toml" --db "$db" "${hosts[@]}" \
  --only backend=gloo --set interface= > "$scratch/unresolved.txt" 2>&1; then
  fail "a run binding to names that do not resolve passed"
fi
q "SELECT error FROM run ORDER BY id DESC LIMIT 1" | grep -q "would bind to 'h[01]', which does not resolve on its host" \
  || { q "SELECT error FROM run ORDER BY id DESC LIMIT 1"; fail "the unresolvable host name is not said"; }

echo "== h1's link goes down mid-run: its ranks are named, the run ends within the timeout, no rank is left"
sed -e 's/^max_steps_per_epoch = .*/max_steps_per_epoch = 0/' -e 's/^epochs = .*/epochs = 5000/' \
    -e 's/^collective_timeout_s = .*/collective_timeout_s = 4/' \
    "$root/tests/core/run/matrices/two_hosts.toml" > "$scratch/long.toml"
for backend in gloo mpi; do
  run=$(( $(q "SELECT COALESCE(MAX(id), 0) FROM run") + 1 ))  # the id the next run gets
  on_h0 "$dtbench" run "$scratch/long.toml" --db "$db" "${hosts[@]}" --only "backend=$backend" \
    > "$scratch/cut_$backend.txt" 2>&1 &
  coordinator=$!
  await_first_epoch "$run" "$backend"  # cut the link once the ranks are training
  "$root/tools/cluster.sh" link "$cluster" h1 down
  cut=$(date +%s)
  wait "$coordinator" && fail "$backend: the run went on without h1"
  elapsed=$(( $(date +%s) - cut ))
  error=$(q "SELECT error FROM run ORDER BY id DESC LIMIT 1")
  echo "$backend, ended $elapsed s after the cut: $error"
  grep -q "ranks 2, 3 on h1 said nothing before the job ended (hung, or unreachable?); rank [01]: " <<<"$error" \
    || fail "$backend: h1 and its ranks are not named"
  (( elapsed < 40 )) || fail "$backend: the lost host took $elapsed s to end the run"
  nothing_left "$backend"
  "$root/tools/cluster.sh" link "$cluster" h1 up
  # What mpirun started on the lost host (its daemon) is beyond its reach; the test's host goes with it.
  for pid in $(ip netns pids "dtb$(cat "$cluster/id")-h1"); do kill -9 "$pid" 2>/dev/null || true; done
done
echo "== the ssh launcher: dtbench starts each rank on its host through a remote shell and watches it"
ssh_hosts=(--set launcher=ssh --set "hostfile=$cluster/hostfile" --set "launcher_args=$cluster/ssh")
on_h0 "$dtbench" run "$root/tests/core/run/matrices/two_hosts.toml" --db "$db" --only backend=gloo "${ssh_hosts[@]}" \
  > "$scratch/ssh.txt" 2>&1 || { cat "$scratch/ssh.txt"; fail "the ssh launcher's run failed"; }
expect "SELECT group_concat(h.rank || '@' || h.host || '/' || h.local_rank, ' ') FROM rank_host h
        WHERE h.run_id = (SELECT MAX(id) FROM run) ORDER BY h.rank" \
  "0@h0/0 1@h0/1 2@h1/0 3@h1/1" "the ssh launcher's ranks fill the hostfile's slots in order"

echo "== elastic across hosts: h1's link goes down mid-run, the ranks on h0 go on without it"
run=$(( $(q "SELECT MAX(id) FROM run") + 1 ))
on_h0 "$dtbench" run "$root/tests/core/run/matrices/elastic_hosts.toml" --db "$db" "${ssh_hosts[@]}" \
  > "$scratch/elastic.txt" 2>&1 &
coordinator=$!
await_first_epoch "$run" elastic
"$root/tools/cluster.sh" link "$cluster" h1 down
cut=$(date +%s)
for _ in $(seq 1200); do kill -0 "$coordinator" 2>/dev/null || break; sleep 0.1; done
kill -0 "$coordinator" 2>/dev/null && { kill "$coordinator"; fail "elastic: the run still runs 120 s after the cut"; }
wait "$coordinator" || { cat "$scratch/elastic.txt"; fail "the elastic run did not go on without h1"; }
elapsed=$(( $(date +%s) - cut ))
echo "ended $elapsed s after the cut: $(q "SELECT cause FROM recovery WHERE run_id = $run")"
expect "SELECT status || ' ' || (SELECT COUNT(*) FROM epoch WHERE run_id = $run) FROM run WHERE id = $run" \
  "ok 60" "the survivors trained every epoch"
expect "SELECT kind || ' ' || world_size FROM world_change WHERE run_id = $run" "reset 2" "one reset, to the 2 ranks on h0"
q "SELECT cause FROM recovery WHERE run_id = $run" \
  | grep -q "ranks 2, 3 on h1 never joined the collective (stopped, hung, or the host unreachable)" \
  || fail "the lost host and its ranks are not named"
"$root/tools/cluster.sh" link "$cluster" h1 up
nothing_left elastic

echo "== every SQL block of docs/cluster.md runs on this store and returns rows"
docs_sql_runs "$root/docs/cluster.md" 2
echo "ok"
