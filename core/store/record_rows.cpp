#include "store/record_rows.h"

namespace dtb::core {
namespace {

// The phases of `scope` (kPerStep: all of them; the epoch has the kPerEpoch ones).
void addPhases(Row& row, const PerPhase<std::optional<double>>& phases, PhaseScope scope) {
  for (const PhaseInfo& p : kPhases) {
    if (scope == PhaseScope::kPerStep || p.scope == PhaseScope::kPerEpoch) row.add(p.column, phases[p.id]);
  }
}

// An unlimited link has no rate: NULL.
SqlValue rate(double gigabytesPerS) { return gigabytesPerS > 0 ? SqlValue(gigabytesPerS) : SqlValue(); }

}  // namespace

Row epochRow(const EpochRecord& e) {
  Row row;
  row.add("run_id", e.runId).add("epoch", e.epoch).add("steps", e.steps).add("samples", e.samples);
  row.add("seconds", e.seconds);
  addPhases(row, e.phases, PhaseScope::kPerEpoch);
  row.add("train_loss", e.trainLoss).add("train_accuracy", e.trainAccuracy);
  row.add("test_loss", e.testLoss).add("test_accuracy", e.testAccuracy);
  row.add("bytes_sent", e.bytesSent).add("collectives", e.collectives).add("step_bus_bytes", e.stepBusBytes);
  return row;
}

Row stepRow(const StepRecord& s) {
  Row row;
  row.add("run_id", s.runId).add("rank", s.rank).add("step", s.step).add("epoch", s.epoch);
  row.add("seconds", s.seconds);
  addPhases(row, s.phases, PhaseScope::kPerStep);
  row.add("loss", s.loss).add("bytes_sent", s.bytesSent).add("collectives", s.collectives);
  row.add("samples", s.samples).add("bus_bytes", s.busBytes).add("ended_at_s", s.endedAtS);
  return row;
}

Row metricRow(const MetricRecord& m) {
  Row row;
  row.add("run_id", m.runId).add("rank", m.rank).add("step", m.step).add("plugin", m.plugin);
  row.add("name", m.name).add("value", m.value);
  return row;
}

Row collectiveRow(const CollectiveRecord& c) {
  Row row;
  row.add("run_id", c.runId).add("rank", c.rank).add("op", c.op).add("dtype", c.dtype).add("bytes", c.bytes);
  row.add("iterations", c.iterations).add("time_s", c.timeS).add("p50_s", c.p50S).add("p95_s", c.p95S);
  row.add("wrong", c.wrong);
  return row;
}

Row referenceRow(const BandwidthReferenceRecord& b) {
  Row row;
  row.add("run_id", b.runId).add("name", b.name).add("bytes", b.bytes).add("gbps", b.gbps);
  return row;
}

Row eventRow(const EventRecord& e) {
  Row row;
  row.add("run_id", e.runId).add("rank", e.rank).add("at_s", e.atS).add("kind", e.kind);
  row.add("detail", e.detail);
  return row;
}

Row memoryRow(const MemoryRecord& m) {
  Row row;
  row.add("run_id", m.runId).add("rank", m.rank).add("param_bytes", m.paramBytes);
  row.add("grad_bytes", m.gradBytes).add("optimizer_bytes", m.optimizerBytes);
  row.add("buffer_bytes", m.bufferBytes).add("peak_rss_bytes", m.peakRssBytes);
  row.add("param_elements", m.paramElements).add("state_floats", m.stateFloats);
  row.add("gpu_used_bytes", m.gpuUsedBytes);
  row.add("gpu_peak_allocated_bytes", m.gpuPeakAllocatedBytes);
  return row;
}

Row hostRow(const RankHostRecord& h) {
  Row row;
  row.add("run_id", h.runId).add("rank", h.rank).add("host", h.host).add("local_rank", h.localRank);
  row.add("address", h.address).add("interface", h.interface);
  return row;
}

Row gradientRow(const GradientReadyRecord& g) {
  Row row;
  row.add("run_id", g.runId).add("rank", g.rank).add("param", g.param).add("layer", g.layer);
  row.add("name", g.name).add("bytes", g.bytes).add("ready_s", g.readyS).add("backward_s", g.backwardS);
  row.add("steps", g.steps);
  return row;
}

Row projectionRow(const ProjectionRecord& p) {
  Row row;
  row.add("run_id", p.runId).add("system", p.system).add("network", p.network).add("target", p.target);
  row.add("strategy", p.strategy);
  row.add("gpus", p.gpus)
      .add("nodes", p.nodes)
      .add("samples_per_gpu", p.samplesPerGpu)
      .add("step_s", p.stepS);
  row.add("samples_per_s", p.samplesPerS).add("ref_gpus", p.refGpus).add("speedup", p.speedup);
  row.add("efficiency", p.efficiency).add("exposed_share", p.exposedShare).add("comm_s", p.commS);
  row.add("created_at", p.createdAt);
  return row;
}

Row recoveryRow(const RecoveryRecord& r) {
  Row row;
  row.add("run_id", r.runId).add("attempt", r.attempt).add("mode", r.mode).add("cause", r.cause);
  row.add("failed_at_s", r.failedAtS).add("restarted_at_s", r.restartedAtS);
  row.add("resumed_step", r.resumedStep).add("lost_steps", r.lostSteps).add("world_size", r.worldSize);
  return row;
}

Row worldChangeRow(const WorldChangeRecord& w) {
  Row row;
  row.add("run_id", w.runId).add("generation", w.generation).add("at_s", w.atS).add("kind", w.kind);
  row.add("world_size", w.worldSize).add("from_step", w.fromStep).add("cause", w.cause);
  return row;
}

Row networkRow(const RunNetworkRecord& n) {
  Row row;
  row.add("run_id", n.runId).add("profile", n.profile).add("latency_us", n.latencyUs);
  row.add("link_gbps", rate(n.gigabytesPerS)).add("published_latency_us", n.publishedLatencyUs);
  row.add("published_gbps", rate(n.publishedGigabytesPerS)).add("time_scale", n.timeScale);
  return row;
}

void insertRows(Database& db, const char* insert, const char* table, const std::vector<Row>& rows,
                const char* tail) {
  if (rows.empty()) return;
  std::string columns, marks;
  for (const auto& [column, value] : rows.front().cells()) {
    columns += (columns.empty() ? "" : ", ") + std::string(column);
    marks += marks.empty() ? "?" : ", ?";
  }
  Statement s = db.prepare(std::string(insert) + " INTO " + table + " (" + columns + ") VALUES (" + marks +
                           ")" + (*tail ? " " : "") + tail);
  for (const Row& row : rows) {
    int index = 1;
    for (const auto& cell : row.cells()) s.bind(index++, cell.second);
    s.run();
  }
}

}  // namespace dtb::core
