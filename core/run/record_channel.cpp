#include "run/record_channel.h"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <sstream>

namespace dtb::core {
namespace {

std::string number(double v) {
  if (std::isnan(v)) return "nan";
  char text[40];
  std::snprintf(text, sizeof(text), "%.9g", v);
  return text;
}

std::string number(const std::optional<double>& v) { return v ? number(*v) : "nan"; }

// The whole token or nothing: "0.01[1,1]<stdout>:23" is no number.
std::optional<double> optionalNumber(std::istream& in) {
  std::string token;
  in >> token;
  if (token.empty() || token == "nan") return std::nullopt;
  size_t used = 0;
  const double value = std::stod(token, &used);
  if (used != token.size()) throw std::invalid_argument("not a number: " + token);
  return value;
}

// Messages stay on one line.
std::string oneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// A field read with >>: no blanks inside, never empty.
std::string oneWord(std::string text) {
  for (char& c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) c = '_';
  }
  return text.empty() ? "-" : text;
}

}  // namespace

RecordWriter::RecordWriter(int fd) : everyLine_(fd == STDOUT_FILENO) {
  if (fd >= 0) out_ = fdopen(fd, "w");
}

RecordWriter::~RecordWriter() {
  if (out_) std::fclose(out_);
}

void RecordWriter::line(const std::string& text, bool flush) {
  if (!out_) return;
  // Whole lines even when another thread writes one (a wait guard's error).
  flockfile(out_);
  std::fputs(text.c_str(), out_);
  std::fputc('\n', out_);
  if (flush || everyLine_) std::fflush(out_);  // the coordinator wants it now
  funlockfile(out_);
}

void RecordWriter::flush() {
  if (out_) std::fflush(out_);
}

void RecordWriter::progress(int epoch, int64_t step, int64_t steps, double samplesPerSecond) {
  line("progress " + std::to_string(epoch) + " " + std::to_string(step) + " " + std::to_string(steps) + " " +
       number(samplesPerSecond));
}

void RecordWriter::epoch(const EpochRecord& e) {
  line("epoch " + std::to_string(e.epoch) + " " + std::to_string(e.steps) + " " + std::to_string(e.samples) +
       " " + number(e.seconds) + " " + number(e.dataS) + " " + number(e.forwardS) + " " +
       number(e.backwardS) + " " + number(e.commExposedS) + " " + number(e.optimizerS) + " " +
       number(e.trainLoss) + " " + number(e.trainAccuracy) + " " + number(e.testLoss) + " " +
       number(e.testAccuracy) + " " + std::to_string(e.bytesSent.value_or(0)) + " " +
       std::to_string(e.collectives.value_or(0)) + " " + number(e.stepBusBytes) + " " + number(e.commTotalS));
}

void RecordWriter::step(const StepRecord& s) {
  line("step " + std::to_string(s.rank) + " " + std::to_string(s.step) + " " + std::to_string(s.epoch) + " " +
           number(s.seconds) + " " + number(s.dataS) + " " + number(s.forwardS) + " " + number(s.backwardS) +
           " " + number(s.commExposedS) + " " + number(s.optimizerS) + " " + number(s.loss) + " " +
           std::to_string(s.bytesSent.value_or(0)) + " " + std::to_string(s.collectives.value_or(0)) + " " +
           std::to_string(s.samples.value_or(0)) + " " + number(s.commTotalS) + " " + number(s.busBytes) +
           " " + number(s.forwardWaitS) + " " + number(s.backwardWaitS) + " " + number(s.optimizerWaitS) +
           " " + number(s.endedAtS),
       false);
}

// Names are one word on the line: a plugin's spaces become underscores.
void RecordWriter::metric(const MetricRecord& m) {
  if (!std::isfinite(m.value)) return;
  std::string name = m.name.empty() ? "unnamed" : m.name;
  for (char& c : name) {
    if (std::isspace(static_cast<unsigned char>(c))) c = '_';
  }
  line("metric " + std::to_string(m.rank) + " " + std::to_string(m.step) + " " + m.plugin + " " + name + " " +
           number(m.value),
       false);
}

