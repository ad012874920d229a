#!/usr/bin/env bash
# GPU training end to end (matrices/gpu_training.toml), where a GPU is
# usable; skipped (77) elsewhere, after checking that `dtbench run` refuses
# the matrix in one line and `dtbench validate` only warns. Every run (one
# rank over NCCL, one over Gloo, two sharing the GPU over Gloo) must succeed
# and learn: the last epoch's training loss below
# the first's, the test accuracy above chance (4 classes); batches copied a
# step ahead (pin_memory) train as those the model copies itself. Then restarts
# (matrices/gpu_restart.toml): a rank killed mid-run resumes from a
# checkpoint of the GPU's weights and momentum, and ends where the clean
# run does; and an elastic world (matrices/gpu_elastic.toml) whose killed
# rank's survivor goes on alone from the last commit, over Gloo and, where
# two GPUs are, over NCCL.
#   gpu_training_test.sh DTBENCH PLUGIN_DIR MATRIX_DIR
set -euo pipefail
dtbench=$1 plugins=$2 matrices=$3
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
db=$scratch/gpu.db
# shellcheck source=../../support/run_test_lib.sh
source "$(dirname "$0")/../../support/run_test_lib.sh"
export TMPDIR=$scratch
matrix=$matrices/gpu_training.toml

if no_gpu_here; then
  "$dtbench" --plugin-path "$plugins" validate "$matrix" > "$scratch/validate.txt" 2>&1 \
    || { cat "$scratch/validate.txt"; fail "validate refused a GPU matrix on a machine without a GPU"; }
  grep -q "warning: device = \"cuda\" (cell 0): no GPU is usable here" "$scratch/validate.txt" \
    || { cat "$scratch/validate.txt"; fail "validate did not warn of the missing GPU"; }
  if "$dtbench" --plugin-path "$plugins" run "$matrix" --db "$db" > "$scratch/run.txt" 2>&1; then
    fail "run accepted a GPU matrix without a GPU"
  fi
  grep -q "error: device = \"cuda\" (cell 0): no GPU is usable here" "$scratch/run.txt" \
    || { cat "$scratch/run.txt"; fail "run did not say why it refused"; }
  [[ ! -e $db ]] || fail "a refused matrix created its database"
  "$dtbench" --plugin-path "$plugins" validate "$matrices/gpu_restart.toml" > "$scratch/validate.txt" 2>&1 \
    || { cat "$scratch/validate.txt"; fail "validate refused restarts on a GPU"; }
  "$dtbench" --plugin-path "$plugins" validate "$matrices/gpu_elastic.toml" > "$scratch/validate.txt" 2>&1 \
    || { cat "$scratch/validate.txt"; fail "validate refused an elastic world over Gloo on a GPU"; }
  # Gradient clipping runs on GPUs too (the norm measured by a kernel).
  "$dtbench" --plugin-path "$plugins" validate "$matrix" --set gradient_clipping=1.0 > "$scratch/validate.txt" 2>&1 \
    || { cat "$scratch/validate.txt"; fail "validate refused gradient clipping on a GPU"; }
  # Over NCCL each worker, and each that joins, needs a GPU of its own:
  # without max_np the world has no bound, and that fits no machine.
  if "$dtbench" --plugin-path "$plugins" validate "$matrices/gpu_elastic.toml" --set backend=nccl \
    > "$scratch/validate.txt" 2>&1; then
    fail "validate took an elastic world over NCCL without max_np"
  fi
  grep -q 'recovery = "elastic" over nccl puts each worker, and each that joins, on a GPU of its own: set max_np' \
    "$scratch/validate.txt" || { cat "$scratch/validate.txt"; fail "validate did not say why it refused elastic over NCCL"; }
  "$dtbench" --plugin-path "$plugins" validate "$matrices/gpu_elastic.toml" --set backend=nccl --set max_np=2 \
    > "$scratch/validate.txt" 2>&1 \
    || { cat "$scratch/validate.txt"; fail "validate refused an elastic world over NCCL with max_np set"; }
  echo "SKIP: no GPU is usable here (run refused the matrix in one line, as it must)"
  exit 77
fi

"$dtbench" --plugin-path "$plugins" run "$matrix" --db "$db" > "$scratch/out.txt" 2>&1 \
  || { cat "$scratch/out.txt"; fail "run exited with $?"; }
