// Faults a matrix injects into one rank of a run, at a given optimizer step
// (the [fault] table; run keys fault.kind, fault.rank, fault.step,
// fault.seconds, fault.slow_ms). They are run settings like any other: an
// axis, stored with the run, and as reproducible as a clean run.
//   kill  the rank is killed (SIGKILL) before step `step`: a crashed worker
//   stop  the rank stops (SIGSTOP) before step `step` for `seconds`, then
//         goes on: a hang, or a run that fails naming the stopped rank when
//         `seconds` passes collective_timeout_s
//   slow  each step from `step` on takes `slow_ms` longer on the rank: a
//         straggler, its delay counted as forward (compute) time
//   add   (recovery = "elastic") the rank asks the coordinator for one more
//         worker before step `step`; it joins at the next commit
//   overflow  (precision = "fp16") an inf in the rank's gradient
//         at step `step`, as a too large loss scale makes: the loss scaler
//         skips the step on every rank (docs/mixed-precision.md)
// The host injects them, not a strategy, so every strategy can be faulted
// the same way; each fault is an event of the run (kind 'fault').
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "matrix/cell.h"

namespace dtb::core {

struct FaultPlan {
  std::string kind = "none";  // none, kill, stop, slow, add, overflow
  int rank = 0;
  uint64_t step = 0;
  double seconds = 0;  // stop
  double slowMs = 0;   // slow

  static FaultPlan of(const Cell& cell);
  // "kill rank 1 at step 5": what the event and the docs say.
  std::string describe() const;
};

class FaultInjector {
 public:
  FaultInjector(FaultPlan plan, int rank) : plan_(std::move(plan)), mine_(plan_.rank == rank) {}

  // Before optimizer step `step` (counted over the run from 0): kills or
  // stops this rank when the plan says so, after `note` has recorded the
  // fault (kill: `note` must flush, nothing runs after it).
  void beforeStep(uint64_t step, const std::function<void(const std::string&)>& note) const;

  // Whether this rank asks for a worker to join before step `step` (add).
  bool addsWorkerAt(uint64_t step) const;

  // Whether this rank's gradients get an inf at step `step` (overflow).
  bool overflowsAt(uint64_t step) const;

  // The seconds step `step` takes longer on this rank (slow), else 0.
  double delayAt(uint64_t step) const;

 private:
  FaultPlan plan_;
  bool mine_;  // this rank is the one the plan faults
};

// Stops this process for `seconds` (SIGSTOP), as a hung or descheduled
// process is: a child it forks sends SIGCONT when the time is up (or
// someone else's SIGCONT ends the stop earlier).
void stopFor(double seconds);

}  // namespace dtb::core
