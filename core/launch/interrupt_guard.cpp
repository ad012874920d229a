#include "launch/interrupt_guard.h"

#include <signal.h>

namespace dtb::core {
namespace {

std::atomic<bool> interrupted{false};

void onInterrupt(int) { interrupted = true; }

}  // namespace

InterruptGuard::InterruptGuard() {
  interrupted = false;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

InterruptGuard::~InterruptGuard() {
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
}

const std::atomic<bool>* InterruptGuard::flag() const { return &interrupted; }

}  // namespace dtb::core
