#include "projection/flow_simulation.h"

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "plugin/isolated_call.h"
#include "projection/collective_flows.h"
#include "projection/flow_platform.h"
#include "projection/simgrid_loader.h"

namespace dtb::core {
namespace {

// The two sizes each line is drawn through: large enough that bandwidth
// decides, far enough apart that the slope is well measured.
constexpr double kSmallBytes = 16.0 * (1 << 20);
constexpr double kLargeBytes = 256.0 * (1 << 20);

// Each schedule simulated, and the line of SimulatedNetwork it gives.
constexpr std::pair<CollectiveSchedule, CostLine SimulatedNetwork::*> kSchedules[] = {
    {CollectiveSchedule::kRingAllreduce, &SimulatedNetwork::ring},
    {CollectiveSchedule::kTreeAllreduce, &SimulatedNetwork::tree},
    {CollectiveSchedule::kHierarchicalAllreduce, &SimulatedNetwork::hierarchical},
    {CollectiveSchedule::kRingReduceScatter, &SimulatedNetwork::reduceScatter},
    {CollectiveSchedule::kRingAllgather, &SimulatedNetwork::allgather},
};

// The child's answer: "ok" and each schedule's seconds, or what went wrong.
std::string timeInChild(const SystemModel& system, int gpus, const std::vector<FlowSchedule>& schedules) {
  try {
    std::ostringstream out;
    out.precision(17);
    out << "ok";
    for (double s : timeWithSimgridModule(describePlatform(system, gpus, schedules), schedules))
      out << ' ' << s;
    return out.str();
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

bool simgridAvailable() { return findSimgridModule().has_value(); }

std::vector<double> simulateSchedules(const SystemModel& system, int gpus,
                                      const std::vector<FlowSchedule>& schedules,
                                      std::chrono::milliseconds limit) {
  size_t flows = 0;
  for (const FlowSchedule& s : schedules) {
    for (const FlowPhase& phase : s.phases) flows += phase.flows.size();
  }
  const std::string what = "SimGrid's simulation of " + std::to_string(gpus) + " GPUs";
  if (flows > kMaxSimulatedFlows) {
    throw std::invalid_argument(what + " needs " + std::to_string(flows) + " flows, more than the " +
                                std::to_string(kMaxSimulatedFlows) + " it may have");
  }
  const IsolatedOutcome outcome = runIsolated([&] { return timeInChild(system, gpus, schedules); }, limit);
  if (!outcome.completed) throw std::runtime_error(what + " " + outcome.death);
  std::istringstream in(outcome.result);
  std::string word;
  in >> word;
  if (word != "ok") throw std::runtime_error(what + ": " + outcome.result);
  std::vector<double> seconds(schedules.size());
  for (double& s : seconds) {
    if (!(in >> s)) throw std::runtime_error(what + " answered too few figures: " + outcome.result);
  }
  return seconds;
}

SimulatedNetwork simulateNetwork(const SystemModel& system, int gpus, std::chrono::milliseconds limit) {
  SimulatedNetwork network;
  network.gpus = gpus;
  network.nodes = placeGpus(gpus, system).nodes;
  if (gpus == 1) return network;
  std::vector<FlowSchedule> schedules;
  for (const auto& [schedule, line] : kSchedules) {
    for (double bytes : {kSmallBytes, kLargeBytes})
      schedules.push_back(collectiveFlows(schedule, bytes, gpus, system));
  }
  const std::vector<double> seconds = simulateSchedules(system, gpus, schedules, limit);
  for (size_t i = 0; i < std::size(kSchedules); ++i) {
    const double small = seconds[2 * i], large = seconds[2 * i + 1];
    CostLine& line = network.*kSchedules[i].second;
    line.secondsPerByte = (large - small) / (kLargeBytes - kSmallBytes);
    line.latencyS = small - kSmallBytes * line.secondsPerByte;
  }
  return network;
}

AllreduceCost allreduceCost(double bytes, const SimulatedNetwork& network) {
  AllreduceCost cost;
  cost.nodes = network.nodes;
  cost.best = "ring";
  if (network.gpus == 1) return cost;
  cost.ringS = network.ring.at(bytes);
  cost.treeS = network.tree.at(bytes);
  cost.hierarchicalS = network.hierarchical.at(bytes);
  cost.pickCheapest();
  return cost;
}

CollectiveCosts collectiveCosts(const SimulatedNetwork& network, bool ringOnly) {
  const auto free = [](double) { return 0.0; };
  if (network.gpus == 1) return {free, free, free};
  std::function<double(double)> allreduce = [network](double bytes) {
    return allreduceCost(bytes, network).bestS;
  };
  if (ringOnly) allreduce = [line = network.ring](double bytes) { return line.at(bytes); };
  return {allreduce, [line = network.reduceScatter](double bytes) { return line.at(bytes); },
          [line = network.allgather](double bytes) { return line.at(bytes); }};
}

}  // namespace dtb::core
