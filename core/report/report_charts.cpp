#include "report/report_charts.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

namespace dtb::core {
namespace {

template <typename Row>
std::vector<const Row*> rowsOf(const ReportData& data, const std::vector<Row>& rows, int64_t experiment,
                               const std::string& model) {
  std::vector<const Row*> out;
  for (const Row& r : rows) {
    if (r.experiment != experiment) continue;  // before the lookup: reports hold many experiments
    const ReportConfig* c = data.config(r.experiment, r.key);
    if (c && c->model == model) out.push_back(&r);
  }
  return out;
}

std::string barLabel(const ReportData& data, int64_t experiment, const std::string& key, int world) {
  const ReportConfig* c = data.config(experiment, key);
  return (c ? c->label : key) + " ×" + std::to_string(world);
}

// More bars than fit side by side: one chart per world size instead.
std::vector<StackedBarChart> splitByWorld(const StackedBarChart& chart, const std::vector<int>& worlds) {
  constexpr size_t kMaxBars = 10;
  if (chart.bars.size() <= kMaxBars) return {chart};
  std::vector<int> distinct = worlds;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<StackedBarChart> out;
  for (int w : distinct) {
    StackedBarChart part{chart.title + ", " + std::to_string(w) + (w == 1 ? " rank" : " ranks"),
                         chart.yLabel,
                         {},
                         chart.layers,
                         std::vector<std::vector<double>>(chart.layers.size()),
                         chart.unit};
    for (size_t b = 0; b < chart.bars.size(); ++b) {
      if (worlds[b] != w) continue;
      part.bars.push_back(chart.bars[b].substr(0, chart.bars[b].rfind(" ×")));
      for (size_t l = 0; l < chart.layers.size(); ++l) part.values[l].push_back(chart.values[l][b]);
    }
    out.push_back(part);
  }
  return out;
}

// A measured point's efficiency: the store has none at the reference world
// size itself (nothing to compare with); a chart draws the line from
// there, at 100 % by definition.
double measuredEfficiency(const ScalingRow& r) { return r.world == r.refWorld ? 1.0 : r.efficiency; }

}  // namespace

std::vector<LineChart> scalingCharts(const ReportData& data, int64_t experiment, const std::string& model) {
  const auto rows = rowsOf(data, data.scaling, experiment, model);
  if (rows.empty()) return {};
  LineChart throughput{model + ": throughput against world size",
                       {"ranks", 2, TickFormat::kNumber, false, false, "ranks"},
                       {"samples/s", 10, TickFormat::kNumber, false, false, "samples/s"},
                       {},
                       "ideal (linear from the fewest ranks)"};
  LineChart efficiency{model + ": parallel efficiency E = S / (G / G_ref)",
                       {"ranks", 2, TickFormat::kNumber, false, false, "ranks"},
                       {"efficiency", 0, TickFormat::kPercent, true},
                       {},
                       "ideal (100 %)"};
  std::map<std::string, size_t> seriesOf;
  std::set<int> worlds;
  for (const ScalingRow* r : rows) {
    const ReportConfig* c = data.config(r->experiment, r->key);
    auto [it, fresh] = seriesOf.try_emplace(r->key, throughput.series.size());
    if (fresh) {
      throughput.series.push_back(
          {c->label, {}, c->color, false, true, true, MarkerShape::kCircle, c->label});
      throughput.series.push_back(
          {"ideal: " + c->label, {}, c->color, true, false, false, MarkerShape::kCircle, c->label});
      efficiency.series.push_back(
          {c->label, {}, c->color, false, true, true, MarkerShape::kCircle, c->label});
    }
    throughput.series[it->second].points.push_back({double(r->world), r->samplesPerS, r->low, r->high});
    throughput.series[it->second + 1].points.push_back({double(r->world), r->ideal});
    efficiency.series[it->second / 2].points.push_back({double(r->world), measuredEfficiency(*r)});
    worlds.insert(r->world);
  }
  ChartSeries ideal{"ideal", {}, 9, true, false, false};
  for (int w : worlds) ideal.points.push_back({double(w), 1.0});
  efficiency.series.push_back(ideal);
  return {throughput, efficiency};
}

std::vector<LineChart> projectionCharts(const ReportData& data, int64_t experiment,
                                        const std::string& model) {
  std::map<std::tuple<std::string, int64_t, std::string>, std::vector<const ProjectionRow*>> sets;
  for (const ProjectionRow& p : data.projections) {
    if (p.experiment == experiment && p.model == model) sets[{p.system, p.run, p.target}].push_back(&p);
  }
  std::vector<LineChart> charts;
  for (const auto& [which, rows] : sets) {
    const auto& [system, run, target] = which;
    LineChart chart{model + ": parallel efficiency projected to " + system + " from run " +
                        std::to_string(run) + ", beside the measured",
                    {"GPUs", 2, TickFormat::kNumber, false, false, "GPUs"},
                    {"efficiency", 0, TickFormat::kPercent, true},
                    {},
                    "ideal (100 %)"};
    std::map<std::string, size_t> seriesOf;
    std::set<int> gpus;
    for (const ProjectionRow* p : rows) {
      auto [it, fresh] = seriesOf.try_emplace(p->strategy, chart.series.size());
      if (fresh) chart.series.push_back({"projected: " + p->strategy, {}, static_cast<int>(it->second)});
      chart.series[it->second].points.push_back({double(p->gpus), p->efficiency});
      gpus.insert(p->gpus);
    }
    std::map<std::string, size_t> measuredOf;
    for (const ScalingRow* r : rowsOf(data, data.scaling, experiment, model)) {
      const ReportConfig* c = data.config(r->experiment, r->key);
      auto [it, fresh] = measuredOf.try_emplace(r->key, chart.series.size());
      if (fresh)
        chart.series.push_back(
            {"measured: " + c->label, {}, c->color, false, true, true, MarkerShape::kSquare, c->label});
      chart.series[it->second].points.push_back({double(r->world), measuredEfficiency(*r)});
      gpus.insert(r->world);
    }
    ChartSeries ideal{"ideal", {}, 9, true, false, false};
    for (int g : gpus) ideal.points.push_back({double(g), 1.0});
    chart.series.push_back(ideal);
    charts.push_back(chart);
  }
  return charts;
}

std::vector<StackedBarChart> breakdownCharts(const ReportData& data, int64_t experiment,
                                             const std::string& model) {
  const auto rows = rowsOf(data, data.breakdown, experiment, model);
  if (rows.empty()) return {};
  StackedBarChart chart{model + ": where a training step's time goes (mean of repeats)",
                        "ms per step",
                        {},
                        {"data", "forward", "backward", "exposed communication", "optimizer", "other"},
                        std::vector<std::vector<double>>(6),
                        "ms"};
  std::vector<int> worlds;
  for (const BreakdownRow* r : rows) {
    chart.bars.push_back(barLabel(data, experiment, r->key, r->world));
    worlds.push_back(r->world);
    const double parts[] = {r->dataMs, r->forwardMs, r->backwardMs, r->exposedMs, r->optimizerMs, r->otherMs};
    for (int l = 0; l < 6; ++l) chart.values[l].push_back(parts[l]);
  }
  return splitByWorld(chart, worlds);
}

std::vector<LineChart> accuracyCharts(const ReportData& data, int64_t experiment, const std::string& model) {
  const auto rows = rowsOf(data, data.accuracy, experiment, model);
  if (rows.empty()) return {};
  // One series per configuration and world size; with many, only each
  // configuration's largest world size (the run the question is about).
  // A configuration's colour as on every chart; its world sizes differ in
  // the markers' shape.
  std::map<std::string, int> largest;
  std::set<std::pair<std::string, int>> combos;
  std::set<int> worlds;
  for (const AccuracyRow* r : rows) {
    largest[r->key] = std::max(largest[r->key], r->world);
    combos.insert({r->key, r->world});
    worlds.insert(r->world);
  }
  const bool all = combos.size() <= 10;
  const std::string which = all ? "" : " (largest world size of each configuration)";
  LineChart test{model + ": test accuracy per epoch" + which,
                 {"epoch", 0, TickFormat::kNumber, false, true},
                 {"test accuracy", 0, TickFormat::kPercent, false},
                 {},
                 ""};
  LineChart loss{model + ": training loss per epoch" + which,
                 {"epoch", 0, TickFormat::kNumber, false, true},
                 {"training loss", 0, TickFormat::kNumber, false},
                 {},
                 ""};
  std::map<std::pair<std::string, int>, size_t> seriesOf;
  for (const AccuracyRow* r : rows) {
    if (!all && r->world != largest[r->key]) continue;
    const ReportConfig* c = data.config(r->experiment, r->key);
    auto [it, fresh] = seriesOf.try_emplace({r->key, r->world}, test.series.size());
    if (fresh) {
      const std::string name = c->label + " ×" + std::to_string(r->world);
      const auto shape = static_cast<MarkerShape>(
          all ? std::distance(worlds.begin(), worlds.find(r->world)) % kMarkerShapes : 0);
      test.series.push_back({name, {}, c->color, false, true, true, shape, c->label});
      loss.series.push_back({name, {}, c->color, false, true, true, shape, c->label});
    }
    test.series[it->second].points.push_back({double(r->epoch), r->testAccuracy, r->low, r->high});
    loss.series[it->second].points.push_back({double(r->epoch), r->trainLoss});
  }
  return {test, loss};
}

std::vector<GroupedBarChart> busBytesCharts(const ReportData& data, int64_t experiment,
                                            const std::string& model) {
  const auto rows = rowsOf(data, data.keyFigures, experiment, model);
  std::set<int> worlds;
  for (const KeyFigureRow* r : rows) {
    if (std::isfinite(r->busMbPerStep)) worlds.insert(r->world);
  }
  if (worlds.empty()) return {};
  GroupedBarChart chart{
      model + ": bus bytes per step (steady epochs, mean of repeats)", "MB per step", {}, {}, "MB"};
  for (int w : worlds) chart.groups.push_back(std::to_string(w) + (w == 1 ? " rank" : " ranks"));
  std::map<std::string, size_t> seriesOf;
  for (const KeyFigureRow* r : rows) {
    if (!std::isfinite(r->busMbPerStep)) continue;
    const ReportConfig* c = data.config(r->experiment, r->key);
    auto [it, fresh] = seriesOf.try_emplace(r->key, chart.series.size());
    if (fresh)
      chart.series.push_back({c->label, std::vector<double>(worlds.size(), NAN), c->color, c->label});
    chart.series[it->second].values[std::distance(worlds.begin(), worlds.find(r->world))] = r->busMbPerStep;
  }
  return {chart};
}

std::vector<StackedBarChart> memoryCharts(const ReportData& data, int64_t experiment,
                                          const std::string& model) {
  const auto rows = rowsOf(data, data.memory, experiment, model);
  if (rows.empty()) return {};
  // The model's state (what ZeRO partitions) and the strategies' buffers on
  // charts of their own: one 128 MB fusion buffer on the same scale would
  // flatten every stage's partitioning into the axis.
  StackedBarChart state{model + ": model state one rank holds (what ZeRO partitions)",
                        "MB per rank",
                        {},
                        {"parameters", "gradients", "optimizer state"},
                        std::vector<std::vector<double>>(3),
                        "MB"};
  StackedBarChart buffers{model + ": strategy buffers one rank holds (fusion buffer, buckets, ZeRO staging)",
                          "MB per rank",
                          {},
                          {"strategy buffers"},
                          std::vector<std::vector<double>>(1),
                          "MB"};
  std::vector<int> worlds;
  bool anyBuffer = false;
  for (const MemoryRow* r : rows) {
    const std::string bar = barLabel(data, experiment, r->key, r->world);
    state.bars.push_back(bar);
    buffers.bars.push_back(bar);
    worlds.push_back(r->world);
    const double parts[] = {r->paramMb, r->gradMb, r->optimizerMb};
    for (int l = 0; l < 3; ++l) state.values[l].push_back(parts[l]);
    buffers.values[0].push_back(r->bufferMb);
    anyBuffer = anyBuffer || (std::isfinite(r->bufferMb) && r->bufferMb > 0);
  }
  std::vector<StackedBarChart> out = splitByWorld(state, worlds);
  if (anyBuffer) {
    for (StackedBarChart& c : splitByWorld(buffers, worlds)) out.push_back(std::move(c));
  }
  return out;
}

std::vector<LineChart> bandwidthCharts(const ReportData& data, int64_t experiment) {
  std::vector<LineChart> charts;
  std::map<std::string, size_t> chartOf;
  std::map<std::pair<std::string, std::string>, size_t> seriesOf;  // (op, backend/ranks/dtype)
  std::map<std::pair<std::string, std::string>, size_t> referenceOf;
  std::map<std::string, int> colorOf;  // one colour per backend/ranks/dtype on every chart
  for (const BandwidthRow& r : data.bandwidth) {
    if (r.experiment != experiment) continue;
    auto [c, freshChart] = chartOf.try_emplace(r.op, charts.size());
    if (freshChart) {
      charts.push_back({r.op + ": bus bandwidth against message size",
                        {"message size (bytes)", 2, TickFormat::kBytes, false},
                        {"busbw (GB/s)", 0, TickFormat::kNumber, true, false, "GB/s"},
                        {},
                        "memcpy reference of the run"});
    }
    LineChart& chart = charts[c->second];
    const std::string name = r.backend + " ×" + std::to_string(r.ranks) + " " + r.dtype;
    auto [s, fresh] = seriesOf.try_emplace({r.op, name}, chart.series.size());
    if (fresh) {
      const int color = colorOf.try_emplace(name, static_cast<int>(colorOf.size())).first->second;
      chart.series.push_back({name, {}, color});
      if (std::isfinite(r.memcpy)) {
        referenceOf[{r.op, name}] = chart.series.size();
        chart.series.push_back({"memcpy: " + name, {}, color, true, false, false});
      }
    }
    chart.series[s->second].points.push_back({r.bytes, r.busbw});
    auto ref = referenceOf.find({r.op, name});
    if (ref != referenceOf.end()) chart.series[ref->second].points.push_back({r.bytes, r.memcpy});
  }
  return charts;
}

namespace {

// What each mark on a timeline is called in its legend, and its colour.
struct MarkStyle {
  const char* name;
  int color;
};

MarkStyle markStyle(const std::string& kind) {
  if (kind == "fault") return {"fault injected", 3};
  if (kind == "failure") return {"failure seen", 1};
  if (kind == "recovered") return {"first step after recovery", 2};
  if (kind == "join" || kind == "start") return {"workers join (or the first world is smaller)", 4};
  // Across hosts: the hosts discovery finds or drops, and those blacklisted.
  if (kind == "leave" || kind == "host_removed") return {"host gone: its workers leave", 6};
  if (kind == "host_added") return {"host found (or back after its cool-down)", 7};
  if (kind == "blacklist") return {"host blacklisted", 8};
  return {"restart / reset", 5};  // restart, reset
}

}  // namespace

std::vector<LineChart> timelineCharts(const ReportData& data, int64_t experiment) {
  constexpr size_t kMaxCharts = 12;  // a matrix of many faulted runs: the first of them
  std::vector<LineChart> charts;
  std::map<int64_t, size_t> chartOf;  // run -> chart
  std::map<int64_t, double> highest;  // run -> its highest throughput: how tall a mark is
  for (const TimelinePoint& p : data.timeline) {
    if (p.experiment != experiment || !std::isfinite(p.samplesPerS)) continue;
    auto [c, fresh] = chartOf.try_emplace(p.run, charts.size());
    if (fresh) {
      if (charts.size() == kMaxCharts) {
        chartOf.erase(p.run);
        continue;
      }
      const ReportConfig* config = data.config(p.experiment, p.key);
      charts.push_back({(config ? config->label : p.key) + ", repeat " + std::to_string(p.repeat) +
                            ": throughput over time",
                        {"s since the run began", 0, TickFormat::kNumber, true, false, "s"},
                        {"samples/s (all ranks)", 0, TickFormat::kNumber, true, false, "samples/s"},
                        {{"throughput", {}, 0, false, false, false}},
                        ""});
    }
    charts[c->second].series[0].points.push_back({p.atS, p.samplesPerS});
    highest[p.run] = std::max(highest[p.run], p.samplesPerS);
  }
  std::map<std::pair<int64_t, std::string>, bool> named;  // (run, kind) has its legend entry
  for (const TimelineMark& m : data.marks) {
    const auto c = chartOf.find(m.run);
    if (m.experiment != experiment || c == chartOf.end()) continue;
    const MarkStyle style = markStyle(m.kind);
    const bool first = named.try_emplace({m.run, style.name}, true).second;
    charts[c->second].series.push_back(
        {style.name, {{m.atS, 0}, {m.atS, highest[m.run]}}, style.color, true, false, first});
  }
  return charts;
}

}  // namespace dtb::core
