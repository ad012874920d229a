// System files: read into the model, every mistake named at its line.
#include "projection/system_model.h"

#include <gtest/gtest.h>

#include <string>

namespace dtb::core {
namespace {

const std::string kGood = R"([system]
name = "two GPUs a node"
gpus_per_node = 2
nics_per_node = 1
sources = ["made up"]
[system.intra_node]
latency_us = 2
bandwidth_gbps = 50.5
[system.inter_node]
latency_us = 10
bandwidth_gbps = 12.5
)";

std::string errorOf(const std::string& text) {
  try {
    parseSystem(text, "s.toml");
  } catch (const SystemFileError& e) {
    return e.what();
  }
  ADD_FAILURE() << "parsed:\n" << text;
  return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(SystemFile, ReadsTheNodeAndItsLinks) {
  const SystemModel s = parseSystem(kGood, "s.toml");
  EXPECT_EQ(s.name, "two GPUs a node");
  EXPECT_EQ(s.gpusPerNode, 2);
  EXPECT_EQ(s.nicsPerNode, 1);
  EXPECT_DOUBLE_EQ(s.intraNode.latencyS, 2e-6);
  EXPECT_DOUBLE_EQ(s.intraNode.bytesPerS, 50.5e9);
  EXPECT_DOUBLE_EQ(s.interNode.latencyS, 10e-6);
  EXPECT_DOUBLE_EQ(s.interNode.bytesPerS, 12.5e9);
  EXPECT_EQ(s.sources, std::vector<std::string>{"made up"});
}

TEST(SystemFile, MistakesAreNamedAtTheirLine) {
  EXPECT_EQ(
      errorOf(replaced(kGood, "nics_per_node", "nic_per_node")),
      "s.toml:4:1: error: unknown key 'nic_per_node' in [system] (known: fabric, gpus_per_node, inter_node, "
      "intra_node, name, nics_per_node, sources, throughput)");
  EXPECT_EQ(errorOf(replaced(kGood, "bandwidth_gbps = 12.5", "bandwidth_gbps = 0")),
            "s.toml:11:18: error: 'bandwidth_gbps' is 0: it must be above 0 and at most 100000");
  EXPECT_EQ(errorOf(replaced(kGood, "gpus_per_node = 2", "gpus_per_node = 2.5")),
            "s.toml:3:17: error: 'gpus_per_node' must be a whole number");
  EXPECT_EQ(errorOf(replaced(kGood, "gpus_per_node = 2", "gpus_per_node = 65")),
            "s.toml:3:17: error: 'gpus_per_node' is 65: it must be 1 to 64");
  EXPECT_EQ(errorOf(replaced(kGood, "latency_us = 2\n", "")),
            "s.toml:6:1: error: [system.intra_node] needs 'latency_us'");
  EXPECT_EQ(errorOf(replaced(kGood, "[system.inter_node]\nlatency_us = 10\nbandwidth_gbps = 12.5\n", "")),
            "s.toml:1:1: error: [system] needs [inter_node]");
  EXPECT_NE(errorOf("[system]\nname = \"x\"\ngpus_per_node = \n").find("s.toml:3:"), std::string::npos);
  EXPECT_EQ(errorOf("[sytem]\n"),
            "s.toml:1:2: error: unknown key 'sytem' in the system file (known: system)");
}

TEST(SystemFile, ThroughputsAreOptionalAndBounded) {
  EXPECT_TRUE(parseSystem(kGood, "s.toml").samplesPerS.empty());
  const SystemModel s = parseSystem(kGood + "[system.throughput]\nresnet50 = 938\nlenet = 1.5e5\n", "s.toml");
  EXPECT_EQ(s.samplesPerS, (std::map<std::string, double>{{"lenet", 1.5e5}, {"resnet50", 938}}));
  EXPECT_EQ(errorOf(kGood + "[system.throughput]\nresnet50 = -938\n"),
            "s.toml:13:12: error: 'resnet50' is -938: it must be above 0 and at most 1e+09");
  EXPECT_EQ(errorOf(kGood + "[system.throughput]\nresnet50 = \"fast\"\n"),
            "s.toml:13:12: error: 'resnet50' must be a number");
}

TEST(SystemFile, TheFabricIsOptionalAndBounded) {
  const SystemModel flat = parseSystem(kGood, "s.toml");
  EXPECT_EQ(flat.fabric.nodesPerSwitch, 0);  // one non-blocking switch
  EXPECT_EQ(flat.fabric.oversubscription, 1);
  const SystemModel s =
      parseSystem(kGood + "[system.fabric]\nnodes_per_switch = 16\noversubscription = 2.5\n", "s.toml");
  EXPECT_EQ(s.fabric.nodesPerSwitch, 16);
  EXPECT_EQ(s.fabric.oversubscription, 2.5);
  EXPECT_EQ(
      errorOf(kGood + "[system.fabric]\noversubscription = 0.5\n"),
      "s.toml:13:20: error: 'oversubscription' is 0.5: it must be at least 1 (1: uplinks as fast as the "
      "leaf's NICs)");
  EXPECT_EQ(errorOf(kGood + "[system.fabric]\nnodes_per_switch = 0\n"),
            "s.toml:13:20: error: 'nodes_per_switch' must be a whole number from 1 to 100000");
  EXPECT_EQ(errorOf(kGood + "[system.fabric]\nleaf_size = 4\n"),
            "s.toml:13:1: error: unknown key 'leaf_size' in [system.fabric] (known: nodes_per_switch, "
            "oversubscription, placement)");
  EXPECT_TRUE(parseSystem(kGood + "[system.fabric]\nplacement = \"spread\"\n", "s.toml").fabric.spread);
  EXPECT_EQ(errorOf(kGood + "[system.fabric]\nplacement = \"random\"\n"),
            "s.toml:13:13: error: 'placement' must be \"packed\" or \"spread\"");
}

}  // namespace
}  // namespace dtb::core
