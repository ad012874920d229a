#!/usr/bin/env bash
# The store's disk fills in the middle of a run: the run stops with an error
# that names the store and the cause, keeps every step already stored,
# leaves no worker and no scratch directory, and reads 'interrupted' once
# there is room again. Uses a 1 MiB tmpfs; skips (77) where it cannot mount one.
#   full_disk_test.sh DTBENCH MATRIX_DIR
set -euo pipefail
dtbench=$1 matrices=$2
scratch=$(mktemp -d)
disk=$scratch/disk
mkdir "$disk" "$scratch/tmp"
mount -t tmpfs -o size=1m tmpfs "$disk" 2>/dev/null || { rm -rf "$scratch"; echo "SKIP: cannot mount a tmpfs here"; exit 77; }
trap 'umount "$disk" 2>/dev/null || true; rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { "$dtbench" query "$1" "$2" --format csv | tail -n +2 | tr -d '\r'; }
export TMPDIR=$scratch/tmp

if timeout 120 "$dtbench" run "$matrices/long.toml" --db "$disk/r.db" > "$scratch/out.txt" 2>&1; then
  fail "a run on a full disk passed"
fi
cat "$scratch/out.txt"
grep -q "dtbench: error: storing run 1 failed: $disk/r.db: database or disk is full (free space on its disk and run again); everything stored before is kept" \
  "$scratch/out.txt" || fail "the error does not name the store and the cause"
sleep 1
! pgrep -f "dtbench worker --spec $TMPDIR" >/dev/null || fail "workers outlived the coordinator"
[[ -z $(ls "$TMPDIR") ]] || fail "scratch left behind: $(ls "$TMPDIR")"

mount -o remount,size=64m "$disk"  # room again
# As if the next writer came 20 s later: a run whose coordinator is gone is
# marked once it also missed three heartbeats.
python3 - "$disk/r.db" <<'PY'
import datetime, sqlite3, sys
at = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=20)
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE run SET heartbeat_at = ?", (at.strftime("%Y-%m-%dT%H:%M:%S.000Z"),))
db.commit()
PY
"$dtbench" upgrade "$disk/r.db" >/dev/null
[[ $(q "$disk/r.db" "SELECT status FROM run") == interrupted ]] || fail "the run does not read interrupted"
steps=$(q "$disk/r.db" "SELECT COUNT(*) FROM step")
echo "$steps steps kept"
(( steps > 0 )) || fail "the steps stored before the disk filled were lost"
[[ $(q "$disk/r.db" "PRAGMA integrity_check") == ok ]] || fail "the store is damaged"
echo "PASS"
