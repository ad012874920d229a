#!/usr/bin/env bash
# recovery = "elastic" (Horovod Elastic's way), against recovery = "restart"
# (torchrun's) under the same fault:
#   - matrices/elastic.toml: 3 ranks, rank 2 SIGKILLed before step 42 (mid
#     epoch 2): the 2 survivors roll back to the commit of step 40 and finish
#     in the same processes, ending with identical parameters and a test
#     accuracy within 1 point of the clean run; restart starts all 3 again;
#     the recovery tables and views say what each cost;
#   - matrices/elastic_join.toml: a worker asked for at step 6 joins a 2-rank
#     run at the commit of step 8 and gets rank 0's state (each inner
#     strategy); the new world trains what is left of the epoch as a whole
#     epoch of it would, its last step partial;
#   - matrices/elastic_bounds.toml: a hung rank is stopped and the survivors
#     go on; below min_np the run fails after elastic_timeout_s, naming why;
#     reset_limit ends a run that keeps failing; with every worker killed
#     the run fails at once, since nothing can join;
#   - what elastic cannot run on is refused before anything runs (an add
#     past max_np too);
#   - nothing is left running after any of them.
#   elastic_test.sh DTBENCH MATRIX_DIR DOCS_PAGE
set -euo pipefail
dtbench=$1 matrices=$2 page=$3
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
db=$scratch/e.db
# shellcheck source=../../support/run_test_lib.sh
source "$(dirname "$0")/../../support/run_test_lib.sh"
export TMPDIR=$scratch
# The cells' runs, by recovery mode and fault.
run_of() {  # run_of RECOVERY FAULT_KIND
  q "SELECT r.id FROM run r JOIN run_param a ON a.run_id = r.id AND a.key = 'recovery' AND a.value = '\"$1\"'
     JOIN run_param f ON f.run_id = r.id AND f.key = 'fault.kind' AND f.value = '\"$2\"'"
}

echo "== a killed rank: elastic goes on with the survivors, restart starts everyone again"
run_bounded 150 "$scratch/out.txt" "$dtbench" run "$matrices/elastic.toml" --db "$db" \
  || { rc=$?; cat "$scratch/out.txt"; fail "run exited with $rc"; }
grep -q "4 ok, 0 failed" "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "not every run succeeded"; }
grep -q ": reset 1: 3 -> 2 ranks, back to the commit of step 40, after rank 2 was killed by signal 9 (SIGKILL)" \
  "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "the reset is not shown as it happens"; }
grep -q ": ok after 1 reset (" "$scratch/out.txt" || fail "the outcome does not say it reset"
grep -q ": restart 1 of 3: from the checkpoint of step 40" "$scratch/out.txt" || fail "no restart"
elastic=$(run_of elastic kill) clean=$(run_of elastic none)
[[ -n $elastic && -n $clean ]] || fail "runs not found"
expect "SELECT mode || ':' || attempt || ':' || resumed_step || ':' || lost_steps || ':' || world_size
        FROM recovery WHERE run_id = $elastic" "elastic:1:40:2:2" "the reset: from the commit of step 40, 2 steps lost, 2 ranks"
expect "SELECT generation || ':' || kind || ':' || world_size || ':' || from_step FROM world_change
        WHERE run_id = $elastic" "1:reset:2:40" "the world change"
# The survivors went on without new processes: the ranks of the last steps,
# and no restart of any kind.
expect "SELECT group_concat(rank, ' ') FROM (SELECT DISTINCT rank FROM step WHERE run_id = $elastic AND step >= 40 ORDER BY rank)" \
  "0 1" "the steps after the reset are the survivors'"
expect "SELECT COUNT(*) FROM step WHERE run_id = $elastic AND rank = 2" 40 "the killed rank's steps before the commit are kept"
expect "SELECT COUNT(*) FROM (SELECT step FROM step WHERE run_id = $elastic AND rank = 0 GROUP BY step HAVING COUNT(*) > 1)" 0 \
  "a step stored twice"
# Epoch 2 after the reset: 10 steps at 3 ranks (480 positions of its
# order), then the 960 left make 960 / 2 / 16 = 30 steps at 2 ranks;
# epoch 3: 1440 / 2 / 16 = 45.
expect "SELECT group_concat(epoch || '=' || steps || '/' || samples, ' ') FROM (SELECT * FROM epoch WHERE run_id = $elastic ORDER BY epoch)" \
  "1=30/1440 2=40/1440 3=45/1440" "the epochs' steps and samples"
