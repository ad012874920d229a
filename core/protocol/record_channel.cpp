#include "protocol/record_channel.h"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <sstream>

#include "protocol/record_fields.h"

namespace dtb::core {
namespace {

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
       " " + number(e.seconds) + " " + number(e.trainLoss) + " " + number(e.trainAccuracy) + " " +
       number(e.testLoss) + " " + number(e.testAccuracy) + " " + std::to_string(e.bytesSent.value_or(0)) +
       " " + std::to_string(e.collectives.value_or(0)) + " " + number(e.stepBusBytes) +
       phaseFields(e.phases, PhaseScope::kPerEpoch));
}

void RecordWriter::step(const StepRecord& s) {
  line("step " + std::to_string(s.rank) + " " + std::to_string(s.step) + " " + std::to_string(s.epoch) + " " +
           number(s.seconds) + " " + number(s.loss) + " " + std::to_string(s.bytesSent.value_or(0)) + " " +
           std::to_string(s.collectives.value_or(0)) + " " + std::to_string(s.samples.value_or(0)) + " " +
           number(s.busBytes) + " " + number(s.endedAtS) + phaseFields(s.phases, PhaseScope::kPerStep),
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
       std::to_string(m.paramElements.value_or(0)) + " " + std::to_string(m.stateFloats.value_or(0)) + " " +
       std::to_string(m.gpuUsedBytes.value_or(-1)) + " " +
       std::to_string(m.gpuPeakAllocatedBytes.value_or(-1)));
}

void RecordWriter::event(int rank, double atS, const std::string& kind, const std::string& detail) {
  line("event " + std::to_string(rank) + " " + number(atS) + " " + kind + " " + oneLine(detail));
}

void RecordWriter::gradient(const GradientReadyRecord& g) {
  line("gradient " + std::to_string(g.rank) + " " + std::to_string(g.param) + " " + std::to_string(g.layer) +
           " " + std::to_string(g.bytes) + " " + number(g.readyS) + " " + number(g.backwardS) + " " +
           std::to_string(g.steps) + " " + oneWord(g.name),
       false);
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

}  // namespace dtb::core
