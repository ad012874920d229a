// What a link of the emulated network does to every frame: a one-way delay
// and a rate. The switch learns it from whoever shapes the network
// (dtbench, through the control socket); the names and figures of the
// profiles live in dtbench (core/network/network_profile.h), not here.
#pragma once

#include <cstdint>
#include <string>

namespace dtb::netswitch {

struct LinkShape {
  std::string name = "none";
  int64_t latencyNs = 0;
  double bytesPerSecond = 0;  // 0: as fast as the machine carries
};

}  // namespace dtb::netswitch
