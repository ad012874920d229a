"""bench/ratios/compare.sh's tables: ratios taken within each round, then
their median over the rounds and range, against issue 34's targets.

  paired.py DDP.csv RUNS.csv CYCLES.csv
DDP.csv: "round,samples_per_s"; RUNS.csv: "round,experiment,label,
world_size,samples_per_s,compute_ms"; CYCLES.csv: "round,experiment,label,
cycle_cpu_ms" (fusion's cycle thread, CPU per step).
"""
import csv
import statistics
import sys

ddp = {int(r): float(v) for r, v in csv.reader(open(sys.argv[1]))}
runs = {}
for r, experiment, label, world, rate, compute in csv.reader(open(sys.argv[2])):
    runs[(int(r), experiment, label.strip('"'), int(world))] = (float(rate), float(compute))
cycles = {}
for r, experiment, label, cpu in csv.reader(open(sys.argv[3])):
    cycles[(int(r), experiment, label.strip('"'))] = float(cpu)


def summary(values, target=None, at_least=True):
    """Median (range, rounds), and against `target` when there is one: met
    or not as printed, to two decimals, so that a line never reads
    "0.95 ... >= 0.95: NOT met"."""
    values = sorted(values)
    if not values:
        return "no complete round"
    median = statistics.median(values)
    line = f"{median:6.2f}  ({values[0]:.2f}-{values[-1]:.2f}, {len(values)} rounds)"
    if target is None:
        return line
    shown = round(median, 2)
    met = shown >= target if at_least else shown <= target
    return f"{line}  target {'>=' if at_least else '<='} {target}: {'met' if met else 'NOT met'}"


def paired(experiment, top, bottom, world=2):
    """top / bottom samples/s, round by round."""
    out = []
    for r in sorted({k[0] for k in runs}):
        a, b = runs.get((r, experiment, top, world)), runs.get((r, experiment, bottom, world))
        if a and b:
            out.append(a[0] / b[0])
    return out


print("\n== 2. LeNet, MNIST, 2 ranks, batch 128: samples/s against PyTorch DDP (gloo)")
labels = sorted({k[2] for k in runs if k[1] == "ratios-lenet"})
for label in labels:
    ratios = [runs[(r, "ratios-lenet", label, 2)][0] / ddp[r] for r in sorted(ddp)
              if (r, "ratios-lenet", label, 2) in runs]
    print(f"  {label:<16} / DDP  {summary(ratios, 1.5 if label == 'bucketed gloo' else None)}")
for backend in ("gloo", "mpi"):
    print(f"  fusion / bucketed ({backend})  {summary(paired('ratios-lenet', 'fusion ' + backend, 'bucketed ' + backend), 0.9)}")

print("\n== 3. ResNet-18, 2 ranks, batch 32")
for backend in ("gloo", "mpi"):
    print(f"  fusion / bucketed ({backend})  "
          f"{summary(paired('ratios-resnet18', 'fusion ' + backend, 'bucketed ' + backend), 0.95)}")
# Compute inflation: forward + backward at 2 ranks over one rank alone, in
# the same round; fusion's over bucketed's.
for backend in ("gloo", "mpi"):
    inflation = {"fusion": [], "bucketed": []}
    relative = []
    for r in sorted({k[0] for k in runs}):
        alone = runs.get((r, "ratios-resnet18", "bucketed gloo", 1))
        fusion = runs.get((r, "ratios-resnet18", "fusion " + backend, 2))
        bucketed = runs.get((r, "ratios-resnet18", "bucketed " + backend, 2))
        if alone and fusion and bucketed:
            inflation["fusion"].append(fusion[1] / alone[1])
            inflation["bucketed"].append(bucketed[1] / alone[1])
            relative.append(fusion[1] / bucketed[1])
    for strategy, values in inflation.items():
        print(f"  compute inflation, {strategy} ({backend})  {summary(values)}")
    print(f"  fusion's inflation / bucketed's ({backend})  {summary(relative, 1.1, at_least=False)}")

print("\n== fusion's cycle thread, CPU ms per step (fusion.cycle_cpu_ms)")
for (experiment, label) in sorted({(k[1], k[2]) for k in cycles}):
    values = sorted(v for k, v in cycles.items() if k[1:] == (experiment, label))
    print(f"  {experiment:<16} {label:<12} {statistics.median(values):7.2f}  ({values[0]:.2f}-{values[-1]:.2f})")
