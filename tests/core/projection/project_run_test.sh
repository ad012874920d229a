#!/usr/bin/env bash
# dtbench project --run, as a user runs it: a 1-rank run of an MLP stores
# when each of its gradients became ready (in backward's order, every
# parameter once, their bytes the model's), and its step is projected to a
# system file's GPUs under every strategy: 1 GPU is the measured step at
# efficiency 1, more GPUs cost the baseline efficiency; a system file's
# throughput for the model sets one GPU's step; --store keeps the rows
# (a second projection replaces them) and the report draws them; a run
# without gradient times is refused with what to do.
#   project_run_test.sh DTBENCH PLUGIN_DIR SYSTEM_FILE
set -euo pipefail
dtbench=$1 plugins=$2 system=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { "$dtbench" query "$scratch/r.db" "$1" --format csv | tail -n +2 | tr -d '\r'; }

cat > "$scratch/profile.toml" <<'TOML'
[experiment]
name = "profile"
[run]
model = "mlp"
dataset = "synthetic"
strategy = "allreduce"
backend = "gloo"
world_size = 1
batch_size = 32
epochs = 2
[dataset.synthetic]
train_samples = 320
test_samples = 64
TOML
"$dtbench" --plugin-path "$plugins" run "$scratch/profile.toml" --db "$scratch/r.db" > "$scratch/run.txt" 2>&1 ||
  { cat "$scratch/run.txt"; fail "the profiling run failed"; }

# Every parameter once, as many bytes as the model's parameters, the
# output layer's ready first and the input layer's last.
[[ $(q "SELECT COUNT(*), COUNT(DISTINCT param) FROM gradient_ready") == "6,6" ]] ||
  fail "not one row per parameter: $(q "SELECT COUNT(*), COUNT(DISTINCT param) FROM gradient_ready")"
[[ $(q "SELECT SUM(g.bytes) = m.param_bytes FROM gradient_ready g JOIN memory m USING (run_id, rank)") == 1 ]] ||
  fail "the gradients' bytes are not the model's"
order=$(q "SELECT group_concat(layer, '') FROM (SELECT layer FROM gradient_ready ORDER BY ready_s, param)")
[[ $order == 221100 ]] || fail "gradients not in backward's order: layers $order"
[[ $(q "SELECT MIN(steps) >= 19 AND MAX(ready_s) <= MAX(backward_s) FROM gradient_ready") == 1 ]] ||
  fail "the times are not averaged over the steps, within backward"

"$dtbench" project --system "$system" --db "$scratch/r.db" --run 1 --gpus 1,4,64 > "$scratch/p.txt" 2>&1 ||
  { cat "$scratch/p.txt"; fail "dtbench project --run failed"; }
cat "$scratch/p.txt"
grep -q "^# run 1: mlp on synthetic, allreduce at 1 rank (cpu): a rank's step of 32 samples" "$scratch/p.txt" ||
  fail "no description of the run"
for strategy in allreduce bucketed fusion zero-1 zero-2 zero-3; do
  [[ $(grep -c "^$strategy " "$scratch/p.txt") == 3 ]] || fail "$strategy is not projected at 3 GPU counts"
done
awk '$2 == 1 && $1 != "fusion" && ($6 != "1.00" || $7 != "1.000" || $8 != "0.000") { exit 1 }' "$scratch/p.txt" ||
  fail "1 GPU is not the measured step"
awk '$1 == "allreduce" && $2 == 64 && ($7 >= 1 || $8 <= 0) { exit 1 }' "$scratch/p.txt" ||
  fail "64 GPUs cost the baseline nothing"

# One GPU of a system that trains the MLP at 5,000 samples/s: the step is
# 32 / 5,000 s, every phase in proportion; stored, and stored again.
sed '/^\[system.throughput\]/a mlp = 5000' "$system" > "$scratch/system.toml"
grep -q "^mlp = 5000" "$scratch/system.toml" || fail "the test's system file has no throughput for mlp"
for time in first second; do
  "$dtbench" project --system "$scratch/system.toml" --db "$scratch/r.db" --run 1 --gpus 1,4,8 --store \
    > "$scratch/s.txt" 2>&1 || { cat "$scratch/s.txt"; fail "dtbench project --store failed"; }
done
cat "$scratch/s.txt"
grep -q "^# target: one GPU trains mlp at 5000 samples/s (the system file's throughput)" "$scratch/s.txt" ||
  fail "the target line does not say where one GPU's step came from"
awk '$1 == "bucketed" && $2 == 1 && ($4 < 6.39 || $4 > 6.41 || $5 < 4999 || $5 > 5001) { exit 1 }' \
  "$scratch/s.txt" || fail "one GPU's step is not 32 samples at 5,000 samples/s"
[[ $(q "SELECT COUNT(*), COUNT(DISTINCT strategy), MIN(ref_gpus), MAX(gpus) FROM projection") == "18,6,1,8" ]] ||
  fail "not 6 strategies x 3 GPU counts stored once: $(q "SELECT COUNT(*), COUNT(DISTINCT strategy) FROM projection")"