# An epoch's collectives and bytes are its own steps' (per rank), not the
# run's running totals: through a world change too (every epoch of the
# elastic runs; the clean restart run is one without a recovery).
expect "SELECT COUNT(*) FROM epoch e JOIN run r ON r.id = e.run_id
        JOIN run_param f ON f.run_id = r.id AND f.key = 'fault.kind'
        WHERE (f.value = '\"none\"' OR r.id = $elastic) AND e.collectives > 0
          AND e.collectives = (SELECT SUM(s.collectives) FROM step s WHERE s.run_id = e.run_id AND s.rank = 0 AND s.epoch = e.epoch)
          AND e.bytes_sent = (SELECT SUM(s.bytes_sent) FROM step s WHERE s.run_id = e.run_id AND s.rank = 0 AND s.epoch = e.epoch)" \
  9 "an epoch's collectives or bytes are not the sum of its steps'"
expect "SELECT COUNT(*) || ' ' || COUNT(DISTINCT detail) FROM event WHERE run_id = $elastic AND kind = 'parameters'" \
  "2 1" "the survivors end with identical parameters"
expect "SELECT COUNT(*) FROM epoch a JOIN epoch b ON a.epoch = b.epoch WHERE a.run_id = $elastic AND b.run_id = $clean
        AND a.epoch = 3 AND ABS(a.test_accuracy - b.test_accuracy) <= 0.01" 1 \
  "the elastic run's accuracy is more than 1 point from the clean run's"
expect "SELECT group_concat(kind || ':' || COALESCE(rank, '-'), ' ') FROM
          (SELECT kind, rank FROM event WHERE run_id = $elastic AND kind IN ('fault', 'failure', 'reset', 'recovered') ORDER BY at_s)" \
  "fault:2 failure:- reset:- recovered:0" "the events of a reset, in time order"
expect "SELECT group_concat(mode || ':' || recoveries || ':' || runs_ok || ':' || lost_steps || ':' || world_size_after, ' ')
        FROM (SELECT * FROM recovery_by_mode ORDER BY mode)" "elastic:1:1:2.0:2.0 restart:1:1:2.0:3.0" \
  "elastic against restart"
expect "SELECT COUNT(*) FROM recovery_by_mode WHERE mode = 'elastic' AND ABS(test_accuracy - clean_test_accuracy) <= 0.01" 1 \
  "the view's accuracy against the clean run"
expect "SELECT COUNT(*) FROM recovery_cost WHERE time_to_detect_s >= 0 AND time_to_recover_s > 0
        AND samples_per_s_before > 0 AND samples_per_s_after > 0" 2 "detection, recovery and throughput figures"
[[ $(workers_left) == 0 ]] || fail "workers left behind"

echo "== the report shows both recoveries, and each faulted run's throughput over time"
"$dtbench" report "$db" --format markdown -o "$scratch/report.md" > /dev/null 2>&1 || fail "report failed"
grep -q "| reset 1 | rank 2 was killed by signal 9 (SIGKILL) | 40 | 2 | 2 |" "$scratch/report.md" \
  || { cat "$scratch/report.md"; fail "no elastic reset in the report"; }
grep -q "| restart 1 | rank 2 was killed by signal 9 (SIGKILL) | 40 | 2 | 3 |" "$scratch/report.md" \
  || fail "no restart in the report"
"$dtbench" report "$db" -o "$scratch/report.html" > /dev/null 2>&1 || fail "html report failed"
[[ $(grep -o "repeat 0: throughput over time</text>" "$scratch/report.html" | wc -l) == 2 ]] \
  || fail "not one timeline per faulted run"
grep -q "first step after recovery" "$scratch/report.html" || fail "the timeline marks no recovery"

echo "== the SQL of $(basename "$page") runs on these results"
docs_sql_runs "$page" 2

echo "== a worker joins: 2 ranks become 3 at the next commit, with rank 0's state"
db=$scratch/j.db
run_bounded 120 "$scratch/j.txt" "$dtbench" run "$matrices/elastic_join.toml" --db "$db" \
  || { cat "$scratch/j.txt"; fail "join runs failed"; }
grep -q "3 ok, 0 failed" "$scratch/j.txt" || { cat "$scratch/j.txt"; fail "not every join run succeeded"; }
grep -q "a worker joins at the next commit: 2 -> 3 ranks" "$scratch/j.txt" || fail "the join is not shown"
expect "SELECT COUNT(*) FROM world_change WHERE kind = 'join' AND world_size = 3 AND from_step IS NULL" 3 "the joins"
expect "SELECT COUNT(*) FROM recovery" 0 "a join is no recovery"
# Rank 2 trains from step 8 on, each step once; all three end alike.
expect "SELECT group_concat(n, ' ') FROM (SELECT MIN(step) || '-' || MAX(step) || 'x' || COUNT(*) AS n FROM step
        WHERE rank = 2 GROUP BY run_id ORDER BY run_id)" "8-42x35 8-42x35 8-42x35" "the new worker's steps"
