// What a run reports, as rows of the result store (migrations/0001_initial.sql
// documents each column; train/step_phases.h the phases' columns). Optional
// members are stored as NULL when unset.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "train/step_phases.h"

namespace dtb::core {

enum class RunStatus { kPending, kRunning, kOk, kFailed, kStopped, kInterrupted };
const char* runStatusName(RunStatus status);  // "pending", "running", ...

struct EpochRecord {
  int64_t runId = 0;
  int epoch = 0;  // 1-based
  int64_t steps = 0;
  int64_t samples = 0;
  double seconds = 0;
  PerPhase<std::optional<double>> phases;  // the kPerEpoch ones (train/step_phases.h)
  std::optional<double> trainLoss, trainAccuracy, testLoss, testAccuracy;
  std::optional<int64_t> bytesSent, collectives;
  std::optional<double> stepBusBytes;  // per training step, nccl-tests' bus bytes
};

// One optimizer step of one rank (all its micro-batches).
struct StepRecord {
  int64_t runId = 0;
  int rank = 0;
  int64_t step = 0;  // 0-based optimizer step of the run
  int epoch = 0;     // 1-based
  double seconds = 0;
  PerPhase<std::optional<double>> phases;  // train/step_phases.h
  std::optional<double> loss;
  std::optional<int64_t> bytesSent, collectives;  // this step's, per rank
  std::optional<int64_t> samples;
  std::optional<double> busBytes;
  std::optional<double> endedAtS;  // s since the run began (the coordinator's clock) when it ended
  int64_t correct = 0;             // not stored: summed into the epoch's train accuracy
};

// What a plugin added with host->metric_add during one step, by name.
struct MetricRecord {
  int64_t runId = 0;
  int rank = 0;
  int64_t step = 0;
  std::string plugin;  // strategy, backend, model, dataset
  std::string name;
  double value = 0;
};

struct CollectiveRecord {
  int64_t runId = 0;
  int rank = 0;
  std::string op;  // allreduce, reduce_scatter, allgather, broadcast, reduce, alltoall, barrier
  std::string dtype;
  int64_t bytes = 0;
  int64_t iterations = 0;
  double timeS = 0;  // mean per operation
  std::optional<double> p50S, p95S;
  int64_t wrong = 0;
};

// What this machine can move, measured beside a collective sweep.
struct BandwidthReferenceRecord {
  int64_t runId = 0;
  std::string name;  // memcpy
  int64_t bytes = 0;
  double gbps = 0;
};

struct EventRecord {
  int64_t runId = 0;
  std::optional<int> rank;  // nullopt: the coordinator
  double atS = 0;
  std::string kind;
  std::string detail;
};

// A run recovered from a failed rank (the recovery table).
struct RecoveryRecord {
  int64_t runId = 0;
  int attempt = 0;
  std::string mode;  // restart | elastic
  std::string cause;
  double failedAtS = 0, restartedAtS = 0;
  int64_t resumedStep = 0;
  std::optional<int64_t> lostSteps;  // unknown with step_records = false
  std::optional<int> worldSize;      // ranks it went on with
};

// A new world of an elastic run (the world_change table).
struct WorldChangeRecord {
  int64_t runId = 0;
  int generation = 0;
  double atS = 0;
  std::string kind;  // reset | join
  int worldSize = 0;
  std::optional<int64_t> fromStep;
  std::optional<std::string> cause;
};

struct MemoryRecord {
  int64_t runId = 0;
  int rank = 0;
  std::optional<int64_t> paramBytes, gradBytes, optimizerBytes, bufferBytes, peakRssBytes;
  std::optional<int64_t> paramElements, stateFloats;
  std::optional<int64_t> gpuUsedBytes;  // a rank on a GPU: that GPU's memory in use (cuda_memory.h)
  // A rank on a GPU: the most GPU memory it held through dtbench at once (gpu_memory_meter.h).
  std::optional<int64_t> gpuPeakAllocatedBytes;
};

// When one gradient of one rank became ready in backward, on average over
// the run's steps (train/gradient_profile.h): what `dtbench project`
// schedules a strategy's communication against.
struct GradientReadyRecord {
  int64_t runId = 0;
  int rank = 0;
  int64_t param = 0;  // the parameter's index
  int64_t layer = 0;
  std::string name;
  int64_t bytes = 0;
  double readyS = 0;     // after backward began
  double backwardS = 0;  // the mean backward those times are within
  int64_t steps = 0;     // the backwards averaged
};

// One GPU count of one strategy, as `dtbench project --store` projected a
// run's step (core/projection/).
struct ProjectionRecord {
  int64_t runId = 0;
  std::string system, network, target, strategy;
  int gpus = 1, nodes = 1;
  int64_t samplesPerGpu = 0;
  double stepS = 0, samplesPerS = 0;
  int refGpus = 1;
  double speedup = 1, efficiency = 1, exposedShare = 0, commS = 0;
  std::string createdAt;  // the store sets it
};

// Where one rank of a run lived: its host, its rank among that host's
// ranks, and the address its transport bound.
struct RankHostRecord {
  int64_t runId = 0;
  int rank = 0;
  int localRank = 0;
  std::string host;
  std::string address;
  std::string interface;  // the one holding that address on the host; "" when none does
};

// The emulated network a run had (core/network/network_profile.h): the
// profile, its published figures and what every link applied.
struct RunNetworkRecord {
  int64_t runId = 0;
  std::string profile;
  double latencyUs = 0;      // as applied, one way
  double gigabytesPerS = 0;  // as applied, per link and direction; 0 unlimited
  double publishedLatencyUs = 0;
  double publishedGigabytesPerS = 0;
  double timeScale = 1;
};

// The machine while one run ran, as the coordinator saw it in /proc.
struct MachineLoadRecord {
  int cpus = 0;
  std::optional<double> competingCpus;  // cores other processes kept busy, on average
  std::optional<double> stealShare;     // share of CPU time the hypervisor took
  std::optional<double> loadAverage;    // 1-minute load average at the end
  std::string competingProcesses;       // the busiest others: "cc1plus 4.20 s, ninja 0.31 s"
  bool loaded = false;                  // past the thresholds: the run's figures are suspect
};

struct PluginLoadRecord {
  std::string kind, name, version, abi, path;
};

// Records written together, in one transaction: all or none survive a crash.
struct RecordBatch {
  std::vector<EpochRecord> epochs;
  std::vector<StepRecord> steps;
  std::vector<MetricRecord> metrics;
  std::vector<CollectiveRecord> collectives;
  std::vector<BandwidthReferenceRecord> references;
  std::vector<EventRecord> events;
  std::vector<MemoryRecord> memory;
  std::vector<RankHostRecord> hosts;
  std::vector<GradientReadyRecord> gradients;

  bool empty() const {
    return epochs.empty() && steps.empty() && metrics.empty() && collectives.empty() && references.empty() &&
           events.empty() && memory.empty() && hosts.empty() && gradients.empty();
  }
};

}  // namespace dtb::core
