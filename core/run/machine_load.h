// What else the machine did while a run ran. On a shared machine a run that
// competed for cores is slower for reasons that are not its own; its figures
// are flagged, not trusted. The coordinator samples /proc/stat and its own
// and its children's CPU time (the workers, and mpirun's ranks) at the start
// and end of each run: the machine's busy time less the run's own is what
// other processes took.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "store/records.h"

namespace dtb::core {

// A run is flagged as loaded when others kept, on average, more than this
// many cores busy, or the hypervisor stole more than this share of the time.
inline constexpr double kCompetingCpusThreshold = 0.25;
inline constexpr double kStealShareThreshold = 0.05;

// One reading of the machine's and this process tree's CPU time, in seconds.
struct CpuSample {
  std::optional<double> machineBusyS;  // the cores we may use: user, nice, system
  std::optional<double> machineAllS;   // the same cores, idle, interrupts and steal included
  std::optional<double> stealS;
  double ownS = 0;  // this process and its reaped children
  int cores = 0;    // the cores this process may run on, whose times are summed
  std::chrono::steady_clock::time_point at;
  std::optional<double> loadAverage;  // 1 minute
  // Every other process's CPU seconds so far, by pid, with its name: who
  // the competition was.
  // A thread at SCHED_IDLE (the lowest priority: it runs only on a CPU
  // nothing else wants, as the network switch's idle spinners do) takes no
  // CPU from a run, so its time is no competition: `idleClassS` is left out.
  struct Process {
    std::string name;
    double cpuS = 0;
    uint64_t startTicks = 0;  // since boot: a pid reused in between is another process
    double idleClassS = 0;    // of cpuS, its SCHED_IDLE threads'
  };
  std::map<int, Process> processes;

  static CpuSample now();
};

// The load between two samples, judged against the thresholds above, with
// the (at most three) other processes that used the most CPU between them.
MachineLoadRecord loadBetween(const CpuSample& start, const CpuSample& end);

// Samples at construction; finish() samples again and judges. Without
// `ranksAreChildren` (srun: slurmstepd starts the ranks, so their CPU time
// is not ours to subtract) other processes' share is unknown, not guessed.
class LoadSampler {
 public:
  LoadSampler() : start_(CpuSample::now()) {}
  MachineLoadRecord finish(bool ranksAreChildren = true) const;

 private:
  CpuSample start_;
};

}  // namespace dtb::core
