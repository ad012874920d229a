// The pieces of the job launcher that do not need a cluster: the mpirun and
// srun command lines, reading their tagged output, their reports of a dead
// rank, and a worker's rank from each launcher's environment. (mpirun itself
// runs end to end in run.end_to_end; srun cannot run here, no Slurm.)
#include "launch/job_launcher.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "launch/rank_environment.h"

namespace dtb::core {
namespace {

LaunchOptions options(const std::string& launcher) {
  LaunchOptions o;
  o.executable = "/opt/dtbench/bin/dtbench";
  o.specFile = "/shared/run-1/spec.toml";
  o.world = 4;
  o.threadsPerWorker = 2;
  o.launcher = launcher;
  return o;
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

TEST(JobCommand, MpirunAllowsRootAndOversubscriptionAndPassesTheHostfile) {
  LaunchOptions o = options("mpirun");
  o.hostfile = "/shared/hosts";
  o.launcherArgs = {"--mca", "btl", "tcp,self"};
  EXPECT_EQ(
      joined(jobCommand(o, true)),
      "mpirun -np 4 --tag-output --oversubscribe --bind-to none -x OMP_NUM_THREADS=2 --allow-run-as-root "
      "--hostfile /shared/hosts --mca btl tcp,self /opt/dtbench/bin/dtbench worker --spec "
      "/shared/run-1/spec.toml --record-fd 1");
  EXPECT_EQ(joined(jobCommand(options("mpirun"), false)).find("--allow-run-as-root"), std::string::npos);
}

// One host: shared memory between the ranks (the TCP and libfabric
// transports listen on the machine's interfaces), the out-of-band channel
// over loopback; a user who names hosts, transports or interfaces decides.
// Open MPI's scratch on one host goes where the run's is reaped: its session
// directory under the run directory, its shared-memory segments in the
// directory the job launcher made; across hosts, and when the user names
// them, Open MPI's own places.
TEST(JobCommand, MpirunOnOneHostKeepsItsScratchWhereTheRunsIsReaped) {
  LaunchOptions o = options("mpirun");
  o.sharedMemoryDir = "/dev/shm/dtbench-mpi-abc123";
  const std::string command = joined(jobCommand(o, false));
  EXPECT_NE(command.find("--mca orte_tmpdir_base /shared/run-1 "), std::string::npos) << command;
  EXPECT_NE(command.find("--mca btl_vader_backing_directory /dev/shm/dtbench-mpi-abc123 "), std::string::npos)
      << command;
  EXPECT_EQ(joined(jobCommand(options("mpirun"), false)).find("backing_directory"), std::string::npos)
      << "no directory made, none named";
  LaunchOptions hosts = o;
  hosts.hostfile = "/shared/hosts";
  EXPECT_EQ(joined(jobCommand(hosts, false)).find("tmpdir_base"), std::string::npos);
  EXPECT_EQ(joined(jobCommand(hosts, false)).find("backing_directory"), std::string::npos);
  LaunchOptions own = o;
  own.launcherArgs = {"--mca", "orte_tmpdir_base", "/scratch/me"};
  EXPECT_EQ(joined(jobCommand(own, false)).find("/shared/run-1 "), std::string::npos);
}

TEST(JobCommand, MpirunOnOneHostKeepsOffTheNetwork) {
  const std::string local = "--mca pml ob1 --mca btl self,vader --mca oob_tcp_if_include lo";
  EXPECT_NE(joined(jobCommand(options("mpirun"), false)).find(local), std::string::npos);
  LaunchOptions hosts = options("mpirun");
  hosts.hostfile = "/shared/hosts";
  EXPECT_EQ(joined(jobCommand(hosts, false)).find("self,vader"), std::string::npos);
  EXPECT_EQ(joined(jobCommand(hosts, false)).find("if_include"), std::string::npos);
  LaunchOptions named = options("mpirun");
  named.launcherArgs = {"--host", "a,b"};
  EXPECT_EQ(joined(jobCommand(named, false)).find("if_include"), std::string::npos);
  LaunchOptions own = options("mpirun");
  own.launcherArgs = {"--mca", "oob_tcp_if_include", "eth0"};
  EXPECT_EQ(joined(jobCommand(own, false)).find("if_include lo"), std::string::npos);
}

// interface = "eth0": MPI's TCP transport and out-of-band channel keep to
// it, on one host or several; a user's own if_include still decides.
TEST(JobCommand, MpirunKeepsToTheInterfaceTheCellNames) {
  LaunchOptions o = options("mpirun");
  o.hostfile = "/shared/hosts";
  o.interface = "eth0";
  EXPECT_NE(joined(jobCommand(o, false)).find("--mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0"),
            std::string::npos);
  o.hostfile.clear();
  EXPECT_NE(joined(jobCommand(o, false)).find("oob_tcp_if_include eth0"), std::string::npos);
  EXPECT_EQ(joined(jobCommand(o, false)).find("if_include lo"), std::string::npos);
  o.launcherArgs = {"--mca", "btl_tcp_if_include", "ib0"};
  EXPECT_EQ(joined(jobCommand(o, false)).find("eth0"), std::string::npos);
}

TEST(JobCommand, SrunLabelsOutputAndKillsTheStepWhenARankFails) {
  EXPECT_EQ(joined(jobCommand(options("srun"), true)),
            "srun --ntasks=4 --label --kill-on-bad-exit=1 --export=ALL,OMP_NUM_THREADS=2 "
            "/opt/dtbench/bin/dtbench worker --spec /shared/run-1/spec.toml --record-fd 1");
}

TEST(TaggedOutput, SplitsMpirunAndSrunLines) {
  EXPECT_EQ(splitTaggedLine("[1,3]<stdout>:done 3"), std::make_pair(3, std::string("done 3")));
  EXPECT_EQ(splitTaggedLine(" 12: epoch 1 2"), std::make_pair(12, std::string("epoch 1 2")));
  EXPECT_FALSE(splitTaggedLine("[1,3]<stderr>:a log line"));
  EXPECT_FALSE(splitTaggedLine("untagged"));
}

// mpirun forwards what it read from a rank's pseudo-terminal in chunks, and
// a chunk may end inside a line (seen in the end-to-end test: a few step
// records of most mpirun runs, now and then an epoch, were lost): a rank's
// line is whole only at its newline, across tags and other ranks' chunks.
TEST(TaggedOutput, JoinsARanksLineFromMpirunsChunks) {
  TaggedLines lines(2);
  using Lines = std::vector<std::pair<int, std::string>>;
  EXPECT_EQ(lines.take("[1,0]<stdout>:step 0 90 2 co[1,0]<stdout>:mm_exposed_s=4.3e-07"),
            (Lines{{0, "step 0 90 2 comm_exposed_s=4.3e-07"}}));
  EXPECT_EQ(lines.take("[1,0]<stdout>:epoch 1[1,1]<stdout>:done 1"), (Lines{{1, "done 1"}}))
      << "rank 0's line is not over";
  EXPECT_EQ(lines.take("[1,1]<stdout>:a[1,0]<stdout>: 64"), (Lines{{0, "epoch 1 64"}}));
  EXPECT_EQ(lines.take("[1,1]<stdout>:b"), (Lines{{1, "ab"}}));
  EXPECT_EQ(lines.take("[1,7]<stdout>:not in this world"), Lines{});
  EXPECT_EQ(lines.take("[1,0]<stdout>:"), (Lines{{0, ""}}));
  EXPECT_EQ(lines.take("untagged"), Lines{});
  EXPECT_EQ(lines.take("  1: srun's whole line"), (Lines{{1, "srun's whole line"}}));
  EXPECT_EQ(lines.take("[1,0]<stdout>:a [bracket] and [1,x]<stdout>: are text"),
            (Lines{{0, "a [bracket] and [1,x]<stdout>: are text"}}));
  // A line cut off by the job's end is left for the log, not lost unsaid;
  // one that never ends is dropped past its bound.
  EXPECT_EQ(lines.take("[1,1]<stdout>:cut off[1,0]<stdout>:ok"), (Lines{{0, "ok"}}));
  EXPECT_EQ(lines.unfinished(), (Lines{{1, "cut off"}}));
  const std::string huge(TaggedLines::kMaxLineBytes, 'x');
  lines.take("[1,1]<stdout>:" + huge + "[1,0]<stdout>:");
  EXPECT_EQ(lines.unfinished(), Lines{});
}

TEST(DeathReport, NamesTheRankAndSignalMpirunOrSrunSaw) {
  EXPECT_EQ(deathReport("-----\nmpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 "
                        "(Killed).\n-----\n"),
            "rank 1 was killed by signal 9 (SIGKILL) on vm");
  EXPECT_EQ(deathReport("srun: error: node7: task 3: Killed\n"), "rank 3 on node7: Killed");
  EXPECT_EQ(deathReport("Primary job terminated normally, but 1 process returned a non-zero exit code"), "");
}

class RankEnvironmentTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                             "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"}) {
      unsetenv(name);
    }
  }
};

