#include "mac_table.h"

namespace dtb::netswitch {
namespace {

uint64_t address(const unsigned char* bytes) {
  uint64_t value = 0;
  for (int i = 0; i < 6; ++i) value = value << 8 | bytes[i];
  return value;
}

}  // namespace

std::vector<size_t> MacTable::route(size_t ingress, const unsigned char* frame, size_t length) {
  if (length < 12) return {};
  portOf_[address(frame + 6)] = ingress;
  // The group bit (the first octet's lowest) marks broadcast and multicast.
  const bool group = (frame[0] & 1) != 0;
  if (!group) {
    const auto known = portOf_.find(address(frame));
    if (known != portOf_.end()) {
      if (known->second == ingress) return {};
      return {known->second};
    }
  }
  std::vector<size_t> flood;
  for (size_t port = 0; port < ports_; ++port)
    if (port != ingress) flood.push_back(port);
  return flood;
}

}  // namespace dtb::netswitch
