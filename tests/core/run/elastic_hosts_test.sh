#!/usr/bin/env bash
# Elastic training across hosts that come and go, as horovodrun's elastic
# driver runs it: three hosts of tools/cluster.sh, one rank each, started by
# the ssh launcher, found by a discovery script that prints the lines of
# $scratch/hosts.txt (the test edits them). Checks:
#  - a host's link cut mid-run: its rank is stopped, the host blacklisted
#    (3-6 s), the run goes on with 2; the link back, the host returns with
#    the first discovery after its cool-down and its slot joins at a commit;
#    the run ends well, every member with the same parameters, its accuracy
#    within a point of the same matrix run without the cut, its world sizes
#    over time in SQL;
#  - discovery finds a third host mid-run (it joins at a commit) and drops
#    it again (its worker leaves at a commit, and ends);
#  - a host unreachable from the start: the first world forms without it;
#  - a discovery script that fails at the start fails the run, naming it;
# and after each, nothing runs on any host; the report's timelines mark
# the host events. Skips (77) where network
# namespaces cannot be made (not root, no iproute2).
#   elastic_hosts_test.sh DTBENCH REPO_ROOT
set -euo pipefail
dtbench=$1 root=$2
scratch=$(mktemp -d)
db=$scratch/hosts.db
# shellcheck source=../../support/run_test_lib.sh
source "$root/tests/support/run_test_lib.sh"
export TMPDIR=$scratch
# shellcheck source=../../support/cluster_test_lib.sh
source "$root/tests/support/cluster_test_lib.sh"

start_cluster 3
matrix=$root/tests/core/run/matrices/elastic_discovery.toml
cat >"$scratch/discover.sh" <<EOF
#!/bin/sh
cat "$scratch/hosts.txt"
EOF
chmod +x "$scratch/discover.sh"
all_hosts() { printf '10.77.0.1:1\n10.77.0.2:1\n10.77.0.3:1\n' >"$scratch/hosts.txt"; }
elastic=(--set "host_discovery=$scratch/discover.sh" --set "launcher_args=$cluster/ssh")
next_run() { [[ -f $db ]] && echo $(( $(q "SELECT COALESCE(MAX(id), 0) FROM run") + 1 )) || echo 1; }
# Waits until run $1 has a world change of kind $2 (at most $3 s), else fails.
await_change() {
  for _ in $(seq $(( $3 * 10 ))); do
    [[ $(q "SELECT COUNT(*) FROM world_change WHERE run_id = $1 AND kind = '$2'") -gt 0 ]] && return
    sleep 0.1
  done
  fail "run $1: no world change '$2' within $3 s"
}
# Every member at the end reported the same parameters (as many as $2).
same_parameters() {
  expect "SELECT COUNT(*) || ' ' || COUNT(DISTINCT detail) FROM event WHERE run_id = $1 AND kind = 'parameters'" \
    "$2 1" "run $1: the $2 members end with identical parameters"
}

echo "== the clean run: three hosts, none lost"
all_hosts
clean=$(next_run)
on_h0 "$dtbench" run "$matrix" --db "$db" "${elastic[@]}" > "$scratch/clean.txt" 2>&1 \
  || { cat "$scratch/clean.txt"; fail "the clean run failed"; }
[[ $(q "SELECT COUNT(*) FROM world_change WHERE run_id = $clean") == 0 ]] || {
  cat "$scratch/clean.txt"
  q "SELECT * FROM world_change WHERE run_id = $clean"
  fail "the clean run's world changed"
}
same_parameters "$clean" 3
nothing_left "clean"

echo "== h1's link is cut mid-run and comes back: h1 is blacklisted, then rejoins after its cool-down"
cut=$(next_run)
on_h0 "$dtbench" run "$matrix" --db "$db" "${elastic[@]}" > "$scratch/cut.txt" 2>&1 &
coordinator=$!
await_first_epoch "$cut" "cut"
"$root/tools/cluster.sh" link "$cluster" h1 down
await_change "$cut" reset 40
"$root/tools/cluster.sh" link "$cluster" h1 up
wait "$coordinator" || { cat "$scratch/cut.txt"; fail "the run that lost h1 failed"; }
expect "SELECT status FROM run WHERE id = $cut" ok "the run that lost h1 ended well"
expect "SELECT group_concat(kind || ' ' || world_size, ' / ') FROM (SELECT * FROM world_change WHERE run_id = $cut
        ORDER BY generation)" "reset 2 / join 3" "3 -> 2 ranks at the cut, back to 3 when h1 returns"
q "SELECT cause FROM world_change WHERE run_id = $cut AND kind = 'reset'" \
  | grep -q "rank 1 on h1 never joined the collective.*host 10.77.0.2 blacklisted for [3-6]\(\.[0-9]\)\? s" \
  || fail "the reset's cause names neither the lost rank's host nor its blacklisting"
expect "SELECT cause FROM world_change WHERE run_id = $cut AND kind = 'join'" "1 worker started on 10.77.0.2" \
  "the returning host's slot is filled"
expect "SELECT COUNT(*) FROM event WHERE run_id = $cut AND kind = 'host_added'
          AND detail LIKE '10.77.0.2 back after its cool-down%'" 1 "h1's return is an event"