TEST_F(RankEnvironmentTest, ReadsOpenMpiThenSlurm) {
  if (std::getenv("OMPI_COMM_WORLD_RANK") || std::getenv("PMI_RANK") || std::getenv("RANK"))
    GTEST_SKIP() << "this test process was itself started by a launcher";
  EXPECT_FALSE(rankFromEnvironment());
  setenv("SLURM_PROCID", "5", 1);
  setenv("SLURM_NTASKS", "8", 1);
  setenv("SLURM_LOCALID", "1", 1);
  auto e = rankFromEnvironment();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rank, 5);
  EXPECT_EQ(e->world, 8);
  EXPECT_EQ(e->localRank, 1);
  EXPECT_EQ(e->source, "SLURM_PROCID");
  setenv("OMPI_COMM_WORLD_RANK", "2", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  e = rankFromEnvironment();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rank, 2);
  EXPECT_EQ(e->world, 4);
  EXPECT_EQ(e->localRank, 2);  // no local rank given: the global one
  setenv("OMPI_COMM_WORLD_SIZE", "four", 1);
  EXPECT_EQ(rankFromEnvironment()->source, "SLURM_PROCID");  // unreadable: the next launcher's
}

TEST(BindAddress, LoopbackForLocalRunsTheGivenOrHostNameOtherwise) {
  EXPECT_EQ(bindAddress("local", ""), "127.0.0.1");
  setenv("DTBENCH_BIND_ADDRESS", "10.0.0.7", 1);
  EXPECT_EQ(bindAddress("mpirun", ""), "10.0.0.7");
  unsetenv("DTBENCH_BIND_ADDRESS");
  EXPECT_FALSE(bindAddress("srun", "").empty());
}

