#!/usr/bin/env bash
# What users of torchrun, horovodrun, mpirun, DeepSpeed and nccl-tests type
# to dtbench first (issue 32), and what they get back: the option in the
# place they put it, or a refusal that says what to type instead.
#   - --plugin-path after the command, as before it;
#   - -np 2, --nproc-per-node 2, --nproc_per_node=2, --epochs 3: the matrix
#     key to --set;
#   - `dtbench runs` without a store, `dtbench schema TABLE` without one;
#   - validate shows the keys that vary or differ from their default, not
#     every default;
#   - a launcher that exits 0 while no rank reported is a failed run;
#   - an --sbatch script whose output path has a space, quotes and '#'.
#   newcomer_habits_test.sh DTBENCH REPO_ROOT TEST_PLUGIN_DIR
set -euo pipefail
dtbench=$(realpath "$1") root=$2 plugins=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
db=$scratch/r.db
# shellcheck source=../../support/run_test_lib.sh
source "$root/tests/support/run_test_lib.sh"
export TMPDIR=$scratch
quickstart=$root/examples/quickstart.toml

# says CODE PATTERN COMMAND...: exits CODE, output matches PATTERN across lines.
says() {
  local want=$1 pattern=$2 output code=0
  shift 2
  output=$(timeout 60 "$@" 2>&1) || code=$?
  [[ $code == "$want" ]] || fail "'$*' exited $code, not $want: $output"
  tr '\n' ' ' <<<"$output" | grep -Eq -- "$pattern" || fail "'$*' did not say /$pattern/, but: $output"
}

echo "== launcher flags get the matrix key to --set"
ranks="dtbench's world_size is the total number of ranks over every host \(torchrun's nnodes x nproc_per_node\); give it as the matrix key: --set world_size=2"
says 109 "dtbench run: unknown option '-np': $ranks" "$dtbench" run -np 2 "$quickstart"
says 109 "dtbench run: unknown option '--nproc-per-node': $ranks" "$dtbench" run --nproc-per-node 2 "$quickstart"
says 109 "dtbench run: unknown option '--nproc_per_node=2': $ranks" "$dtbench" run --nproc_per_node=2 "$quickstart"
says 109 "dtbench validate: unknown option '--epochs': 'epochs' is a matrix key here: --set epochs=3" \
  "$dtbench" validate --epochs 3 "$quickstart"
says 109 "dtbench validate: unknown option '--master_addr' \(did you mean 'rendezvous_store'\?" \
  "$dtbench" validate --master_addr 10.0.0.1 "$quickstart"
says 109 "dtbench validate: unexpected argument 'b.toml' \(one matrix file" "$dtbench" validate "$quickstart" b.toml
says 109 "dtbench run: unknown option '--backend': 'backend' is a matrix key here: --set backend=mpi" \
  "$dtbench" run --backend mpi "$quickstart"
says 0 "quickstart.toml: experiment \"quickstart\"" "$dtbench" validate -- "$quickstart"

echo "== --plugin-path after the command, as before it"
says 0 "strategy +example_c" "$dtbench" plugins --plugin-path "$plugins" example_c
says 0 "one_run.toml: experiment \"one_run\": 1 cell" \
  "$dtbench" validate --plugin-path "$plugins" "$root/tests/core/cli/matrices/one_run.toml"
says 1 "no plugin named 'tiny'|dataset 'tiny'" "$dtbench" validate "$root/tests/core/cli/matrices/one_run.toml"

echo "== a store named where one is expected, or said to be missing"
says 1 "dtbench runs: no store at results.db \(dtbench run's default --db\) in this directory; name one: dtbench runs DB" \
  env -C "$scratch" "$dtbench" runs
says 0 "run \(table\): .* id +INTEGER" "$dtbench" schema run
says 1 "dtbench schema: no table or view named 'runz' \(there are: .*run_summary" "$dtbench" schema runz
says 0 "--db TEXT=results.db" "$dtbench" run --help

echo "== validate shows the keys that vary or differ from their default, not every plugin default"
says 0 "cell +world_size +dataset +dataset.idx.path +model +strategy +strategy.bucketed.bucket_cap_mb .*strategy.zero.stage" \
  "$dtbench" validate "$root/examples/strategies.toml"
table=$("$dtbench" validate "$root/examples/strategies.toml")  # whole: grep -q on a pipe could end it early
! grep -q "comm_hook\|powersgd_rank" <<<"$table" || fail "validate lists parameters left at their defaults"

echo "== a launcher that exits 0 while no rank reported is a failed run"
mkdir "$scratch/bin"
printf '#!/bin/sh\necho "srun stand-in: $*"\nexit 0\n' > "$scratch/bin/srun"
chmod +x "$scratch/bin/srun"
says 1 "FAILED: no rank reported: srun exited 0 without starting a dtbench worker that spoke" \
  env PATH="$scratch/bin:$PATH" "$dtbench" run "$quickstart" --db "$db" --set 'launcher="srun"' --only cells=0
expect "SELECT DISTINCT status || ': ' || substr(error, 1, 16) FROM run" "failed: no rank reported" "stored as failed"

echo "== an --sbatch script's output path reaches Slurm whole"
jobs="$scratch/it's \"our\" #1 jobs"
mkdir "$jobs"
says 0 "dtbench run: wrote .*job.sh" "$dtbench" run "$quickstart" --db "$db" --sbatch "$jobs/job.sh"
expected="#SBATCH --output=\"$jobs/quickstart-%j.out\""
expected=${expected//\"our\"/\\\"our\\\"}  # the quotes in the path escaped, the outer ones not
grep -qxF -- "$expected" "$jobs/job.sh" \
  || { grep SBATCH "$jobs/job.sh"; fail "the output path is not one quoted #SBATCH argument"; }
echo "ok"
