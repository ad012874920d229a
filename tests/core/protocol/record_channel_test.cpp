#include "protocol/record_channel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace dtb::core {
namespace {

// What a worker writes, as the coordinator reads it back.
std::vector<Record> roundTrip(const std::function<void(RecordWriter&)>& write) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  {
    RecordWriter writer(fds[1]);
    write(writer);
  }
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;)
    text.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  std::vector<Record> out;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    if (auto r = parseRecord(text.substr(start, end - start))) out.push_back(*r);
  }
  return out;
}

TEST(RecordChannel, StepsCarryEveryPhaseAndWait) {
  StepRecord s;
  s.rank = 1;
  s.step = 41;
  s.epoch = 3;
  s.seconds = 0.25;
  // Every phase of train/step_phases.h, each its own value; one left unknown.
  for (size_t i = 0; i < kPhaseCount; ++i) s.phases.values[i] = 0.001 * static_cast<double>(i + 1);
  s.phases[Phase::kBackwardWait].reset();
  s.loss = 1.5;
  s.bytesSent = 4096;
  s.collectives = 3;
  s.samples = 32;
  s.busBytes = 2048;
  s.endedAtS = 12.5;
  const std::vector<Record> records = roundTrip([&](RecordWriter& w) { w.step(s); });
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].kind, Record::Kind::kStep);
  const StepRecord& r = records[0].stepRecord;
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.step, 41);
  EXPECT_EQ(r.epoch, 3);
  EXPECT_DOUBLE_EQ(r.seconds, 0.25);
  for (const PhaseInfo& p : kPhases) {
    ASSERT_EQ(r.phases[p.id].has_value(), s.phases[p.id].has_value()) << p.column;
    if (s.phases[p.id]) {
      EXPECT_DOUBLE_EQ(*r.phases[p.id], *s.phases[p.id]) << p.column;
    }
  }
  EXPECT_DOUBLE_EQ(*r.loss, 1.5);
  EXPECT_EQ(*r.bytesSent, 4096);
  EXPECT_EQ(*r.samples, 32);
  EXPECT_DOUBLE_EQ(*r.busBytes, 2048);
  EXPECT_DOUBLE_EQ(*r.endedAtS, 12.5);
}

TEST(RecordChannel, EpochsCarryTheirPhases) {
  EpochRecord e;
  e.epoch = 2;
  e.steps = 10;
  e.samples = 640;
  e.seconds = 3.5;
  for (const PhaseInfo& p : kPhases) e.phases[p.id] = 0.5;
  e.phases[Phase::kCommTotal].reset();  // a backend that does not count it
  e.trainLoss = 0.7;
  e.testAccuracy = 0.9;
  e.stepBusBytes = 1e6;
  const std::vector<Record> records = roundTrip([&](RecordWriter& w) { w.epoch(e); });
  ASSERT_EQ(records.size(), 1u);
  const EpochRecord& r = records[0].epochRecord;
  EXPECT_EQ(r.steps, 10);
  EXPECT_DOUBLE_EQ(*r.trainLoss, 0.7);
  EXPECT_FALSE(r.testLoss);
  EXPECT_DOUBLE_EQ(*r.stepBusBytes, 1e6);
  for (const PhaseInfo& p : kPhases) {
    // The epoch table has only the kPerEpoch phases: the others never travel.
    const bool expected = p.scope == PhaseScope::kPerEpoch && p.id != Phase::kCommTotal;
    EXPECT_EQ(r.phases[p.id].has_value(), expected) << p.column;
  }
}

TEST(RecordChannel, APhaseThisReaderDoesNotKnowIsSkippedAndACutOrBrokenLineIsNoRecord) {
  // Every phase of this build, backward's unknown, forward's 0.1.
  std::string fields;
  for (const PhaseInfo& p : kPhases) {
    fields += " " + std::string(p.column) + "=" +
              (p.id == Phase::kBackward  ? "nan"
               : p.id == Phase::kForward ? "0.1"
                                         : "0");
  }
  const std::string head = "step 0 5 1 0.2 1.25 10 1 8 nan 3.5";
  // A newer worker's line, with a phase added after this build.
  auto step = parseRecord(head + fields + " unscale_s=0.01");
  ASSERT_TRUE(step);
  EXPECT_DOUBLE_EQ(*step->stepRecord.phases[Phase::kForward], 0.1);
  EXPECT_FALSE(step->stepRecord.phases[Phase::kBackward]);
  // Cut short: a phase missing.
  EXPECT_FALSE(parseRecord(head + fields.substr(0, fields.rfind(' '))));
  EXPECT_FALSE(parseRecord(head));
  // Broken fields.
  EXPECT_FALSE(parseRecord(head + fields + " forward_s=0.1x"));
  EXPECT_FALSE(parseRecord(head + fields + " forward_s"));
}

