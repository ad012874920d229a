#!/usr/bin/env bash
# Runs through Slurm, as on a cluster: tools/cluster.sh makes two hosts
# (network namespaces h0 and h1) and starts a real Slurm on them (slurmctld
# on h0, slurmd on each, munge). Checks: launcher = "srun" runs a
# 2 nodes x 2 tasks matrix over Gloo and over MPI (PMIx), each rank's host
# stored; `dtbench run --sbatch` writes a batch script that `sbatch`
# accepts and that runs the same matrix inside the job. Skips (77) where
# namespaces cannot be made or Slurm is not installed.
#   slurm_test.sh DTBENCH REPO_ROOT
set -euo pipefail
dtbench=$1 root=$2
scratch=$(mktemp -d)
db=$scratch/slurm.db
# shellcheck source=../../support/run_test_lib.sh
source "$root/tests/support/run_test_lib.sh"
export TMPDIR=$scratch
# shellcheck source=../../support/cluster_test_lib.sh
source "$root/tests/support/cluster_test_lib.sh"

for tool in slurmctld slurmd srun sbatch squeue munged; do
  command -v "$tool" >/dev/null || {
    echo "SKIP: no $tool here (tools/install-deps.sh --tests installs slurmctld, slurmd, slurm-client, munge)"
    exit 77
  }
done
start_cluster 2
"$root/tools/cluster.sh" slurm "$cluster" || { tail -20 "$cluster"/slurm/*.log; fail "Slurm did not start"; }

echo "== launcher = \"srun\": 2 nodes x 2 tasks over Gloo and over MPI"
on_h0 "$dtbench" run "$root/tests/core/run/matrices/two_hosts.toml" --db "$db" --set launcher=srun \
  --set "launcher_args=--nodes=2" > "$scratch/srun.txt" 2>&1 || { cat "$scratch/srun.txt"; fail "srun runs failed"; }
expect "SELECT group_concat(backend || ':' || status, ' ') FROM (SELECT backend, status FROM run ORDER BY id)" \
  "gloo:ok mpi:ok" "both srun runs ok"
expect "SELECT COUNT(*) FROM rank_host WHERE host = 'h' || (rank / 2) AND local_rank = rank % 2" 8 \
  "each node ran two tasks, in rank order"
expect "SELECT COUNT(*) FROM run_param WHERE key = 'launcher' AND value = '\"srun\"'" 2 "launcher stored"

echo "== dtbench run --sbatch: a batch script, submitted with sbatch, runs the matrix inside the job"
on_h0 "$dtbench" run "$root/tests/core/run/matrices/two_hosts.toml" --db "$scratch/batch.db" \
  --sbatch "$scratch/job.sh" --nodes 2 > "$scratch/sbatch.txt" 2>&1 || { cat "$scratch/sbatch.txt"; fail "--sbatch"; }
grep -q "^  sbatch $scratch/job.sh$" "$scratch/sbatch.txt" || { cat "$scratch/sbatch.txt"; fail "no sbatch hint"; }
[[ ! -e $scratch/batch.db ]] || fail "--sbatch ran something"
grep -q "^#SBATCH --ntasks=4$" "$scratch/job.sh" || fail "the script does not ask for 4 tasks"
grep -q "^#SBATCH --nodes=2$" "$scratch/job.sh" || fail "the script does not ask for 2 nodes"
job=$(on_h0 sbatch --parsable "$scratch/job.sh") || fail "sbatch refused the script"
for _ in $(seq 240); do
  [[ -z $(on_h0 squeue -h -j "$job" 2>/dev/null) ]] && break
  sleep 0.5
done
[[ -z $(on_h0 squeue -h -j "$job" 2>/dev/null) ]] || fail "job $job still queued or running after 120 s"
cat "$scratch/two_hosts-$job.out" || fail "job $job left no output file"
db=$scratch/batch.db
expect "SELECT group_concat(backend || ':' || status, ' ') FROM (SELECT backend, status FROM run ORDER BY id)" \
  "gloo:ok mpi:ok" "the batch job's runs"
expect "SELECT COUNT(DISTINCT host) FROM rank_host" 2 "the batch job's ranks on both nodes"
echo "ok"
