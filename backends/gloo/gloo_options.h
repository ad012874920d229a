// What a Gloo communicator is asked for (gloo_settings.h's parameters, parsed).
#pragma once

#include <cstdint>
#include <string>

namespace dtb::backend::gloo {

enum class Algorithm { kAuto, kRing, kBcube, kRingChunked, kHalvingDoubling };
Algorithm parseAlgorithm(const std::string& name);

// Who reads a collective's sockets.
enum class Mode { kAsync, kSync, kBusyPoll };
Mode parseMode(const std::string& name);

struct GlooOptions {
  Algorithm algorithm = Algorithm::kAuto;
  Mode mode = Mode::kAsync;
  int64_t syncMaxBytes = 0;
};

}  // namespace dtb::backend::gloo
