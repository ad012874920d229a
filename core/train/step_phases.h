// The phases of a training step: the one list that the step's timing, the
// records a rank sends, an epoch's sums, the store's columns and `dtbench
// schema` all derive from. A new phase is one line here, plus the code that
// measures it (usually train/training_step.cpp): the record channel carries
// it, the epoch sums it (when kPerEpoch), the store adds its column to
// `step` (and `epoch`) and documents it with the meaning given here.
//
// Phases are seconds of one optimizer step of one rank; an epoch's figure is
// the sum over its steps, the mean over ranks. The waits (kForwardWait,
// ...) are parts of kCommExposed: where the exposed communication happened.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace dtb::core {

// X(id, column, scope, source, meaning)
#define DTBENCH_STEP_PHASES(X)                                                                           \
  X(kData, "data_s", kPerEpoch, kLoader, "waiting for the loader")                                       \
  X(kForward, "forward_s", kPerEpoch, kTrainingStep,                                                     \
    "computing the forward pass (its communication waits taken out)")                                    \
  X(kBackward, "backward_s", kPerEpoch, kTrainingStep,                                                   \
    "computing the backward pass (its communication waits taken out)")                                   \
  X(kCommExposed, "comm_exposed_s", kPerEpoch, kTrainingStep,                                            \
    "the training thread blocked on communication, in any phase")                                        \
  X(kCommTotal, "comm_total_s", kPerEpoch, kBackend,                                                     \
    "the backend's busy time, overlapped or not; NULL when it does not count it")                        \
  X(kOptimizer, "optimizer_s", kPerEpoch, kTrainingStep,                                                 \
    "the strategy's step and its own compute after backward (waits taken out)")                          \
  X(kForwardWait, "forward_wait_s", kPerStep, kTrainingStep, "waits in forward (e.g. ZeRO-3's gathers)") \
  X(kBackwardWait, "backward_wait_s", kPerStep, kTrainingStep, "waits in backward's hooks")              \
  X(kOptimizerWait, "optimizer_wait_s", kPerStep, kTrainingStep,                                         \
    "waits in the strategy's step (e.g. ZeRO's all-gather)")

enum class Phase : uint8_t {
#define DTBENCH_PHASE_ID(id, column, scope, source, meaning) id,
  DTBENCH_STEP_PHASES(DTBENCH_PHASE_ID)
#undef DTBENCH_PHASE_ID
};

// kPerEpoch: a column of `step` and of `epoch`; kPerStep: of `step` only.
enum class PhaseScope : uint8_t { kPerStep, kPerEpoch };

// Who measures it: the training step (train/training_step.cpp), the data
// loader's wait (the worker), or the backend's busy-time counter.
enum class PhaseSource : uint8_t { kTrainingStep, kLoader, kBackend };

struct PhaseInfo {
  Phase id;
  const char* column;
  PhaseScope scope;
  PhaseSource source;
  const char* meaning;
};

inline constexpr PhaseInfo kPhases[] = {
#define DTBENCH_PHASE_INFO(id, column, scope, source, meaning) \
  {Phase::id, column, PhaseScope::scope, PhaseSource::source, meaning},
    DTBENCH_STEP_PHASES(DTBENCH_PHASE_INFO)
#undef DTBENCH_PHASE_INFO
};
inline constexpr size_t kPhaseCount = std::size(kPhases);

// One value per phase, indexed by Phase.
template <typename T>
struct PerPhase {
  std::array<T, kPhaseCount> values{};

  T& operator[](Phase p) { return values[static_cast<size_t>(p)]; }
  const T& operator[](Phase p) const { return values[static_cast<size_t>(p)]; }
};

// Seconds per phase; a step's micro-batches add up.
struct PhaseSeconds : PerPhase<double> {
  PhaseSeconds& operator+=(const PhaseSeconds& o) {
    for (size_t i = 0; i < kPhaseCount; ++i) values[i] += o.values[i];
    return *this;
  }
};

}  // namespace dtb::core
