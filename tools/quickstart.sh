#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the
# main job. For now that is the plugin listing and the self-check; the
# quickstart matrix takes its place once the training engine lands.
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
