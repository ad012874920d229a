"""Per message size, a reference program against dtbench comm over the
rounds of one run: each side's median time, and the ratios of the two
measured in the same round (paired, so a round the machine was slow for
both cancels out), as the median over rounds and their range. What
bench/mpi_allreduce, bench/gloo_allreduce and bench/nccl_allreduce print.

  size_ratios.py NAME REFERENCE.txt DTBENCH.csv
REFERENCE.txt: "round bytes time_us busbw" lines; DTBENCH.csv:
"round,bytes,time_us" lines.
"""
import statistics
import sys

name, reference_file, dtbench_file = sys.argv[1:4]
reference, ours = {}, {}
for line in open(reference_file):
    round_, size, us, _ = line.split()
    reference[(int(round_), int(size))] = float(us)
for line in open(dtbench_file):
    round_, size, us = line.strip().split(",")
    ours[(int(round_), int(size))] = float(us)
factor = 2 * (2 - 1) / 2  # all-reduce bus factor at 2 ranks (nccl-tests)
print(f"{'bytes':>10} {name + '_us':>10} {'dtbench_us':>11} {name + '_busbw':>11} {'dtbench_busbw':>14} "
      f"{'busbw_ratio':>12} {'(range)':>12} {'time_ratio':>11}")
for size in sorted({s for _, s in reference}):
    rounds = sorted(r for r, s in reference if s == size and (r, s) in ours)
    if not rounds:
        continue
    r = statistics.median(reference[(k, size)] for k in rounds)
    o = statistics.median(ours[(k, size)] for k in rounds)
    # busbw ratio = reference time / our time, round by round.
    ratios = sorted(reference[(k, size)] / ours[(k, size)] for k in rounds)
    busbw = statistics.median(ratios)
    rb, ob = size / r / 1e3 * factor, size / o / 1e3 * factor
    spread = f"{ratios[0]:.2f}-{ratios[-1]:.2f}"
    print(f"{size:>10} {r:>10.1f} {o:>11.1f} {rb:>11.2f} {ob:>14.2f} {busbw:>12.2f} {spread:>12} "
          f"{1 / busbw:>11.2f}")
