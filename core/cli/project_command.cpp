#include "cli/project_command.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "projection/collective_cost.h"
#include "projection/system_model.h"
#include "sweep/sweep_spec.h"

namespace dtb::cli {
namespace {

constexpr int kMaxProjectedGpus = 1 << 20;

struct ProjectOptions {
  std::string system;
  std::string bytes = "100M";  // about ResNet-50's fp32 gradients (25.6 M parameters)
  std::vector<int> gpus;
};

// Powers of two within a node, then whole nodes doubling, to 1,024 GPUs.
std::vector<int> defaultGpus(int perNode) {
  std::vector<int> gpus;
  for (int g = 2; g < perNode; g *= 2) gpus.push_back(g);
  for (int g = perNode; g <= 1024; g *= 2) gpus.push_back(g);
  return gpus;
}

void printLink(const char* what, const core::Link& link) {
  std::printf("%s %.1f GB/s, %.2f us", what, link.bytesPerS / 1e9, link.latencyS * 1e6);
}

int project(const ProjectOptions& o) {
  const core::SystemModel system = core::readSystemFile(o.system);
  const int64_t bytes = core::parseSize(o.bytes);
  const std::vector<int> gpus = o.gpus.empty() ? defaultGpus(system.gpusPerNode) : o.gpus;
  // Every count costed before anything is printed: one that does not fill
  // whole nodes is refused alone, not after a table's head.
  std::vector<core::AllreduceCost> costs;
  for (int g : gpus) costs.push_back(core::allreduceCost(static_cast<double>(bytes), g, system));
  std::printf("# %s: %d GPUs and %d NICs a node; ", system.name.c_str(), system.gpusPerNode,
              system.nicsPerNode);
  printLink("GPU link", system.intraNode);
  printLink("; NIC", system.interNode);
  std::printf(
      "\n# all-reduce of %s (%lld bytes) by alpha-beta models of NCCL's schedules (docs/projection.md)\n",
      core::formatSize(bytes).c_str(), static_cast<long long>(bytes));
  std::printf("%6s %6s %10s %10s %16s %13s %11s\n", "gpus", "nodes", "ring_ms", "tree_ms", "hierarchical_ms",
              "best", "busbw_GBps");
  for (size_t i = 0; i < gpus.size(); ++i) {
    const int g = gpus[i];
    const core::AllreduceCost& c = costs[i];
    std::printf("%6d %6d %10.3f %10.3f %16.3f %13s %11.1f\n", g, c.nodes, c.ringS * 1e3, c.treeS * 1e3,
                c.hierarchicalS * 1e3, c.best.c_str(),
                core::allreduceBusBytesPerS(static_cast<double>(bytes), c.bestS, g) / 1e9);
  }
  return 0;
}

}  // namespace

void addProjectCommand(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<ProjectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "project",
      "What an all-reduce costs on a target system, from one node to 1,024 GPUs: NCCL's ring, tree and\n"
      "hierarchical schedules by their alpha-beta models, the cheapest, and its bus bandwidth.\n"
      "Examples:\n"
      "  dtbench project --system examples/systems/juwels_booster.toml\n"
      "  dtbench project --system my_cluster.toml --bytes 25M --gpus 8,64,512");
  cmd->add_option("--system", o->system, "The system file (TOML: docs/projection.md)")->required();
  cmd->add_option("--bytes", o->bytes, "The all-reduced array: bytes, or a size like 100M (default 100M)");
  cmd->add_option("--gpus", o->gpus, "GPU counts, comma-separated (default: 2, 4, ... to 1,024)")
      ->delimiter(',')
      ->check(CLI::Range(1, kMaxProjectedGpus));
  cmd->allow_extras(false);
  cmd->callback([&global, o] {
    try {
      global.exitCode = project(*o);
    } catch (const core::SystemFileError& e) {
      std::fprintf(stderr, "%s\n", e.what());  // FILE:LINE:COLUMN: error: ..., as a compiler's
      global.exitCode = 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dtbench project: %s\n", e.what());
      global.exitCode = 1;
    }
  });
}

}  // namespace dtb::cli
