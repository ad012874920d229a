#include "run/machine_load.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

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

// The fields of a /proc stat line ("pid (name) state ..."): the name, and
// the fields from the 3rd (the state) on, numbered from 1 as proc(5) does.
struct StatLine {
  std::string name;
  std::vector<std::string> fields;  // fields[i] is field i + 3
  std::string field(size_t number) const {
    return number >= 3 && number - 3 < fields.size() ? fields[number - 3] : "";
  }
};

std::optional<StatLine> readStat(const std::filesystem::path& path) {
  std::ifstream stat(path);
  std::string line;
  if (!std::getline(stat, line)) return std::nullopt;  // gone already
  const size_t open = line.find('('), close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 2 > line.size()) return std::nullopt;
  StatLine out{line.substr(open + 1, close - open - 1), {}};
  std::istringstream fields(line.substr(close + 2));
  for (std::string f; fields >> f;) out.fields.push_back(f);
  return out;
}

// utime + stime (the 14th and 15th fields, in clock ticks), in seconds.
double cpuOf(const StatLine& s, double tick) {
  double utime = 0, stime = 0;
  std::from_chars(s.field(14).data(), s.field(14).data() + s.field(14).size(), utime);
  std::from_chars(s.field(15).data(), s.field(15).data() + s.field(15).size(), stime);
  return (utime + stime) / tick;
}

// The CPU seconds of the process's threads that run at SCHED_IDLE (the
// 41st field, the policy, is 5): what it took only from idle CPUs.
double idleClassSeconds(const std::filesystem::path& process, double tick) {
  double seconds = 0;
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator(process / "task", error)) {
    const std::optional<StatLine> s = readStat(task.path() / "stat");
    if (s && s->field(41) == "5") seconds += cpuOf(*s, tick);
  }
  return seconds;
}

// Every process but this one, from /proc/<pid>/stat, with its start time
// (the 22nd field).
std::map<int, CpuSample::Process> otherProcesses(double tick) {
  std::map<int, CpuSample::Process> out;
  const int self = static_cast<int>(getpid());
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string pid = entry.path().filename().string();
    const bool numeric = !pid.empty() && pid.size() < 10 &&
                         std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!numeric || std::stoi(pid) == self) continue;
    const std::optional<StatLine> s = readStat(entry.path() / "stat");
    if (!s || s->fields.size() < 20) continue;
    uint64_t started = 0;  // tells a reused pid from the process that had it
    std::from_chars(s->field(22).data(), s->field(22).data() + s->field(22).size(), started);
    out[std::stoi(pid)] = {s->name, cpuOf(*s, tick), started, idleClassSeconds(entry.path(), tick)};
  }
  return out;
}

// The same process in the earlier sample, or null when it started in
// between (a reused pid is another process).
const CpuSample::Process* earlier(const CpuSample& start, int pid, const CpuSample::Process& p) {
  auto before = start.processes.find(pid);
  return before != start.processes.end() && before->second.startTicks == p.startTicks ? &before->second
                                                                                      : nullptr;
}

// What a process took from others between two samples (counted from zero
// when it started in between): its CPU time less its SCHED_IDLE threads'.
double competedBetween(const CpuSample& start, int pid, const CpuSample::Process& p) {
  const CpuSample::Process* before = earlier(start, pid, p);
  return std::max(0.0, (p.cpuS - p.idleClassS) - (before ? before->cpuS - before->idleClassS : 0));
}

// "cc1plus 4.20 s, ninja 0.31 s": the others that used the most CPU between
// the samples (a process that started in between counts from zero).
std::string busiestOthers(const CpuSample& start, const CpuSample& end, double minimumS) {
  std::vector<std::pair<double, std::string>> used;
  for (const auto& [pid, p] : end.processes) {
    const double cpu = competedBetween(start, pid, p);
    if (cpu >= minimumS) used.emplace_back(cpu, p.name);
  }
  std::sort(used.rbegin(), used.rend());
  std::string out;
  for (size_t i = 0; i < used.size() && i < 3; ++i) {
    char text[96];
    std::snprintf(text, sizeof(text), "%s%s %.2f s", i ? ", " : "", used[i].second.c_str(), used[i].first);
    out += text;
  }
  return out;
}

}  // namespace

