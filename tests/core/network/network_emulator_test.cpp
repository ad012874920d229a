// The network profiles and how dtbench shapes the emulated network: the
// line it sends the switch, and the errors when there is no switch, or one
// that refuses. A thread here plays the switch's control socket.
#include "network/network_emulator.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

namespace dtb::core {
namespace {

TEST(NetworkProfile, EveryProfileIsItsPublishedFiguresSlowedDownByOneFactor) {
  const NetworkProfile* profile = findNetworkProfile("25gbe");
  ASSERT_NE(profile, nullptr);
  EXPECT_DOUBLE_EQ(profile->emulatedLatencyUs(), 15 * kNetworkTimeScale);
  EXPECT_DOUBLE_EQ(profile->emulatedGigabytesPerS(), 3.1 / kNetworkTimeScale);
  // The latency-bandwidth product, what orders the strategies, is kept.
  for (const NetworkProfile& p : networkProfiles())
    EXPECT_DOUBLE_EQ(p.emulatedLatencyUs() * p.emulatedGigabytesPerS(), p.latencyUs * p.gigabytesPerS)
        << p.name;
  EXPECT_EQ(findNetworkProfile("none")->gigabytesPerS, 0);
  EXPECT_EQ(findNetworkProfile("40gbe"), nullptr);
  EXPECT_EQ(networkProfileNames(), "none, 10gbe, 25gbe, 100gbe, ib-hdr");
}

// A switch that takes one command and answers `reply`; `heard` gets the command.
class FakeSwitch {
 public:
  explicit FakeSwitch(std::string reply)
      : path_(std::filesystem::temp_directory_path() / ("dtb-switch-" + std::to_string(getpid()) + ".sock")) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path_.c_str(), sizeof(address.sun_path) - 1);
    std::filesystem::remove(path_);
    listener_ = socket(AF_UNIX, SOCK_STREAM, 0);
    EXPECT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    EXPECT_EQ(listen(listener_, 1), 0);
    thread_ = std::thread([this, reply] {
      // A client that never comes fails the test in 10 s rather than hanging it.
      pollfd waiting{listener_, POLLIN, 0};
      if (poll(&waiting, 1, 10'000) != 1) return;
      const int client = accept(listener_, nullptr, nullptr);
      char c = 0;
      while (read(client, &c, 1) == 1 && c != '\n') heard_ += c;
      const std::string line = reply + "\n";
      EXPECT_EQ(write(client, line.data(), line.size()), static_cast<ssize_t>(line.size()));
      close(client);
    });
    setenv(kNetworkControlVariable, path_.c_str(), 1);
  }
  ~FakeSwitch() {
    unsetenv(kNetworkControlVariable);
    if (thread_.joinable()) thread_.join();
    close(listener_);
    std::filesystem::remove(path_);
  }
  const std::string& heard() {
    thread_.join();
    return heard_;
  }

 private:
  std::filesystem::path path_;
  int listener_ = -1;
  std::thread thread_;
  std::string heard_;
};

TEST(NetworkEmulator, ShapesEveryLinkToTheProfileAsEmulated) {
  FakeSwitch fake("ok");
  const std::optional<NetworkProfile> applied = shapeNetworkFor("25gbe");
  ASSERT_TRUE(applied);
  EXPECT_EQ(applied->name, "25gbe");
  EXPECT_EQ(fake.heard(), "shape 25gbe 1500000 31000000");
}

TEST(NetworkEmulator, ACellNamingNoNetworkUnshapesAnEmulatedOne) {
  FakeSwitch fake("ok");
  EXPECT_EQ(shapeNetworkFor("")->name, "none");
  EXPECT_EQ(fake.heard(), "shape none 0 0");
}

TEST(NetworkEmulator, TheHostsOwnNetworkIsLeftAloneAndARequestedProfileRefused) {
  unsetenv(kNetworkControlVariable);
  EXPECT_FALSE(shapeNetworkFor(""));
  try {
    shapeNetworkFor("10gbe");
    FAIL() << "no emulated network, yet it shaped one";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(
        std::string(e.what()).find("network = \"10gbe\" needs the emulated network of tools/cluster.sh"),
        std::string::npos)
        << e.what();
  }
}

TEST(NetworkEmulator, ASwitchThatRefusesOrIsGoneIsAnErrorNamingItsSocket) {
  {
    FakeSwitch fake("error: out of order");
    try {
      shapeNetworkFor("ib-hdr");
      FAIL() << "a refusal was taken for success";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("refused 'shape ib-hdr 100000 250000000': out of order"),
                std::string::npos)
          << e.what();
    }
  }
  setenv(kNetworkControlVariable, "/nonexistent/switch.sock", 1);
  try {
    shapeNetworkFor("ib-hdr");
    FAIL() << "no switch, yet it shaped";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("DTBENCH_NETWORK_CONTROL=/nonexistent/switch.sock) cannot be reached"),
        std::string::npos)
        << e.what();
  }
  unsetenv(kNetworkControlVariable);
}

}  // namespace
}  // namespace dtb::core
