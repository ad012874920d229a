#include "run/machine_load.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace dtb::core {
namespace {

double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

double cpuSeconds(int who) {
  rusage usage{};
  getrusage(who, &usage);
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

CpuSample CpuSample::now() {
  CpuSample s;
  s.at = std::chrono::steady_clock::now();
  s.ownS = cpuSeconds(RUSAGE_SELF) + cpuSeconds(RUSAGE_CHILDREN);
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice", in
  // clock ticks; guest time is already inside user.
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal && cpu == "cpu") {
    const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    s.machineBusyS = (user + nice + system + irq + softirq) / tick;
    s.machineAllS = (user + nice + system + idle + iowait + irq + softirq + steal) / tick;
    s.stealS = steal / tick;
  }
  std::ifstream loadavg("/proc/loadavg");
  double oneMinute = 0;
  if (loadavg >> oneMinute) s.loadAverage = oneMinute;
  return s;
}

MachineLoadRecord loadBetween(const CpuSample& start, const CpuSample& end, int cpus) {
  MachineLoadRecord load;
  load.cpus = cpus;
  load.loadAverage = end.loadAverage;
  const double wall = std::chrono::duration<double>(end.at - start.at).count();
  if (start.machineBusyS && end.machineBusyS && wall > 0) {
    const double others = (*end.machineBusyS - *start.machineBusyS) - (end.ownS - start.ownS);
    load.competingCpus = std::max(0.0, others / wall);
  }
  if (start.machineAllS && end.machineAllS && *end.machineAllS > *start.machineAllS) {
    load.stealShare = (*end.stealS - *start.stealS) / (*end.machineAllS - *start.machineAllS);
  }
  load.loaded = load.competingCpus.value_or(0) > kCompetingCpusThreshold ||
                load.stealShare.value_or(0) > kStealShareThreshold;
  return load;
}

MachineLoadRecord LoadSampler::finish() const {
  return loadBetween(start_, CpuSample::now(), static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
}

}  // namespace dtb::core
