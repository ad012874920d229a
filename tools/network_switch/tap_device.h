// A TAP device: a virtual Ethernet interface whose frames this process
// reads and writes. The switch makes one per host and keeps its file
// descriptor; tools/cluster.sh then moves the interface into the host's
// network namespace as its eth0 (the descriptor goes on working there), and
// the device goes away with the switch.
#pragma once

#include <string>

namespace dtb::netswitch {

class TapDevice {
 public:
  // Makes the device (root or CAP_NET_ADMIN) with that MTU, non-blocking;
  // throws std::runtime_error saying why not.
  TapDevice(const std::string& name, int mtu);
  ~TapDevice();
  TapDevice(const TapDevice&) = delete;
  TapDevice& operator=(const TapDevice&) = delete;

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  int fd_ = -1;
};

}  // namespace dtb::netswitch
