#include "gloo_options.h"

#include "dtbench/plugin.hpp"

namespace dtb::backend::gloo {

Algorithm parseAlgorithm(const std::string& name) {
  if (name == "auto") return Algorithm::kAuto;
  if (name == "ring") return Algorithm::kRing;
  if (name == "bcube") return Algorithm::kBcube;
  if (name == "ring_chunked") return Algorithm::kRingChunked;
  if (name == "halving_doubling") return Algorithm::kHalvingDoubling;
  throw Error(DTB_STATUS_INVALID_ARGUMENT, "gloo: unknown algorithm '" + name + "'");
}

Mode parseMode(const std::string& name) {
  if (name == "async") return Mode::kAsync;
  if (name == "sync") return Mode::kSync;
  if (name == "busy_poll") return Mode::kBusyPoll;
  throw Error(DTB_STATUS_INVALID_ARGUMENT, "gloo: unknown mode '" + name + "'");
}

}  // namespace dtb::backend::gloo
