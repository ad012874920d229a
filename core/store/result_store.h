// The result store: one SQLite file, written by one process (the
// coordinator), read by anyone with plain SQL.
//
// WAL journal, so readers never block the writer; a busy timeout on every
// connection; one transaction per record batch, so a killed writer loses at
// most the batch it was writing and never leaves the file corrupt. The
// schema version lives in PRAGMA user_version and only moves forward; the
// report views are recreated at every open, so they always match this
// binary.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "matrix/cell.h"
#include "store/database.h"
#include "store/records.h"

namespace dtb::core {

struct ExperimentInfo {
  std::string name;
  std::string description;
  std::string matrixPath;
  std::string matrixToml;
};

class ResultStore {
 public:
  // Opens or creates the store, migrating an older schema. Throws StoreError
  // (naming the file) for a file that is not a dtbench store or is newer
  // than this binary understands.
  explicit ResultStore(const std::filesystem::path& path);

  static int schemaVersion();  // the version this binary writes

  int64_t addExperiment(const ExperimentInfo& info);
  // A pending run of `cell`, with every value of the cell as run_param rows
  // and `label`, what sets its configuration apart ("" : the strategy).
  int64_t addRun(int64_t experimentId, const Cell& cell, int repeat, const std::string& label = "");
  // Marks the run running and records where and with what it runs.
  void startRun(int64_t runId, const std::vector<std::pair<std::string, std::string>>& environment,
                const std::vector<PluginLoadRecord>& plugins);
  void finishRun(int64_t runId, RunStatus status, const std::string& error = "");
  // The run's coordinator is alive (run_heartbeat.h beats every few seconds).
  void heartbeat(int64_t runId);
  // A run of another host with no heartbeat for this long is taken for interrupted.
  static constexpr double kHeartbeatStaleS = 120;
  // On the coordinator's own host a run is taken for interrupted once its
  // process is gone *and* it missed three beats (RunHeartbeat::kEvery): a
  // pid that cannot be checked (another pid namespace under the same host
  // name, an unreadable /proc) is not enough alone.
  static constexpr double kHeartbeatMissedS = 15;
  // The machine's load while the run ran.
  void recordLoad(int64_t runId, const MachineLoadRecord& load);
  void write(const RecordBatch& batch);
  // Drops the run's step rows and plugin metrics from step `step` on, as a
  // restart runs them again from a checkpoint (recovery = "restart"); returns
  // how many steps past `step` any rank had stored.
  int64_t forgetStepsFrom(int64_t runId, int64_t step);
  void addRecovery(const RecoveryRecord& r);
  void addWorldChange(const WorldChangeRecord& w);
  void recordNetwork(const RunNetworkRecord& n);
  // A projection's rows, in one transaction, each replacing an earlier
  // projection of the same run, system, target, strategy and GPU count.
  void recordProjection(const std::vector<ProjectionRecord>& rows);

  Database& database() { return db_; }

 private:
  // After a failed statement: throws the plain "not a SQLite database" when
  // that was the cause; returns otherwise.
  void refuseIfNotADatabase() const;
  void migrate();
  void addPhaseColumns();  // the step's phases that no migration made a column for
  void createViews();
  // Runs still 'running' whose coordinator is gone (its process, on this
  // host; its heartbeat, on another) become 'interrupted', with the reason.
  void markInterruptedRuns();

  Database db_;
};

// Views are named by their file stem without the numeric prefix.
std::string viewName(const char* stem);

// Now, as ISO 8601 UTC with milliseconds: "2026-11-22T04:40:00.123Z".
std::string utcNow();

}  // namespace dtb::core
