// What the local launcher reads of its ranks: once they have exited, the
// records they wrote after its last read (a rank may write its memory
// ledger and gradient profile and exit between a read and the reaping that
// sees it gone) are still read, until every pipe has ended.
#include "launch/local_ranks.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace dtb::core {
namespace {

TEST(LocalRanks, DrainingReadsWhatExitedRanksWroteUntilTheirPipesEnd) {
  std::vector<Rank> ranks(2);
  for (int r = 0; r < 2; ++r) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    const std::string last = "done " + std::to_string(r) + "\n";
    ASSERT_EQ(write(fds[1], last.data(), last.size()), static_cast<ssize_t>(last.size()));
    close(fds[1]);  // the rank has exited
    ranks[r].fd = fds[0];
    ranks[r].exited = true;
  }
  std::vector<int> heard;
  RankOutput output(2, [&](int rank, const Record&) { heard.push_back(rank); });
  drainRanks(ranks, output, std::chrono::seconds(5));
  EXPECT_EQ(heard, (std::vector<int>{0, 1}));
  EXPECT_EQ(ranks[0].fd, -1);
  EXPECT_EQ(ranks[1].fd, -1);
}

TEST(LocalRanks, DrainingStopsAtItsBoundWhenAPipeStaysOpen) {
  std::vector<Rank> ranks(1);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  ranks[0].fd = fds[0];  // a process the worker started still holds fds[1]
  RankOutput output(1, [](int, const Record&) {});
  drainRanks(ranks, output, std::chrono::milliseconds(300));
  EXPECT_EQ(ranks[0].fd, fds[0]) << "an open pipe was taken for ended";
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace dtb::core
