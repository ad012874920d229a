#!/usr/bin/env bash
# jpeg_folder_run_test.sh DTBENCH JPEG_FOLDER_TOOL MATRIX WORK_DIR
# Small MNIST-format IDX files made here -> dtbench-jpeg-folder (32 px JPEGs)
# -> `dtbench run` of MATRIX over that folder; prints each run's cell and
# status, then the tool's refusal of a missing input.
set -euo pipefail
dtbench=$1 tool=$2 matrix=$3 work=$4
rm -rf "$work" && mkdir -p "$work/idx"
python3 - "$work/idx" <<'PY'
import struct, sys
def idx(path, dims, data):
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 8, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + bytes(data))
for prefix, n in (("train", 24), ("t10k", 8)):
    labels = [i % 4 for i in range(n)]
    pixels = [(3 * x + 5 * y + 60 * labels[i]) % 256 for i in range(n) for y in range(28) for x in range(28)]
    idx(f"{sys.argv[1]}/{prefix}-images-idx3-ubyte", [n, 28, 28], pixels)
    idx(f"{sys.argv[1]}/{prefix}-labels-idx1-ubyte", [n], labels)
PY
"$tool" "$work/idx" "$work/jpeg" --size 40 --quality 90
"$dtbench" run "$matrix" --set "dataset.jpeg_folder.path=$work/jpeg" --db "$work/runs.db" >"$work/run.log" 2>&1 ||
  { cat "$work/run.log"; exit 1; }
"$dtbench" query "$work/runs.db" \
  "SELECT r.status, t.value AS threads, d.value AS decode, b.data_ms >= 0 AS timed
   FROM run r JOIN run_param t ON t.run_id = r.id AND t.key = 'loader_threads'
   JOIN run_param d ON d.run_id = r.id AND d.key = 'dataset.jpeg_folder.decode'
   JOIN step_breakdown b ON b.run_id = r.id ORDER BY r.cell" --format csv
"$tool" "$work/nowhere" "$work/out" 2>&1 || true