expect "SELECT COUNT(*) FROM (SELECT run_id FROM event WHERE kind = 'parameters' GROUP BY run_id
        HAVING COUNT(*) = 3 AND COUNT(DISTINCT detail) = 1)" 3 "the three ranks end with identical parameters"
# Epoch 1: 8 steps at 2 ranks (256 samples), then the 704 left make steps at
# 3 ranks as an epoch of 704 would: ceil(704 / 3) = 235 per rank (one
# position twice: the tail padded), ceil(235 / 16) = 15 steps, the last of
# 11 samples per rank, as the last batch of an epoch is (drop_last = false).
expect "SELECT DISTINCT steps || '/' || samples FROM epoch WHERE epoch = 1" "23/961" "the joined epoch"
expect "SELECT DISTINCT group_concat(samples, ' ') FROM (SELECT run_id, step, SUM(samples) AS samples FROM step
        WHERE epoch = 1 AND step >= 21 GROUP BY run_id, step ORDER BY run_id, step) GROUP BY run_id" "48 33" \
  "the new world's last step is partial"
expect "SELECT DISTINCT replace(detail, ',', ';') FROM event WHERE kind = 'recovered'" \
  "join to generation 1 (2 -> 3 ranks): from step 8; lr 0.003; step 8 done with 3 ranks" \
  "the learning rate scaled again for 3 ranks (lr_scaling = linear)"
[[ $(workers_left) == 0 ]] || fail "workers left behind"

echo "== a member dies while a worker joins: the joiner is not lost with it"
# Rank 1 is killed as soon as the join is decided: the members are then at
# (or near) the commit that lets the new worker in, which is still starting
# or meeting them. The joiner leaves the broken world as the members do, and
# the survivors' next world is rank 0 and the joiner: 2 ranks, min_np.
db=$scratch/jm.db
"$dtbench" run "$matrices/elastic_join.toml" --db "$db" --only strategy=bucketed --set epochs=4 \
  > "$scratch/jm.txt" 2>&1 &
coordinator=$!
for _ in $(seq 1500); do
  [[ -f $db ]] && [[ $(q "SELECT COUNT(*) FROM world_change WHERE kind = 'join'" 2>/dev/null || echo 0) -gt 0 ]] \
    && break
  sleep 0.02
done
pkill -9 -f "dtbench worker --spec $scratch/.* --rank 1 " || fail "no rank 1 to kill"
wait "$coordinator" || { cat "$scratch/jm.txt"; fail "the run that lost a member while a worker joined failed"; }
expect "SELECT group_concat(kind || ' ' || world_size, ' / ') FROM (SELECT * FROM world_change ORDER BY generation)" \
  "join 3 / reset 2" "rank 0 and the joiner go on"
expect "SELECT COUNT(*) || ' ' || COUNT(DISTINCT detail) FROM event WHERE kind = 'parameters'" "2 1" \
  "the two end with identical parameters"
[[ $(workers_left) == 0 ]] || fail "workers left behind"

echo "== a hung rank, min_np, reset_limit"
db=$scratch/b.db
started=$SECONDS
if run_bounded 120 "$scratch/b.txt" "$dtbench" run "$matrices/elastic_bounds.toml" --db "$db"; then
  cat "$scratch/b.txt"; fail "every bounded run passed"
fi
(( SECONDS - started < 90 )) || fail "the bounded runs took $((SECONDS - started)) s: a wait without its timeout"
grep -q "1 ok, 3 failed" "$scratch/b.txt" || { cat "$scratch/b.txt"; fail "expected 1 ok, 3 failed"; }
expect "SELECT status || ': ' || COALESCE(error, '') FROM run WHERE cell = 0" "ok: " "a hung rank is stopped and the survivors go on"
expect "SELECT cause || ' -> ' || r.world_size FROM recovery r JOIN run u ON u.id = r.run_id WHERE u.cell = 0" \
  "rank 1 never joined the collective (stopped or hung): the coordinator stopped it -> 2" "the hung rank's reset"
expect "SELECT replace(error, ',', ';') FROM run WHERE cell = 1" \
  "elastic: 2 workers left; below min_np = 3; and none joined within elastic_timeout_s = 1 s; after rank 1 never joined the collective (stopped or hung): the coordinator stopped it" \
  "below min_np"
expect "SELECT substr(error, 1, 32) FROM run WHERE cell = 2" "elastic: reset_limit = 2 reached" "reset_limit"
expect "SELECT COUNT(*) FROM recovery r JOIN run u ON u.id = r.run_id WHERE u.cell = 2" 2 "resets before the limit"
expect "SELECT substr(error, 1, 77) FROM run WHERE cell = 3" \
  "elastic: 3 resets in a row went back to the commit of step 8 and failed again" "a world that never gets on"
