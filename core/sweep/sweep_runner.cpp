#include "sweep/sweep_runner.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cuda/cuda_probe.h"
#include "host/plugin_config.h"
#include "launch/interrupt_guard.h"
#include "launch/job_launcher.h"
#include "launch/launch.h"
#include "matrix/run_schema.h"
#include "network/network_emulator.h"
#include "plugin/backend_memory.h"
#include "plugin/loader.h"
#include "run/run_heartbeat.h"
#include "run/run_lifecycle.h"
#include "store/environment.h"
#include "store/result_store.h"
#include "sweep/sweep_memory.h"
#include "sweep/sweep_table.h"

namespace dtb::core {
namespace {

// The run row of one backend's sweep: what a training cell would hold, with
// "sweep" for strategy and no model or data; the sweep's settings become
// run_param rows (sweep.*), so SQL can tell sweeps apart.
Cell sweepCell(const SweepOptions& o, const std::string& backend, const ParamValues& params, int index) {
  Cell cell;
  cell.index = index;
  for (const ParamSpec& spec : runSchema()) {
    if (spec.defaultValue) cell.values[spec.name] = *spec.defaultValue;
  }
  cell.values["model"] = std::string("-");
  cell.values["dataset"] = std::string("-");
  cell.values["strategy"] = std::string("sweep");
  cell.values["backend"] = backend;
  for (const auto& [key, value] : params) cell.values["backend." + backend + "." + key] = value;
  cell.values["world_size"] = int64_t{o.world};
  cell.values["batch_size"] = int64_t{0};
  cell.values[kGlobalBatchKey] = int64_t{0};
  cell.values["launcher"] = o.launcher;
  cell.values["hostfile"] = o.hostfile;
  cell.values["launcher_args"] = o.launcherArgs;
  cell.values["interface"] = o.interface;
  cell.values["network"] = o.network;
  cell.values["rendezvous_store"] = o.rendezvousStore;
  cell.values["collective_timeout_s"] = o.timeoutS;
  cell.values["threads_per_worker"] = int64_t{1};
  for (const auto& [key, node] : o.sweep.toToml()) {
    std::ostringstream text;
    node.visit([&](const auto& value) { text << value; });
    cell.values["sweep." + std::string(key.str())] = text.str();
  }
  return cell;
}

// The settings as a [comm] table: stored as the experiment's matrix, so
// a sweep can be repeated from the database alone.
std::string asToml(const SweepOptions& o) {
  toml::table comm = o.sweep.toToml();
  toml::array backends;
  for (const std::string& b : o.backends) backends.push_back(b);
  comm.insert("backends", std::move(backends));
  comm.insert("ranks", o.world);
  comm.insert("launcher", o.launcher);
  if (!o.network.empty()) comm.insert("network", o.network);
  if (!o.rendezvousStore.empty())
    comm.insert("rendezvous_store", o.rendezvousStore);  // the store redacts passwords
  toml::table document{{"experiment", toml::table{{"name", o.name}}}, {"comm", std::move(comm)}};
  if (!o.backendParams.empty()) {
    toml::table tables;
    for (const auto& [name, table] : o.backendParams) tables.insert(name, table);
    document.insert("backend", std::move(tables));
  }
  std::ostringstream text;
  text << document << "\n";
  return text.str();
}

// The parameters a backend's sweep runs with: its [backend.NAME] table,
// checked against the plugin's declarations as a matrix's are, defaults
// filled in. Throws std::invalid_argument naming the table and the key.
ParamValues backendParams(const LoadedPlugin& backend, const SweepOptions& o) {
  const std::string where = (o.source.empty() ? "" : o.source + ": ") + "[backend." + backend.name() + "]";
  ParamValues given;
  const auto table = o.backendParams.find(backend.name());
  if (table != o.backendParams.end()) {
    for (const auto& [key, node] : table->second) {
      const std::string name(key.str());
      const auto spec = std::find_if(backend.params().begin(), backend.params().end(),
                                     [&](const ParamSpec& p) { return p.name == name; });
      if (spec == backend.params().end()) {
        given[name] = std::string();  // resolveConfig names it, with the closest declared name
        continue;
      }
      const std::optional<ParamValue> value = paramValueFromToml(spec->type, node);
      if (!value) {
        throw std::invalid_argument(where + " " + name + ": expects " +
                                    std::string(paramTypeName(spec->type)));
      }
      given[name] = *value;
    }
  }
  try {
    return resolveConfig(backend, given);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
}

// A GPU-only backend (nccl) swept on this machine needs a GPU per rank:
// said before anything runs, rather than as every rank's failed create.
void checkGpusFor(const LoadedPlugin& backend, const SweepOptions& o) {
  if (!movesGpuMemoryOnly(backend.descriptor<dtb_backend_plugin_v1_t>())) return;
  if (resolveLauncher(o.launcher, backend.name()) != "local") return;  // the ranks' hosts have the GPUs
  const CudaProbe gpus = probeCuda();
  if (gpus.devices.empty()) {
    throw std::runtime_error("backend " + backend.name() +
                             " runs on GPUs, and none is usable here: " + describe(gpus));
  }
  if (static_cast<size_t>(o.world) > gpus.devices.size()) {
    throw std::runtime_error("backend " + backend.name() +
                             " needs a GPU per rank (NCCL does not put two ranks "
                             "of one communicator on one GPU): " +
                             std::to_string(o.world) + " ranks, " + std::to_string(gpus.devices.size()) +
                             " GPU" + (gpus.devices.size() == 1 ? "" : "s") + " visible; use --ranks " +
                             std::to_string(gpus.devices.size()) + " or fewer");
  }
}

// The sweep's buffers against this machine's memory, for the ranks that run
// here: every one, unless a hostfile, Slurm or ssh spreads them (the other
// hosts' memory is not known here). A GPU backend holds only each call's
// input on the host.
void checkMemoryFor(const LoadedPlugin& backend, const SweepOptions& o) {
  const std::string launcher = resolveLauncher(o.launcher, backend.name());
  const bool allHere = launcher == "local" ||
                       (launcher == "mpirun" && mpirunOnOneHost(o.hostfile, splitWords(o.launcherArgs)));
  const bool gpu = movesGpuMemoryOnly(backend.descriptor<dtb_backend_plugin_v1_t>());
  checkSweepFitsMemory(o.sweep, allHere ? o.world : 0, gpu ? 1 : 2);
}

}  // namespace

int runSweeps(const SweepOptions& o) {
  o.sweep.validate();
  PluginLoader plugins(SearchPath::fromEnvironmentAfter(o.context.pluginDirs),
                       PluginLoader::Isolation::kTryInChildFirst);
  std::vector<std::shared_ptr<const LoadedPlugin>> backends;
  std::vector<ParamValues> params;
  for (const std::string& b : o.backends) {
    backends.push_back(plugins.load(PluginKind::kBackend, b));  // fail early
    params.push_back(backendParams(*backends.back(), o));
    checkGpusFor(*backends.back(), o);
    checkMemoryFor(*backends.back(), o);
    // Where its scratch goes, before anything is stored (TMPDIR pointing nowhere).
    runDirectoryBase(sweepCell(o, b, params.back(), 0), resolveLauncher(o.launcher, b), o.context.database);
  }
  for (const auto& [name, table] : o.backendParams) {
    if (std::find(o.backends.begin(), o.backends.end(), name) == o.backends.end())
      throw std::invalid_argument((o.source.empty() ? "" : o.source + ": ") + "[backend." + name +
                                  "]: no backend '" + name +
                                  "' is swept (backends = [...] in [comm], or --backend)");
  }

  requireEmulatedNetworkFor(o.network);  // before anything is stored
  ResultStore store(o.context.database);
  const int64_t experiment = store.addExperiment(
      {o.name, "collective sweep", o.source.empty() ? "(dtbench comm)" : o.source, asToml(o)});
  const InterruptGuard interrupt;

  int failures = 0;
  bool stopped = false;
  std::fprintf(stderr, "dtbench comm: experiment \"%s\" (id %lld): %zu backend%s x %d rank%s into %s\n",
               o.name.c_str(), static_cast<long long>(experiment), o.backends.size(),
               o.backends.size() == 1 ? "" : "s", o.world, o.world == 1 ? "" : "s",
               o.context.database.c_str());
  for (size_t i = 0; i < o.backends.size() && !stopped; ++i) {
    const Cell cell = sweepCell(o, o.backends[i], params[i], static_cast<int>(i));
    const int64_t runId = store.addRun(experiment, cell, 0);
    const LoadedPlugin& p = *backends[i];
    store.startRun(
        runId, captureEnvironment(),
        {{"backend", p.name(), p.version(), p.abiVersion(), std::filesystem::absolute(p.path()).string()}});
    std::optional<RunLifecycle> run;
    try {
      run.emplace(cell, runId, o.context, "sweep");
    } catch (const ScratchError& e) {  // gone since the start, or a full disk: this run fails with why
      store.finishRun(runId, RunStatus::kFailed, e.what());
      std::fprintf(stderr, "dtbench comm: %s sweep FAILED: %s\n", o.backends[i].c_str(), e.what());
      ++failures;
      continue;
    }
    const RunHeartbeat alive(o.context.database, runId);  // a long sweep is not taken for an interrupted one
    run->spec().sweep = o.sweep.toToml();
    run->writeSpec();

    printSweepHeader(stdout, o.backends[i], o.world, run->launcher(), o.sweep.reduceOp, o.sweep.warmup,
                     o.sweep.iterations);
    // The emulated network, shaped for this sweep and shown: its fit below is read against it.
    std::optional<NetworkProfile> network;
    try {
      network = run->shapeNetwork(store);
    } catch (const NetworkUnavailable& e) {
      store.finishRun(runId, RunStatus::kFailed, e.what());
      std::fprintf(stderr, "dtbench comm: %s sweep FAILED: %s\n", o.backends[i].c_str(), e.what());
      ++failures;
      continue;
    }
    if (network) printNetwork(stdout, *network);
    double memcpy = 0;
    int64_t wrong = 0;
    SweepFooter footer;
    const LaunchOptions how = run->launchOptions(interrupt);
    const LaunchOutcome outcome = launch(how, [&](int, const Record& r) {
      RecordBatch batch;  // each row in its own transaction: a crash loses at most one
      if (r.kind == Record::Kind::kReference) {
        batch.references.push_back(r.referenceRecord);
        batch.references.back().runId = runId;
        memcpy = r.referenceRecord.gbps;
        printReference(stdout, r.referenceRecord);
      } else if (r.kind == Record::Kind::kCollective) {
        batch.collectives.push_back(r.collectiveRecord);
        batch.collectives.back().runId = runId;
        wrong += r.collectiveRecord.wrong;
        printSweepRow(stdout, r.collectiveRecord, o.world, memcpy);
        footer.add(r.collectiveRecord, o.world);
      } else if (r.kind == Record::Kind::kHost) {
        batch.hosts.push_back(r.hostRecord);
        batch.hosts.back().runId = runId;
      }
      if (!batch.empty()) store.write(batch);
    });
    run.reset();                                  // the scratch directory goes
    footer.printAverages(stdout, o.backends[i]);  // of the rows that came, even from a sweep that failed
    footer.printFits(stdout, o.backends[i]);
    const std::string wrongElements = wrong == 0 ? ""
                                                 : std::to_string(wrong) +
                                                       (wrong == 1 ? " wrong element" : " wrong elements") +
                                                       " in the correctness checks";
    const RunStatus status = finishRun(store, runId, outcome, wrongElements);
    if (status == RunStatus::kStopped) {
      stopped = true;
    } else if (status == RunStatus::kFailed) {
      if (outcome.status != LaunchOutcome::Status::kOk)
        std::fprintf(stderr, "dtbench comm: %s sweep FAILED: %s\n", o.backends[i].c_str(),
                     outcome.error.c_str());
      ++failures;
    }
  }
  std::fprintf(
      stderr,
      "dtbench comm: results in %s (experiment %lld); compare with:\n"
      "  dtbench query %s \"SELECT backend, op, bytes, busbw_gbps, of_memcpy FROM collective_bandwidth "
      "WHERE experiment_id = %lld\"\n",
      o.context.database.c_str(), static_cast<long long>(experiment), o.context.database.c_str(),
      static_cast<long long>(experiment));
  return stopped ? 130 : failures > 0 ? 1 : 0;
}

}  // namespace dtb::core
