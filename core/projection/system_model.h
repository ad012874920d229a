// A target system for a projection: how many GPUs share a node, the link
// between two GPUs of a node and between nodes, and how many NICs a node
// has. Read from a system file (examples/systems/, docs/projection.md):
//
//   [system]
//   name = "JUWELS Booster"
//   gpus_per_node = 4
//   nics_per_node = 4
//   sources = ["where each figure comes from", ...]
//   [system.intra_node]
//   latency_us = 1.0
//   bandwidth_gbps = 300     # GB/s (1e9 bytes), one direction, per GPU
//   [system.inter_node]
//   latency_us = 1.0
//   bandwidth_gbps = 25      # per NIC
//   [system.throughput]      # optional: one GPU's samples/s training a model
//   resnet50 = 938           # (the model as the store names it, run_model)
//   [system.fabric]          # optional: leaf switches and their uplinks
//   nodes_per_switch = 16    # (SimGrid's part, --network-model simgrid)
//   oversubscription = 2
//   placement = "packed"     # or "spread"
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "projection/alpha_beta_link.h"

namespace dtb::core {

// How nodes reach each other beyond their NICs: leaf switches of
// `nodesPerSwitch` nodes, each joined to the others by an uplink carrying
// 1/oversubscription of what its nodes' NICs can send (a two-level fat
// tree). nodesPerSwitch 0: one non-blocking switch for every node. The
// job's nodes fill the leaves one after another (packed), or are dealt out
// over them in turn (spread: a fragmented allocation, where the nodes next
// to each other in NCCL's rings and trees sit on different leaves). Only
// the flow-level simulation sees it (projection/flow_simulation.h); the
// closed forms take the network as non-blocking.
struct Fabric {
  int nodesPerSwitch = 0;
  double oversubscription = 1;
  bool spread = false;
};

struct SystemModel {
  std::string name;
  int gpusPerNode = 1;
  int nicsPerNode = 1;
  Link intraNode;  // GPU to GPU within a node
  Link interNode;  // one NIC to another node's
  std::vector<std::string> sources;
  // Samples/s one GPU trains each model at, alone (published figures): a
  // projection's step on one GPU, by model name ("resnet50").
  std::map<std::string, double> samplesPerS;
  Fabric fabric;
};

// Bounds that keep a typo from projecting nonsense: a node of 1 to 64 GPUs
// and NICs, latencies up to a second, bandwidths up to 100 TB/s.
constexpr int kMaxGpusPerNode = 64;
constexpr double kMaxLatencyUs = 1e6;
constexpr double kMaxBandwidthGbps = 1e5;
constexpr double kMaxSamplesPerS = 1e9;
constexpr double kMaxNodesPerSwitch = 1e5;
constexpr double kMaxOversubscription = 1e3;

// A system file's mistake, formatted "FILE:LINE:COLUMN: error: what".
class SystemFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads `path` (bounded, as a matrix file). Throws SystemFileError naming
// the file, the line and what is wrong: a syntax error, an unknown or
// missing key, a value out of its bounds.
SystemModel readSystemFile(const std::filesystem::path& path);
// The same from text; `source` names it in errors.
SystemModel parseSystem(std::string_view text, const std::string& source);

}  // namespace dtb::core
