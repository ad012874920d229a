#include "run/coordinator.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "run/interrupt_guard.h"
#include "run/launch.h"
#include "run/run_spec.h"
#include "store/environment.h"
#include "store/read_only_query.h"
#include "store/result_format.h"
#include "store/result_store.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

// "mm:ss", or "h:mm:ss" from an hour on.
std::string clock(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const int s = static_cast<int>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof(text), "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(text, sizeof(text), "%02d:%02d", s / 60, s % 60);
  }
  return text;
}

class Progress {
 public:
  explicit Progress(size_t runs) : runs_(runs), tty_(isatty(STDERR_FILENO)), start_(Clock::now()) {}

  void beginRun(size_t index, const std::string& label) {
    index_ = index;
    label_ = label;
    runStart_ = Clock::now();
  }

  void update(const Record& r) {
    const double fraction = r.steps > 0 ? (r.epoch - 1 + double(r.step) / r.steps) / epochs_ : 0;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double done = index_ + fraction;
    const double eta = done > 0 ? elapsed / done * (runs_ - done) : NAN;
    char line[512];
    std::snprintf(line, sizeof(line),
                  "[run %zu/%zu] %s | epoch %d/%d step %lld/%lld | %.0f samples/s | ETA %s", index_ + 1,
                  runs_, label_.c_str(), r.epoch, epochs_, static_cast<long long>(r.step),
                  static_cast<long long>(r.steps), r.samplesPerSecond, clock(eta).c_str());
    if (tty_) {
      std::fprintf(stderr, "\r\033[K%s", line);
    } else if (r.step == r.steps) {
      std::fprintf(stderr, "%s\n", line);
    }
  }

  void epochs(int n) { epochs_ = n; }

  void endRun(const std::string& outcome) {
    const double seconds = std::chrono::duration<double>(Clock::now() - runStart_).count();
    std::fprintf(stderr, "%s[run %zu/%zu] %s: %s (%s)\n", tty_ ? "\r\033[K" : "", index_ + 1, runs_,
                 label_.c_str(), outcome.c_str(), clock(seconds).c_str());
  }

 private:
  size_t runs_;
  bool tty_;
  Clock::time_point start_, runStart_;
  size_t index_ = 0;
  std::string label_;
  int epochs_ = 1;
};

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
      "SELECT s.cell, s.strategy, s.backend, s.model, s.world_size AS ranks, s.global_batch_size AS batch, "
      "ROUND(r.median_samples_per_s, 1) AS samples_per_s, ROUND(c.speedup, 2) AS speedup, "
      "ROUND(c.efficiency, 2) AS efficiency, ROUND(r.mean_test_accuracy, 4) AS test_acc, "
      "SUM(s.status = 'ok') || '/' || COUNT(*) AS ok_runs "
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

}  // namespace

int runMatrix(const MatrixFile& matrix, const Plan& plan, const CoordinatorOptions& options) {
  ResultStore store(options.database);
  const int64_t experiment = store.addExperiment({plan.name, plan.description, matrix.path, matrix.text});
  const InterruptGuard interrupt;

  const size_t total = plan.cells.size() * static_cast<size_t>(plan.repeats);
  Progress progress(total);
  size_t index = 0, failed = 0, ok = 0;
  bool stopped = false;
  std::fprintf(stderr, "dtbench run: experiment \"%s\" (id %lld): %zu runs into %s\n", plan.name.c_str(),
               static_cast<long long>(experiment), total, options.database.c_str());
  for (const Cell& cell : plan.cells) {
    for (int64_t repeat = 0; repeat < plan.repeats && !stopped; ++repeat, ++index) {
      const int64_t runId = store.addRun(experiment, cell, static_cast<int>(repeat));
      std::vector<PluginLoadRecord> loads;
      store.startRun(runId, environmentOf(plan, cell, loads), loads);
      const std::string label = cell.text("model") + " " + cell.text("strategy") + " " +
                                cell.text("backend") + " x" + cell.text("world_size") + " rep " +
                                std::to_string(repeat + 1);
      progress.beginRun(index, label);
      progress.epochs(static_cast<int>(cell.integer("epochs")));

      const std::string launcher = resolveLauncher(cell.text("launcher"), cell.text("backend"));
      const std::filesystem::path scratch = runDirectory(cell, launcher, options.database, runId);
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

      RecordBatch endOfRun;  // memory and events, written when the run ends
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
      const LaunchOutcome outcome = launch(how, [&](int, const Record& r) {
        switch (r.kind) {
          case Record::Kind::kProgress:
            progress.update(r);
            break;
          case Record::Kind::kEpoch: {
            RecordBatch batch;  // one transaction per epoch: a crash loses at most this one
            batch.epochs.push_back(r.epochRecord);
            batch.epochs.back().runId = runId;
            store.write(batch);
            break;
          }
          case Record::Kind::kMemory:
            endOfRun.memory.push_back(r.memoryRecord);
            endOfRun.memory.back().runId = runId;
            break;
          case Record::Kind::kEvent:
            endOfRun.events.push_back(r.eventRecord);
            endOfRun.events.back().runId = runId;
            break;
          default:
            break;
        }
      });
      store.write(endOfRun);
      removeRunDirectory(scratch);
      switch (outcome.status) {
        case LaunchOutcome::Status::kOk:
          store.finishRun(runId, RunStatus::kOk);
          progress.endRun("ok");
          ++ok;
          break;
        case LaunchOutcome::Status::kFailed:
          store.finishRun(runId, RunStatus::kFailed, outcome.error);
          progress.endRun("FAILED: " + outcome.error);
          ++failed;
          break;
        case LaunchOutcome::Status::kInterrupted:
          store.finishRun(runId, RunStatus::kStopped, outcome.error);
          progress.endRun("stopped");
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
