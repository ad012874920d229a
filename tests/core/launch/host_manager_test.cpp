// horovodrun's host bookkeeping (elastic/host_manager.h): discovery output
// parsed with errors that name the line, hosts kept in first-seen order,
// blacklisted hosts left out until the first discovery after their cool-down (exponential, with
// jitter, inside the range), and what each update added or removed.
#include "elastic/host_manager.h"

#include <gtest/gtest.h>

namespace dtb::core {
namespace {

using namespace std::chrono_literals;
using Clock = HostManager::Clock;

std::vector<std::string> names(const std::vector<HostSlots>& hosts) {
  std::vector<std::string> out;
  for (const HostSlots& h : hosts) out.push_back(h.host + ":" + std::to_string(h.slots));
  return out;
}

TEST(DiscoveredHosts, ParsesHostAndSlotsLinesWithDefaultsAndBlanks) {
  const auto hosts = parseDiscoveredHosts("h0:2\n\n  h1  \nh2:4\nh0:3\n", 1, "discover.sh");
  EXPECT_EQ(names(hosts), (std::vector<std::string>{"h0:3", "h1:1", "h2:4"}));
  EXPECT_TRUE(parseDiscoveredHosts("", 1, "discover.sh").empty());  // no host ready yet
}

TEST(DiscoveredHosts, AMalformedLineIsNamedWithItsNumber) {
  for (const char* text :
       {"h0:2\n:3\n", "h0:2\nh1:x\n", "h0:2\nh1:0\n", "h0:2\nh1:99999\n", "h0:2\nh1:2:3\n"}) {
    try {
      parseDiscoveredHosts(text, 1, "discover.sh");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("discover.sh: line 2"), std::string::npos) << e.what();
    }
  }
}

TEST(HostManager, KeepsFirstSeenOrderAndReportsAddedAndRemoved) {
  HostManager m;
  const auto t = Clock::now();
  HostChanges c = m.update({{"h1", 1}, {"h0", 2}}, t);
  EXPECT_EQ(c.added, (std::vector<std::string>{"h1", "h0"}));
  EXPECT_TRUE(c.removed.empty());
  c = m.update({{"h0", 1}, {"h2", 1}, {"h1", 1}}, t);  // h0 lost a slot, h2 is new
  EXPECT_EQ(c.added, (std::vector<std::string>{"h2"}));
  EXPECT_EQ(c.removed, (std::vector<std::string>{"h0"}));
  EXPECT_EQ(names(m.available()), (std::vector<std::string>{"h1:1", "h0:1", "h2:1"}));
  c = m.update({{"h0", 1}, {"h2", 1}, {"h1", 1}}, t);
  EXPECT_FALSE(c.any());
  c = m.update({{"h2", 1}}, t);
  EXPECT_EQ(c.removed, (std::vector<std::string>{"h0", "h1"}));
  EXPECT_EQ(m.availableSlots(), 1);
}

TEST(HostManager, WithoutACooldownABlacklistedHostNeverComesBack) {
  HostManager m;
  const auto t = Clock::now();
  m.update({{"h0", 1}, {"h1", 1}}, t);
  EXPECT_FALSE(m.blacklist("h1", t).has_value());
  EXPECT_EQ(names(m.available()), (std::vector<std::string>{"h0:1"}));
  EXPECT_FALSE(m.update({{"h0", 1}, {"h1", 1}}, t + 10h).any());
}

TEST(HostManager, ABlacklistedHostReturnsAfterAnExponentialCooldownInsideTheRange) {
  HostManager m(CooldownRange{2, 30}, 7);
  const auto t = Clock::now();
  m.update({{"h0", 1}, {"h1", 2}}, t);
  const auto first = m.blacklist("h1", t);
  ASSERT_TRUE(first.has_value());
  // 2 x 2^1 plus up to 2 s of jitter: 4-6 s.
  EXPECT_GE(*first - t, 4s);
  EXPECT_LE(*first - t, 6s);
  EXPECT_EQ(m.blacklist("h1", t + 1s), first);  // still cooling down: the same end
  EXPECT_TRUE(m.blacklisted("h1"));
  EXPECT_FALSE(m.update({{"h0", 1}, {"h1", 2}}, *first - 1ms).any());  // a discovery before its end
  EXPECT_EQ(names(m.available()), (std::vector<std::string>{"h0:1"}));
  const HostChanges back = m.update({{"h0", 1}, {"h1", 2}}, *first);
  EXPECT_EQ(back.added, (std::vector<std::string>{"h1"}));  // resurrected: counted as added
  EXPECT_EQ(back.back, (std::vector<std::string>{"h1"}));
  EXPECT_FALSE(m.blacklisted("h1"));
  EXPECT_EQ(names(m.available()), (std::vector<std::string>{"h0:1", "h1:2"}));
  // The second failure waits 2 x 2^2 plus jitter (8-10 s), the fourth is capped at 30.
  const auto second = m.blacklist("h1", *first);
  EXPECT_GE(*second - *first, 8s);
  EXPECT_LE(*second - *first, 10s);
  m.update({{"h0", 1}, {"h1", 2}}, *second);
  const auto third = m.blacklist("h1", *second);
  m.update({{"h0", 1}, {"h1", 2}}, *third);
  const auto fourth = m.blacklist("h1", *third);
  EXPECT_EQ(*fourth - *third, std::chrono::duration_cast<Clock::duration>(30s));
}

TEST(HostManager, ACooldownRangeOutsideHorovodsBoundsIsRefused) {
  for (CooldownRange r : {CooldownRange{0.5, 10}, CooldownRange{10, 5}, CooldownRange{1, 7200}})
    EXPECT_THROW(HostManager m(r), std::invalid_argument);
}

}  // namespace
}  // namespace dtb::core
