// parseRecord (record_channel.h): one reader per kind of line, each the
// mirror of its RecordWriter method.
#include <cmath>
#include <locale>
#include <sstream>
#include <string_view>

#include "protocol/record_channel.h"
#include "protocol/record_fields.h"

namespace dtb::core {
namespace {

void readProgress(std::istream& in, Record& r) {
  in >> r.epoch >> r.step >> r.steps;
  r.samplesPerSecond = optionalNumber(in).value_or(0);
}

void readEpoch(std::istream& in, Record& r) {
  EpochRecord& e = r.epochRecord;
  in >> e.epoch >> e.steps >> e.samples;
  e.seconds = optionalNumber(in).value_or(0);
  e.trainLoss = optionalNumber(in);
  e.trainAccuracy = optionalNumber(in);
  e.testLoss = optionalNumber(in);
  e.testAccuracy = optionalNumber(in);
  int64_t bytes = 0, collectives = 0;
  in >> bytes >> collectives;
  e.bytesSent = bytes;
  e.collectives = collectives;
  e.stepBusBytes = optionalNumber(in);
  if (in) readPhaseFields(in, e.phases, PhaseScope::kPerEpoch);
}

void readStep(std::istream& in, Record& r) {
  StepRecord& s = r.stepRecord;
  in >> s.rank >> s.step >> s.epoch;
  s.seconds = optionalNumber(in).value_or(0);
  s.loss = optionalNumber(in);
  int64_t bytes = 0, collectives = 0, samples = 0;
  in >> bytes >> collectives >> samples;
  s.bytesSent = bytes;
  s.collectives = collectives;
  s.samples = samples;
  s.busBytes = optionalNumber(in);
  s.endedAtS = optionalNumber(in);
  if (in) readPhaseFields(in, s.phases, PhaseScope::kPerStep);
}

void readMetric(std::istream& in, Record& r) {
  MetricRecord& m = r.metricRecord;
  in >> m.rank >> m.step >> m.plugin >> m.name;
  m.value = optionalNumber(in).value_or(NAN);
}

void readMemory(std::istream& in, Record& r) {
  MemoryRecord& m = r.memoryRecord;
  int64_t params = 0, grads = 0, optimizer = 0, buffers = 0, rss = 0;
  in >> m.rank >> params >> grads >> optimizer >> buffers >> rss;
  m.paramBytes = params;
  m.gradBytes = grads;
  m.optimizerBytes = optimizer;
  m.bufferBytes = buffers;
  m.peakRssBytes = rss;
  int64_t elements = 0, stateFloats = 0;
  if (in >> elements >> stateFloats) {
    m.paramElements = elements;
    m.stateFloats = stateFloats;
  }
  if (!in) return;
  // -1: a rank on the CPU. An older worker's line ends before either.
  for (std::optional<int64_t>* gpu : {&m.gpuUsedBytes, &m.gpuPeakAllocatedBytes}) {
    if (int64_t bytes = -1; in >> bytes) {
      if (bytes >= 0) *gpu = bytes;
    } else {
      if (in.eof()) in.clear();
      return;
    }
  }
}

void readHost(std::istream& in, Record& r) {
  RankHostRecord& h = r.hostRecord;
  in >> h.rank >> h.localRank >> h.address >> h.host >> h.interface;
  if (h.interface == "-") h.interface.clear();
  r.rank = h.rank;
}

void readGradient(std::istream& in, Record& r) {
  GradientReadyRecord& g = r.gradientRecord;
  in >> g.rank >> g.param >> g.layer >> g.bytes;
  g.readyS = optionalNumber(in).value_or(0);
  g.backwardS = optionalNumber(in).value_or(0);
  in >> g.steps >> g.name;
  if (g.name == "-") g.name.clear();
  r.rank = g.rank;
}

void readEvent(std::istream& in, Record& r) {
  int rank = 0;
  in >> rank;
  r.eventRecord.rank = rank;
  r.eventRecord.atS = optionalNumber(in).value_or(0);
  in >> r.eventRecord.kind;
  std::getline(in >> std::ws, r.eventRecord.detail);
}

void readError(std::istream& in, Record& r) {
  std::string origin;
  in >> r.rank >> origin;
  r.peerFailure = origin == "peer";
  std::getline(in >> std::ws, r.message);
}

void readCollective(std::istream& in, Record& r) {
  CollectiveRecord& c = r.collectiveRecord;
  in >> c.rank >> c.op >> c.dtype >> c.bytes >> c.iterations;
  c.timeS = optionalNumber(in).value_or(0);
  c.p50S = optionalNumber(in);
  c.p95S = optionalNumber(in);
  in >> c.wrong;
}

void readReference(std::istream& in, Record& r) {
  in >> r.referenceRecord.name >> r.referenceRecord.bytes;
  r.referenceRecord.gbps = optionalNumber(in).value_or(0);
}

void readReset(std::istream& in, Record& r) {
  in >> r.generation >> r.step;
  std::getline(in >> std::ws, r.message);
}

void readGrow(std::istream& in, Record& r) { in >> r.step; }
void readDone(std::istream& in, Record& r) { in >> r.rank; }

struct LineKind {
  std::string_view word;
  Record::Kind kind;
  void (*read)(std::istream&, Record&);
  bool textLast;  // ends with free text (which may be empty)
};

constexpr LineKind kKinds[] = {
    {"progress", Record::Kind::kProgress, readProgress, false},
    {"epoch", Record::Kind::kEpoch, readEpoch, false},
    {"step", Record::Kind::kStep, readStep, false},
    {"metric", Record::Kind::kMetric, readMetric, false},
    {"memory", Record::Kind::kMemory, readMemory, false},
    {"host", Record::Kind::kHost, readHost, false},
    {"gradient", Record::Kind::kGradient, readGradient, false},
    {"event", Record::Kind::kEvent, readEvent, true},
    {"error", Record::Kind::kError, readError, true},
    {"collective", Record::Kind::kCollective, readCollective, false},
    {"reference", Record::Kind::kReference, readReference, false},
    {"reset", Record::Kind::kReset, readReset, true},
    {"grow", Record::Kind::kGrow, readGrow, false},
    {"done", Record::Kind::kDone, readDone, false},
};

}  // namespace

std::optional<Record> parseRecord(const std::string& text) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  std::string word;
  in >> word;
  for (const LineKind& kind : kKinds) {
    if (kind.word != word) continue;
    Record r{};
    r.kind = kind.kind;
    try {
      kind.read(in, r);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (in.fail() && !kind.textLast) return std::nullopt;
    return r;
  }
  return std::nullopt;
}

}  // namespace dtb::core
