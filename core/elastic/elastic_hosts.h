// The hosts of an elastic run across hosts (recovery = "elastic" with
// launcher = "ssh"), as horovodrun's elastic driver keeps them: which hosts
// exist now (a host_discovery script polled every discovery_interval_s, or
// the hostfile's fixed hosts), which are blacklisted after a worker of
// theirs failed (host_manager.h: with blacklist_cooldown_range they come
// back), and which worker runs on which host. The elastic launcher asks it
// where to start each worker and how many slots are free; it tells it which
// workers ended.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "elastic/discovery_script.h"
#include "elastic/host_manager.h"
#include "launch/remote_shell.h"

namespace dtb::core {

struct ElasticHostOptions {
  std::string hostfile;                   // the fixed hosts, when there is no discovery script
  std::string discovery;                  // host_discovery: the command printing HOST[:SLOTS] lines
  double intervalS = 1;                   // discovery_interval_s
  double timeoutS = 10;                   // discovery_timeout_s: bound on one run of the script
  int slotsPerHost = 1;                   // slots_per_host: a line without ":SLOTS"
  std::optional<CooldownRange> cooldown;  // blacklist_cooldown_range; none: blacklisted for good
};

class ElasticHosts {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ElasticHosts(const ElasticHostOptions& options, uint64_t seed = 0);

  // The first discovery, waited for. Throws std::runtime_error with the
  // script's error or the hostfile's: horovodrun, too, fails a job whose
  // first discovery fails (a later one failing is a warning, and retried).
  void discoverFirst(Clock::time_point now);

  // Runs discovery every interval; once a run ended, what changed, or its
  // error (the hosts then stay as they were).
  struct Update {
    HostChanges changes;
    std::string error;
  };
  std::optional<Update> poll(Clock::time_point now);

  // Slots on usable hosts (discovered, not blacklisted) no worker holds.
  int freeSlots() const;
  // Puts worker `slot` on the oldest usable host with a free slot (its
  // lowest free local rank); nothing when every slot is taken.
  std::optional<SlotPlace> place(int slot);
  // Worker `slot` ended, or left the world: its slot is free again.
  void release(int slot);
  // The host worker `slot` was placed on; "" for none.
  std::string hostOf(int slot) const;
  // Discovered (in the last discovery) and not blacklisted.
  bool usable(const std::string& host) const;

  // A worker of `host` failed: blacklisted, as horovodrun does. When it may
  // come back; nothing when never.
  std::optional<Clock::time_point> blacklist(const std::string& host, Clock::time_point now);
  bool blacklisted(const std::string& host) const { return manager_.blacklisted(host); }

  // "host_discovery 'x'" or "hostfile x": where the hosts come from, for messages.
  std::string source() const;

 private:
  std::vector<HostSlots> fixedHosts() const;

  ElasticHostOptions options_;
  HostManager manager_;
  std::unique_ptr<DiscoveryScript> script_;  // none: the hostfile's fixed hosts
  Clock::time_point nextRun_;
  std::map<int, std::pair<std::string, int>> placed_;  // slot -> host, local rank
};

}  // namespace dtb::core
