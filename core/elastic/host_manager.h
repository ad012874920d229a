// Which hosts an elastic run may place workers on, and in what order:
// horovodrun's HostManager (horovod/runner/elastic/discovery.py). Each
// discovery (a host_discovery script's output, or a hostfile) says which
// hosts exist and their slots; a host whose worker failed is blacklisted,
// and with a cool-down range it comes back with the first discovery after its cool-down: the
// first failure waits about twice the range's low end, each later one
// twice as long again, with up to one low end of jitter, never outside the
// range (horovodrun's --blacklist-cooldown-range). Without a range, a
// blacklisted host never comes back (horovodrun before v0.24). Hosts keep
// the order in which they were first seen, so the oldest hosts get the
// lowest ranks, as Horovod assigns them.
// The elastic launcher polls it through elastic_hosts.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "launch/remote_shell.h"

namespace dtb::core {

// "HOST:SLOTS" or "HOST" (then `defaultSlots`) a line, as horovodrun's
// discovery script prints them; blank lines are skipped, repeated hosts
// keep their last line. Throws std::invalid_argument naming `source` and
// the line for a malformed one (an empty host, slots not a number from 1
// to 4096, more than one ':').
std::vector<HostSlots> parseDiscoveredHosts(const std::string& text, int defaultSlots,
                                            const std::string& source);

struct CooldownRange {
  double lowS = 0, highS = 0;  // horovodrun bounds them to [1 s, 1 h]
};
// Throws std::invalid_argument unless 1 <= low <= high <= 3600.
void checkCooldownRange(const CooldownRange& range);

// What an update changed, for the launcher's next world.
struct HostChanges {
  std::vector<std::string> added;    // new hosts, hosts with more slots, hosts back from cool-down
  std::vector<std::string> removed;  // hosts gone or with fewer slots
  std::vector<std::string> back;     // of `added`, those back from their cool-down
  bool any() const { return !added.empty() || !removed.empty(); }
};

class HostManager {
 public:
  using Clock = std::chrono::steady_clock;
  // `range`: no value for a blacklist without cool-down. `seed` makes the
  // jitter reproducible in tests.
  explicit HostManager(std::optional<CooldownRange> range = std::nullopt, uint64_t seed = 0);

  // Takes a discovery's hosts; returns what changed since the last one.
  HostChanges update(const std::vector<HostSlots>& discovered, Clock::time_point now);
  // The hosts to place workers on now, oldest first: discovered and not
  // blacklisted.
  std::vector<HostSlots> available() const;
  int availableSlots() const;
  // The last discovery's hosts, oldest first, blacklisted ones too.
  std::vector<HostSlots> discovered() const;

  // A worker on `host` failed: blacklist it (a host already cooling down
  // keeps its end). Returns when it may come back, or nothing when never.
  std::optional<Clock::time_point> blacklist(const std::string& host, Clock::time_point now);
  // Blacklisted, and no discovery since its cool-down ended: a host comes
  // back with the first discovery after it, as horovodrun's do.
  bool blacklisted(const std::string& host) const;

 private:
  struct State {
    bool blacklisted = false;
    int failures = 0;
    std::optional<Clock::time_point> cooldownEnd;
  };

  std::optional<CooldownRange> range_;
  std::mt19937_64 random_;
  std::vector<std::string> order_;    // hosts in the order first seen
  std::map<std::string, int> slots_;  // the last discovery's
  std::map<std::string, State> states_;
};

}  // namespace dtb::core