// A named interface wins, for every launcher; one the host lacks is an
// error naming it, the host and the interfaces it has.
TEST(BindAddress, TheNamedInterfacesAddressOrAnErrorSayingWhatThereIs) {
  EXPECT_EQ(bindAddress("local", "lo"), "127.0.0.1");
  EXPECT_EQ(bindAddress("mpirun", "lo"), "127.0.0.1");
  try {
    bindAddress("mpirun", "eth99");
    FAIL() << "no such interface, yet an address";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("interface = \"eth99\": no such interface on host "), std::string::npos) << what;
    EXPECT_NE(what.find("(it has "), std::string::npos) << what;
    EXPECT_NE(what.find("lo"), std::string::npos) << what;
  }
}

// What a run that named no interface stores as its ranks' interface.
TEST(InterfaceHolding, TheInterfaceWithThatAddressOrOnItsNetwork) {
  EXPECT_EQ(interfaceHolding("127.0.0.1"), "lo");
  EXPECT_EQ(interfaceHolding("127.0.1.1"), "lo");  // Debian's address for its own host name
  EXPECT_EQ(interfaceHolding("localhost"), "lo");
  EXPECT_EQ(interfaceHolding("203.0.113.77"), "");  // TEST-NET-3, for documentation: on no network here
  EXPECT_EQ(interfaceHolding("no-such-host.invalid"), "");
}

}  // namespace
}  // namespace dtb::core
