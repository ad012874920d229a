#include "run/coordinator.h"

#include <cstdio>

#include "elastic/elastic_launcher.h"
#include "launch/interrupt_guard.h"
#include "launch/launch.h"
#include "matrix/config_label.h"
#include "matrix/run_schema.h"
#include "network/network_emulator.h"
#include "protocol/checkpoint.h"
#include "protocol/run_spec.h"
#include "run/machine_load.h"
#include "run/run_heartbeat.h"
#include "run/run_lifecycle.h"
#include "run/run_progress.h"
#include "run/run_recorder.h"
#include "store/environment.h"
#include "store/read_only_query.h"
#include "store/result_format.h"
#include "store/result_store.h"

namespace dtb::core {
namespace {

// What sets each cell apart within the matrix ("zero stage=3"), stored with
// its runs and shown in every listing.
std::vector<std::string> cellLabels(const Plan& plan) {
  std::vector<LabelInput> inputs;
  for (const Cell& cell : plan.cells) {
    LabelInput in{cell.text("strategy"), cell.text("model"), {}};
    for (const auto& [key, value] : cell.values) in.params[key] = formatParamValue(value);
    inputs.push_back(std::move(in));
  }
  return labelConfigurations(inputs, true);
}

MatrixEta etaOf(const Plan& plan) {
  std::vector<MatrixEta::Run> runs;
  for (int64_t repeat = 0; repeat < plan.repeats; ++repeat) {  // in the order they run: rounds
    for (const Cell& cell : plan.cells)
      runs.push_back({cell.text("model"), cell.integer("world_size"), cell.integer("epochs")});
  }
  return MatrixEta(std::move(runs));
}

std::vector<std::pair<std::string, std::string>> environmentOf(const Plan& plan, const Cell& cell,
                                                               std::vector<PluginLoadRecord>& loads) {
  for (PluginKind kind : allPluginKinds()) {
    const std::string k(kindName(kind));
    auto it = plan.plugins.find(k + "/" + cell.text(k));
    if (it == plan.plugins.end()) continue;
    const LoadedPlugin& p = *it->second;
    loads.push_back({k, p.name(), p.version(), p.abiVersion(), std::filesystem::absolute(p.path()).string()});
  }
  return captureEnvironment();
}

void printSummary(const std::filesystem::path& db, int64_t experiment) {
  const std::string sql =
      "SELECT s.cell, s.label, s.backend, s.model, s.world_size AS ranks, "
      "s.global_batch_size AS global_batch, "
      "ROUND(r.median_samples_per_s, 1) AS samples_per_s, ROUND(r.spread, 3) AS spread, "
      "ROUND(c.speedup, 2) AS speedup, ROUND(c.efficiency, 2) AS efficiency, "
      "ROUND(r.mean_test_accuracy, 4) AS test_acc, SUM(s.status = 'ok') || '/' || COUNT(*) AS ok_runs, "
      "CASE WHEN r.noisy THEN 'NOISY' ELSE '' END AS noise, "
      // A cell with a failed run says why (its first such run), not only 0/1.
      "COALESCE((SELECT SUBSTR('run ' || f.run_id || ' ' || f.status || ': ' || "
      "REPLACE(COALESCE(f.error, ''), char(10), ' '), 1, 120) FROM run_summary f "
      "WHERE f.experiment_id = s.experiment_id AND f.cell = s.cell AND f.status <> 'ok' "
      "ORDER BY f.run_id LIMIT 1), '') AS failure "
      "FROM run_summary s LEFT JOIN repeat_stats r ON r.experiment_id = s.experiment_id AND r.cell = s.cell "
      "LEFT JOIN scaling c ON c.experiment_id = s.experiment_id AND c.config_key = s.config_key "
      "AND c.world_size = s.world_size WHERE s.experiment_id = " +
      std::to_string(experiment) + " GROUP BY s.cell ORDER BY s.cell";
  try {
    std::printf("\n%s", formatResult(runReadOnlyQuery(db, sql), ResultFormat::kTable).c_str());
  } catch (const StoreError& e) {
    std::fprintf(stderr, "dtbench run: summary query failed: %s\n", e.what());
  }
}

// What a training run adds to its spec: when it began (the ranks' clock),
// with recovery = "restart" where each rank's checkpoints go, and with
// trace = true where traces go.
void addTrainingSpec(RunLifecycle& run, const Cell& cell, const RunContext& context) {
  RunSpec& spec = run.spec();
  spec.startedUnixNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  if (cell.text("recovery") == "restart") spec.checkpointDir = (run.scratch() / "checkpoint").string();
  if (cell.flag("trace")) {
    // Next to the database, one folder per store and run —
    // traces/<store>/run-<id>/rank<r>.trace.json — so two stores in one
    // folder, each with its run 1, keep their own traces.
    const std::filesystem::path traces = context.database.parent_path() / "traces" / context.database.stem() /
                                         ("run-" + std::to_string(spec.runId));
    std::filesystem::create_directories(traces);
    spec.traceDir = traces.string();
  }
  run.writeSpec();
}

// Launches the run, and with recovery = "restart" launches it again after a
// failure, up to max_restarts times, as torchrun does: every worker stopped
// (the launcher has done that) and started afresh, resuming from the newest
// checkpoint all ranks wrote (or from the beginning) — chosen here, once, and
// handed to every worker in the spec. Each attempt has its own rendezvous
// prefix; the steps it runs again lose their old rows; the failure and the
// restart are the coordinator's events.
LaunchOutcome launchWithRestarts(const Cell& cell, RunSpec spec, const std::filesystem::path& scratch,
                                 const LaunchOptions& options, RunRecorder& recorder, RunProgress& progress) {
  const std::string prefix = spec.prefix;
  const int64_t maxRestarts = cell.integer("max_restarts");
  for (;;) {
    LaunchOutcome outcome = launch(options, [&](int, const Record& r) { recorder.add(r); });
    outcome.restarts = spec.attempt;
    if (outcome.status != LaunchOutcome::Status::kFailed) return outcome;
    // When the launcher saw it, for every failed run: after an injected
    // fault, the time to detect it (the others' teardown not included).
    const double failedAtS = outcome.failedAt ? spec.secondsAt(*outcome.failedAt) : spec.runSeconds();
    recorder.coordinatorEvent(failedAtS, "failure", outcome.error);
    if (spec.checkpointDir.empty()) return outcome;
    if (options.interrupted && options.interrupted->load()) {  // Ctrl-C as it failed: no restart
      return {LaunchOutcome::Status::kInterrupted, "stopped by the user (Ctrl-C)"};
    }
    if (spec.attempt >= maxRestarts) {
      outcome.error = "failed after " + std::to_string(spec.attempt) + " restart" +
                      (spec.attempt == 1 ? "" : "s") + " (max_restarts = " + std::to_string(maxRestarts) +
                      "): " + outcome.error;
      return outcome;
    }
    const std::optional<uint64_t> latest = latestCompleteCheckpoint(spec.checkpointDir, spec.world);
    const uint64_t from = latest.value_or(0);
    dropCheckpointsAfter(spec.checkpointDir, from);
    RecoveryRecord r{spec.runId, spec.attempt + 1, "restart", outcome.error, failedAtS};
    r.resumedStep = static_cast<int64_t>(from);
    r.worldSize = spec.world;
    const int64_t stored = recorder.restartFrom(from);
    if (cell.flag("step_records")) r.lostSteps = stored;  // else unknown
    ++spec.attempt;
    spec.resumeStep = latest ? static_cast<int64_t>(*latest) : -1;
    spec.prefix = prefix + "-restart" + std::to_string(spec.attempt);
    spec.write(scratch / "spec.toml");
    r.restartedAtS = spec.runSeconds();
    recorder.recovery(r);
    const std::string restart = "restart " + std::to_string(spec.attempt) + " of " +
                                std::to_string(maxRestarts) +
                                (latest ? ": from the checkpoint of step " + std::to_string(from)
                                        : ": from the beginning (no checkpoint yet)");
    recorder.coordinatorEvent(r.restartedAtS, "restart", restart);
    progress.note(restart + ", after " + outcome.error);
  }
}

// world_change.kind of a new world.
const char* worldChangeKind(WorldChange::Kind kind) {
  switch (kind) {
    case WorldChange::Kind::kReset:
      return "reset";
    case WorldChange::Kind::kJoin:
      return "join";
    case WorldChange::Kind::kJoinLost:
      return "join_lost";
    case WorldChange::Kind::kLeave:
      return "leave";
    case WorldChange::Kind::kStart:
      return "start";
  }
  return "?";
}

// A new world other than a reset, as the run's progress and its event say
// it, and the event's kind: join (a join, or a joiner lost), leave, start.
std::pair<const char*, std::string> worldChangeNote(const WorldChange& c) {
  const std::string ranks = std::to_string(c.before) + " -> " + std::to_string(c.after) + " ranks";
  const int joiners = c.after - c.before;
  switch (c.kind) {
    case WorldChange::Kind::kJoin:
      return {"join", (joiners == 1 ? "a worker joins" : std::to_string(joiners) + " workers join") +
                          " at the next commit" + (c.cause.empty() ? "" : " (" + c.cause + ")") + ": " +
                          ranks};
    case WorldChange::Kind::kJoinLost:
      return {"join", "the joining worker was lost before it got in (" + c.cause + "): " + ranks};
    case WorldChange::Kind::kLeave:
      return {"leave", c.cause + ": " + ranks};
    case WorldChange::Kind::kStart:
      return {"start", "the first world is smaller: " + c.cause + ": " + ranks};
    case WorldChange::Kind::kReset:
      break;
  }
  return {"reset", ranks};
}

// Where an elastic run across hosts finds its hosts (elastic_hosts.h).
ElasticHostOptions elasticHostOptions(const Cell& cell) {
  ElasticHostOptions hosts;
  hosts.hostfile = cell.text("hostfile");
  hosts.discovery = cell.text("host_discovery");
  hosts.intervalS = cell.real("discovery_interval_s");
  hosts.timeoutS = cell.real("discovery_timeout_s");
  hosts.slotsPerHost = static_cast<int>(cell.integer("slots_per_host"));
  if (const std::vector<int64_t> range = cell.integers("blacklist_cooldown_range"); range.size() == 2)
    hosts.cooldown = CooldownRange{static_cast<double>(range[0]), static_cast<double>(range[1])};
  return hosts;
}

// An elastic run (recovery = "elastic"): the elastic launcher keeps it
// going through failures and joins; each new world it decides is stored —
// a reset as a recovery (its cause, the commit it went back to, the steps
// stored past it, which are dropped and run again) and as a world change,
// a join as a world change — and shown.
LaunchOutcome launchElasticRun(const Cell& cell, const RunSpec& spec, const LaunchOptions& options,
                               RunRecorder& recorder, RunProgress& progress) {
  ElasticOptions elastic;
  elastic.storeDir = spec.storeDir;
  elastic.minNp = cell.integer("min_np") > 0 ? static_cast<int>(cell.integer("min_np")) : spec.world;
  elastic.maxNp = static_cast<int>(cell.integer("max_np"));
  elastic.resetLimit = static_cast<int>(cell.integer("reset_limit"));
  elastic.timeoutS = cell.real("elastic_timeout_s");
  elastic.settleS = cell.real("collective_timeout_s") + 5;
  if (options.launcher == "ssh") elastic.hosts = elasticHostOptions(cell);
  int failures = 0;  // resets after a failure: the recovery rows' attempts
  const auto onChange = [&](const WorldChange& c) {
    WorldChangeRecord w{0, c.generation, spec.secondsAt(c.decidedAt), worldChangeKind(c.kind), c.after, {},
                        {}};
    if (c.kind != WorldChange::Kind::kReset) {
      if (c.kind != WorldChange::Kind::kJoin || !c.cause.empty()) w.cause = c.cause;
      recorder.worldChange(w);
      const auto [event, text] = worldChangeNote(c);
      recorder.coordinatorEvent(w.atS, event, text);
      progress.note(text);
      return;
    }
    const std::string ranks = std::to_string(c.before) + " -> " + std::to_string(c.after) + " ranks";
    RecoveryRecord r{spec.runId, ++failures, "elastic", c.cause, spec.secondsAt(c.failedAt)};
    recorder.coordinatorEvent(r.failedAtS, "failure", c.cause);
    r.resumedStep = c.resumedStep;
    const int64_t stored = recorder.restartFrom(static_cast<uint64_t>(c.resumedStep));
    if (cell.flag("step_records")) r.lostSteps = stored;  // else unknown
    r.restartedAtS = w.atS;
    r.worldSize = c.after;
    recorder.recovery(r);
    w.fromStep = c.resumedStep;
    w.cause = c.cause;
    recorder.worldChange(w);
    const std::string reset = "reset " + std::to_string(failures) + ": " + ranks +
                              ", back to the commit of step " + std::to_string(c.resumedStep);
    recorder.coordinatorEvent(w.atS, "reset", reset);
    progress.note(reset + ", after " + c.cause);
  };
  // Hosts that come, go and are blacklisted: events beside the ranks'.
  const auto onHostEvent = [&](const std::string& kind, const std::string& detail) {
    recorder.coordinatorEvent(spec.runSeconds(), kind, detail);
    progress.note(kind + ": " + detail);
  };
  LaunchOutcome outcome = launchElastic(
      options, elastic, [&](int, const Record& r) { recorder.add(r); }, onChange, onHostEvent);
  outcome.resets = failures;
  if (outcome.status == LaunchOutcome::Status::kFailed)
    recorder.coordinatorEvent(outcome.failedAt ? spec.secondsAt(*outcome.failedAt) : spec.runSeconds(),
                              "failure", outcome.error);
  return outcome;
}

// Starts the cell's workers and stores what they report as it comes (see
// RunRecorder), and the machine's load while it ran.
LaunchOutcome runCell(const Cell& cell, int64_t runId, const RunContext& context,
                      const InterruptGuard& interrupt, ResultStore& store, RunProgress& progress) {
  RunLifecycle run(cell, runId, context, "run");
  addTrainingSpec(run, cell, context);
  const LoadSampler load;
  RunRecorder recorder(runId, store, progress);
  const LaunchOptions launching = run.launchOptions(interrupt);
  try {
    run.shapeNetwork(store);
  } catch (const NetworkUnavailable& e) {  // the cluster's switch is gone: this run cannot be had
    recorder.finish();
    return {LaunchOutcome::Status::kFailed, e.what(), 0, 0, std::nullopt};
  }
  LaunchOutcome outcome =
      cell.text("recovery") == "elastic"
          ? launchElasticRun(cell, run.spec(), launching, recorder, progress)
          : launchWithRestarts(cell, run.spec(), run.scratch(), launching, recorder, progress);
  recorder.finish();
  // srun's and ssh's ranks are not our children: their CPU time is not ours to subtract.
  store.recordLoad(runId, load.finish(run.launcher() != "srun" && run.launcher() != "ssh"));
  return outcome;
}

// How the matrix went so far.
struct Tally {
  size_t ok = 0, failed = 0;
  bool stopped = false;  // by the user: the matrix ends
};

// Stores how the run ended, shows it, and counts it.
void recordOutcome(int64_t runId, const LaunchOutcome& outcome, ResultStore& store, RunProgress& progress,
                   Tally& tally) {
  switch (finishRun(store, runId, outcome)) {
    case RunStatus::kOk:
      progress.endRun(outcome.restarts > 0 ? "ok after " + std::to_string(outcome.restarts) + " restart" +
                                                 (outcome.restarts == 1 ? "" : "s")
                      : outcome.resets > 0 ? "ok after " + std::to_string(outcome.resets) + " reset" +
                                                 (outcome.resets == 1 ? "" : "s")
                                           : "ok",
                      outcome.restarts == 0 && outcome.resets == 0);
      ++tally.ok;
      break;
    case RunStatus::kStopped:
      progress.endRun("stopped", false);
      tally.stopped = true;
      break;
    default:
      progress.endRun("FAILED: " + outcome.error, false);
      ++tally.failed;
      break;
  }
}

// One matrix: its store, its progress line, the labels of its cells.
struct MatrixRun {
  const Plan& plan;
  const RunContext& context;
  ResultStore& store;
  int64_t experiment;
  const InterruptGuard& interrupt;
  RunProgress& progress;
};

// One cell x repeat, from its row in the store to its outcome.
void runRepeat(MatrixRun& matrix, const Cell& cell, const std::string& label, int64_t repeat, size_t index,
               Tally& tally) {
  ResultStore& store = matrix.store;
  const int64_t runId = store.addRun(matrix.experiment, cell, static_cast<int>(repeat), label);
  std::vector<PluginLoadRecord> loads;
  store.startRun(runId, environmentOf(matrix.plan, cell, loads), loads);
  // The label leads with the model when the matrix varies it; the repeat is
  // numbered as the store and `dtbench runs` number it (from 0).
  const std::string model = label.starts_with(cell.text("model")) ? "" : cell.text("model") + " ";
  matrix.progress.beginRun(
      index, model + label + " x" + cell.text("world_size") + " repeat " + std::to_string(repeat),
      static_cast<int>(cell.integer("epochs")));
  LaunchOutcome outcome;
  try {
    const RunHeartbeat alive(matrix.context.database, runId);
    outcome = runCell(cell, runId, matrix.context, matrix.interrupt, store, matrix.progress);
  } catch (const ScratchError& e) {
    // Its scratch could not be made (TMPDIR gone since the start, a full
    // disk): this run fails with the cause rather than being left 'running'.
    outcome = {LaunchOutcome::Status::kFailed, e.what()};
  } catch (const StoreError& e) {
    // The store cannot take more (a full disk, a removed file): what it
    // holds stays; the run reads 'interrupted' once it is next opened.
    const std::string what = e.what();
    throw StoreError(
        "storing run " + std::to_string(runId) + " failed: " + what +
        (what.find("full") != std::string::npos ? " (free space on its disk and run again)" : "") +
        "; everything stored before is kept, and the run reads 'interrupted' when the store is "
        "next opened for writing");
  }
  recordOutcome(runId, outcome, store, matrix.progress, tally);
}

}  // namespace

int runMatrix(const MatrixFile& matrix, const Plan& plan, const RunContext& context) {
  // A cell that names a network fails before anything runs where none is emulated,
  // and one whose scratch has nowhere to go before anything is stored.
  for (const Cell& cell : plan.cells) requireEmulatedNetworkFor(cell.text("network"));
  for (const Cell& cell : plan.cells) {
    runDirectoryBase(cell, resolveLauncher(cell.text("launcher"), cell.text("backend")), context.database);
  }
  ResultStore store(context.database);
  const int64_t experiment = store.addExperiment({plan.name, plan.description, matrix.path, matrix.text});
  const InterruptGuard interrupt;
  const size_t total = plan.cells.size() * static_cast<size_t>(plan.repeats);
  RunProgress progress(etaOf(plan));
  const std::vector<std::string> labels = cellLabels(plan);
  std::fprintf(stderr, "dtbench run: experiment \"%s\" (id %lld): %zu run%s into %s\n", plan.name.c_str(),
               static_cast<long long>(experiment), total, total == 1 ? "" : "s", context.database.c_str());
  MatrixRun run{plan, context, store, experiment, interrupt, progress};
  Tally tally;
  // Repeats run in rounds, every cell once a round: a machine that drifts
  // (a neighbour starts, the host throttles) then slows every cell alike
  // and widens their spreads, instead of landing on the cells that ran last
  // and passing for a difference beyond noise.
  size_t index = 0;
  for (int64_t repeat = 0; repeat < plan.repeats && !tally.stopped; ++repeat) {
    for (size_t c = 0; c < plan.cells.size() && !tally.stopped; ++c, ++index) {
      runRepeat(run, plan.cells[c], labels[c], repeat, index, tally);
    }
  }
  std::fprintf(stderr, "dtbench run: %zu ok, %zu failed%s; results in %s (experiment %lld)\n", tally.ok,
               tally.failed, tally.stopped ? ", stopped by the user" : "", context.database.c_str(),
               static_cast<long long>(experiment));
  printSummary(context.database, experiment);
  return tally.stopped ? 130 : tally.failed > 0 ? 1 : 0;
}

}  // namespace dtb::core
