#include "worker/fault_injector.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace dtb::core {
namespace {

std::string shortNumber(double s) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", s);
  return text;
}

}  // namespace

FaultPlan FaultPlan::of(const Cell& cell) {
  FaultPlan plan;
  if (!cell.find("fault.kind")) return plan;  // a spec from before faults
  plan.kind = cell.text("fault.kind");
  plan.rank = static_cast<int>(cell.integer("fault.rank"));
  plan.step = static_cast<uint64_t>(cell.integer("fault.step"));
  plan.seconds = cell.real("fault.seconds");
  plan.slowMs = cell.real("fault.slow_ms");
  return plan;
}

std::string FaultPlan::describe() const {
  const std::string where = "rank " + std::to_string(rank) + " at step " + std::to_string(step);
  if (kind == "kill") return "kill " + where;
  if (kind == "add") return "add a worker at step " + std::to_string(step);
  if (kind == "overflow") return "an inf in the gradients of " + where;
  if (kind == "stop") return "stop " + where + " for " + shortNumber(seconds) + " s";
  if (kind == "slow") {
    return "slow rank " + std::to_string(rank) + " by " + shortNumber(slowMs) + " ms per step from step " +
           std::to_string(step);
  }
  return "none";
}

void FaultInjector::beforeStep(uint64_t step, const std::function<void(const std::string&)>& note) const {
  if (!mine_ || step != plan_.step || plan_.kind == "none") return;
  note(plan_.describe());
  if (plan_.kind == "kill") raise(SIGKILL);
  if (plan_.kind == "stop") stopFor(plan_.seconds);
}

bool FaultInjector::addsWorkerAt(uint64_t step) const {
  return mine_ && plan_.kind == "add" && step == plan_.step;
}

bool FaultInjector::overflowsAt(uint64_t step) const {
  return mine_ && plan_.kind == "overflow" && step == plan_.step;
}

double FaultInjector::delayAt(uint64_t step) const {
  return mine_ && plan_.kind == "slow" && step >= plan_.step ? plan_.slowMs / 1000.0 : 0.0;
}

void stopFor(double s) {
  const pid_t self = getpid();
  timespec wait{};
  wait.tv_sec = static_cast<time_t>(s);
  wait.tv_nsec = static_cast<long>((s - std::floor(s)) * 1e9);
  const pid_t waker = fork();
  if (waker < 0) throw std::runtime_error(std::string("fault stop: cannot fork: ") + std::strerror(errno));
  if (waker == 0) {
    // Only async-signal-safe calls in the child of a threaded process. It
    // dies with the rank, holds none of its pipes (a launcher waiting for
    // their end must not wait for it), and keeps waking the rank until the
    // rank kills it: a SIGCONT sent before the rank had stopped is not lost.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != self) _exit(0);
    close_range(0, ~0U, 0);
    while (nanosleep(&wait, &wait) != 0 && errno == EINTR) {
    }
    for (;;) {
      kill(self, SIGCONT);
      const timespec again{0, 10'000'000};
      nanosleep(&again, nullptr);
    }
  }
  raise(SIGSTOP);
  // Resumed, by the waker or by someone else's SIGCONT: the stop is over.
  kill(waker, SIGKILL);
  while (waitpid(waker, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace dtb::core
