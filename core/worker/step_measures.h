// How one optimizer step of a rank becomes a StepRecord: its phases from the
// training step's timing, what its collectives sent (the communicator's
// counters before and after), its spans in the trace, and how steps add up
// to an epoch.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

#include "host/communicator.h"
#include "host/trace_recorder.h"
#include "store/records.h"
#include "train/training_step.h"

namespace dtb::core {

// The micro-batches of one step, added up.
struct MicroBatchTotals {
  StepTiming timing;
  double lossSum = 0;  // each micro-batch's mean loss times its samples
  int64_t correct = 0;
  int64_t samples = 0;
  double lossScale = 1;                                        // fp16: the scale of the step's gradients
  bool skipped = false;                                        // fp16: an overflow skipped the step
  double gradNorm = std::numeric_limits<double>::quiet_NaN();  // gradient_clipping: before it
  double clipFactor = 1;                                       // gradient_clipping: applied
};

// The communicator's counters at one moment.
struct CommCounters {
  uint64_t busBytes = 0, bytes = 0, collectives = 0;
  std::optional<double> busySeconds;  // unknown where the backend does not count it

  static CommCounters of(const Communicator& comm);
};

// The phases the training step measures (PhaseSource::kTrainingStep), from its timing.
void setPhases(StepRecord& record, const StepTiming& timing);

// What the step's collectives moved since `before`, and the backend's busy
// time over it, overlapped or not.
void setCommSince(StepRecord& record, const CommCounters& before, const Communicator& comm);

// The phases of one training step in the trace, back to back from `begin`
// (the training step times them in this order: forward, backward,
// finish_backward's waits then its computation, step() as "optimizer"),
// after its data wait from `dataBegin`.
void traceStep(TraceRecorder& trace, int64_t dataBegin, int64_t stepBegin, const StepTiming& timing);

}  // namespace dtb::core