# The blacklisting outlasts the cool-down the run gave it: the join comes after.
expect "SELECT (SELECT at_s FROM world_change WHERE run_id = $cut AND kind = 'join')
          - (SELECT at_s FROM event WHERE run_id = $cut AND kind = 'blacklist') >= 3 AS later" 1 "h1 back only after 3 s"
expect "SELECT epochs FROM (SELECT COUNT(*) AS epochs FROM epoch WHERE run_id = $cut)" 150 "every epoch trained"
same_parameters "$cut" 3
echo "test accuracy: $(q "SELECT test_accuracy FROM epoch WHERE run_id = $clean AND epoch = 150") without the cut, $(q "SELECT test_accuracy FROM epoch WHERE run_id = $cut AND epoch = 150") with it"
expect "SELECT ABS((SELECT test_accuracy FROM epoch WHERE run_id = $cut AND epoch = 150)
                 - (SELECT test_accuracy FROM epoch WHERE run_id = $clean AND epoch = 150)) <= 0.01 AS close" 1 \
  "the accuracy is within a point of the clean run's"
expect "SELECT hosts_blacklisted || ' ' || hosts_added || ' ' || world_size_min FROM recovery_by_mode" "1 1 2" \
  "recovery_by_mode counts the host events"
nothing_left "cut"

echo "== discovery finds h2 mid-run (its slot joins), then drops it (its worker leaves)"
printf '10.77.0.1:1\n10.77.0.2:1\n' >"$scratch/hosts.txt"
grow=$(next_run)
on_h0 "$dtbench" run "$matrix" --db "$db" "${elastic[@]}" > "$scratch/grow.txt" 2>&1 &
coordinator=$!
await_first_epoch "$grow" "grow"
all_hosts
await_change "$grow" join 20
sleep 2
printf '10.77.0.1:1\n10.77.0.2:1\n' >"$scratch/hosts.txt"
wait "$coordinator" || { cat "$scratch/grow.txt"; fail "the run whose hosts came and went failed"; }
expect "SELECT group_concat(kind || ' ' || world_size, ' / ') FROM (SELECT * FROM world_change WHERE run_id = $grow
        ORDER BY generation)" "start 2 / join 3 / leave 2" "2 hosts, then 3, then 2"
expect "SELECT COUNT(*) FROM event WHERE run_id = $grow AND kind = 'left'" 1 "the dropped host's worker left"
expect "SELECT COUNT(*) FROM recovery WHERE run_id = $grow" 0 "no failure, no rollback"
same_parameters "$grow" 2
nothing_left "grow"

echo "== h2 unreachable from the start: the first world forms without it"
all_hosts
"$root/tools/cluster.sh" link "$cluster" h2 down
start=$(next_run)
on_h0 "$dtbench" run "$matrix" --db "$db" "${elastic[@]}" --set epochs=10 --set "blacklist_cooldown_range=[]" \
  > "$scratch/start.txt" 2>&1 || { cat "$scratch/start.txt"; fail "the run without h2 failed"; }
"$root/tools/cluster.sh" link "$cluster" h2 up
expect "SELECT kind || ' ' || world_size || ' ' || from_step FROM world_change WHERE run_id = $start" "reset 2 0" \
  "the first world retried with 2 ranks"
q "SELECT cause FROM world_change WHERE run_id = $start" | grep -q "rank 2 on 10.77.0.3 exited with code 255.*host 10.77.0.3 blacklisted for the rest of the run" \
  || fail "the unreachable host is not named"
expect "SELECT COUNT(*) FROM epoch WHERE run_id = $start" 10 "every epoch trained"
same_parameters "$start" 2
nothing_left "start"

echo "== a discovery script that fails at the start fails the run, naming it"
printf '#!/bin/sh\necho "no scheduler here" >&2\nexit 2\n' >"$scratch/broken.sh"
chmod +x "$scratch/broken.sh"
on_h0 "$dtbench" run "$matrix" --db "$db" "${elastic[@]}" --set "host_discovery=$scratch/broken.sh" \
  > "$scratch/broken.txt" 2>&1 && fail "a run whose discovery failed passed"
q "SELECT error FROM run ORDER BY id DESC LIMIT 1" \
  | grep -q "host_discovery '$scratch/broken.sh' exited with code 2: no scheduler here (the run's first discovery)" \
  || { q "SELECT error FROM run ORDER BY id DESC LIMIT 1"; fail "the failed discovery is not named"; }
nothing_left "broken"

echo "== the report's timelines mark the host events beside the ranks'"
"$dtbench" report "$db" -o "$scratch/report.html" > /dev/null 2>&1 || fail "the html report failed"
for mark in "host blacklisted" "host found (or back after its cool-down)" "host gone: its workers leave" \
  "workers join (or the first world is smaller)" "first step after recovery"; do
  grep -qF "$mark" "$scratch/report.html" || fail "the timelines do not mark '$mark'"
done

echo "== every SQL block of docs/elastic.md runs on this store and returns rows"
docs_sql_runs "$root/docs/elastic.md" 5
echo "ok"
