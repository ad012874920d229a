// dtbench-switch's logic without TAP devices: a port's schedule (delay,
// then rate, in order, a bounded queue), the learning table, the control
// protocol.
#include <gtest/gtest.h>

#include <vector>

#include "control_command.h"
#include "frame_switch.h"
#include "mac_table.h"
#include "shaped_port.h"

namespace dtb::netswitch {
namespace {

Frame bytes(size_t n) { return Frame(n, 0); }

std::vector<int64_t> dueTimes(ShapedPort& port) {
  std::vector<int64_t> due;
  while (port.nextDueNs() != std::numeric_limits<int64_t>::max()) {
    const int64_t at = port.nextDueNs();
    port.deliverDue(at, 0, [&](const Frame&) { due.push_back(at); });
  }
  return due;
}

TEST(ShapedPort, AFrameLeavesAfterTheDelayAndItsWireTime) {
  ShapedPort port(1 << 20);
  port.setShape({"test", 1'000'000, 1e9});  // 1 ms, 1 GB/s: a byte a nanosecond
  ASSERT_TRUE(port.enqueue(bytes(1000 - kWireOverheadBytes), 5'000));
  EXPECT_EQ(port.nextDueNs(), 5'000 + 1'000'000 + 1'000);
}

TEST(ShapedPort, FramesQueueBehindEachOtherAtTheRate) {
  ShapedPort port(1 << 20);
  port.setShape({"test", 0, 1e9});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(port.enqueue(bytes(1000 - kWireOverheadBytes), 0));
  EXPECT_EQ(dueTimes(port), (std::vector<int64_t>{1'000, 2'000, 3'000}));
}

TEST(ShapedPort, ADelayAloneKeepsEachFramesOwnTime) {
  ShapedPort port(1 << 20);
  port.setShape({"test", 500, 0});
  ASSERT_TRUE(port.enqueue(bytes(100), 0));
  ASSERT_TRUE(port.enqueue(bytes(100), 200));
  EXPECT_EQ(dueTimes(port), (std::vector<int64_t>{500, 700}));
}

TEST(ShapedPort, AShorterDelayNeverOvertakesFramesAlreadyQueued) {
  ShapedPort port(1 << 20);
  port.setShape({"slow", 10'000, 0});
  ASSERT_TRUE(port.enqueue(bytes(100), 0));
  port.setShape({"fast", 0, 0});
  ASSERT_TRUE(port.enqueue(bytes(100), 1));
  EXPECT_EQ(dueTimes(port), (std::vector<int64_t>{10'000, 10'000}));
}

TEST(ShapedPort, AFullQueueDropsAndCountsWhatDoesNotFit) {
  ShapedPort port(250);
  port.setShape({"test", 1'000, 0});
  EXPECT_TRUE(port.enqueue(bytes(200), 0));
  EXPECT_FALSE(port.enqueue(bytes(100), 0));
  EXPECT_EQ(port.queuedBytes(), 200u);
  ShapedPort empty(50);  // a frame larger than the whole queue still passes an empty one
  EXPECT_TRUE(empty.enqueue(bytes(100), 0));
}

TEST(ShapedPort, FramesPastTheirTimeAreCountedLate) {
  ShapedPort port(1 << 20);
  port.setShape({"test", 1'000, 0});
  ASSERT_TRUE(port.enqueue(bytes(100), 0));
  ASSERT_TRUE(port.enqueue(bytes(100), 5'000));
  size_t delivered = 0;
  EXPECT_EQ(port.deliverDue(6'500, 1'000, [&](const Frame&) { ++delivered; }), 1u);  // the first, 5.5 us late
  EXPECT_EQ(delivered, 2u);
  EXPECT_EQ(port.queuedBytes(), 0u);
}

// An Ethernet frame from `source` to `destination` (the last octet of each).
Frame frame(unsigned char destination, unsigned char source) {
  Frame f(64, 0);
  f[5] = destination;
  f[11] = source;
  return f;
}

TEST(MacTable, AnUnknownDestinationFloodsEveryOtherPort) {
  MacTable table(3);
  const Frame f = frame(2, 1);
  EXPECT_EQ(table.route(0, f.data(), f.size()), (std::vector<size_t>{1, 2}));
}

TEST(MacTable, ALearnedDestinationGetsItsPortOnly) {
  MacTable table(3);
  const Frame reply = frame(1, 2);
  table.route(2, reply.data(), reply.size());  // address 2 lives behind port 2
  const Frame f = frame(2, 1);
  EXPECT_EQ(table.route(0, f.data(), f.size()), (std::vector<size_t>{2}));
  const Frame back = frame(1, 9);
  EXPECT_EQ(table.route(1, back.data(), back.size()), (std::vector<size_t>{0}));  // 1 was learned on port 0
}

TEST(MacTable, BroadcastFloodsEvenWhenLearned) {
  MacTable table(3);
  Frame bogus(64, 0xff);  // a frame claiming the broadcast address as its source, on port 2
  table.route(2, bogus.data(), bogus.size());
  Frame f(64, 0xff);
  f[6] = 0;  // a unicast source
  f[11] = 1;
  EXPECT_EQ(table.route(1, f.data(), f.size()), (std::vector<size_t>{0, 2}));
}

TEST(MacTable, ARuntFrameGoesNowhere) {
  MacTable table(2);
  const Frame f(8, 0);
  EXPECT_TRUE(table.route(0, f.data(), f.size()).empty());
}

TEST(ControlCommand, ShapeSetsTheLinkAndResetsTheCounters) {
  LinkShape shape;
  SwitchCounters counters{10, 2, 1};
  EXPECT_EQ(runControlCommand("shape 25gbe 1500000 31000000", shape, counters), "ok");
  EXPECT_EQ(shape.name, "25gbe");
  EXPECT_EQ(shape.latencyNs, 1'500'000);
  EXPECT_EQ(shape.bytesPerSecond, 31e6);
  EXPECT_EQ(counters.frames, 0u);
  counters.frames = 7;
  EXPECT_EQ(runControlCommand("show", shape, counters), "25gbe 1500000 31000000 frames=7 late=0 dropped=0");
}

TEST(ControlCommand, ABadCommandSaysWhatIsExpectedAndChangesNothing) {
  LinkShape shape;
  SwitchCounters counters;
  EXPECT_EQ(runControlCommand("shape fast -1 10", shape, counters).rfind("error: expected 'shape NAME", 0),
            0u);
  EXPECT_EQ(runControlCommand("shape fast 1 2 3", shape, counters).rfind("error: ", 0), 0u);
  EXPECT_EQ(runControlCommand("reboot", shape, counters).rfind("error: unknown command 'reboot'", 0), 0u);
  EXPECT_EQ(shape.name, "none");
}

// What a switch sent, by port, with when.
struct Sent {
  size_t port;
  int64_t atNs;
};

TEST(FrameSwitch, UnshapedFramesGoOutAtOnceToTheirDestinationsPort) {
  std::vector<Sent> sent;
  int64_t now = 0;
  FrameSwitch frames(3, 1 << 20, [&](size_t port, const Frame&) { sent.push_back({port, now}); });
  const Frame fromTwo = frame(1, 2), toTwo = frame(2, 1);
  frames.receive(2, fromTwo.data(), fromTwo.size(), now);  // unknown destination: flooded to 0 and 1
  ASSERT_EQ(sent.size(), 2u);
  sent.clear();
  frames.receive(0, toTwo.data(), toTwo.size(), now);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].port, 2u);
  EXPECT_EQ(frames.sendDue(now), std::numeric_limits<int64_t>::max()) << "nothing queued";
}

TEST(FrameSwitch, AShapedNetworkHoldsEachFrameUntilItsTime) {
  std::vector<Sent> sent;
  int64_t now = 0;
  FrameSwitch frames(2, 1 << 20, [&](size_t port, const Frame&) { sent.push_back({port, now}); });
  EXPECT_EQ(frames.control("shape test 1000000 1000000000"), "ok");  // 1 ms, a byte a nanosecond
  const Frame f = frame(1, 0);
  frames.receive(0, f.data(), f.size(), now);
  EXPECT_TRUE(sent.empty());
  const int64_t due = 1'000'000 + static_cast<int64_t>(f.size() + kWireOverheadBytes);
  EXPECT_EQ(frames.sendDue(now), due);
  now = due - 1;
  frames.sendDue(now);
  EXPECT_TRUE(sent.empty()) << "sent before its time";
  now = due;
  EXPECT_EQ(frames.sendDue(now), std::numeric_limits<int64_t>::max());
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].port, 1u);
  EXPECT_EQ(frames.control("show"), "test 1000000 1000000000 frames=1 late=0 dropped=0");
}

TEST(FrameSwitch, AFullPortDropsAndSaysSo) {
  FrameSwitch frames(2, 100, [](size_t, const Frame&) {});
  frames.control("shape test 1000000 0");
  const Frame f = frame(1, 0);  // 64 bytes: one fits in 100, the next does not
  frames.receive(0, f.data(), f.size(), 0);
  frames.receive(0, f.data(), f.size(), 0);
  EXPECT_EQ(frames.control("show"), "test 1000000 0 frames=2 late=0 dropped=1");
}

}  // namespace
}  // namespace dtb::netswitch