grep -q "3 ok, 0 failed" "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "not every run succeeded"; }
"$dtbench" query "$db" "SELECT r.backend, r.world_size, e.epoch, ROUND(e.train_loss, 4) AS loss,
                        ROUND(e.test_accuracy, 3) AS acc FROM epoch e JOIN run r ON r.id = e.run_id
                        ORDER BY r.id, e.epoch"
"$dtbench" query "$db" "SELECT backend, world_size, ROUND(step_ms, 2) AS step_ms, ROUND(forward_ms, 2) AS fwd,
                        ROUND(backward_ms, 2) AS bwd, ROUND(comm_exposed_ms, 2) AS exposed, ROUND(optimizer_ms, 2) AS opt
                        FROM step_breakdown ORDER BY run_id"
expect "SELECT COUNT(*) FROM run_summary WHERE status = 'ok'" 3 "a run did not end ok"
expect "SELECT COUNT(*) FROM (SELECT run_id, MIN(epoch) AS first, MAX(epoch) AS last FROM epoch GROUP BY run_id) x
          JOIN epoch a ON a.run_id = x.run_id AND a.epoch = x.first JOIN epoch b ON b.run_id = x.run_id AND b.epoch = x.last
          WHERE b.train_loss < a.train_loss" 3 "a run did not learn (training loss not lower in the last epoch)"
expect "SELECT COUNT(*) FROM run_summary WHERE final_test_accuracy > 0.4" 3 "a run ended at chance (4 classes)"

echo "== the copy stream's batches train as the model's own copies do"
# pin_memory (the default) copies each batch to the GPU a step ahead on a
# stream of its own; false lets each forward copy its batch. The same
# samples either way: the first epoch's loss within 0.5 % (cuDNN's kernels
# are not deterministic), where inputs read before their copy landed, or
# from the wrong slot, would train on other images.
db_pinned=$db
db=$scratch/unpinned.db
"$dtbench" --plugin-path "$plugins" run "$matrix" --db "$db" --set 'backend=["nccl"]' --set 'world_size=[1]' \
  --set pin_memory=false > "$scratch/unpinned.txt" 2>&1 || { cat "$scratch/unpinned.txt"; fail "the unpinned run exited with $?"; }
unpinned=$(q "SELECT train_loss FROM epoch WHERE epoch = 1")
db=$db_pinned
pinned=$(q "SELECT e.train_loss FROM epoch e JOIN run r ON r.id = e.run_id WHERE r.backend = 'nccl' AND e.epoch = 1")
python3 -c "import sys; p, u = float('$pinned'), float('$unpinned'); sys.exit(abs(p - u) > 0.005 * u)" \
  || fail "the prefetched batches' first epoch ($pinned) strayed from the model's own copies' ($unpinned)"

echo "== gradient clipping on the GPU: the norm measured there, the steps clipped, the runs learning"
# ResNet-18's gradients are far above a norm of 1 here (the same matrix on
# the CPU, one rank: 9 to 11 on all 24 steps of two epochs, clipped each
# time, the loss 1.43 then 1.27): every run must clip, measure a finite
# norm, and still learn.
db=$scratch/clipped.db
"$dtbench" --plugin-path "$plugins" run "$matrix" --db "$db" --set gradient_clipping=1.0 > "$scratch/clipped.txt" 2>&1 \
  || { cat "$scratch/clipped.txt"; fail "the clipped runs exited with $?"; }
grep -q "3 ok, 0 failed" "$scratch/clipped.txt" || { cat "$scratch/clipped.txt"; fail "not every clipped run succeeded"; }
"$dtbench" query "$db" "SELECT label, world_size, steps, clipped_steps, ROUND(first_norm, 3) AS first_norm,
                        ROUND(last_norm, 3) AS last_norm FROM gradient_clipping ORDER BY run_id"
expect "SELECT COUNT(*) FROM gradient_clipping WHERE clipped_steps > 0 AND steps > 0 AND largest_norm > 1
          AND mean_norm < 1e6" 3 "a run did not clip, or measured no finite norm"
expect "SELECT COUNT(*) FROM (SELECT run_id, MIN(epoch) AS first, MAX(epoch) AS last FROM epoch GROUP BY run_id) x
          JOIN epoch a ON a.run_id = x.run_id AND a.epoch = x.first JOIN epoch b ON b.run_id = x.run_id AND b.epoch = x.last
          WHERE b.train_loss < a.train_loss" 3 "a clipped run did not learn"

