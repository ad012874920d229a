// Everything a report shows, read from the store through the report queries
// (reports/queries/*.sql) into plain rows: the experiments, their
// configurations (labelled by what differs between them), scaling, step
// breakdown, accuracy per epoch, memory, collective sweeps, key figures.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/report_queries.h"

namespace dtb::core {

struct ReportExperiment {
  int64_t id = 0;
  std::string name, description, createdAt, host, matrixPath, version;
  int64_t runs = 0, ok = 0, failed = 0, sweeps = 0;
};

// Cells that differ only in world size: one configuration, one colour.
struct ReportConfig {
  int64_t experiment = 0;
  std::string key;  // run.config_key
  std::string model;
  std::string label;  // "bucketed bucket_cap_mb=1": the strategy and what sets it apart
  int color = 0;      // palette index, the same for every configuration of this label on the page
};

struct ScalingRow {
  int64_t experiment = 0;
  std::string key;
  int world = 0, repeats = 0;
  double samplesPerS = NAN, low = NAN, high = NAN, ideal = NAN, speedup = NAN, efficiency = NAN;
  int refWorld = 0;  // the configuration's smallest world size: speed-up and efficiency are NULL there
};

// A strategy's step projected to a system's GPUs from a run of the
// experiment (reports/queries/25_projection.sql): not a measurement.
struct ProjectionRow {
  int64_t experiment = 0, run = 0;
  std::string model, system, target, strategy;
  int gpus = 1, refGpus = 1;
  double samplesPerS = NAN, efficiency = NAN, exposedShare = NAN;
};

struct BreakdownRow {
  int64_t experiment = 0;
  std::string key;
  int world = 0;
  double dataMs = 0, forwardMs = 0, backwardMs = 0, exposedMs = 0, optimizerMs = 0, otherMs = 0;
};

struct AccuracyRow {
  int64_t experiment = 0;
  std::string key;
  int world = 0, epoch = 0;
  double trainLoss = NAN, testAccuracy = NAN, low = NAN, high = NAN;  // low/high: test accuracy's spread
};

struct MemoryRow {
  int64_t experiment = 0;
  std::string key;
  int world = 0;
  double paramMb = NAN, gradMb = NAN, optimizerMb = NAN, bufferMb = NAN;
};

struct BandwidthRow {
  int64_t experiment = 0;
  std::string backend, op, dtype;
  int ranks = 0;
  double bytes = 0, busbw = NAN, timeUs = NAN, p50Us = NAN, p95Us = NAN, memcpy = NAN;
  int64_t wrong = 0;
};

struct KeyFigureRow {
  int64_t experiment = 0;
  std::string key;
  int world = 0, repeats = 0, failed = 0;
  double median = NAN, low = NAN, high = NAN, msPerStep = NAN, speedup = NAN, efficiency = NAN;
  double accuracy = NAN, accuracyLow = NAN, accuracyHigh = NAN;
  // repeat_stats' noise: (max - min) / median, runs under competing load, the verdict.
  double spread = NAN;
  int loadedRuns = 0;
  bool noisy = false;
  // Bus bytes one rank moves per training step, steady epochs, mean of the
  // repeats, in MB (1e6 bytes): what a compression strategy exists to cut.
  double busMbPerStep = NAN;
};

// Per model (with its depth), dataset and world size: the configuration to
// use and why (the view `verdict`, reports/views/96_verdict.sql).
struct VerdictRow {
  int64_t experiment = 0;
  std::string model, dataset, bestKey, runnerUpKey, why;
  // The headline ("use bucketed", "tie within noise: …", "inconclusive:
  // loaded runs"); "" from a view without the column: the report says "use BEST".
  std::string decision;
  std::string missed;  // faster configurations that missed the accuracy ("" for none)
  int world = 0, configs = 0, repeats = 0;
  double samplesPerS = NAN, margin = NAN, marginOverSlowest = NAN;
  std::optional<bool> beyondNoise;  // nullopt: a single repeat on either side, or no runner-up
  // The accuracy a configuration had to reach (fraction), the target the
  // matrix set (NAN: none), and the best's final test accuracy.
  double accuracyBar = NAN, targetAccuracy = NAN, bestTestAccuracy = NAN;
};

// A run brought back from a failed rank (reports/queries/75_recovery.sql).
struct RecoveryRow {
  int64_t experiment = 0;
  std::string key, cause;
  int repeat = 0, attempt = 0;
  int64_t resumedStep = 0, lostSteps = 0;
  double detectS = NAN, recoverS = NAN;  // detect: NAN without an injected fault
  std::string mode;                      // restart | elastic
  int worldAfter = 0;                    // ranks it went on with (0: unknown)
  double samplesPerSBefore = NAN, samplesPerSAfter = NAN;
};

// One step of a faulted or recovered run, on the run's clock (77_timeline.sql).
struct TimelinePoint {
  int64_t experiment = 0, run = 0;
  std::string key;
  int repeat = 0;
  double atS = 0, samplesPerS = NAN;
};

// A fault, failure, restart, reset, join or recovery of such a run (78_timeline_marks.sql).
struct TimelineMark {
  int64_t experiment = 0, run = 0;
  std::string kind, detail;
  double atS = 0;
};

struct ReportData {
  std::vector<ReportExperiment> experiments;
  std::vector<ReportConfig> configs;
  std::vector<ScalingRow> scaling;
  std::vector<ProjectionRow> projections;
  std::vector<BreakdownRow> breakdown;
  std::vector<AccuracyRow> accuracy;
  std::vector<MemoryRow> memory;
  std::vector<BandwidthRow> bandwidth;
  std::vector<KeyFigureRow> keyFigures;
  std::vector<VerdictRow> verdicts;
  std::vector<RecoveryRow> recoveries;
  std::vector<TimelinePoint> timeline;
  std::vector<TimelineMark> marks;

  // (experiment, config_key) -> index in configs: a report of 1,000
  // experiments looks a configuration up for each of its 10,000 rows.
  std::map<std::pair<int64_t, std::string>, size_t> configIndex;

  const ReportConfig* config(int64_t experiment, const std::string& key) const;
  // The models of an experiment's training runs, in order of appearance.
  std::vector<std::string> models(int64_t experiment) const;
};

// Configurations, and the rows of each chart and table, come in the order of
// their labels, numbers compared as numbers.
ReportData loadReport(const ReportQueries& queries, const std::vector<int64_t>& experiments);

// "bucket_cap_mb=25" before "bucket_cap_mb=100": digit runs (with a decimal
// point or exponent) compare by value, the rest character by character.
bool naturalLess(const std::string& a, const std::string& b);

// B against A, cell by cell (reports/queries/80_compare.sql).
struct ComparisonRow {
  std::string key, model, strategy, backend, label, verdict;
  int world = 0, repeatsA = 0, repeatsB = 0;
  int loadedA = 0, loadedB = 0;  // repeats under competing load (run.loaded)
  double a = NAN, b = NAN, change = NAN, noise = NAN, accuracyChange = NAN;
};
std::vector<ComparisonRow> loadComparison(const ReportQueries& queries, int64_t a, int64_t b,
                                          const ReportData& labels);

}  // namespace dtb::core
