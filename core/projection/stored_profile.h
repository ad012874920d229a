// The step profile of a stored run: its steady steps' phases (the
// step_breakdown view) and when rank 0's gradients became ready
// (gradient_ready). A projection is best made from a 1-rank run: its
// phases hold no waits for peers and its backward no communication.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "projection/step_profile.h"
#include "store/database.h"

namespace dtb::core {

struct ProfiledRun {
  int64_t runId = 0;
  std::string model;  // as the field names it, with its depth: resnet50 (the run_model view)
  std::string dataset, strategy, device;
  int worldSize = 1;
  StepProfile profile;
};

// What the run lacks for a projection (no such run, no steady steps, no
// gradient times: stored by a dtbench before 0.x or failed early), said
// with the run's id.
class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

ProfiledRun readProfiledRun(Database& db, int64_t runId);

}  // namespace dtb::core
