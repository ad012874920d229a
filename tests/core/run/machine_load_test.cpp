#include "run/machine_load.h"

#include <gtest/gtest.h>

namespace dtb::core {
namespace {

CpuSample sample(double seconds, double busy, double all, double steal, double own) {
  CpuSample s;
  s.at =
      std::chrono::steady_clock::time_point(std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
  s.machineBusyS = busy;
  s.machineAllS = all;
  s.stealS = steal;
  s.ownS = own;
  s.loadAverage = 1.5;
  return s;
}

TEST(MachineLoad, OthersAreTheMachinesBusyTimeLessTheRunsOwn) {
  // 10 s on 2 cores: the machine was busy 18 s, the run used 12 of them.
  const MachineLoadRecord load = loadBetween(sample(0, 100, 1000, 0, 1), sample(10, 118, 1020, 0, 13), 2);
  EXPECT_EQ(load.cpus, 2);
  EXPECT_DOUBLE_EQ(*load.competingCpus, 0.6);
  EXPECT_DOUBLE_EQ(*load.stealShare, 0.0);
  EXPECT_DOUBLE_EQ(*load.loadAverage, 1.5);
  EXPECT_TRUE(load.loaded);
}

TEST(MachineLoad, AQuietMachineIsNotFlaggedButStealIs) {
  const MachineLoadRecord quiet = loadBetween(sample(0, 100, 1000, 0, 0), sample(10, 112, 1020, 0, 11.5), 2);
  EXPECT_NEAR(*quiet.competingCpus, 0.05, 1e-12);
  EXPECT_FALSE(quiet.loaded);
  // The hypervisor took 2 of 20 core-seconds.
  const MachineLoadRecord stolen = loadBetween(sample(0, 100, 1000, 5, 0), sample(10, 112, 1020, 7, 12), 2);
  EXPECT_DOUBLE_EQ(*stolen.stealShare, 0.1);
  EXPECT_TRUE(stolen.loaded);
}

TEST(MachineLoad, UnreadableProcLeavesTheFiguresUnknown) {
  CpuSample a, b;
  b.at = a.at + std::chrono::seconds(1);
  const MachineLoadRecord load = loadBetween(a, b, 2);
  EXPECT_FALSE(load.competingCpus);
  EXPECT_FALSE(load.stealShare);
  EXPECT_FALSE(load.loaded);
}

TEST(MachineLoad, ReadsThisMachine) {
  const CpuSample s = CpuSample::now();
  ASSERT_TRUE(s.machineBusyS) << "/proc/stat unreadable";
  EXPECT_GT(*s.machineAllS, *s.machineBusyS);
  EXPECT_TRUE(s.loadAverage);
}

}  // namespace
}  // namespace dtb::core
