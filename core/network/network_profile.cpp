#include "network/network_profile.h"

namespace dtb::core {

const std::vector<NetworkProfile>& networkProfiles() {
  // Mid-range of the published figures (shared/ANCHORS.md, "Networks to emulate").
  static const std::vector<NetworkProfile> profiles = {
      {"none", "the emulated network unshaped (as fast as this machine forwards)", 0, 0},
      {"10gbe", "10 Gigabit Ethernet, TCP", 20, 1.25},
      {"25gbe", "25 Gigabit Ethernet, TCP", 15, 3.1},
      {"100gbe", "100 Gigabit Ethernet, RoCE", 2.5, 12.5},
      {"ib-hdr", "InfiniBand HDR 200", 1, 25},
  };
  return profiles;
}

const NetworkProfile* findNetworkProfile(std::string_view name) {
  for (const NetworkProfile& profile : networkProfiles())
    if (profile.name == name) return &profile;
  return nullptr;
}

std::string networkProfileNames() {
  std::string names;
  for (const NetworkProfile& profile : networkProfiles()) names += (names.empty() ? "" : ", ") + profile.name;
  return names;
}

}  // namespace dtb::core
