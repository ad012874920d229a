#include "precise_wake_ups.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iostream>

namespace dtb::netswitch {

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

}  // namespace dtb::netswitch
