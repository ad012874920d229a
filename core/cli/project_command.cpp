#include "cli/project_command.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "projection/collective_cost.h"
#include "projection/fitted_network.h"
#include "projection/flow_simulation.h"
#include "projection/step_simulation.h"
#include "projection/stored_profile.h"
#include "projection/system_model.h"
#include "store/result_store.h"
#include "store/store_reader.h"
#include "sweep/sweep_spec.h"

namespace dtb::cli {
namespace {

constexpr int kMaxProjectedGpus = 1 << 20;

struct ProjectOptions {
  std::string system;
  std::string bytes = "100M";  // about ResNet-50's fp32 gradients (25.6 M parameters)
  std::vector<int> gpus;
  std::string db;   // with run: the store the run is in
  int64_t run = 0;  // project this run's step; 0: the all-reduce alone
  std::vector<std::string> strategies;
  double computeSpeedup = 0;  // the target GPU's compute against the measured device's; 0: not given
  int64_t batch = 0;          // samples per GPU a step on the target; 0: the run's
  bool store = false;         // write the rows to the store's projection table
  int64_t fitRun = 0;         // a sweep whose all-reduce fit is the network, instead of a system file
  std::string networkModel = "formulas";  // or "simgrid": flow-level simulation where links are shared
};

bool simulated(const ProjectOptions& o) { return o.networkModel == "simgrid"; }

// The run's step as one of the target's GPUs takes it, and a line saying
// how that was decided: at --batch samples (every phase in proportion),
// then --compute-speedup, or else the system file's throughput for the
// model (one GPU's whole step), or else as measured.
std::pair<core::StepProfile, std::string> targetStep(const core::ProfiledRun& run,
                                                     const core::SystemModel& system,
                                                     const ProjectOptions& o) {
  core::StepProfile p = run.profile;
  std::string how;
  if (o.batch > 0 && o.batch != p.samplesPerStep && p.samplesPerStep > 0) {
    p = p.scaled(static_cast<double>(o.batch) / static_cast<double>(p.samplesPerStep));
    how = "batch " + std::to_string(o.batch) + " a GPU (the run's phases scaled from its " +
          std::to_string(p.samplesPerStep) + "); ";
    p.samplesPerStep = o.batch;
  }
  char text[160];
  const auto known = system.samplesPerS.find(run.model);
  if (o.computeSpeedup > 0) {
    p = p.onFasterDevice(o.computeSpeedup);
    std::snprintf(text, sizeof text, "forward, backward and optimizer %g x as fast as measured",
                  o.computeSpeedup);
  } else if (known != system.samplesPerS.end()) {
    p = p.scaled(static_cast<double>(p.samplesPerStep) / known->second / p.stepS());
    std::snprintf(
        text, sizeof text,
        "one GPU trains %s at %g samples/s (the system file's throughput), every phase in proportion",
        run.model.c_str(), known->second);
  } else {
    std::snprintf(text, sizeof text, "compute as measured (the system file has no throughput for %s)",
                  run.model.c_str());
  }
  return {p, how + text};
}

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

void printSystem(const core::SystemModel& system) {
  std::printf("# %s: %d GPUs and %d NICs a node; ", system.name.c_str(), system.gpusPerNode,
              system.nicsPerNode);
  printLink("GPU link", system.intraNode);
  printLink("; NIC", system.interNode);
  const core::Fabric& f = system.fabric;
  if (f.nodesPerSwitch > 0)
    std::printf("; %d nodes a leaf switch, uplinks %g:1 oversubscribed, the nodes %s", f.nodesPerSwitch,
                f.oversubscription, f.spread ? "spread over the leaves" : "packed");
  std::printf("\n");
}

// Where a projection runs: a system file's system (NCCL's schedules), or
// a fitted network (the backend's ring, each collective over its own fit).
struct Target {
  core::SystemModel system;
  std::optional<core::FittedNetwork> fit;
};

// NCCL's schedules on a described system: the cheapest all-reduce of
// three; a fitted network's: the ring, as the fit measured the backend's
// own algorithm (Gloo and MPI have no NCCL trees). By the closed forms, or
// by SimGrid's simulation of the same schedules (one per GPU count).
core::CollectiveCosts costsOn(const Target& where, int gpus, bool simgrid) {
  if (simgrid) return core::collectiveCosts(core::simulateNetwork(where.system, gpus), where.fit.has_value());
  if (where.fit) return core::fittedCosts(*where.fit, gpus);
  const core::SystemModel& system = where.system;
  return {[&system, gpus](double bytes) { return core::allreduceCost(bytes, gpus, system).bestS; },
          [&system, gpus](double bytes) { return core::reduceScatterCostS(bytes, gpus, system); },
          [&system, gpus](double bytes) { return core::allgatherCostS(bytes, gpus, system); }};
}

std::vector<core::StrategySchedule> chosenSchedules(const std::vector<std::string>& specs) {
  if (specs.empty()) return core::builtInSchedules();
  std::vector<core::StrategySchedule> chosen;
  for (const std::string& spec : specs) chosen.push_back(core::parseSchedule(spec));
  return chosen;
}

// The run's step on each GPU count under each strategy: step time,
// throughput, speed-up and efficiency against the smallest count, and the
// share of the step that waits for communication.
std::vector<core::ProjectionRecord> projectedRows(const core::ProfiledRun& run,
                                                  const core::StepProfile& profile, const std::string& target,
                                                  const Target& where, const std::vector<int>& gpus,
                                                  const std::vector<core::StrategySchedule>& schedules,
                                                  bool simgrid) {
  std::vector<core::CollectiveCosts> costs;  // per GPU count: a simulation each, when simulated
  for (int g : gpus) costs.push_back(costsOn(where, g, simgrid));
  std::vector<core::ProjectionRecord> rows;
  for (const core::StrategySchedule& schedule : schedules) {
    double baseThroughput = 0;
    for (size_t i = 0; i < gpus.size(); ++i) {
      const int g = gpus[i];
      const core::SystemModel& system = where.system;
      const core::SimulatedStep step = core::simulateStep(profile, schedule, costs[i], g);
      core::ProjectionRecord r;
      r.runId = run.runId;
      r.system = system.name;
      r.network = where.fit ? where.fit->network : "";
      r.target = target;
      r.strategy = schedule.name;
      r.gpus = g;
      r.nodes = core::allreduceCost(1, g, system).nodes;
      r.samplesPerGpu = profile.samplesPerStep;
      r.stepS = step.stepS;
      r.samplesPerS = g * static_cast<double>(profile.samplesPerStep) / step.stepS;
      if (baseThroughput == 0) baseThroughput = r.samplesPerS;
      r.refGpus = gpus.front();
      r.speedup = r.samplesPerS / baseThroughput;
      r.efficiency = r.speedup * r.refGpus / g;
      r.exposedShare = step.exposedS / step.stepS;
      r.commS = step.commS;
      rows.push_back(r);
    }
  }
  return rows;
}

void printRun(const core::ProfiledRun& run) {
  const core::StepProfile& m = run.profile;
  std::printf(
      "# run %lld: %s on %s, %s at %d rank%s (%s): a rank's step of %lld samples in %.2f ms = data %.2f, "
      "forward %.2f, backward %.2f, optimizer %.2f, other %.2f; %zu gradients, %.2f MB\n",
      static_cast<long long>(run.runId), run.model.c_str(), run.dataset.c_str(), run.strategy.c_str(),
      run.worldSize, run.worldSize == 1 ? "" : "s", run.device.c_str(),
      static_cast<long long>(m.samplesPerStep), m.stepS() * 1e3, m.dataS * 1e3, m.forwardS * 1e3,
      m.backwardS * 1e3, m.optimizerS * 1e3, m.otherS * 1e3, m.gradients.size(), m.gradientBytes() / 1e6);
}

// With --store: the stored rows beside the measured runs of the store
// they predict (the projection_error view).
void printAgainstMeasured(const ProjectOptions& o, const std::string& system) {
  core::Database store = core::openStoreForReading(o.db);
  core::Statement q = store.prepare(
      "SELECT strategy, gpus, projected_ms, measured_run_id, measured_ms, error FROM projection_error "
      "WHERE profile_run_id = ? AND system = ? ORDER BY strategy, gpus, measured_run_id");
  q.bind(1, o.run).bind(2, system);
  bool any = false;
  while (q.step()) {
    if (!any) {
      std::printf(
          "# against the measured runs it predicts (projection_error):\n%-10s %6s %12s %12s %12s %8s\n",
          "strategy", "gpus", "projected_ms", "measured_run", "measured_ms", "error");
      any = true;
    }
    std::printf("%-10s %6lld %12.3f %12lld %12.3f %+7.1f%%\n", q.columnText(0).c_str(),
                static_cast<long long>(q.columnInt(1)), q.columnReal(2),
                static_cast<long long>(q.columnInt(3)), q.columnReal(4), 100 * q.columnReal(5));
  }
}

int projectRun(const ProjectOptions& o, const Target& where, std::vector<int> gpus) {
  const core::SystemModel& system = where.system;
  std::sort(gpus.begin(), gpus.end());
  for (int g : gpus) core::allreduceCost(1, g, system);  // every count checked before a table's head
  const std::vector<core::StrategySchedule> schedules = chosenSchedules(o.strategies);
  core::ProfiledRun run;
  {
    core::Database store = core::openStoreForReading(o.db);
    run = core::readProfiledRun(store, o.run);
  }
  auto [profile, target] = targetStep(run, system, o);
  // Its own target: a simulated projection is stored beside the closed forms', not over them.
  if (simulated(o)) target += "; network by SimGrid";
  const std::vector<core::ProjectionRecord> rows =
      projectedRows(run, profile, target, where, gpus, schedules, simulated(o));
  if (!where.fit) printSystem(system);
  printRun(run);
  std::printf("# target: %s; speed-up and efficiency against %d GPU%s (docs/projection.md)\n", target.c_str(),
              gpus.front(), gpus.front() == 1 ? "" : "s");
  std::printf("%-10s %6s %6s %10s %13s %8s %10s %13s %10s\n", "strategy", "gpus", "nodes", "step_ms",
              "samples_per_s", "speedup", "efficiency", "exposed_share", "comm_share");
  for (const core::ProjectionRecord& r : rows) {
    std::printf("%-10s %6d %6d %10.3f %13.1f %8.2f %10.3f %13.3f %10.3f\n", r.strategy.c_str(), r.gpus,
                r.nodes, r.stepS * 1e3, r.samplesPerS, r.speedup, r.efficiency, r.exposedShare,
                r.commS / r.stepS);
  }
  if (o.store) {
    core::ResultStore(o.db).recordProjection(rows);
    std::printf("# stored: %zu rows in %s's projection table (dtbench report draws them)\n", rows.size(),
                o.db.c_str());
    printAgainstMeasured(o, system.name);
  }
  return 0;
}

// The fitted network of --fit-run, said in a line.
Target fittedTarget(const ProjectOptions& o) {
  core::Database store = core::openStoreForReading(o.db);
  const core::FittedNetwork fit = core::readFittedNetwork(store, o.fitRun);
  std::printf(
      "# network: %s all-reduce at %d ranks fitted in run %lld%s: a = %.1f us, B = %.4f GB/s; ring "
      "schedules, as the backend's%s%s\n",
      fit.backend.c_str(), fit.ranks, static_cast<long long>(fit.runId),
      fit.network.empty() ? "" : (" on " + fit.network).c_str(), fit.latencyS * 1e6, fit.busBytesPerS / 1e9,
      fit.ownFits.empty() ? "" : "; fitted on their own: ", fit.ownFits.c_str());
  return {fit.system, fit};
}

int project(const ProjectOptions& o) {
  if (o.run > 0) {
    const Target where = o.fitRun > 0 ? fittedTarget(o) : Target{core::readSystemFile(o.system)};
    std::vector<int> gpus = o.gpus;
    if (gpus.empty()) {
      gpus = defaultGpus(where.system.gpusPerNode);
      gpus.insert(gpus.begin(), 1);
    }
    return projectRun(o, where, gpus);
  }
  const core::SystemModel system = core::readSystemFile(o.system);
  const int64_t bytes = core::parseSize(o.bytes);
  const std::vector<int> gpus = o.gpus.empty() ? defaultGpus(system.gpusPerNode) : o.gpus;
  // Every count costed before anything is printed: one that does not fill
  // whole nodes is refused alone, not after a table's head.
  std::vector<core::AllreduceCost> costs;
  for (int g : gpus) {
    costs.push_back(simulated(o)
                        ? core::allreduceCost(static_cast<double>(bytes), core::simulateNetwork(system, g))
                        : core::allreduceCost(static_cast<double>(bytes), g, system));
  }
  printSystem(system);
  std::printf("# all-reduce of %s (%lld bytes) by %s of NCCL's schedules (docs/projection.md)\n",
              core::formatSize(bytes).c_str(), static_cast<long long>(bytes),
              simulated(o) ? "SimGrid's flow-level simulation" : "alpha-beta models");
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
      "A stored run's step projected to a target system, from 1 GPU to 1,024, as each strategy schedules\n"
      "it (--run): step time, samples/s, speed-up, efficiency, exposed communication. Without --run, what\n"
      "an all-reduce costs there: NCCL's ring, tree and hierarchical schedules, the cheapest, its bus\n"
      "bandwidth.\n"
      "Examples:\n"
      "  dtbench project --system examples/systems/juwels_booster.toml --db results.db --run 1 --store\n"
      "  dtbench project --system examples/systems/juwels_booster.toml\n"
      "  dtbench project --system my_cluster.toml --bytes 25M --gpus 8,64,512\n"
      "  dtbench project --system examples/systems/oversubscribed_fat_tree.toml --network-model simgrid");
  cmd->add_option("--system", o->system, "The system file (TOML: docs/projection.md)");
  cmd->add_option("--bytes", o->bytes, "The all-reduced array: bytes, or a size like 100M (default 100M)");
  cmd->add_option("--gpus", o->gpus, "GPU counts, comma-separated (default: 2, 4, ... to 1,024)")
      ->delimiter(',')
      ->check(CLI::Range(1, kMaxProjectedGpus));
  cmd->add_option("--db", o->db, "With --run: the results database the run is in")->check(CLI::ExistingFile);
  cmd->add_option("--run", o->run, "The run (run.id) whose step to project; best a 1-rank run")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--strategy", o->strategies,
                  "With --run: strategies to project, comma-separated, each NAME[:KEY=VALUE]... with its "
                  "plugin's parameters (bucketed:bucket_cap_mb=5; default: allreduce, bucketed, fusion, "
                  "zero-1, zero-2, zero-3 as their anchors ship)")
      ->delimiter(',');
  cmd->add_option("--compute-speedup", o->computeSpeedup,
                  "With --run: the target's forward, backward and optimizer this many times as fast as the "
                  "run's device (default: the system file's throughput for the model, or as measured)")
      ->check(CLI::Range(1e-3, 1e6));
  cmd->add_option("--batch", o->batch,
                  "With --run: samples per GPU a step on the target (default: the run's batch); the run's "
                  "phases scale in proportion")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  cmd->add_option(
         "--fit-run", o->fitRun,
         "With --run, instead of --system: a dtbench comm sweep in the same store whose all-reduce fit "
         "is the network (one rank a host, the backend's ring); its reduce-scatter and all-gather fits, "
         "where it has them, price those collectives")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--network-model", o->networkModel,
                  "How collectives are priced: formulas (alpha-beta models of NCCL's schedules, no link "
                  "shared) or simgrid (SimGrid's flow-level simulation of the same schedules: flows sharing "
                  "NICs, GPU links and [system.fabric]'s uplinks)")
      ->check(CLI::IsMember({"formulas", "simgrid"}));
  cmd->add_flag("--store", o->store,
                "With --run: also store the rows in the database's projection table, replacing an earlier "
                "projection of the same run, system, target and strategy");
  cmd->allow_extras(false);
  cmd->callback([&global, o] {
    try {
      if (o->run > 0 && o->db.empty()) throw std::invalid_argument("--run needs --db, the store it is in");
      if (o->fitRun > 0 && o->run == 0) throw std::invalid_argument("--fit-run goes with --run");
      if ((o->fitRun > 0) == !o->system.empty())
        throw std::invalid_argument(o->fitRun > 0 ? "--system or --fit-run, not both"
                                                  : "--system names the target (or --fit-run, with --run)");
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