void RecordWriter::memory(const MemoryRecord& m) {
  line("memory " + std::to_string(m.rank) + " " + std::to_string(m.paramBytes.value_or(0)) + " " +
       std::to_string(m.gradBytes.value_or(0)) + " " + std::to_string(m.optimizerBytes.value_or(0)) + " " +
       std::to_string(m.bufferBytes.value_or(0)) + " " + std::to_string(m.peakRssBytes.value_or(0)) + " " +
       std::to_string(m.paramElements.value_or(0)) + " " + std::to_string(m.stateFloats.value_or(0)));
}

void RecordWriter::event(int rank, double atS, const std::string& kind, const std::string& detail) {
  line("event " + std::to_string(rank) + " " + number(atS) + " " + kind + " " + oneLine(detail));
}

void RecordWriter::host(const RankHostRecord& h) {
  line("host " + std::to_string(h.rank) + " " + std::to_string(h.localRank) + " " + oneWord(h.address) + " " +
       oneWord(h.host) + " " + oneWord(h.interface));
}

void RecordWriter::error(int rank, bool peerFailure, const std::string& message) {
  line("error " + std::to_string(rank) + (peerFailure ? " peer " : " own ") + oneLine(message));
}

void RecordWriter::collective(const CollectiveRecord& c) {
  line("collective " + std::to_string(c.rank) + " " + c.op + " " + c.dtype + " " + std::to_string(c.bytes) +
       " " + std::to_string(c.iterations) + " " + number(c.timeS) + " " + number(c.p50S) + " " +
       number(c.p95S) + " " + std::to_string(c.wrong));
}

void RecordWriter::reference(const BandwidthReferenceRecord& b) {
  line("reference " + b.name + " " + std::to_string(b.bytes) + " " + number(b.gbps));
}

void RecordWriter::reset(int generation, uint64_t commitStep, const std::string& message) {
  line("reset " + std::to_string(generation) + " " + std::to_string(commitStep) + " " + oneLine(message));
}

void RecordWriter::grow(uint64_t step) { line("grow " + std::to_string(step)); }

void RecordWriter::done(int rank) { line("done " + std::to_string(rank)); }

