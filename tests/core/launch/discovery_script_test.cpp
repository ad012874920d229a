// A host discovery script as the elastic launcher runs it
// (elastic/discovery_script.h): its hosts, and every way a run can go
// wrong — a non-zero exit, a malformed line, a run past its timeout (killed
// with what it started), more output than a host list — each an error that
// names the script; the launcher is never blocked while it runs.
#include "elastic/discovery_script.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

std::string hostsOf(const DiscoveryResult& r) {
  std::string text;
  for (const HostSlots& h : r.hosts) text += h.host + ":" + std::to_string(h.slots) + " ";
  return text;
}

TEST(DiscoveryScript, ReadsHostAndSlotsLines) {
  DiscoveryScript script("printf 'h0:2\\nh1\\n10.0.0.3:4\\n'", 5, 3);
  const DiscoveryResult r = script.runOnce();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(hostsOf(r), "h0:2 h1:3 10.0.0.3:4 ");  // slots_per_host for a line without them
}

TEST(DiscoveryScript, NoHostYetIsAnAnswer) {
  DiscoveryScript script("true", 5, 1);
  const DiscoveryResult r = script.runOnce();
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.hosts.empty());
}

TEST(DiscoveryScript, ANonZeroExitIsAnErrorWithWhatItSaid) {
  DiscoveryScript script("echo h0:1; echo 'cannot reach the scheduler' >&2; exit 3", 5, 1);
  const DiscoveryResult r = script.runOnce();
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("host_discovery 'echo h0:1;"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("exited with code 3: cannot reach the scheduler"), std::string::npos) << r.error;
  EXPECT_TRUE(r.hosts.empty());  // a failed run's output is not taken
}

TEST(DiscoveryScript, AMissingScriptSaysSo) {
  DiscoveryScript script("/nonexistent/discover.sh", 5, 1);
  const DiscoveryResult r = script.runOnce();
  EXPECT_NE(r.error.find("exited with code 127 (no such command?)"), std::string::npos) << r.error;
}

TEST(DiscoveryScript, AMalformedLineIsNamed) {
  DiscoveryScript script("printf 'h0:2\\nh1:lots\\n'", 5, 1);
  const DiscoveryResult r = script.runOnce();
  EXPECT_NE(r.error.find("host_discovery 'printf"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("line 2 'h1:lots': slots must be a number"), std::string::npos) << r.error;
}

TEST(DiscoveryScript, ARunPastItsTimeoutIsKilledWithWhatItStarted) {
  const std::filesystem::path marker =
      std::filesystem::temp_directory_path() / ("discovery-child-" + std::to_string(getpid()));
  std::filesystem::remove(marker);
  // The script starts a child that would write the marker after 2 s, and hangs.
  DiscoveryScript script("(sleep 2; touch " + marker.string() + ") & sleep 30", 0.3, 1);
  const auto start = Clock::now();
  const DiscoveryResult r = script.runOnce();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_NE(r.error.find("did not finish within discovery_timeout_s = 0.3 s: killed"), std::string::npos)
      << r.error;
  EXPECT_LT(seconds, 1.5);  // bounded by the timeout, not the script
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the script's child outlived the timeout";
  std::filesystem::remove(marker);
}

TEST(DiscoveryScript, OutputBeyondAHostListIsRefused) {
  DiscoveryScript script("yes h0:1 | head -c 200000", 5, 1);
  const DiscoveryResult r = script.runOnce();
  EXPECT_NE(r.error.find("printed more than 64 KiB"), std::string::npos) << r.error;
}

TEST(DiscoveryScript, PollNeverWaitsForTheScript) {
  DiscoveryScript script("sleep 0.5; echo h0:1", 5, 1);
  script.start();
  EXPECT_TRUE(script.running());
  const auto start = Clock::now();
  EXPECT_FALSE(script.poll().has_value());
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 0.2);
  std::optional<DiscoveryResult> r;
  while (!(r = script.poll())) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(hostsOf(*r), "h0:1 ");
  EXPECT_FALSE(script.running());
  script.start();  // and again: each interval a new run
  while (!(r = script.poll())) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(hostsOf(*r), "h0:1 ");
}

}  // namespace
}  // namespace dtb::core
