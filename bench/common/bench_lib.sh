# What the bench scripts share, sourced first thing by each (from any
# folder: it moves to the repository root):
#   source "$(dirname "$0")/../common/bench_lib.sh"
#   require_torch            $python: a Python with torch ($PYTHON, else
#                            Debian's /usr/bin/python3), or the script ends
#                            saying how to get one
#   run_matrix MATRIX        dtbench runs MATRIX into $db, a store in a
#                            scratch folder removed at exit (kept with KEEP=1);
#                            its output only when it fails
# After sourcing: $root (the repository root, the working folder), $cores,
# and $dtbench (build/bin/dtbench, or $DTBENCH: a lent GPU machine's unpacked
# build, tools/gpu/checks.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cores=$(nproc)
dtbench=${DTBENCH:-build/bin/dtbench}

require_torch() {
  python=${PYTHON:-/usr/bin/python3}
  "$python" -c "import torch" 2>/dev/null || {
    echo "$(basename "$0"): $python has no torch (apt-get install python3-torch)" >&2
    exit 1
  }
}

run_matrix() {
  scratch=$(mktemp -d)
  trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
  db=$scratch/bench.db
  "$dtbench" run "$1" --db "$db" >"$scratch/out.txt" 2>&1 || { cat "$scratch/out.txt"; exit 1; }
}
