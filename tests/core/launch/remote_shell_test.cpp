// The ssh launcher's parts that need no host: the hostfile, where each rank
// goes, the command line the remote shell gets, and what its exit says.
#include "launch/remote_shell.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "launch/local_ranks.h"

namespace dtb::core {
namespace {

// A hostfile of its own for each test (ctest runs them at once).
std::filesystem::path hostfileWith(const std::string& text) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("dtb-hostfile-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  std::ofstream(file) << text;
  return file;
}

TEST(Hostfile, ReadsOpenMpisFormat) {
  const auto hosts =
      readHostfile(hostfileWith("# the cluster\nh0 slots=2 max_slots=4\n\n  h1   # one slot\n"));
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].host, "h0");
  EXPECT_EQ(hosts[0].slots, 2);
  EXPECT_EQ(hosts[1].host, "h1");
  EXPECT_EQ(hosts[1].slots, 1);
}

TEST(Hostfile, SaysWhatIsWrongAndWhere) {
  try {
    readHostfile(hostfileWith("h0 slots=2\nh1 slots=many\n"));
    FAIL() << "slots=many was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("SaysWhatIsWrongAndWhere:2: 'slots=many' is not a number of slots"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(readHostfile(hostfileWith("h0 slots=2x\n")), std::invalid_argument);
  EXPECT_THROW(readHostfile(hostfileWith("h0 slots=0\n")), std::invalid_argument);
  EXPECT_THROW(readHostfile(hostfileWith("# nobody\n")), std::invalid_argument);
  EXPECT_THROW(readHostfile("/nonexistent/hostfile"), std::invalid_argument);
}

TEST(Hostfile, AHostNamedTwiceIsOneHostWithBothLinesSlots) {
  const auto hosts = readHostfile(hostfileWith("h0 slots=1\nh1 slots=2\nh0 slots=2\n"));
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].host, "h0");
  EXPECT_EQ(hosts[0].slots, 3);
  EXPECT_EQ(placeSlot(hosts, 2, 5).localRank, 2);  // h0's third rank, not a second local rank 0
}

TEST(FindOnPath, FindsTheShellOrSaysItIsMissing) {
  EXPECT_EQ(findOnPath("/bin/sh"), "/bin/sh");
  EXPECT_TRUE(findOnPath("sh").ends_with("/sh"));
  try {
    findOnPath("no-such-remote-shell");
    FAIL() << "a missing shell was found";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the remote shell 'no-such-remote-shell' is not on PATH"),
              std::string::npos)
        << e.what();
  }
}

TEST(PlaceSlot, RanksFillEachHostsSlotsInOrderThenGoAround) {
  const std::vector<HostSlots> hosts{{"h0", 2}, {"h1", 2}};
  const SlotPlace expected[] = {{"h0", 0, 2}, {"h0", 1, 2}, {"h1", 0, 2}, {"h1", 1, 2}};
  for (int slot = 0; slot < 4; ++slot) {
    const SlotPlace place = placeSlot(hosts, slot, 4);
    EXPECT_EQ(place.host, expected[slot].host) << slot;
    EXPECT_EQ(place.localRank, expected[slot].localRank) << slot;
    EXPECT_EQ(place.localSize, expected[slot].localSize) << slot;
  }
  // A worker joining an elastic world of 4 goes around to h0, its third rank there.
  const SlotPlace joiner = placeSlot(hosts, 4, 4);
  EXPECT_EQ(joiner.host, "h0");
  EXPECT_EQ(joiner.localRank, 2);
  EXPECT_EQ(placeSlot(hosts, 1, 3).localSize, 2);
  EXPECT_EQ(placeSlot(hosts, 2, 3).localSize, 1);
}

TEST(RemoteCommand, QuotesEveryWordForTheRemoteShell) {
  const auto argv = remoteCommand({"ssh", "-p", "2222"}, "h1", "/data/my runs", {"RANK=1"},
                                  {"/opt/dtbench", "worker", "--spec", "it's.toml"});
  const std::vector<std::string> expected{
      "ssh", "-p", "2222", "h1",
      "cd '/data/my runs' && exec env 'RANK=1' '/opt/dtbench' 'worker' '--spec' 'it'\\''s.toml'"};
  EXPECT_EQ(argv, expected);
}

// A rank that exited with `code` (the wait status: the code in bits 8-15).
Rank exitedWith(int code, const std::string& host) {
  Rank r;
  r.exited = true;
  r.status = code << 8;
  r.host = host;
  return r;
}

TEST(RemoteExit, ARankThatNeverStartedIsNamedByItsHostfileHostWithTheShellsReason) {
  EXPECT_EQ(
      describeExit(2, exitedWith(255, "10.0.0.9"), "", ""),
      "rank 2 on 10.0.0.9 exited with code 255 (the remote shell could not reach the host or log in; ssh in "
      "batch mode, the default, fails where it would ask for a password or to accept a host key)");
  EXPECT_EQ(
      describeExit(3, exitedWith(127, "h1"), "", ""),
      "rank 3 on h1 exited with code 127 (the remote shell found no dtbench there: it must be at the same "
      "path on every host)");
  EXPECT_EQ(describeExit(3, exitedWith(126, "h1"), "", ""),
            "rank 3 on h1 exited with code 126 (the remote shell could not run dtbench there)");
}

TEST(RemoteExit, ARankThatRanIsNamedByTheHostItReportedAndA255IsNotBlamedOnLoggingIn) {
  // OpenSSH's client exits 255 when the remote worker dies by a signal too.
  EXPECT_EQ(
      describeExit(2, exitedWith(255, "10.0.0.9"), "", "node9"),
      "rank 2 on node9 exited with code 255 (ssh lost the connection, or the worker was killed by a signal "
      "on that host: ssh exits 255 for both)");
  EXPECT_EQ(describeExit(2, exitedWith(127, "10.0.0.9"), "", "node9"),
            "rank 2 on node9 exited with code 127");
}

TEST(RemoteExit, AWorkersOwnErrorIsReportedAsItIsAndALocalRankHasNoHost) {
  // The worker said why it ended: its code is its own, not the shell's.
  EXPECT_EQ(describeExit(1, exitedWith(255, "h1"), "out of memory", "h1"),
            "rank 1 on h1 exited with code 255: out of memory");
  EXPECT_EQ(describeExit(1, exitedWith(1, "h1"), "", ""), "rank 1 on h1 exited with code 1");
  // A local rank reports its host too; local messages do not name it.
  EXPECT_EQ(describeExit(0, exitedWith(255, ""), "", "vm"), "rank 0 exited with code 255");
}

}  // namespace
}  // namespace dtb::core