[[ $(q "SELECT COUNT(*) FROM projection WHERE gpus = 1 AND strategy <> 'fusion' AND ABS(efficiency - 1) > 1e-9") == 0 ]] ||
  fail "a stored projection at 1 GPU is not at efficiency 1"
"$dtbench" report "$scratch/r.db" -o "$scratch/report.html" > /dev/null 2>&1 || fail "dtbench report failed"
grep -q "mlp: parallel efficiency projected to JUWELS Booster from run 1, beside the measured" "$scratch/report.html" ||
  fail "the report does not draw the projection"

# The same projection with SimGrid pricing the collectives: stored beside
# the closed forms' (its own target), and equal to them on one node, where
# no link is shared and every schedule's formula holds.
if "$dtbench" project --system "$scratch/system.toml" --db "$scratch/r.db" --run 1 --gpus 1,4,8 --store \
  --network-model simgrid > "$scratch/g.txt" 2>&1; then
  cat "$scratch/g.txt"
  grep -q "^# target: .*; network by SimGrid" "$scratch/g.txt" || fail "the target does not say SimGrid priced it"
  [[ $(q "SELECT COUNT(*) FROM projection WHERE target LIKE '%network by SimGrid'") == 18 ]] ||
    fail "the simulated projection is not stored beside the closed forms'"
  [[ $(q "SELECT COUNT(*) FROM projection") == 36 ]] || fail "the simulated projection replaced the closed forms'"
  [[ $(q "SELECT COUNT(*) FROM projection f JOIN projection g ON g.strategy = f.strategy AND g.gpus = f.gpus
          AND g.target LIKE '%SimGrid' AND f.target NOT LIKE '%SimGrid'
          WHERE f.gpus = 4 AND ABS(g.step_s - f.step_s) <= 1e-6 * f.step_s") == 6 ]] ||
    fail "on one node SimGrid's step is not the closed forms'"
elif grep -q "built without SimGrid" "$scratch/g.txt"; then
  echo "skipped the SimGrid projection: $(cat "$scratch/g.txt")"
else
  cat "$scratch/g.txt"
  fail "dtbench project --network-model simgrid failed"
fi

# A schedule with its plugin's parameters: DDP with buckets of 10 KiB
# issues one all-reduce per gradient here, as the baseline does, but
# during backward.
"$dtbench" project --system "$system" --db "$scratch/r.db" --run 1 --gpus 64 \
  --strategy allreduce,bucketed:bucket_cap_mb=0.01:first_bucket_mb=0.01 > "$scratch/b.txt" 2>&1 ||
  { cat "$scratch/b.txt"; fail "a schedule with parameters was refused"; }
grep -q "^bucketed:bucket_cap_mb=0.01:first_bucket_mb=0.01 " "$scratch/b.txt" ||
  fail "the schedule is not named with its parameters: $(cat "$scratch/b.txt")"
awk '$1 == "allreduce" { base = $4 } $1 ~ /^bucketed:/ { small = $4 } END { exit !(small < base) }' "$scratch/b.txt" ||
  fail "small buckets during backward are not faster than the baseline's after it"

"$dtbench" project --system "$system" --db "$scratch/r.db" --run 1 --strategy bucketed,zero-9 > "$scratch/e.txt" 2>&1 &&
  fail "an unknown strategy was projected"
grep -q "no schedule for strategy 'zero-9'; projected are allreduce, bucketed, fusion, zero-1, zero-2, zero-3" \
  "$scratch/e.txt" || fail "the unknown strategy is not named: $(cat "$scratch/e.txt")"
sqlite3 "$scratch/r.db" "DELETE FROM gradient_ready" 2>/dev/null ||
  python3 -c "import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute('DELETE FROM gradient_ready'); d.commit()" "$scratch/r.db"
"$dtbench" project --system "$system" --db "$scratch/r.db" --run 1 > "$scratch/e.txt" 2>&1 &&
  fail "a run without gradient times was projected"
grep -q "dtbench project: run 1: no gradient_ready rows" "$scratch/e.txt" || fail "no reason given: $(cat "$scratch/e.txt")"
# A GPU run under a strategy without grad_ready is not profiled on purpose: said as such.
python3 -c "import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute('DELETE FROM run_param WHERE run_id = 1 AND key = ?', ('device',)); d.execute('INSERT INTO run_param (run_id, key, value) VALUES (1, ?, ?)', ('device', '\"cuda\"')); d.commit()" "$scratch/r.db"
"$dtbench" project --system "$system" --db "$scratch/r.db" --run 1 > "$scratch/e.txt" 2>&1 &&
  fail "a GPU run without gradient times was projected"
grep -q "is not profiled where its model waits for the GPU before each hook" "$scratch/e.txt" ||
  fail "the GPU run's missing profile is not explained: $(cat "$scratch/e.txt")"
echo "ok"
