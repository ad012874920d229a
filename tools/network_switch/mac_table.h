// The learning part of an Ethernet switch: which port each source address
// was last seen on, and where a frame goes — to the port its destination
// was learned on, or, for broadcast, multicast and addresses not seen yet
// (ARP's first request), to every other port.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace dtb::netswitch {

class MacTable {
 public:
  explicit MacTable(size_t ports) : ports_(ports) {}

  // Learns the frame's source on `ingress` and returns the ports it leaves
  // by (never `ingress`); none for a frame shorter than its two addresses.
  std::vector<size_t> route(size_t ingress, const unsigned char* frame, size_t length);

 private:
  size_t ports_;
  std::unordered_map<uint64_t, size_t> portOf_;
};

}  // namespace dtb::netswitch
