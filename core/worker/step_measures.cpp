#include "worker/step_measures.h"

#include <utility>

namespace dtb::core {

CommCounters CommCounters::of(const Communicator& comm) {
  return {comm.busBytes(), comm.bytes(), comm.collectives(), comm.busySeconds()};
}

void setPhases(StepRecord& record, const StepTiming& timing) {
  for (const PhaseInfo& p : kPhases) {
    if (p.source == PhaseSource::kTrainingStep) record.phases[p.id] = timing[p.id];
  }
}

void setCommSince(StepRecord& record, const CommCounters& before, const Communicator& comm) {
  record.bytesSent = static_cast<int64_t>(comm.bytes() - before.bytes);
  record.collectives = static_cast<int64_t>(comm.collectives() - before.collectives);
  record.busBytes = static_cast<double>(comm.busBytes() - before.busBytes);
  if (before.busySeconds) {
    record.phases[Phase::kCommTotal] = comm.busySeconds().value_or(*before.busySeconds) - *before.busySeconds;
  }
}

void traceStep(TraceRecorder& trace, int64_t dataBegin, int64_t stepBegin, const StepTiming& timing) {
  trace.span("data", "step", dataBegin, /*endNs=*/stepBegin);
  // Each hook as long as it lasted on the clock, its waits included (the
  // collectives' own spans show where they were). finish_backward is split
  // as it is booked: its waits (exposed communication), then the strategy's
  // computation (the optimizer phase, with step()) — back to back, though on
  // the clock they may interleave.
  const StepTiming& t = timing;
  const std::pair<const char*, double> phases[] = {
      {"forward", t[Phase::kForward] + t[Phase::kForwardWait]},
      {"backward", t[Phase::kBackward] + t[Phase::kBackwardWait]},
      {"finish_backward wait (exposed)", t[Phase::kCommExposed] - t.waitsInPhases()},
      {"finish_backward compute (optimizer)", t.finishComputeS},
      {"optimizer", t[Phase::kOptimizer] - t.finishComputeS + t[Phase::kOptimizerWait]}};
  int64_t begin = stepBegin;
  for (const auto& [name, seconds] : phases) {
    const int64_t end = begin + static_cast<int64_t>(seconds * 1e9);
    trace.span(name, "step", begin, end);
    begin = end;
  }
}

}  // namespace dtb::core
