// One data-parallel step on G GPUs, simulated as each strategy schedules
// it: the profile's compute (projection/step_profile.h) on every GPU at
// once, and the strategy's collectives (projection/strategy_schedule.h) on
// one communication stream, in the order they are issued, each starting
// when it is issued and the one before it has finished — as NCCL runs the
// collectives of one communicator. What the stream does after backward
// (or, for ZeRO-3, beyond each layer's compute) is exposed communication.
#pragma once

#include <functional>

#include "projection/step_profile.h"
#include "projection/strategy_schedule.h"

namespace dtb::core {

// What a collective of S bytes (the whole array) costs on the G GPUs.
struct CollectiveCosts {
  std::function<double(double)> allreduceS;
  std::function<double(double)> reduceScatterS;
  std::function<double(double)> allgatherS;
};

struct SimulatedStep {
  double stepS = 0;     // data, compute, exposed communication, the loop
  double commS = 0;     // the stream's busy time, overlapped or not
  double exposedS = 0;  // what the step waited for communication
};

SimulatedStep simulateStep(const StepProfile& profile, const StrategySchedule& schedule,
                           const CollectiveCosts& costs, int gpus);

}  // namespace dtb::core
