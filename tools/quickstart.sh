#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the
# main job. For now that is the plugin listing, the self-check and the
# validation of the tour matrix; the quickstart training matrix takes their
# place once the training engine lands.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-deps.sh"
"$root/tools/build.sh"
dtbench="$root/build/bin/dtbench --plugin-path $root/build/tests/plugins"
echo
echo "== dtbench plugins"
$dtbench plugins
echo
echo "== dtbench check"
$dtbench check
echo
echo "== dtbench validate examples/matrices/tour.toml"
$dtbench validate "$root/examples/matrices/tour.toml" --show 6
