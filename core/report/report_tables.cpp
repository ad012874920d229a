#include "report/report_tables.h"

#include <cmath>
#include <map>
#include <tuple>

#include "report/report_format.h"
#include "report/svg_chart.h"

namespace dtb::core {
namespace {

std::string percent(double fraction, int decimals) {
  return std::isfinite(fraction) ? formatNumber(100 * fraction, decimals) + " %" : "—";
}

// Why a cell's figures are not to be trusted, or "" when nothing says so.
std::string noise(const KeyFigureRow& r) {
  if (!r.noisy) return "";
  std::string why;
  if (r.loadedRuns > 0) why = std::to_string(r.loadedRuns) + " under load";
  if (std::isfinite(r.spread) && r.spread > 0.10)
    why += (why.empty() ? "" : ", ") + percent(r.spread, 0) + " spread";
  return "noisy: " + why;
}

}  // namespace

const char* const kVerdictNote =
    "Per model and world size, the decision: the configuration to use — the fastest by median samples/s "
    "over its repeats among those that reached the accuracy — when its repeats all beat the next's and no "
    "run competed with other load; otherwise a tie within noise, inconclusive (loaded runs) or noise "
    "unknown (one repeat): run more repeats, on a quiet machine, before choosing. Why: the phase of the "
    "step (ms per step, mean over repeats) where the best saves most against the next, the bytes each "
    "moves per step, and peak memory per rank where it differs. Faster configurations that missed the "
    "accuracy are named under it. The table gives the figures. In SQL: SELECT * FROM verdict.";

namespace {

std::string configLabel(const ReportData& data, int64_t experiment, const std::string& key) {
  const ReportConfig* c = data.config(experiment, key);
  return c ? c->label : key;
}

std::string verdictWhere(const VerdictRow& v) {
  return v.model + (v.dataset.empty() ? "" : " / " + v.dataset) + ", " + std::to_string(v.world) +
         (v.world == 1 ? " rank" : " ranks");
}

}  // namespace

std::vector<VerdictHeadline> verdictHeadlines(const ReportData& data, int64_t experiment) {
  std::vector<VerdictHeadline> out;
  for (const VerdictRow& v : data.verdicts) {
    if (v.experiment != experiment) continue;
    VerdictHeadline h;
    h.where = verdictWhere(v);
    // A view from before the decision column: the fastest, as it used to say.
    h.decision = !v.decision.empty() ? v.decision : "use " + configLabel(data, experiment, v.bestKey);
    if (v.why != h.decision) h.why = v.why;
    if (!v.missed.empty()) h.missed = "missed the accuracy: " + v.missed;
    out.push_back(std::move(h));
  }
  return out;
}

ReportTable verdictTable(const ReportData& data, int64_t experiment) {
  ReportTable t{{"model", "ranks", "best", "samples/s", "over the next", "over the slowest", "beyond noise?",
                 "test accuracy", "accuracy bar"},
                "lrlrrrlrr",
                {},
                {},
                {}};
  for (const VerdictRow& v : data.verdicts) {
    if (v.experiment != experiment) continue;
    const bool alone = v.runnerUpKey.empty();
    std::string noise = "unknown (one repeat)";
    if (alone) {
      noise = "";
    } else if (v.beyondNoise) {
      noise = *v.beyondNoise ? "yes: the repeats do not overlap" : "no: within the repeats' spread";
    }
    t.rows.push_back(
        {v.model + (v.dataset.empty() ? "" : " / " + v.dataset), std::to_string(v.world),
         v.bestKey.empty() ? "—" : configLabel(data, experiment, v.bestKey), formatNumber(v.samplesPerS, 1),
         alone ? "—" : "+" + percent(v.margin, 1) + " (" + configLabel(data, experiment, v.runnerUpKey) + ")",
         v.configs > 2 ? "+" + percent(v.marginOverSlowest, 1) : "—", noise,
         formatNumber(v.bestTestAccuracy, 4), formatNumber(v.accuracyBar, 4)});
  }
  return t;
}

ReportTable keyFigureTable(const ReportData& data, int64_t experiment, const std::string& model) {
  ReportTable t{
      {"configuration", "ranks", "repeats", "samples/s (median)", "[min – max]", "ms/step", "MB/step (bus)",
       "speed-up", "efficiency", "test accuracy (mean)", "[min – max]", "failed", "noise"},
      "lrrrrrrrrrrrl",
      {},
      {},
      {}};
  for (const KeyFigureRow& r : data.keyFigures) {
    if (r.experiment != experiment) continue;  // before the lookup: reports hold many experiments
    const ReportConfig* c = data.config(r.experiment, r.key);
    if (!c || c->model != model) continue;
    t.rows.push_back({c->label, std::to_string(r.world), std::to_string(r.repeats), formatNumber(r.median, 1),
                      formatSpread(r.low, r.high, 1), formatNumber(r.msPerStep, 2),
                      formatSignificant(r.busMbPerStep, 3), formatNumber(r.speedup, 2),
                      percent(r.efficiency, 0), formatNumber(r.accuracy, 4),
                      formatSpread(r.accuracyLow, r.accuracyHigh, 4), std::to_string(r.failed), noise(r)});
  }
  return t;
}

ReportTable breakdownTable(const ReportData& data, int64_t experiment, const std::string& model) {
  ReportTable t{{"configuration", "ranks", "data", "forward", "backward", "exposed comm", "optimizer",
                 "other", "step (ms)"},
                "lrrrrrrrr",
                {},
                {},
                {}};
  for (const BreakdownRow& r : data.breakdown) {
    if (r.experiment != experiment) continue;
    const ReportConfig* c = data.config(r.experiment, r.key);
    if (!c || c->model != model) continue;
    const double step = r.dataMs + r.forwardMs + r.backwardMs + r.exposedMs + r.optimizerMs + r.otherMs;
    t.rows.push_back({c->label, std::to_string(r.world), formatNumber(r.dataMs, 2),
                      formatNumber(r.forwardMs, 2), formatNumber(r.backwardMs, 2),
                      formatNumber(r.exposedMs, 2), formatNumber(r.optimizerMs, 2),
                      formatNumber(r.otherMs, 2), formatNumber(step, 2)});
  }
  return t;
}

ReportTable memoryTable(const ReportData& data, int64_t experiment, const std::string& model) {
  ReportTable t{
      {"configuration", "ranks", "parameters (MB)", "gradients", "optimizer state", "strategy buffers"},
      "lrrrrr",
      {},
      {},
      {}};
  for (const MemoryRow& r : data.memory) {
    if (r.experiment != experiment) continue;
    const ReportConfig* c = data.config(r.experiment, r.key);
    if (!c || c->model != model) continue;
    t.rows.push_back({c->label, std::to_string(r.world), formatNumber(r.paramMb, 3),
                      formatNumber(r.gradMb, 3), formatNumber(r.optimizerMb, 3),
                      formatNumber(r.bufferMb, 3)});
  }
  return t;
}

ReportTable bandwidthTable(const ReportData& data, int64_t experiment) {
  ReportTable t{{"collective", "backend", "ranks", "dtype", "size", "time (µs)", "p50", "p95", "busbw (GB/s)",
                 "of memcpy", "#wrong"},
                "llrlrrrrrrr",
                {},
                {},
                {}};
  for (const BandwidthRow& r : data.bandwidth) {
    if (r.experiment != experiment) continue;
    t.rows.push_back({r.op, r.backend, std::to_string(r.ranks), r.dtype,
                      formatTick(r.bytes, TickFormat::kBytes), formatNumber(r.timeUs, 1),
                      formatNumber(r.p50Us, 1), formatNumber(r.p95Us, 1), formatNumber(r.busbw, 3),
                      percent(r.busbw / r.memcpy, 1), std::to_string(r.wrong)});
  }
  return t;
}

ReportTable bandwidthSummaryTable(const ReportData& data, int64_t experiment) {
  struct Summary {
    const BandwidthRow *smallest = nullptr, *largest = nullptr, *peak = nullptr;
    int64_t wrong = 0;
  };
  std::map<std::tuple<std::string, std::string, int, std::string>, Summary> groups;
  for (const BandwidthRow& r : data.bandwidth) {
    if (r.experiment != experiment) continue;
    Summary& s = groups[{r.op, r.backend, r.ranks, r.dtype}];
    if (!s.smallest || r.bytes < s.smallest->bytes) s.smallest = &r;
    if (!s.largest || r.bytes > s.largest->bytes) s.largest = &r;
    if (!s.peak || r.busbw > s.peak->busbw) s.peak = &r;
    s.wrong += r.wrong;
  }
  ReportTable t{{"collective", "backend", "ranks", "dtype", "smallest: time (µs)", "largest: busbw (GB/s)",
                 "peak busbw (GB/s)", "at", "peak of memcpy", "#wrong"},
                "llrlrrrrrr",
                {},
                {},
                {}};
  for (const auto& [key, s] : groups) {
    t.rows.push_back({std::get<0>(key), std::get<1>(key), std::to_string(std::get<2>(key)), std::get<3>(key),
                      formatNumber(s.smallest->timeUs, 1), formatNumber(s.largest->busbw, 3),
                      formatNumber(s.peak->busbw, 3), formatTick(s.peak->bytes, TickFormat::kBytes),
                      percent(s.peak->busbw / s.peak->memcpy, 1), std::to_string(s.wrong)});
  }
  return t;
}

const char* const kRecoveryNote =
    "Runs with recovery = \"restart\" (after a rank failed, every worker started again from the newest "
    "checkpoint) or \"elastic\" (the survivors went back to their last commit and on in a new world, "
    "in the same processes). Detect: from the injected fault to the failure seen; recover: from the "
    "failure to the first step done again; the steps done past the checkpoint or commit ran twice; "
    "samples/s over the steps before and after (the views recovery_cost and recovery_by_mode).";

const char* const kTimelineNote =
    "Each run that met a fault or recovered from one: every step at the time it ended (s since the run "
    "began), all ranks' samples over its slowest rank's time; vertical lines mark the fault, the failure "
    "the coordinator saw, the restart or reset (or a worker joining) and the first step done after it. "
    "A recovery's cost is the gap between two points (77_timeline.sql, 78_timeline_marks.sql).";

ReportTable recoveryTable(const ReportData& data, int64_t experiment) {
  ReportTable t{{"configuration", "repeat", "recovery", "after", "from step", "steps run twice",
                 "ranks after", "detect (s)", "recover (s)", "samples/s before", "samples/s after"},
                "lrllrrrrrrr",
                {},
                {},
                {}};
  for (const RecoveryRow& r : data.recoveries) {
    if (r.experiment != experiment) continue;
    const ReportConfig* config = data.config(r.experiment, r.key);
    t.rows.push_back({config ? config->label : r.key, std::to_string(r.repeat),
                      (r.mode == "elastic" ? "reset " : "restart ") + std::to_string(r.attempt), r.cause,
                      std::to_string(r.resumedStep), std::to_string(r.lostSteps),
                      r.worldAfter > 0 ? std::to_string(r.worldAfter) : "", formatNumber(r.detectS, 3),
                      formatNumber(r.recoverS, 3), formatNumber(r.samplesPerSBefore, 1),
                      formatNumber(r.samplesPerSAfter, 1)});
  }
  return t;
}

const char* const kComparisonNote =
    "Cells both experiments ran (same configuration and world size), B's median samples/s against A's. "
    "The same rule as the verdict's: faster or slower only when both sides have 2 or more repeats, no run "
    "on either side competed with other load, and B's repeats [min – max] lie wholly above or below A's; "
    "otherwise inconclusive: loaded runs (with how many of each side's repeats), within noise (the ranges "
    "overlap) or noise unknown (one repeat). Query: reports/queries/80_compare.sql.";

ReportTable comparisonTable(const std::vector<ComparisonRow>& rows) {
  ReportTable t{{"configuration", "model", "ranks", "A samples/s", "B samples/s", "change", "repeat noise",
                 "verdict", "test accuracy change"},
                "llrrrrrlr",
                {},
                {},
                {5, 7}};
  for (const ComparisonRow& r : rows) {
    t.rows.push_back({r.label, r.model, std::to_string(r.world), formatNumber(r.a, 1), formatNumber(r.b, 1),
                      formatNumber(100 * r.change, 1) + " %", formatNumber(100 * r.noise, 1) + " %",
                      r.verdict, formatNumber(r.accuracyChange, 4)});
    t.rowClass.push_back(r.verdict.rfind("faster", 0) == 0         ? "faster"
                         : r.verdict.rfind("slower", 0) == 0       ? "slower"
                         : r.verdict.rfind("inconclusive", 0) == 0 ? "inconclusive"
                                                                   : "");
  }
  return t;
}

}  // namespace dtb::core
