#include "run/machine_load.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

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
  s.cores = 2;
  return s;
}

TEST(MachineLoad, OthersAreTheMachinesBusyTimeLessTheRunsOwn) {
  // 10 s on 2 cores: the machine was busy 18 s, the run used 12 of them.
  const MachineLoadRecord load = loadBetween(sample(0, 100, 1000, 0, 1), sample(10, 118, 1020, 0, 13));
  EXPECT_EQ(load.cpus, 2);
  EXPECT_DOUBLE_EQ(*load.competingCpus, 0.6);
  EXPECT_DOUBLE_EQ(*load.stealShare, 0.0);
  EXPECT_DOUBLE_EQ(*load.loadAverage, 1.5);
  EXPECT_TRUE(load.loaded);
}

TEST(MachineLoad, AQuietMachineIsNotFlaggedButStealIs) {
  const MachineLoadRecord quiet = loadBetween(sample(0, 100, 1000, 0, 0), sample(10, 112, 1020, 0, 11.5));
  EXPECT_NEAR(*quiet.competingCpus, 0.05, 1e-12);
  EXPECT_FALSE(quiet.loaded);
  // The hypervisor took 2 of 20 core-seconds.
  const MachineLoadRecord stolen = loadBetween(sample(0, 100, 1000, 5, 0), sample(10, 112, 1020, 7, 12));
  EXPECT_DOUBLE_EQ(*stolen.stealShare, 0.1);
  EXPECT_TRUE(stolen.loaded);
}

TEST(MachineLoad, NamesTheBusiestOtherProcesses) {
  CpuSample start = sample(0, 100, 1000, 0, 0), end = sample(10, 118, 1020, 0, 2);
  start.processes = {{1, {"yes", 1.0, 10}},
                     {2, {"cc1plus", 0.0, 20}},
                     {4, {"bash", 5.0, 30}},
                     {5, {"kworker/0:1-events", 3.0, 40}}};
  // 4 is a new process under an old pid (another start time): it counts from
  // zero; 5 renamed itself (a kernel worker does) and is still the same.
  end.processes = {{1, {"yes", 9.0, 10}},
                   {2, {"cc1plus", 0.3, 20}},
                   {3, {"ninja", 2.0, 50}},
                   {4, {"sleep", 0.75, 60}},
                   {5, {"kworker/0:1-mm", 3.1, 40}}};
  // 0.5 s (5 % of a core over 10 s) or more: cc1plus's 0.3 s is left out.
  EXPECT_EQ(loadBetween(start, end).competingProcesses, "yes 8.00 s, ninja 2.00 s, sleep 0.75 s");
}

// A SCHED_IDLE thread (the network switch's idle spinners) takes only CPUs
// nothing else wanted: neither competition nor named among the busiest.
TEST(MachineLoad, TimeAtIdlePriorityIsNoCompetition) {
  CpuSample start = sample(0, 100, 1000, 0, 0), end = sample(10, 130, 1020, 0, 10);
  start.processes = {{7, {"dtbench-switch", 1.0, 10, 0.9}}, {8, {"yes", 0.0, 20, 0.0}}};
  end.processes = {{7, {"dtbench-switch", 19.2, 10, 18.9}}, {8, {"yes", 2.0, 20, 0.0}}};
  // 30 busy core-seconds: 10 the run's, 18 the spinners', 2 yes's.
  const MachineLoadRecord load = loadBetween(start, end);
  EXPECT_NEAR(*load.competingCpus, 0.2, 1e-9);
  EXPECT_EQ(load.competingProcesses, "yes 2.00 s");
}

// Read off a real thread: its policy is found in /proc and its time left out.
TEST(MachineLoad, ReadsTheIdlePriorityThreadsOfAProcess) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const sched_param none{0};
    if (sched_setscheduler(0, SCHED_IDLE, &none) != 0) _exit(3);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < until) {
    }
    _exit(0);
  }
  // Until it has spun a measurable while: at idle priority it runs only when
  // a CPU is free, which a busy test machine may not give it for seconds.
  CpuSample s;
  for (int i = 0; i < 1000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    s = CpuSample::now();
    if (s.processes.count(child) && s.processes.at(child).cpuS >= 0.05) break;
  }
  int status = 0;
  kill(child, SIGKILL);
  waitpid(child, &status, 0);
  ASSERT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 3) << "SCHED_IDLE refused";
  ASSERT_TRUE(s.processes.count(child));
  const CpuSample::Process& p = s.processes.at(child);
  if (p.cpuS < 0.05) GTEST_SKIP() << "no CPU was idle for 10 s: nothing at idle priority ran";
  EXPECT_NEAR(p.idleClassS, p.cpuS, 0.02) << "its one thread runs at SCHED_IDLE";
}

TEST(MachineLoad, UnreadableProcLeavesTheFiguresUnknown) {
  CpuSample a, b;
  b.at = a.at + std::chrono::seconds(1);
  const MachineLoadRecord load = loadBetween(a, b);
  EXPECT_FALSE(load.competingCpus);
  EXPECT_FALSE(load.stealShare);
  EXPECT_FALSE(load.loaded);
}

// srun's ranks are slurmstepd's children, not ours: their CPU time cannot be
// told from others', so the competition is unknown rather than overstated.
TEST(MachineLoad, WithoutOurOwnRanksOthersAreUnknown) {
  const MachineLoadRecord load = LoadSampler().finish(false);
  EXPECT_FALSE(load.competingCpus);
  EXPECT_TRUE(load.competingProcesses.empty());
  EXPECT_TRUE(load.loadAverage);
  EXPECT_GE(load.cpus, 1);
}

TEST(MachineLoad, ReadsThisMachine) {
  const CpuSample s = CpuSample::now();
  ASSERT_TRUE(s.machineBusyS) << "/proc/stat unreadable";
  EXPECT_GE(s.cores, 1);
  EXPECT_GT(*s.machineAllS, *s.machineBusyS);
  EXPECT_TRUE(s.loadAverage);
  EXPECT_FALSE(s.processes.empty());  // at least our parent
  EXPECT_EQ(s.processes.count(static_cast<int>(getpid())), 0u) << "this process is not another";
}

}  // namespace
}  // namespace dtb::core