TEST(RecordChannel, MetricNamesStayOneWord) {
  const std::vector<Record> records = roundTrip([](RecordWriter& w) {
    w.metric({0, 2, 7, "strategy", "fused tensors", 12.5});
  });
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].kind, Record::Kind::kMetric);
  const MetricRecord& m = records[0].metricRecord;
  EXPECT_EQ(m.rank, 2);
  EXPECT_EQ(m.step, 7);
  EXPECT_EQ(m.plugin, "strategy");
  EXPECT_EQ(m.name, "fused_tensors");
  EXPECT_DOUBLE_EQ(m.value, 12.5);
}

TEST(RecordChannel, GradientTimesArriveWhole) {
  const std::vector<Record> records = roundTrip([](RecordWriter& w) {
    w.gradient({0, 1, 4, 2, "layers.2.weight", 10240, 4.5e-5, 2.3e-3, 19});
    w.gradient({0, 1, 5, 2, "", 40, 4.4e-5, 2.3e-3, 19});  // a model that names none
    w.flush();
  });
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(records[0].kind, Record::Kind::kGradient);
  const GradientReadyRecord& g = records[0].gradientRecord;
  EXPECT_EQ(g.rank, 1);
  EXPECT_EQ(g.param, 4);
  EXPECT_EQ(g.layer, 2);
  EXPECT_EQ(g.name, "layers.2.weight");
  EXPECT_EQ(g.bytes, 10240);
  EXPECT_DOUBLE_EQ(g.readyS, 4.5e-5);
  EXPECT_DOUBLE_EQ(g.backwardS, 2.3e-3);
  EXPECT_EQ(g.steps, 19);
  EXPECT_EQ(records[1].gradientRecord.name, "");
  EXPECT_FALSE(parseRecord("gradient 1 4 2 10240"));  // cut short
}

// A rank's memory: a GPU rank's GPU figures come through; a CPU rank's, and
// an older worker's line without them, read as none.
TEST(RecordChannel, MemoryCarriesTheGpuFiguresOnlyWhereThereAreSome) {
  MemoryRecord gpu;
  gpu.rank = 1;
  gpu.paramBytes = 400;
  gpu.peakRssBytes = 1 << 20;
  gpu.paramElements = 100;
  gpu.stateFloats = 1;
  gpu.gpuUsedBytes = int64_t{3} << 30;
  gpu.gpuPeakAllocatedBytes = int64_t{5} << 28;
  MemoryRecord cpu = gpu;
  cpu.gpuUsedBytes.reset();
  cpu.gpuPeakAllocatedBytes.reset();
  const std::vector<Record> records = roundTrip([&](RecordWriter& w) {
    w.memory(gpu);
    w.memory(cpu);
    w.flush();
  });
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(records[0].kind, Record::Kind::kMemory);
  EXPECT_EQ(records[0].memoryRecord.gpuUsedBytes, int64_t{3} << 30);
  EXPECT_EQ(records[0].memoryRecord.gpuPeakAllocatedBytes, int64_t{5} << 28);
  EXPECT_EQ(records[0].memoryRecord.paramBytes, 400);
  EXPECT_EQ(records[0].memoryRecord.stateFloats, 1);
  EXPECT_FALSE(records[1].memoryRecord.gpuUsedBytes);
  EXPECT_FALSE(records[1].memoryRecord.gpuPeakAllocatedBytes);
  const std::optional<Record> older = parseRecord("memory 0 400 400 0 0 1048576 100 1");
  ASSERT_TRUE(older);
  EXPECT_FALSE(older->memoryRecord.gpuUsedBytes);
  EXPECT_EQ(older->memoryRecord.stateFloats, 1);
  // A worker of 2026-11 had the GPU's use but not the peak allocated.
  const std::optional<Record> used = parseRecord("memory 0 400 400 0 0 1048576 100 1 2048");
  ASSERT_TRUE(used);
  EXPECT_EQ(used->memoryRecord.gpuUsedBytes, 2048);
  EXPECT_FALSE(used->memoryRecord.gpuPeakAllocatedBytes);
}

}  // namespace
}  // namespace dtb::core
