#include "run/coordinator.h"

#include <cstdio>

#include "matrix/config_label.h"
#include "run/interrupt_guard.h"
#include "run/launch.h"
#include "run/machine_load.h"
#include "run/run_heartbeat.h"
#include "run/run_progress.h"
#include "run/run_spec.h"
#include "run/scratch_reaper.h"
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
  for (const Cell& cell : plan.cells) {
    for (int64_t repeat = 0; repeat < plan.repeats; ++repeat)
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
      "SELECT s.cell, s.label, s.backend, s.model, s.world_size AS ranks, s.global_batch_size AS batch, "
      "ROUND(r.median_samples_per_s, 1) AS samples_per_s, ROUND(r.spread, 3) AS spread, "
      "ROUND(c.speedup, 2) AS speedup, ROUND(c.efficiency, 2) AS efficiency, "
      "ROUND(r.mean_test_accuracy, 4) AS test_acc, SUM(s.status = 'ok') || '/' || COUNT(*) AS ok_runs, "
      "CASE WHEN r.noisy THEN 'NOISY' ELSE '' END AS noise "
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

// Starts the cell's workers and stores what they report as it comes: epochs
// at once (a crash loses at most the epoch in flight), steps and plugin
// metrics in batches, memory and events when the run ends, and the
// machine's load while it ran.
LaunchOutcome runCell(const Cell& cell, int64_t runId, const CoordinatorOptions& options,
                      const InterruptGuard& interrupt, ResultStore& store, RunProgress& progress) {
  const std::string launcher = resolveLauncher(cell.text("launcher"), cell.text("backend"));
  const std::filesystem::path scratch = runDirectory(cell, launcher, options.database, runId);
  const ScratchReaper reaper(scratch);  // removes it even if this process is killed
  RunSpec spec;
  spec.runId = runId;
  spec.world = static_cast<int>(cell.integer("world_size"));
  spec.storeDir = (scratch / "store").string();
  std::filesystem::create_directory(spec.storeDir);
  spec.prefix = "run" + std::to_string(runId);
  spec.pluginDirs = options.pluginDirs;
  spec.cell = cell;
  if (cell.flag("trace")) {
    // Next to the database, one folder per run: traces/run-<id>/rank<r>.trace.json.
    const std::filesystem::path traces =
        options.database.parent_path() / "traces" / ("run-" + std::to_string(runId));
    std::filesystem::create_directories(traces);
    spec.traceDir = traces.string();
  }
  spec.write(scratch / "spec.toml");

  const LoadSampler load;
  RecordBatch pending;   // steps and metrics, written every kStepBatch rows and with each epoch
  RecordBatch endOfRun;  // memory and events, written when the run ends
  constexpr size_t kStepBatch = 4096;
  const double timeout = cell.real("collective_timeout_s");
  LaunchOptions how{options.executable,
                    scratch / "spec.toml",
                    spec.world,
                    threadsPerRank(cell),
                    std::max(60.0, 2 * timeout + 10),
                    interrupt.flag(),
                    launcher,
                    cell.text("hostfile"),
                    splitWords(cell.text("launcher_args"))};
  // Each record joins its batch stamped with the run.
  auto add = [runId](auto& batch, auto record) {
    record.runId = runId;
    batch.push_back(std::move(record));
  };
  const LaunchOutcome outcome = launch(how, [&](int, const Record& r) {
    switch (r.kind) {
      case Record::Kind::kProgress:
        progress.update(r);
        break;
      case Record::Kind::kEpoch:
        add(pending.epochs, r.epochRecord);  // one transaction with the steps that came before it
        store.write(pending);
        pending = {};
        break;
      case Record::Kind::kStep:
        add(pending.steps, r.stepRecord);
        break;
      case Record::Kind::kMetric:
        add(pending.metrics, r.metricRecord);
        break;
      case Record::Kind::kMemory:
        add(endOfRun.memory, r.memoryRecord);
        break;
      case Record::Kind::kEvent:
        add(endOfRun.events, r.eventRecord);
        break;
      default:
        break;
    }
    if (pending.steps.size() + pending.metrics.size() >= kStepBatch) {
      store.write(pending);
      pending = {};
    }
  });
  store.write(pending);
  store.write(endOfRun);
  // srun's ranks are not our children: their CPU time is not ours to subtract.
  store.recordLoad(runId, load.finish(launcher != "srun"));
  removeRunDirectory(scratch);
  return outcome;
}

}  // namespace

int runMatrix(const MatrixFile& matrix, const Plan& plan, const CoordinatorOptions& options) {
  ResultStore store(options.database);
  const int64_t experiment = store.addExperiment({plan.name, plan.description, matrix.path, matrix.text});
  const InterruptGuard interrupt;

  const size_t total = plan.cells.size() * static_cast<size_t>(plan.repeats);
  RunProgress progress(etaOf(plan));
  const std::vector<std::string> labels = cellLabels(plan);
  size_t index = 0, failed = 0, ok = 0;
  bool stopped = false;
  std::fprintf(stderr, "dtbench run: experiment \"%s\" (id %lld): %zu runs into %s\n", plan.name.c_str(),
               static_cast<long long>(experiment), total, options.database.c_str());
  for (const Cell& cell : plan.cells) {
    for (int64_t repeat = 0; repeat < plan.repeats && !stopped; ++repeat, ++index) {
      const std::string& label = labels[static_cast<size_t>(&cell - plan.cells.data())];
      const int64_t runId = store.addRun(experiment, cell, static_cast<int>(repeat), label);
      std::vector<PluginLoadRecord> loads;
      store.startRun(runId, environmentOf(plan, cell, loads), loads);
      // The label leads with the model when the matrix varies it.
      const std::string model = label.starts_with(cell.text("model")) ? "" : cell.text("model") + " ";
      progress.beginRun(index,
                        model + label + " x" + cell.text("world_size") + " rep " + std::to_string(repeat + 1),
                        static_cast<int>(cell.integer("epochs")));
      LaunchOutcome outcome;
      try {
        const RunHeartbeat alive(options.database, runId);
        outcome = runCell(cell, runId, options, interrupt, store, progress);
      } catch (const StoreError& e) {
        // The store cannot take more (a full disk, a removed file): what it
        // holds stays; the run reads 'interrupted' once it is next opened.
        const std::string what = e.what();
        throw StoreError("storing run " + std::to_string(runId) + " failed: " + what +
                         (what.find("full") != std::string::npos ? " (free space on its disk and run again)" : "") +
                         "; everything stored before is kept, and the run reads 'interrupted' when the store is "
                         "next opened for writing");
      }
      switch (outcome.status) {
        case LaunchOutcome::Status::kOk:
          store.finishRun(runId, RunStatus::kOk);
          progress.endRun("ok", true);
          ++ok;
          break;
        case LaunchOutcome::Status::kFailed:
          store.finishRun(runId, RunStatus::kFailed, outcome.error);
          progress.endRun("FAILED: " + outcome.error, false);
          ++failed;
          break;
        case LaunchOutcome::Status::kInterrupted:
          store.finishRun(runId, RunStatus::kStopped, outcome.error);
          progress.endRun("stopped", false);
          stopped = true;
          break;
      }
    }
    if (stopped) break;
  }
  std::fprintf(stderr, "dtbench run: %zu ok, %zu failed%s; results in %s (experiment %lld)\n", ok, failed,
               stopped ? ", stopped by the user" : "", options.database.c_str(),
               static_cast<long long>(experiment));
  printSummary(options.database, experiment);
  return stopped ? 130 : failed > 0 ? 1 : 0;
}

}  // namespace dtb::core
