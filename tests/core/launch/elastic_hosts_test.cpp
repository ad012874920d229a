// Where an elastic run across hosts places its workers
// (elastic/elastic_hosts.h): hosts filled in first-seen order, each up to
// its slots, a worker's slot freed when it ends; a blacklisted host's slots
// out until the first discovery after its cool-down; the first discovery
// failing fails the run, a later one only keeps the hosts as they were.
#include "elastic/elastic_hosts.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace dtb::core {
namespace {

using namespace std::chrono_literals;
using Clock = ElasticHosts::Clock;

class ElasticHostsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("elastic-hosts-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Polls until a discovery ended: what it changed, or its error.
  static ElasticHosts::Update nextUpdate(ElasticHosts& hosts) {
    for (int i = 0; i < 500; ++i) {
      if (auto u = hosts.poll(Clock::now())) return *u;
      std::this_thread::sleep_for(10ms);
    }
    ADD_FAILURE() << "no discovery ended within 5 s";
    return {};
  }
  std::filesystem::path dir_;
};

std::string where(const std::optional<SlotPlace>& p) {
  return p ? p->host + "/" + std::to_string(p->localRank) + "/" + std::to_string(p->localSize) : "none";
}

TEST_F(ElasticHostsTest, FillsTheHostfilesHostsInOrderAndFreesEndedWorkersSlots) {
  write("hostfile", "h0 slots=2\nh1 slots=1\n");
  ElasticHosts hosts({path("hostfile"), "", 1, 1, 1, std::nullopt});
  hosts.discoverFirst(Clock::now());
  EXPECT_EQ(hosts.freeSlots(), 3);
  EXPECT_EQ(where(hosts.place(0)), "h0/0/2");
  EXPECT_EQ(where(hosts.place(1)), "h0/1/2");
  EXPECT_EQ(where(hosts.place(2)), "h1/0/1");
  EXPECT_EQ(where(hosts.place(3)), "none");  // every slot taken
  hosts.release(0);
  EXPECT_EQ(hosts.freeSlots(), 1);
  EXPECT_EQ(where(hosts.place(4)), "h0/0/2");  // the freed local rank
  EXPECT_EQ(hosts.hostOf(4), "h0");
  EXPECT_EQ(hosts.source(), "hostfile " + path("hostfile"));
}

TEST_F(ElasticHostsTest, ABlacklistedHostIsOutForGoodWithoutACooldown) {
  write("hostfile", "h0 slots=1\nh1 slots=1\n");
  ElasticHosts hosts({path("hostfile"), "", 0.05, 1, 1, std::nullopt});
  hosts.discoverFirst(Clock::now());
  hosts.place(0);
  hosts.place(1);
  EXPECT_FALSE(hosts.blacklist("h1", Clock::now()).has_value());
  hosts.release(1);
  EXPECT_FALSE(hosts.usable("h1"));
  EXPECT_EQ(hosts.freeSlots(), 0);
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(nextUpdate(hosts).changes.any());
  EXPECT_EQ(hosts.freeSlots(), 0);
}

TEST_F(ElasticHostsTest, ABlacklistedHostComesBackWithTheFirstDiscoveryAfterItsCooldown) {
  write("hosts.txt", "h0:1\nh1:1\n");
  ElasticHosts hosts({"", "cat " + path("hosts.txt"), 0.05, 5, 1, CooldownRange{1, 1}});
  hosts.discoverFirst(Clock::now());
  hosts.place(0);
  hosts.place(1);
  const auto back = hosts.blacklist("h1", Clock::now());
  ASSERT_TRUE(back.has_value());
  EXPECT_LE(*back - Clock::now(), 1s);  // the range's high end bounds it
  hosts.release(1);
  EXPECT_FALSE(hosts.usable("h1"));
  for (int polls = 0;; ++polls) {
    ASSERT_LT(polls, 100) << "h1 never came back";
    const ElasticHosts::Update u = nextUpdate(hosts);
    ASSERT_TRUE(u.error.empty()) << u.error;
    if (u.changes.any()) {
      EXPECT_GE(Clock::now(), *back);
      EXPECT_EQ(u.changes.back, (std::vector<std::string>{"h1"}));
      break;
    }
    EXPECT_FALSE(hosts.usable("h1"));  // still cooling down
  }
  EXPECT_TRUE(hosts.usable("h1"));
  EXPECT_EQ(where(hosts.place(2)), "h1/0/1");
}

TEST_F(ElasticHostsTest, DiscoveryAddsAndDropsHosts) {
  write("hosts.txt", "h0:1\n");
  ElasticHosts hosts({"", "cat " + path("hosts.txt"), 0.01, 5, 2, std::nullopt});
  hosts.discoverFirst(Clock::now());
  EXPECT_EQ(hosts.freeSlots(), 1);
  write("hosts.txt", "h0:1\nh2\n");
  ElasticHosts::Update u = nextUpdate(hosts);
  EXPECT_EQ(u.changes.added, (std::vector<std::string>{"h2"}));
  EXPECT_EQ(hosts.freeSlots(), 3);  // h2 with slots_per_host = 2
  write("hosts.txt", "h2:2\n");
  u = nextUpdate(hosts);
  EXPECT_EQ(u.changes.removed, (std::vector<std::string>{"h0"}));
  EXPECT_FALSE(hosts.usable("h0"));
}

TEST_F(ElasticHostsTest, TheFirstDiscoveryFailingFailsALaterOneKeepsTheHosts) {
  write("hosts.txt", "h0:1\n");
  ElasticHosts broken({"", "exit 4", 0.01, 5, 1, std::nullopt});
  EXPECT_THROW(broken.discoverFirst(Clock::now()), std::runtime_error);
  const std::string script = "test -f " + path("fail") + " && exit 4; cat " + path("hosts.txt");
  ElasticHosts hosts({"", script, 0.01, 5, 1, std::nullopt});
  hosts.discoverFirst(Clock::now());
  write("fail", "");
  const ElasticHosts::Update u = nextUpdate(hosts);
  EXPECT_NE(u.error.find("exited with code 4"), std::string::npos) << u.error;
  EXPECT_TRUE(hosts.usable("h0"));  // as they were
}

}  // namespace
}  // namespace dtb::core
