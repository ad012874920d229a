#include "precise_wake_ups.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

namespace dtb::netswitch {
namespace {

// True where a cpuidle driver runs, so that the PM QoS request below is
// honoured; false where CPUs halt when idle whatever is asked.
bool cpuidleDriverRuns() {
  std::ifstream driver("/sys/devices/system/cpu/cpuidle/current_driver");
  std::string name;
  return std::getline(driver, name) && !name.empty() && name != "none";
}

// A spin loop's breath: the hint that lets the sibling hyperthread run.
inline void relaxCpu() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

// Whether the spinners spin (true) or sleep: one switch per process.
std::atomic<bool> spinning{false};

// One thread a CPU of this process's, each pinned there, at SCHED_IDLE (set
// by itself, before it ever spins), sleeping until `spinning`. Detached: they
// end with the process. Returns how many started.
int makeSpinners() {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0) return 0;
  int started = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &cpus)) continue;
    std::thread([cpu] {
      pthread_setname_np(pthread_self(), "idle-spinner");
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      const sched_param none{0};
      if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0 ||
          sched_setscheduler(0, SCHED_IDLE, &none) != 0)
        return;  // never spin at a priority that could take a host's CPU
      for (;;) {
        spinning.wait(false);
        while (spinning.load(std::memory_order_relaxed)) relaxCpu();
      }
    }).detach();
    ++started;
  }
  return started;
}

}  // namespace

void askForPreciseWakeUps() {
  if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) != 0)
    std::cerr << "dtbench-switch: timer slack stays the default (" << std::strerror(errno)
              << "): wake-ups up to 50 us late\n";

  // The CPU before the hosts' processes, as a switch is hardware of its
  // own (the kernel's RT throttling still leaves the others 5 %); it sleeps
  // whenever nothing is due.
  const sched_param realtime{1};
  if (sched_setscheduler(0, SCHED_FIFO, &realtime) != 0)
    std::cerr << "dtbench-switch: not real-time (" << std::strerror(errno)
              << "): latency will vary with load\n";

  // Held open on purpose, never closed: closing it withdraws the request.
  const int qos = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
  const int32_t noExitLatencyUs = 0;
  const ssize_t written = qos < 0 ? -1 : write(qos, &noExitLatencyUs, sizeof(noExitLatencyUs));
  if (written != sizeof(noExitLatencyUs)) {
    const char* why = written < 0 ? std::strerror(errno) : "the request was not taken whole";
    std::cerr << "dtbench-switch: cannot hold the CPUs awake (/dev/cpu_dma_latency: " << why
              << "): latency will vary with idle time\n";
  }
}

IdleSpinners::IdleSpinners() {
  if (cpuidleDriverRuns()) return;
  const int started = makeSpinners();
  made_ = started > 0;
  std::cerr << "dtbench-switch: no cpuidle driver honours PM QoS here: " << started
            << " SCHED_IDLE threads keep the CPUs from halting while the network is shaped\n";
}

void IdleSpinners::spinWhile(bool shaped) {
  if (!made_ || spinning.exchange(shaped) == shaped) return;
  if (shaped) spinning.notify_all();
}

}  // namespace dtb::netswitch