echo "== restarts from checkpoints of the GPU's weights and momentum"
db=$scratch/restart.db
"$dtbench" --plugin-path "$plugins" run "$matrices/gpu_restart.toml" --db "$db" > "$scratch/out.txt" 2>&1 \
  || { cat "$scratch/out.txt"; fail "the restart matrix exited with $?"; }
grep -q "4 ok, 0 failed" "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "not every run succeeded"; }
expect "SELECT COUNT(*) FROM event e JOIN run r ON r.id = e.run_id
          WHERE e.kind = 'restart' AND e.detail LIKE 'restart 1 of %: from the checkpoint of step 16'" 2 \
  "a killed run did not restart from the checkpoint of step 16"
"$dtbench" query "$db" "SELECT r.backend, r.world_size, trim(v.value, '\"') AS fault, e.epoch, ROUND(e.train_loss, 4) AS loss
                        FROM epoch e JOIN run r ON r.id = e.run_id
                        JOIN run_param v ON v.run_id = r.id AND v.key = 'fault.kind' ORDER BY r.id, e.epoch"
# The restarted run ends near the clean one. Not exactly: cuDNN's kernels
# are not deterministic (two clean runs differ by 2.6 % in a second epoch,
# more as the loss gets small). But weights lost in the checkpoint would
# start the rest of the run from new ones: the same matrix fell from 1.62 to
# 0.21 over three epochs on the H100 and on the CPU (docs/gpu.md), so such a
# run would end several times above the clean one, not within half of it.
expect "SELECT COUNT(*) FROM epoch k JOIN run rk ON rk.id = k.run_id
          JOIN run_param f ON f.run_id = rk.id AND f.key = 'fault.kind' AND trim(f.value, '\"') = 'kill'
          JOIN run rc ON rc.backend = rk.backend AND rc.world_size = rk.world_size AND rc.id <> rk.id
          JOIN epoch c ON c.run_id = rc.id AND c.epoch = k.epoch
          WHERE k.epoch = 3 AND ABS(k.train_loss - c.train_loss) <= 0.5 * c.train_loss" 2 \
  "a restarted run's last epoch strayed more than half from the clean run's"
# An elastic world (matrices/gpu_elastic.toml, over BACKEND, with the
# run's further settings): the killed run's survivor goes on from the commit
# of step 16 and trains the rest alone (twice the steps of a rank of two), so
# it ends below the clean run (0.019 against 0.158 with device = "cpu"); a
# survivor that lost its weights at the commit would start over at step 16
# and end above it.
survivor_goes_on() {  # survivor_goes_on BACKEND [SETTING...]
  local backend=$1
  shift
  db=$scratch/elastic_$backend.db
  "$dtbench" --plugin-path "$plugins" run "$matrices/gpu_elastic.toml" --set "backend=$backend" "$@" --db "$db" \
    > "$scratch/out.txt" 2>&1 || { cat "$scratch/out.txt"; fail "the elastic matrix over $backend exited with $?"; }
  grep -q "2 ok, 0 failed" "$scratch/out.txt" \
    || { cat "$scratch/out.txt"; fail "not every elastic run over $backend succeeded"; }
  grep -q ": reset 1: 2 -> 1 ranks, back to the commit of step 16" "$scratch/out.txt" \
    || { cat "$scratch/out.txt"; fail "the killed run over $backend did not go on from the commit of step 16"; }
  expect "SELECT COUNT(*) FROM epoch k JOIN run_param f ON f.run_id = k.run_id AND f.key = 'fault.kind'
            AND trim(f.value, '\"') = 'kill' JOIN epoch c ON c.run_id <> k.run_id AND c.epoch = k.epoch
            WHERE k.epoch = 3 AND k.train_loss <= c.train_loss" 1 \
    "the elastic run's last epoch over $backend ended above the clean run's"
}

echo "== an elastic world on the GPU over Gloo: the survivor goes on from the last commit"
survivor_goes_on gloo

# Over NCCL each worker keeps a GPU of its own in every world: two GPUs at
# least (a lent machine of one cannot run it).
gpus=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU" || true)
if ((gpus >= 2)); then
  echo "== an elastic world over NCCL: the survivor keeps its GPU and goes on"
  survivor_goes_on nccl --set max_np=2
else
  echo "(elastic over NCCL needs two GPUs, $gpus here: not run)"
fi
echo "PASS"
