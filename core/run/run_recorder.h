// Stores what the workers of one run report, as it comes: epochs at once (a
// crash loses at most the epoch in flight, and each epoch goes in one
// transaction with the steps before it), steps and plugin metrics in batches,
// memory and events when the run ends. Progress records only move the
// progress line.
#pragma once

#include <cstdint>
#include <string>

#include "protocol/record_channel.h"
#include "run/run_progress.h"
#include "store/result_store.h"

namespace dtb::core {

class RunRecorder {
 public:
  RunRecorder(int64_t runId, ResultStore& store, RunProgress& progress)
      : runId_(runId), store_(store), progress_(progress) {}

  // One record from any rank; throws StoreError when the store cannot take it.
  void add(const Record& record);
  // Writes what is still held; call once the run has ended.
  void finish();

  // An event of the coordinator's own (rank NULL): a failure it saw, a restart.
  void coordinatorEvent(double atS, const std::string& kind, const std::string& detail);
  // The run restarts from its checkpoint of step `step`: the steps from there
  // on will run again, so their rows (and plugin metrics) go; returns how
  // many steps past `step` had been done (the work lost).
  int64_t restartFrom(uint64_t step);
  void recovery(const RecoveryRecord& r) { store_.addRecovery(r); }
  void worldChange(WorldChangeRecord w) {
    w.runId = runId_;
    store_.addWorldChange(w);
  }

 private:
  static constexpr size_t kStepBatch = 4096;  // steps and metrics written together

  // Each record joins its batch stamped with the run.
  template <typename Batch, typename Item>
  void stamp(Batch& batch, Item record) {
    record.runId = runId_;
    batch.push_back(std::move(record));
  }

  int64_t runId_;
  ResultStore& store_;
  RunProgress& progress_;
  RecordBatch pending_;   // steps and metrics, written every kStepBatch rows and with each epoch
  RecordBatch endOfRun_;  // memory and events, written when the run ends
};

}  // namespace dtb::core
