// The networks a run can have on tools/cluster.sh's hosts (the matrix key
// `network`): named profiles with the published one-way latency and
// per-link bandwidth of the interconnect they stand for (shared/ANCHORS.md:
// 10/25 GbE over TCP, 100 GbE RoCE, InfiniBand HDR).
//
// A 2-core machine carries nothing near 25 GB/s, and its own software path
// costs ~100 us a message, so every profile is emulated slowed down by one
// factor, kNetworkTimeScale: latency x 100, bandwidth / 100. One factor for
// all keeps what decides the strategies' order — each profile's
// latency-bandwidth product (the message size where both cost the same),
// and the profiles' ratios to each other — and roughly matches how much
// slower this machine computes than a GPU node.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dtb::core {

inline constexpr double kNetworkTimeScale = 100;

struct NetworkProfile {
  std::string name;
  std::string what;          // the interconnect it stands for
  double latencyUs = 0;      // published, one way, per message
  double gigabytesPerS = 0;  // published, per link and direction (1e9 bytes/s); 0 unlimited

  // As the emulated network applies it.
  double emulatedLatencyUs() const { return latencyUs * kNetworkTimeScale; }
  double emulatedGigabytesPerS() const { return gigabytesPerS / kNetworkTimeScale; }
};

// Every profile, "none" (the emulated network unshaped) first.
const std::vector<NetworkProfile>& networkProfiles();
// The profile of that name, or nullptr.
const NetworkProfile* findNetworkProfile(std::string_view name);
// "none, 10gbe, 25gbe, 100gbe, ib-hdr", for errors and help.
std::string networkProfileNames();

}  // namespace dtb::core
