// The switch without its devices: frames come in on a port, are routed as
// the learning table says (mac_table.h) and leave each port as its shape
// delays and paces them (shaped_port.h); control lines change the shape
// (control_command.h). The event loop (main.cpp) feeds it what the TAP
// devices read and writes what it sends; the tests feed it frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "control_command.h"
#include "link_shape.h"
#include "mac_table.h"
#include "shaped_port.h"

namespace dtb::netswitch {

class FrameSwitch {
 public:
  using Send = std::function<void(size_t port, const Frame& frame)>;

  FrameSwitch(size_t ports, size_t queueLimitBytes, Send send);

  // A frame read from port `ingress` at nowNs: sent at once while the
  // network is unshaped, queued on each port it leaves by otherwise.
  void receive(size_t ingress, const unsigned char* frame, size_t length, int64_t nowNs);
  // Sends every queued frame due by nowNs; returns when the next one is due
  // (max() when none is queued).
  int64_t sendDue(int64_t nowNs);
  // Runs one control line; returns the reply, without its newline.
  std::string control(const std::string& line);
  // Whether frames are delayed or paced (a profile other than none is set).
  bool shaped() const { return shape_.latencyNs != 0 || shape_.bytesPerSecond != 0; }

 private:
  Send send_;
  std::vector<ShapedPort> ports_;
  MacTable macs_;
  LinkShape shape_;
  SwitchCounters counters_;
};

}  // namespace dtb::netswitch
