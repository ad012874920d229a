"""Per message size, the median time of a reference program and of dtbench
comm over the rounds of one run, their bus bandwidths and the ratios; what
bench/mpi_allreduce and bench/gloo_allreduce print.

  size_ratios.py NAME REFERENCE.txt DTBENCH.csv
REFERENCE.txt: "round bytes time_us busbw" lines; DTBENCH.csv: "bytes,time_us".
"""
import statistics
import sys

name, reference_file, dtbench_file = sys.argv[1:4]
reference, ours = {}, {}
for line in open(reference_file):
    _, size, us, _ = line.split()
    reference.setdefault(int(size), []).append(float(us))
for line in open(dtbench_file):
    size, us = line.strip().split(",")
    ours.setdefault(int(size), []).append(float(us))
factor = 2 * (2 - 1) / 2  # all-reduce bus factor at 2 ranks (nccl-tests)
print(f"{'bytes':>10} {name + '_us':>10} {'dtbench_us':>11} {name + '_busbw':>11} {'dtbench_busbw':>14} "
      f"{'busbw_ratio':>12} {'time_ratio':>11}")
for size in sorted(reference):
    if size not in ours:
        continue
    r, o = statistics.median(reference[size]), statistics.median(ours[size])
    rb, ob = size / r / 1e3 * factor, size / o / 1e3 * factor
    print(f"{size:>10} {r:>10.1f} {o:>11.1f} {rb:>11.2f} {ob:>14.2f} {ob / rb:>12.2f} {o / r:>11.2f}")
