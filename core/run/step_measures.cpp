#include "run/step_measures.h"

#include <utility>

namespace dtb::core {

CommCounters CommCounters::of(const Communicator& comm) {
  return {comm.busBytes(), comm.bytes(), comm.collectives(), comm.busySeconds()};
}

void setPhases(StepRecord& record, const StepTiming& timing) {
  record.forwardS = timing.forwardS;
  record.backwardS = timing.backwardS;
  record.commExposedS = timing.commExposedS;
  record.optimizerS = timing.optimizerS;
  record.forwardWaitS = timing.forwardWaitS;
  record.backwardWaitS = timing.backwardWaitS;
  record.optimizerWaitS = timing.optimizerWaitS;
}

void setCommSince(StepRecord& record, const CommCounters& before, const Communicator& comm) {
  record.bytesSent = static_cast<int64_t>(comm.bytes() - before.bytes);
  record.collectives = static_cast<int64_t>(comm.collectives() - before.collectives);
  record.busBytes = static_cast<double>(comm.busBytes() - before.busBytes);
  if (before.busySeconds) {
    record.commTotalS = comm.busySeconds().value_or(*before.busySeconds) - *before.busySeconds;
  }
}

void addPhases(StepRecord& sum, const StepRecord& step) {
  auto add = [](std::optional<double>& total, const std::optional<double>& v) {
    total = total.value_or(0) + v.value_or(0);
  };
  add(sum.dataS, step.dataS);
  add(sum.forwardS, step.forwardS);
  add(sum.backwardS, step.backwardS);
  add(sum.commExposedS, step.commExposedS);
  add(sum.optimizerS, step.optimizerS);
  add(sum.commTotalS, step.commTotalS);
  add(sum.busBytes, step.busBytes);
}

void traceStep(TraceRecorder& trace, int64_t dataBegin, int64_t stepBegin, const StepTiming& timing) {
  trace.span("data", "step", dataBegin, /*endNs=*/stepBegin);
  // Each hook as long as it lasted on the clock, its waits included (the
  // collectives' own spans show where they were). finish_backward is split
  // as it is booked: its waits (exposed communication), then the strategy's
  // computation (the optimizer phase, with step()) — back to back, though on
  // the clock they may interleave.
  const StepTiming& t = timing;
  const double finishWaitS = t.commExposedS - (t.forwardWaitS + t.backwardWaitS + t.optimizerWaitS);
  const std::pair<const char*, double> phases[] = {
      {"forward", t.forwardS + t.forwardWaitS},
      {"backward", t.backwardS + t.backwardWaitS},
      {"finish_backward wait (exposed)", finishWaitS},
      {"finish_backward compute (optimizer)", t.finishComputeS},
      {"optimizer", t.optimizerS - t.finishComputeS + t.optimizerWaitS}};
  int64_t begin = stepBegin;
  for (const auto& [name, seconds] : phases) {
    const int64_t end = begin + static_cast<int64_t>(seconds * 1e9);
    trace.span(name, "step", begin, end);
    begin = end;
  }
}

}  // namespace dtb::core
