#!/usr/bin/env bash
# A coordinator killed with SIGKILL in the middle of a run: its workers die
# with it, its scratch directory is removed (scratch_reaper.h), and the run
# reads 'interrupted', with the reason, once the store is next opened for
# writing — and in the views once its heartbeat is two minutes old.
#   interrupted_test.sh DTBENCH MATRIX_DIR
set -euo pipefail
dtbench=$1 matrices=$2
scratch=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { "$dtbench" query "$1" "$2" --format csv | tail -n +2 | tr -d '\r'; }
export TMPDIR=$scratch/tmp  # the runs' scratch directories go here
mkdir "$TMPDIR"
db=$scratch/r.db

echo "== kill -9 the coordinator while its ranks train"
"$dtbench" run "$matrices/long.toml" --db "$db" > "$scratch/out.txt" 2>&1 &
coordinator=$!
for _ in $(seq 1 300); do  # up to 30 s for both ranks to be training
  if [[ -f $db ]] && [[ $(q "$db" "SELECT COUNT(*) FROM step" 2>/dev/null || echo 0) -gt 0 ]]; then break; fi
  sleep 0.1
done
[[ $(q "$db" "SELECT status FROM run") == running ]] || { cat "$scratch/out.txt"; fail "the run never started"; }
ls "$TMPDIR" | grep -q "^run-" || fail "no scratch directory while running"
kill -9 "$coordinator"
wait "$coordinator" 2>/dev/null || true
for _ in $(seq 1 50); do  # the reaper and the workers' death signal act at once; allow 5 s
  [[ -z $(ls "$TMPDIR") ]] && ! pgrep -f "dtbench worker --spec $TMPDIR" >/dev/null && break
  sleep 0.1
done
[[ -z $(ls "$TMPDIR") ]] || fail "scratch left behind: $(ls "$TMPDIR")"
! pgrep -f "dtbench worker --spec $TMPDIR" >/dev/null || fail "workers outlived their coordinator"

echo "== kill -9 the coordinator of an MPI run: Open MPI's scratch goes with the run's"
# mpirun killed with its coordinator leaves its session directory
# (ompi.HOST.UID/pid.N/: segments and a FIFO) and its shared-memory segments
# behind; dtbench puts both where a reaper removes them (job_launcher.cpp).
mpi_db=$scratch/mpi.db
"$dtbench" run "$matrices/long.toml" --db "$mpi_db" --set 'backend="mpi"' > "$scratch/mpi.txt" 2>&1 &
mpi_coordinator=$!
for _ in $(seq 1 300); do
  if [[ -f $mpi_db ]] && [[ $(q "$mpi_db" "SELECT COUNT(*) FROM step" 2>/dev/null || echo 0) -gt 0 ]]; then break; fi
  sleep 0.1
done
[[ $(q "$mpi_db" "SELECT status FROM run") == running ]] || { cat "$scratch/mpi.txt"; fail "the MPI run never started"; }
# An MPI run's directory is beside its store (its ranks may be on other hosts).
rendezvous=$scratch/.dtbench-rendezvous
mpirun_args=$(pgrep -a -f "mpirun .*--spec $rendezvous/" || true)
shm=$(grep -o '/dev/shm/dtbench-mpi-[A-Za-z0-9]*' <<<"$mpirun_args" | head -1 || true)
[[ -n $shm && -d $shm ]] || fail "mpirun has no shared-memory directory of dtbench's: $mpirun_args"
compgen -G "$rendezvous/run-*/ompi.*" >/dev/null || fail "Open MPI's session directory is not under the run's: $(ls -R "$rendezvous" | head)"
kill -9 "$mpi_coordinator"
wait "$mpi_coordinator" 2>/dev/null || true
for _ in $(seq 1 100); do  # mpirun dies with its parent, its ranks with it: allow 10 s
  [[ -z $(ls "$rendezvous") && ! -e $shm ]] && ! pgrep -f "dtbench worker --spec $rendezvous" >/dev/null && break
  sleep 0.1
done
[[ -z $(ls "$rendezvous") ]] || fail "scratch left behind: $(ls -R "$rendezvous" | head)"
[[ ! -e $shm ]] || fail "Open MPI's shared memory left behind: $(ls "$shm")"
! pgrep -f "dtbench worker --spec $rendezvous" >/dev/null || fail "MPI workers outlived their coordinator"

echo "== the next writer marks the run interrupted, with the reason, once it missed three beats"
[[ $(q "$db" "SELECT status FROM run") == running ]] || fail "a reader changed the status"
beat() {  # sets the run's last heartbeat to SECONDS ago
  python3 - "$db" "$1" <<'PY'
import datetime, sqlite3, sys
at = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=int(sys.argv[2]))
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE run SET heartbeat_at = ?", (at.strftime("%Y-%m-%dT%H:%M:%S.000Z"),))
db.commit()
PY
}
# A pid gone is not enough while the heartbeat is fresh (another pid
# namespace under the same host name would look like this).
beat 0
"$dtbench" upgrade "$db" >/dev/null
[[ $(q "$db" "SELECT status FROM run") == running ]] || fail "marked with a fresh heartbeat"
beat 20
"$dtbench" upgrade "$db" >/dev/null
status=$(q "$db" "SELECT status || ': ' || error FROM run")
echo "$status"
grep -Eq "^interrupted: its coordinator \(pid $coordinator on .*\) is gone; last heartbeat 20" <<<"$status" \
  || fail "not marked interrupted"
[[ $(q "$db" "SELECT COUNT(*) FROM step") -gt 0 ]] || fail "the steps stored before the kill were lost"

echo "== readers show a run without a heartbeat for two minutes as interrupted"
python3 - "$db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE run SET status = 'running', error = NULL, coordinator_host = 'elsewhere', "
           "heartbeat_at = '2026-01-01T00:00:00.000Z'")
db.commit()
PY
[[ $(q "$db" "SELECT status FROM run_summary") == interrupted ]] || fail "the view still says running"
"$dtbench" runs "$db" | grep -q "interrupted" || fail "runs does not show it"
# A writer on another host marks it too, from the heartbeat alone.
"$dtbench" upgrade "$db" >/dev/null
q "$db" "SELECT status || ': ' || error FROM run" | grep -q "^interrupted: no heartbeat from its coordinator on elsewhere since 2026-01-01" \
  || fail "the heartbeat rule did not mark it"
echo "PASS"
