// One training step of one rank as a projection sees it: the time of each
// phase on the measured device, and when each gradient became ready in
// backward. Read from a stored run (projection/stored_profile.h).
#pragma once

#include <cstdint>
#include <vector>

namespace dtb::core {

struct ProfiledGradient {
  int64_t param = 0;  // the parameter's index
  int64_t layer = 0;  // the layer that uses it
  double bytes = 0;   // the gradient's size (and the parameter's)
  double readyS = 0;  // after backward began, within StepProfile::backwardS
};

struct StepProfile {
  double dataS = 0;                         // waiting for the batch
  double forwardS = 0;                      // compute only, no communication waits
  double backwardS = 0;                     // likewise
  double optimizerS = 0;                    // the optimizer's update of every parameter
  double otherS = 0;                        // the loop's own time
  int64_t samplesPerStep = 0;               // one rank's: batch x micro-batches
  std::vector<ProfiledGradient> gradients;  // in the order they became ready

  double gradientBytes() const {
    double sum = 0;
    for (const ProfiledGradient& g : gradients) sum += g.bytes;
    return sum;
  }
  double stepS() const { return dataS + forwardS + backwardS + optimizerS + otherS; }
  // Every phase, and every gradient's time, `factor` times as long.
  StepProfile scaled(double factor) const {
    StepProfile p = *this;
    for (double* phase : {&p.dataS, &p.forwardS, &p.backwardS, &p.optimizerS, &p.otherS}) *phase *= factor;
    for (ProfiledGradient& g : p.gradients) g.readyS *= factor;
    return p;
  }
  // Forward, backward and the optimizer `speedup` times faster (a faster
  // device), each gradient ready at the same fraction of backward.
  StepProfile onFasterDevice(double speedup) const {
    StepProfile p = *this;
    p.forwardS /= speedup;
    p.backwardS /= speedup;
    p.optimizerS /= speedup;
    for (ProfiledGradient& g : p.gradients) g.readyS /= speedup;
    return p;
  }
};

}  // namespace dtb::core