std::optional<Record> parseRecord(const std::string& text) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  std::string kind;
  in >> kind;
  Record r{};
  try {
    if (kind == "progress") {
      r.kind = Record::Kind::kProgress;
      in >> r.epoch >> r.step >> r.steps;
      r.samplesPerSecond = optionalNumber(in).value_or(0);
    } else if (kind == "epoch") {
      r.kind = Record::Kind::kEpoch;
      EpochRecord& e = r.epochRecord;
      in >> e.epoch >> e.steps >> e.samples;
      e.seconds = optionalNumber(in).value_or(0);
      e.dataS = optionalNumber(in);
      e.forwardS = optionalNumber(in);
      e.backwardS = optionalNumber(in);
      e.commExposedS = optionalNumber(in);
      e.optimizerS = optionalNumber(in);
      e.trainLoss = optionalNumber(in);
      e.trainAccuracy = optionalNumber(in);
      e.testLoss = optionalNumber(in);
      e.testAccuracy = optionalNumber(in);
      int64_t bytes = 0, collectives = 0;
      in >> bytes >> collectives;
      e.bytesSent = bytes;
      e.collectives = collectives;
      e.stepBusBytes = optionalNumber(in);
      e.commTotalS = optionalNumber(in);
    } else if (kind == "step") {
      r.kind = Record::Kind::kStep;
      StepRecord& s = r.stepRecord;
      in >> s.rank >> s.step >> s.epoch;
      s.seconds = optionalNumber(in).value_or(0);
      s.dataS = optionalNumber(in);
      s.forwardS = optionalNumber(in);
      s.backwardS = optionalNumber(in);
      s.commExposedS = optionalNumber(in);
      s.optimizerS = optionalNumber(in);
      s.loss = optionalNumber(in);
      int64_t bytes = 0, collectives = 0, samples = 0;
      in >> bytes >> collectives >> samples;
      s.bytesSent = bytes;
      s.collectives = collectives;
      s.samples = samples;
      s.commTotalS = optionalNumber(in);
      s.busBytes = optionalNumber(in);
      s.forwardWaitS = optionalNumber(in);
      s.backwardWaitS = optionalNumber(in);
      s.optimizerWaitS = optionalNumber(in);
      if (!(in >> std::ws).eof()) s.endedAtS = optionalNumber(in);  // an older worker's line ends before it
    } else if (kind == "metric") {
      r.kind = Record::Kind::kMetric;
      MetricRecord& m = r.metricRecord;
      in >> m.rank >> m.step >> m.plugin >> m.name;
      m.value = optionalNumber(in).value_or(NAN);
    } else if (kind == "memory") {
      r.kind = Record::Kind::kMemory;
      int64_t p = 0, g = 0, o = 0, b = 0, rss = 0;
      in >> r.memoryRecord.rank >> p >> g >> o >> b >> rss;
      r.memoryRecord.paramBytes = p;
      r.memoryRecord.gradBytes = g;
      r.memoryRecord.optimizerBytes = o;
      r.memoryRecord.bufferBytes = b;
      r.memoryRecord.peakRssBytes = rss;
      int64_t elements = 0, stateFloats = 0;
      if (in >> elements >> stateFloats) {
        r.memoryRecord.paramElements = elements;
        r.memoryRecord.stateFloats = stateFloats;
      }
    } else if (kind == "host") {
      r.kind = Record::Kind::kHost;
      in >> r.hostRecord.rank >> r.hostRecord.localRank >> r.hostRecord.address >> r.hostRecord.host >>
          r.hostRecord.interface;
      if (r.hostRecord.interface == "-") r.hostRecord.interface.clear();
      r.rank = r.hostRecord.rank;
    } else if (kind == "event") {
      r.kind = Record::Kind::kEvent;
      int rank = 0;
      in >> rank;
      r.eventRecord.rank = rank;
      r.eventRecord.atS = optionalNumber(in).value_or(0);
      in >> r.eventRecord.kind;
      std::getline(in >> std::ws, r.eventRecord.detail);
    } else if (kind == "error") {
      r.kind = Record::Kind::kError;
      std::string origin;
      in >> r.rank >> origin;
      r.peerFailure = origin == "peer";
      std::getline(in >> std::ws, r.message);
    } else if (kind == "collective") {
      r.kind = Record::Kind::kCollective;
      CollectiveRecord& c = r.collectiveRecord;
      in >> c.rank >> c.op >> c.dtype >> c.bytes >> c.iterations;
      c.timeS = optionalNumber(in).value_or(0);
      c.p50S = optionalNumber(in);
      c.p95S = optionalNumber(in);
      in >> c.wrong;
    } else if (kind == "reference") {
      r.kind = Record::Kind::kReference;
      in >> r.referenceRecord.name >> r.referenceRecord.bytes;
      r.referenceRecord.gbps = optionalNumber(in).value_or(0);
    } else if (kind == "reset") {
      r.kind = Record::Kind::kReset;
      in >> r.generation >> r.step;
      std::getline(in >> std::ws, r.message);
    } else if (kind == "grow") {
      r.kind = Record::Kind::kGrow;
      in >> r.step;
    } else if (kind == "done") {
      r.kind = Record::Kind::kDone;
      in >> r.rank;
    } else {
      return std::nullopt;
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const bool textLast =
      r.kind == Record::Kind::kError || r.kind == Record::Kind::kEvent || r.kind == Record::Kind::kReset;
  if (in.fail() && !textLast) return std::nullopt;
  return r;
}

}  // namespace dtb::core
