// The switch's control protocol: one line in, one line back, over a Unix
// socket (DIR/switch.sock of tools/cluster.sh), so that dtbench can shape
// the network before each cell of a matrix.
//
//   shape NAME LATENCY_NS BYTES_PER_S   every port from now on; "ok"
//   show                                "NAME LATENCY_NS BYTES_PER_S frames=N late=N dropped=N"
//
// late counts frames that left more than a millisecond after they were due
// (the machine could not keep up with the profile), dropped those a full
// queue refused; both since the last shape.
#pragma once

#include <cstdint>
#include <string>

#include "link_shape.h"

namespace dtb::netswitch {

struct SwitchCounters {
  uint64_t frames = 0;
  uint64_t late = 0;
  uint64_t dropped = 0;
};

// Runs one command; `shape` and `counters` change when it is a shape.
// Returns the reply, without its newline; a bad command's starts "error: ".
std::string runControlCommand(const std::string& line, LinkShape& shape, SwitchCounters& counters);

}  // namespace dtb::netswitch