CpuSample CpuSample::now() {
  CpuSample s;
  s.at = std::chrono::steady_clock::now();
  s.ownS = cpuSeconds(RUSAGE_SELF) + cpuSeconds(RUSAGE_CHILDREN);
  // "cpuN user nice system idle iowait irq softirq steal guest guest_nice",
  // in clock ticks, per core; only the cores this process may run on (a
  // container pinned to some cores does not see the others' load as its
  // own). Busy is user, nice and system: what getrusage counts as ours too
  // (interrupt time, Gloo's loopback traffic among it, is no process's).
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const bool masked = sched_getaffinity(0, sizeof(allowed), &allowed) == 0;
  std::ifstream stat("/proc/stat");
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  double busy = 0, all = 0, stolen = 0;
  int cores = 0;
  for (std::string line; std::getline(stat, line) && line.starts_with("cpu");) {
    std::istringstream fields(line);
    std::string name;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(fields >> name >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal)) continue;
    if (name == "cpu") continue;  // the machine's sum: the cores are added one by one
    int core = -1;                // "cpu7" -> 7; stays -1 (skipped when masked) if the name is not that
    std::from_chars(name.data() + 3, name.data() + name.size(), core);
    if (masked && (core < 0 || core >= CPU_SETSIZE || !CPU_ISSET(core, &allowed))) continue;
    busy += user + nice + system;
    all += user + nice + system + idle + iowait + irq + softirq + steal;
    stolen += steal;
    ++cores;
  }
  if (cores > 0) {
    s.machineBusyS = busy / tick;
    s.machineAllS = all / tick;
    s.stealS = stolen / tick;
    s.cores = cores;
  }
  s.processes = otherProcesses(tick);
  std::ifstream loadavg("/proc/loadavg");
  double oneMinute = 0;
  if (loadavg >> oneMinute) s.loadAverage = oneMinute;
  return s;
}

MachineLoadRecord loadBetween(const CpuSample& start, const CpuSample& end) {
  MachineLoadRecord load;
  load.cpus = end.cores;
  load.loadAverage = end.loadAverage;
  const double wall = std::chrono::duration<double>(end.at - start.at).count();
  if (start.machineBusyS && end.machineBusyS && wall > 0) {
    double idleClass = 0;  // busy, but only on CPUs nothing else wanted
    for (const auto& [pid, p] : end.processes) {
      const CpuSample::Process* before = earlier(start, pid, p);
      idleClass += std::max(0.0, p.idleClassS - (before ? before->idleClassS : 0));
    }
    const double others = (*end.machineBusyS - *start.machineBusyS) - (end.ownS - start.ownS) - idleClass;
    load.competingCpus = std::max(0.0, others / wall);
  }
  if (start.machineAllS && end.machineAllS && *end.machineAllS > *start.machineAllS) {
    load.stealShare = (*end.stealS - *start.stealS) / (*end.machineAllS - *start.machineAllS);
  }
  load.loaded = load.competingCpus.value_or(0) > kCompetingCpusThreshold ||
                load.stealShare.value_or(0) > kStealShareThreshold;
  // Named when they matter: at least 5 % of a core over the run.
  load.competingProcesses = busiestOthers(start, end, std::max(0.05 * wall, 0.01));
  return load;
}

MachineLoadRecord LoadSampler::finish(bool ranksAreChildren) const {
  CpuSample end = CpuSample::now();
  if (!ranksAreChildren) {
    end.machineBusyS.reset();
    end.processes.clear();
  }
  return loadBetween(start_, end);
}

}  // namespace dtb::core
