#include "cli/comm_command.h"

#include <toml++/toml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "matrix/run_schema.h"
#include "matrix/toml_depth.h"
#include "matrix/toml_source.h"
#include "network/network_profile.h"
#include "sweep/sweep_runner.h"

namespace dtb::cli {
namespace {

struct CommOptions {
  std::string file;
  std::vector<std::string> backends, ops, dtypes;
  std::string reduceOp, minBytes, maxBytes, launcher, hostfile, launcherArgs, interface, network, name,
      rendezvousStore;
  double factor = 0, timeoutS = 60;
  int64_t warmup = -1, iterations = -1, check = -1;
  int ranks = 0;
  int gpusPerRank = 1;
  std::string db = "results.db";
};

// nccl-tests' flags that dtbench comm does not take, and what to use: its
// users will type them.
std::string ncclTestsHint(const std::string& flag) {
  if (flag == "-i" || flag == "--stepbytes") return " (nccl-tests' step bytes: sizes here grow by -f only)";
  if (flag == "-t" || flag == "--nthreads") {
    return " (nccl-tests' GPUs or threads per process: here each rank is a process, --ranks)";
  }
  if (flag == "-T") return " (nccl-tests' timeout: --timeout)";
  return "";
}

// With allow_extras, CLI11 leaves unknown flags to this check. Without it,
// `comm -i 8` took 8 as the file and failed on that ("File does not exist:
// 8") before it would name -i.
void refuseExtras(const CLI::App& cmd) {
  const std::vector<std::string> extras = cmd.remaining();
  if (extras.empty()) return;
  for (const std::string& extra : extras) {
    if (!extra.starts_with('-') || extra == "-") continue;
    const std::string flag = extra.substr(0, extra.find('='));
    // CLI11 adds "Run with --help for more information."
    throw CLI::ExtrasError("dtbench comm: unknown option '" + flag + "'" + ncclTestsHint(flag),
                           CLI::ExitCodes::ExtrasError);
  }
  throw CLI::ExtrasError("dtbench comm: unexpected argument '" + extras.front() + "' (one file at most)",
                         CLI::ExitCodes::ExtrasError);
}

// Settings from the file's [comm] table, then the command line's on top.
core::SweepOptions resolve(const CommOptions& o, CLI::App& cmd) {
  core::SweepOptions s;
  if (!o.file.empty()) {
    const std::string text = core::readTomlFile(o.file, "sweep file");
    if (const auto deep = core::tooDeep(text)) {
      throw std::invalid_argument(o.file + ":" + std::to_string(deep->line) + ":" +
                                  std::to_string(deep->column) + ": " + deep->message);
    }
    const toml::table document = toml::parse(text, o.file);
    s.source = o.file;
    s.name = document["experiment"]["name"].value_or<std::string>("comm");
    const toml::table* comm = document["comm"].as_table();
    if (!comm) throw std::invalid_argument(o.file + ": no [comm] table (the sweep's settings) in this file");
    try {
      s.sweep = core::SweepSpec::fromToml(*comm);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(o.file + ": " + e.what());
    }
    if (const toml::array* backends = (*comm)["backends"].as_array()) {
      s.backends.clear();
      for (const toml::node& b : *backends) s.backends.push_back(b.value_or<std::string>(""));
    }
    const int64_t ranks = (*comm)["ranks"].value_or<int64_t>(s.world);
    if (ranks < 1 || ranks > core::kMaxWorldSize)  // checked before it is narrowed to an int
      throw std::invalid_argument(o.file + ": [comm] ranks must be within 1 and " +
                                  std::to_string(core::kMaxWorldSize) + ", not " + std::to_string(ranks));
    s.world = static_cast<int>(ranks);
    s.launcher = (*comm)["launcher"].value_or(s.launcher);
    s.rendezvousStore = (*comm)["rendezvous_store"].value_or(s.rendezvousStore);
    s.network = (*comm)["network"].value_or(s.network);
    // [backend.NAME]: that backend's parameters, as in a matrix.
    if (const toml::table* backends = document["backend"].as_table()) {
      for (const auto& [name, table] : *backends) {
        if (!table.is_table())
          throw std::invalid_argument(o.file + ": [backend] holds one table per backend, [backend.NAME]");
        s.backendParams[std::string(name.str())] = *table.as_table();
      }
    }
  }
  auto given = [&](const char* name) { return cmd.get_option(name)->count() > 0; };
  if (given("--backend")) s.backends = o.backends;
  if (given("--ops")) s.sweep.ops = o.ops;
  if (given("--dtype")) s.sweep.dtypes = core::expandDtypes(o.dtypes);
  if (given("--reduce-op")) s.sweep.reduceOp = o.reduceOp;
  if (given("--min-bytes")) s.sweep.minBytes = core::parseSize(o.minBytes);
  if (given("--max-bytes")) s.sweep.maxBytes = core::parseSize(o.maxBytes);
  if (given("--step-factor")) s.sweep.factor = o.factor;
  if (given("--warmup-iters")) s.sweep.warmup = o.warmup;
  if (given("--iters")) s.sweep.iterations = o.iterations;
  if (given("--check")) s.sweep.check = o.check != 0;
  if (given("--ranks")) s.world = o.ranks;
  if (given("--launcher")) s.launcher = o.launcher;
  if (given("--name")) s.name = o.name;
  if (given("--rendezvous-store")) s.rendezvousStore = o.rendezvousStore;
  if (given("--network")) s.network = o.network;
  if (!s.network.empty() && core::findNetworkProfile(s.network) == nullptr)
    throw std::invalid_argument("--network / network: no profile '" + s.network + "' (" +
                                core::networkProfileNames() + ")");
  if (!s.rendezvousStore.empty() &&
      (!s.rendezvousStore.starts_with("redis://") || s.rendezvousStore.size() == 8))
    throw std::invalid_argument(
        "--rendezvous-store / rendezvous_store: give \"redis://HOST:PORT\", or leave it out "
        "for the file store");
  s.hostfile = o.hostfile;
  if (s.launcher == "ssh" && s.hostfile.empty())
    throw std::invalid_argument("--launcher ssh starts ranks on the hosts of a hostfile: give --hostfile");
  s.launcherArgs = o.launcherArgs;
  s.interface = o.interface;
  s.timeoutS = o.timeoutS;
  // The bounds of the matrix key collective_timeout_s, which this is.
  const core::ParamSpec& timeoutSpec = *core::findRunKey("collective_timeout_s");
  if (!std::isfinite(s.timeoutS) || s.timeoutS < *timeoutSpec.minValue ||
      s.timeoutS > *timeoutSpec.maxValue) {
    char text[96];
    std::snprintf(text, sizeof(text), "--timeout must be seconds within %g and %g, not %g",
                  *timeoutSpec.minValue, *timeoutSpec.maxValue, s.timeoutS);
    throw std::invalid_argument(text);
  }
  if (s.world < 1 || s.world > core::kMaxWorldSize)
    throw std::invalid_argument("--ranks must be within 1 and " + std::to_string(core::kMaxWorldSize) +
                                ", not " + std::to_string(s.world));
  // nccl-tests' -g is GPUs per process; dtbench's ranks are one process per
  // GPU, so -g 1 is what it does and anything else cannot be.
  if (o.gpusPerRank != 1)
    throw std::invalid_argument(
        "-g " + std::to_string(o.gpusPerRank) +
        ": each rank drives one GPU here (nccl-tests' -g 1); for more GPUs give more --ranks");
  if (s.backends.empty()) throw std::invalid_argument("no backend to sweep");
  s.sweep.validate();
  return s;
}

}  // namespace

void addCommCommand(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<CommOptions>();
  CLI::App* cmd = app.add_subcommand(
      "comm",
      "Sweep collectives over message sizes, nccl-tests style: time, algbw, busbw, p50/p95 and #wrong\n"
      "per size, beside a memcpy reference measured in the same run; stored in --db.\n"
      "Example: dtbench comm --backend gloo,mpi --ranks 2 -b 4K -e 64M -f 2\n"
      "Settings can come from a file's [comm] table (examples/backends.toml); flags override them.");
  // Not CLI::ExistingFile: its check runs before refuseExtras() could name
  // an unknown flag whose value landed here.
  cmd->add_option("file", o->file, "A TOML file with a [comm] table (optional)");
  cmd->add_option("--backend", o->backends, "Backends, each swept in its own run (default gloo)")
      ->delimiter(',');
  cmd->add_option("--ranks", o->ranks, "Worker processes per sweep (default 2)");
  cmd->add_option("--ops", o->ops,
                  "Collectives: allreduce, reduce_scatter, allgather, broadcast (default all)")
      ->delimiter(',');
  cmd->add_option("-d,--dtype", o->dtypes,
                  "float, double, half, bfloat16, int32, int64, int8, uint8, or all (default float)")
      ->delimiter(',');
  cmd->add_option("-o,--reduce-op", o->reduceOp,
                  "sum, avg, max or min (default sum; nccl-tests' prod has no counterpart here)");
  cmd->add_option("-b,--min-bytes", o->minBytes, "Smallest size, e.g. 4K (default 4K)");
  cmd->add_option("-e,--max-bytes", o->maxBytes, "Largest size, e.g. 64M (default 64M)");
  cmd->add_option("-f,--step-factor", o->factor, "Size multiplier between steps (default 2)");
  cmd->add_option("-w,--warmup-iters", o->warmup, "Untimed calls per size (default 5)");
  cmd->add_option("-n,--iters", o->iterations, "Timed calls per size (default 20)");
  cmd->add_option("-g,--ngpus", o->gpusPerRank,
                  "GPUs per rank, nccl-tests' -g: 1 only (one process per GPU; more GPUs, more --ranks)");
  cmd->add_option("-c,--check", o->check, "Count wrong elements after the timed calls: 1 or 0 (default 1)");
  cmd->add_option("--launcher", o->launcher,
                  "auto, local, mpirun, srun or ssh (default auto: mpirun for mpi)")
      ->check(CLI::IsMember({"auto", "local", "mpirun", "srun", "ssh"}));
  cmd->add_option("--hostfile", o->hostfile, "mpirun --hostfile");
  cmd->add_option("--launcher-args", o->launcherArgs, "Extra arguments for mpirun or srun");
  cmd->add_option("--interface", o->interface,
                  "Network interface the ranks talk over, e.g. eth0 (the matrix key interface)");
  cmd->add_option("--network", o->network,
                  "Emulated network profile on tools/cluster.sh's hosts: none, 10gbe, 25gbe, 100gbe, ib-hdr "
                  "(the matrix key network; docs/networks.md)");
  cmd->add_option("--rendezvous-store", o->rendezvousStore,
                  "redis://HOST:PORT: ranks meet through a Redis server (hosts without a shared directory)");
  cmd->add_option("--timeout", o->timeoutS,
                  "Seconds any collective may take before the sweep fails (default 60)");
  cmd->add_option("--name", o->name, "The experiment's name (default: the file's, or comm)");
  cmd->add_option("--db", o->db, "The result store (SQLite file; created if missing)");
  addPluginPathOption(*cmd, global);
  cmd->allow_extras(true);  // refused in the callback, by name
  cmd->callback([&global, o, cmd] {
    refuseExtras(*cmd);
    try {
      core::SweepOptions s = resolve(*o, *cmd);
      s.context.database = o->db;
      s.context.pluginDirs = global.pluginDirs;
      s.context.executable = std::filesystem::read_symlink("/proc/self/exe");
      global.exitCode = core::runSweeps(s);
    } catch (const toml::parse_error& e) {
      std::fprintf(stderr, "%s:%u:%u: error: %s\n", o->file.c_str(), e.source().begin.line,
                   e.source().begin.column, std::string(e.description()).c_str());
      global.exitCode = 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dtbench comm: %s\n", e.what());
      global.exitCode = 1;
    }
  });
}

}  // namespace dtb::cli
