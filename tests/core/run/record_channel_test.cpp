#include "run/record_channel.h"

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
  s.dataS = 0.01;
  s.forwardS = 0.05;
  s.backwardS = 0.1;
  s.commExposedS = 0.06;
  s.optimizerS = 0.02;
  s.loss = 1.5;
  s.bytesSent = 4096;
  s.collectives = 3;
  s.samples = 32;
  s.commTotalS = 0.08;
  s.busBytes = 2048;
  s.forwardWaitS = 0.004;
  s.optimizerWaitS = 0.002;  // backward's left unknown
  const std::vector<Record> records = roundTrip([&](RecordWriter& w) { w.step(s); });
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].kind, Record::Kind::kStep);
  const StepRecord& r = records[0].stepRecord;
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.step, 41);
  EXPECT_EQ(r.epoch, 3);
  EXPECT_DOUBLE_EQ(r.seconds, 0.25);
  EXPECT_DOUBLE_EQ(*r.commExposedS, 0.06);
  EXPECT_DOUBLE_EQ(*r.loss, 1.5);
  EXPECT_EQ(*r.bytesSent, 4096);
  EXPECT_EQ(*r.samples, 32);
  EXPECT_DOUBLE_EQ(*r.commTotalS, 0.08);
  EXPECT_DOUBLE_EQ(*r.busBytes, 2048);
  EXPECT_DOUBLE_EQ(*r.forwardWaitS, 0.004);
  EXPECT_FALSE(r.backwardWaitS);
  EXPECT_DOUBLE_EQ(*r.optimizerWaitS, 0.002);
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

}  // namespace
}  // namespace dtb::core
