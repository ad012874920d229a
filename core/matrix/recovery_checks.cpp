#include <unistd.h>

#include <optional>
#include <utility>

#include "dtbench/strategy.h"
#include "host/plugin_config.h"
#include "matrix/cell_checks.h"

namespace dtb::core {
namespace {

// recovery = "restart" brings a run back from checkpoints, which need the
// strategy to save its state (state_save).
void checkRestartableStrategies(const CellChecks& c) {
  for (const Cell& cell : c.cells) {
    if (cell.text("recovery") != "restart") continue;
    const auto found = c.plugins.find("strategy/" + cell.text("strategy"));
    if (found == c.plugins.end()) continue;
    const auto& api = found->second->descriptor<dtb_strategy_plugin_v1_t>();
    if (api.state_save) continue;  // the loader took the three state members all or none
    c.fail("recovery",
           "recovery = \"restart\" needs a strategy that saves its state (state_save) for its checkpoints; "
           "strategy '" +
               cell.text("strategy") + "' of cell " + std::to_string(cell.index) +
               " does not (allreduce, bucketed and fusion do): exclude the combination");
    return;
  }
}

// min_np defaults to world_size, as horovodrun's --min-np to -np: a cell
// that loses a worker then waits elastic_timeout_s for one that no local
// run brings, and fails. Allowed (it measures that), but said once.
void warnLossWithoutRoom(const CellChecks& c) {
  for (const Cell& cell : c.cells) {
    const std::string fault = cell.text("fault.kind");
    if (cell.text("recovery") != "elastic" || (fault != "kill" && fault != "stop")) continue;
    const int64_t minNp = cell.integer("min_np") > 0 ? cell.integer("min_np") : cell.integer("world_size");
    if (minNp < cell.integer("world_size")) continue;
    c.warn("recovery",
           "cell " + std::to_string(cell.index) + " loses a worker ([fault] " + fault +
               ") with min_np = world_size (min_np's default, as horovodrun's): it will wait "
               "elastic_timeout_s = " +
               formatParamValue(cell.values.at("elastic_timeout_s")) +
               " s for a worker and fail; set min_np below world_size to let the survivors go on");
    return;
  }
}

// What keeps a cell from recovering elastically, and the key it is told at.
struct ElasticProblem {
  const char* key;  // "recovery", or "fault.kind" for an add
  std::string message;
};

std::optional<ElasticProblem> elasticProblem(const CellChecks& c, const Cell& cell) {
  const std::string which = " (cell " + std::to_string(cell.index) + ")";
  if (cell.text("recovery") != "elastic") {
    if (cell.text("fault.kind") != "add") return std::nullopt;
    return ElasticProblem{"fault.kind", "[fault] kind = \"add\" needs recovery = \"elastic\"" + which +
                                            ": only an elastic run lets a worker join while it trains"};
  }
  const std::string backend = cell.text("backend"), strategy = cell.text("strategy");
  const auto b = c.plugins.find("backend/" + backend);
  if (b != c.plugins.end() &&
      !(b->second->descriptor<dtb_backend_plugin_v1_t>().capabilities & DTB_BACKEND_CAP_REBUILD)) {
    return ElasticProblem{
        "recovery",
        "recovery = \"elastic\" needs a backend that can make a new communicator in the same process "
        "after a peer failed; backend '" +
            backend + "'" + which +
            " cannot (MPI cannot change its world): use gloo, or recovery = \"restart\""};
  }
  const auto st = c.plugins.find("strategy/" + strategy);
  if (st != c.plugins.end() && !st->second->descriptor<dtb_strategy_plugin_v1_t>().state_save) {
    return ElasticProblem{
        "recovery",
        "recovery = \"elastic\" needs a strategy that saves its state (state_save) for its commits; "
        "strategy '" +
            strategy + "'" + which +
            " does not (allreduce, bucketed and fusion do; ZeRO's shards are cut for one world size, "
            "and re-cutting them for the next is not built): exclude the combination, or give the plugin "
            "state_size, state_save and state_load (docs/writing-a-strategy.md: what elastic copies from "
            "rank 0 to every rank, and what must stay out)"};
  }
  const std::string launcher = cell.text("launcher");
  if (launcher != "auto" && launcher != "local" && launcher != "ssh" && !launcher.empty()) {
    return ElasticProblem{
        "recovery",
        "recovery = \"elastic\" runs with the local or the ssh launcher, which start, watch and replace "
        "the workers themselves; launcher '" +
            launcher + "'" + which + " cannot change its job's world"};
  }
  const int64_t world = cell.integer("world_size"), minNp = cell.integer("min_np"),
                maxNp = cell.integer("max_np");
  if (minNp > world) {
    return ElasticProblem{"recovery", "min_np = " + std::to_string(minNp) +
                                          " is above world_size = " + std::to_string(world) + which +
                                          ": the run would stop at its first failure"};
  }
  if (maxNp > 0 && maxNp < world) {
    return ElasticProblem{"recovery", "max_np = " + std::to_string(maxNp) +
                                          " is below world_size = " + std::to_string(world) + which};
  }
  if (cell.text("fault.kind") == "add" && maxNp > 0 && world >= maxNp) {
    return ElasticProblem{"fault.kind",
                          "[fault] kind = \"add\" would grow world_size = " + std::to_string(world) +
                              " past max_np = " + std::to_string(maxNp) + which +
                              ": raise max_np, or leave it 0 (no bound)"};
  }
  return std::nullopt;
}

// recovery = "elastic" (Horovod Elastic's way) needs what it rebuilds in
// the same processes: a backend that can make a new communicator after a
// peer failed (CAP_REBUILD: gloo; MPI cannot change its world), a strategy
// that saves its state (each commit), and workers this coordinator starts
// and watches (the local launcher). [fault] add is elastic's alone.
void checkElasticCells(const CellChecks& c) {
  warnLossWithoutRoom(c);
  for (const Cell& cell : c.cells) {
    if (std::optional<ElasticProblem> problem = elasticProblem(c, cell)) {
      c.fail(problem->key, std::move(problem->message));
      return;
    }
  }
}

// A fault must strike one of the cell's ranks.
void checkFaultRanks(const CellChecks& c) {
  for (const Cell& cell : c.cells) {
    if (cell.text("fault.kind") == "none" || cell.integer("fault.rank") < cell.integer("world_size"))
      continue;
    c.fail("fault.rank", "[fault] rank = " + std::to_string(cell.integer("fault.rank")) +
                             " is not a rank of cell " + std::to_string(cell.index) + " (world_size " +
                             std::to_string(cell.integer("world_size")) +
                             "): give a rank below world_size, or exclude the combination");
    return;
  }
}

// Host discovery and the host blacklist's cool-down belong to an elastic
// run across hosts, which places its workers itself (the ssh launcher); the
// script must be there to run. The first problem, at its key.
std::optional<ElasticProblem> hostProblem(const Cell& cell) {
  const std::string which = " (cell " + std::to_string(cell.index) + ")";
  const bool acrossHosts = cell.text("recovery") == "elastic" && cell.text("launcher") == "ssh";
  const std::vector<int64_t> range = cell.integers("blacklist_cooldown_range");
  if (!range.empty() && (range.size() != 2 || range[0] > range[1])) {
    return ElasticProblem{"blacklist_cooldown_range",
                          "blacklist_cooldown_range takes [low, high] seconds with low <= high" + which +
                              ", as horovodrun's --blacklist-cooldown-range; [] keeps a failed host out"};
  }
  if (!range.empty() && !acrossHosts) {
    return ElasticProblem{"blacklist_cooldown_range",
                          "blacklist_cooldown_range blacklists hosts of an elastic run across hosts" + which +
                              ": it needs recovery = \"elastic\" and launcher = \"ssh\""};
  }
  const std::string discovery = cell.text("host_discovery");
  if (discovery.empty()) return std::nullopt;
  if (!acrossHosts) {
    return ElasticProblem{"host_discovery",
                          "host_discovery finds the hosts of an elastic run across hosts" + which +
                              ": it needs recovery = \"elastic\" and launcher = \"ssh\" (the workers are "
                              "started on the hosts it prints)"};
  }
  // The command's first word, when it names a file: it must run.
  const std::string program = discovery.substr(0, discovery.find_first_of(" \t"));
  if (program.find('/') != std::string::npos && access(program.c_str(), X_OK) != 0) {
    return ElasticProblem{
        "host_discovery",
        "host_discovery = \"" + discovery + "\"" + which + ": " + program +
            (access(program.c_str(), F_OK) == 0 ? " is not executable (chmod +x)"
                                                : " does not exist (read from the working directory)")};
  }
  return std::nullopt;
}

void checkElasticHosts(const CellChecks& c) {
  for (const Cell& cell : c.cells) {
    if (std::optional<ElasticProblem> problem = hostProblem(cell)) {
      c.fail(problem->key, std::move(problem->message));
      return;
    }
  }
}

}  // namespace

void checkRecovery(const CellChecks& checks) {
  checkFaultRanks(checks);
  checkRestartableStrategies(checks);
  checkElasticCells(checks);
  checkElasticHosts(checks);
}

}  // namespace dtb::core