[[ $(workers_left) == 0 ]] || fail "workers left behind"

echo "== every worker gone: the run fails at once, not after elastic_timeout_s"
# Nothing can join a world with no member (a worker joins through a
# member's [fault] add): the coordinator says so instead of waiting 600 s.
db=$scratch/gone.db
"$dtbench" run "$matrices/long.toml" --db "$db" --set 'recovery="elastic"' --set min_np=1 --set world_size=3 \
  --set elastic_timeout_s=600 > "$scratch/gone.txt" 2>&1 &
coordinator=$!
for _ in $(seq 1 300); do
  if [[ -f $db ]] && [[ $(q "SELECT COUNT(*) FROM step" 2>/dev/null || echo 0) -gt 0 ]]; then break; fi
  sleep 0.1
done
[[ $(workers_left) == 3 ]] || { cat "$scratch/gone.txt"; fail "the elastic run did not start its 3 workers"; }
started=$SECONDS
pkill -9 -f "dtbench worker --spec $scratch"
wait "$coordinator" && fail "a run without workers passed"
(( SECONDS - started < 60 )) || fail "the coordinator waited $((SECONDS - started)) s for workers that cannot come"
# (The kills land one by one: the survivors of the first may form a world of
# 2 or 1 before they go too, so the world's size is not checked.)
expect "SELECT status || ': ' || substr(error, 1, 41) FROM run" \
  "failed: elastic: no worker left and none can join" "the run's end names why"
[[ $(workers_left) == 0 ]] || fail "workers left behind"

echo "== what elastic cannot run on is refused at its line"
refused() {  # refused SED_SCRIPT PATTERN NAME
  sed "$1" "$matrices/elastic_join.toml" > "$scratch/refused.toml"
  if "$dtbench" validate "$scratch/refused.toml" > "$scratch/r.txt" 2>&1; then fail "$3 accepted"; fi
  grep -q "$2" "$scratch/r.txt" || { cat "$scratch/r.txt"; fail "no clear error for $3"; }
}
refused 's/^backend = "gloo"/backend = "mpi"/' \
  'refused.toml:23:.*recovery = "elastic" needs a backend that can make a new communicator.*cannot (MPI cannot change its world)' mpi
refused 's/^strategy = .*$/strategy = "zero"/' "refused.toml:23:.*strategy 'zero' (cell 0) does not" zero
refused 's/^recovery = "elastic"/recovery = "elastic"\nlauncher = "mpirun"/' "launcher 'mpirun' (cell 0) cannot change" mpirun
refused 's/^recovery = "elastic"/recovery = "elastic"\nlauncher = "ssh"/' \
  'launcher = "ssh" (cell 0) starts ranks on the hosts of a hostfile: set hostfile' ssh_without_hostfile
refused 's/^recovery = "elastic"/recovery = "none"/' 'refused.toml:28:.*\[fault\] kind = "add" needs recovery = "elastic"' add
refused 's/^min_np = 2/min_np = 3/' "min_np = 3 is above world_size = 2" min_np
refused 's/^recovery = "elastic"/recovery = "elastic"\nhost_discovery = "cat hosts.txt"/' \
  'refused.toml:24:.*host_discovery finds the hosts of an elastic run across hosts (cell 0): it needs recovery = "elastic" and launcher = "ssh"' \
  discovery_without_ssh
refused 's/^recovery = "elastic"/recovery = "elastic"\nlauncher = "ssh"\nhost_discovery = "\/nowhere\/discover.sh"/' \
  'refused.toml:25:.*host_discovery = "/nowhere/discover.sh" (cell 0): /nowhere/discover.sh does not exist' \
  missing_discovery_script
refused 's/^recovery = "elastic"/recovery = "elastic"\nlauncher = "ssh"\nhostfile = "h"\nblacklist_cooldown_range = [10, 5]/' \
  'refused.toml:26:.*blacklist_cooldown_range takes \[low, high\] seconds with low <= high (cell 0)' cooldown_range
refused 's/^recovery = "elastic"/recovery = "elastic"\nblacklist_cooldown_range = [0, 5]/' \
  "refused.toml:24:.*'blacklist_cooldown_range'.*below the minimum 1" cooldown_range_bounds
refused 's/^min_np = 2/min_np = 2\nmax_np = 2/' \
  'refused.toml:29:.*\[fault\] kind = "add" would grow world_size = 2 past max_np = 2 (cell 0): raise max_np' add_past_max_np
echo "ok"
