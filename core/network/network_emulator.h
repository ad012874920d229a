// The emulated network of tools/cluster.sh's hosts, as dtbench drives it:
// the control socket of its switch (tools/network_switch), which
// `tools/cluster.sh on` names in DTBENCH_NETWORK_CONTROL. Before each run
// dtbench shapes every link to the cell's `network` profile — or unshapes
// it — so that one matrix can cross networks, and stores what it applied.
#pragma once

#include <optional>
#include <string>

#include "network/network_profile.h"

namespace dtb::core {

inline constexpr const char* kNetworkControlVariable = "DTBENCH_NETWORK_CONTROL";

class NetworkEmulator {
 public:
  explicit NetworkEmulator(std::string controlSocket) : socket_(std::move(controlSocket)) {}
  // The one DTBENCH_NETWORK_CONTROL names; nullopt where it is unset (the
  // hosts' own network, which dtbench neither shapes nor measures).
  static std::optional<NetworkEmulator> fromEnvironment();

  // Every link from now on; throws std::runtime_error naming the socket when
  // the switch does not answer (5 s) or refuses.
  void shape(const NetworkProfile& profile) const;

 private:
  std::string ask(const std::string& line) const;
  std::string socket_;
};

// Shapes the network for a run whose cell says `network` ("" for none
// named): returns the profile it applied ("none" when the cell names none
// but the network is emulated), or nullopt on the hosts' own network.
// Throws std::invalid_argument when a profile is named and no emulated
// network is there to shape, saying how to get one.
std::optional<NetworkProfile> shapeNetworkFor(const std::string& network);

// The same check alone, before a matrix's first run.
void requireEmulatedNetworkFor(const std::string& network);

}  // namespace dtb::core
