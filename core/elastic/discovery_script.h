// A host discovery script (host_discovery, horovodrun's
// --host-discovery-script): run by the elastic launcher every
// discovery_interval_s, it prints the hosts that may run workers now, one
// "HOST[:SLOTS]" a line (elastic/host_manager.h reads them). Every run is
// bounded: in time (discovery_timeout_s, then it is killed with whatever it
// started) and in output (kMaxDiscoveryOutput); a run that exits non-zero,
// times out or prints a malformed line yields an error naming the script
// instead of hosts. The launcher never waits on it: start() forks it, poll()
// reads what it wrote so far and says when it ended.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "launch/remote_shell.h"

namespace dtb::core {

constexpr size_t kMaxDiscoveryOutput = 64 * 1024;

struct DiscoveryResult {
  std::vector<HostSlots> hosts;
  std::string error;  // "" when the run gave hosts
  bool ok() const { return error.empty(); }
};

class DiscoveryScript {
 public:
  // `command` runs through /bin/sh, as horovodrun runs its script (so it may
  // carry arguments); lines without ":SLOTS" get `defaultSlots`.
  DiscoveryScript(std::string command, double timeoutS, int defaultSlots);
  ~DiscoveryScript();  // a run still going is killed
  DiscoveryScript(const DiscoveryScript&) = delete;
  DiscoveryScript& operator=(const DiscoveryScript&) = delete;

  // Starts a run; does nothing while one is going. A run that cannot even
  // start ends at once: its error comes from the next poll().
  void start();
  bool running() const { return pid_ > 0 || pending_.has_value(); }
  // What the run wrote since the last call; its result once it ended (and
  // no run is going any more), else nothing.
  std::optional<DiscoveryResult> poll();
  // Starts a run and waits for its result (the run's first discovery).
  DiscoveryResult runOnce();

  const std::string& command() const { return command_; }

 private:
  DiscoveryResult finish(int status);
  void drain();
  void killRun();
  void closePipes();

  std::string command_;
  double timeoutS_;
  int defaultSlots_;
  pid_t pid_ = -1;
  int out_ = -1, err_ = -1;  // read ends of its standard output and error
  std::string output_, errors_;
  bool tooMuch_ = false;
  std::chrono::steady_clock::time_point started_;
  std::optional<DiscoveryResult> pending_;  // a run that could not start
};

}  // namespace dtb::core
