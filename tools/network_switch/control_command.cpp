#include "control_command.h"

#include <sstream>

namespace dtb::netswitch {

std::string runControlCommand(const std::string& line, LinkShape& shape, SwitchCounters& counters) {
  std::istringstream in(line);
  std::string verb;
  in >> verb;
  if (verb == "show") {
    std::ostringstream out;
    out << shape.name << ' ' << shape.latencyNs << ' ' << static_cast<int64_t>(shape.bytesPerSecond)
        << " frames=" << counters.frames << " late=" << counters.late << " dropped=" << counters.dropped;
    return out.str();
  }
  if (verb == "shape") {
    LinkShape next;
    std::string rest;
    if (!(in >> next.name >> next.latencyNs >> next.bytesPerSecond) || (in >> rest) || next.latencyNs < 0 ||
        next.bytesPerSecond < 0)
      return "error: expected 'shape NAME LATENCY_NS BYTES_PER_S' (not negative), got '" + line + "'";
    shape = next;
    counters = {};
    return "ok";
  }
  return "error: unknown command '" + line + "' (shape NAME LATENCY_NS BYTES_PER_S, or show)";
}

}  // namespace dtb::netswitch
