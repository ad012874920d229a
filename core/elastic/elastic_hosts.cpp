#include "elastic/elastic_hosts.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace dtb::core {

ElasticHosts::ElasticHosts(const ElasticHostOptions& options, uint64_t seed)
    : options_(options), manager_(options.cooldown, seed) {
  if (!options_.discovery.empty())
    script_ = std::make_unique<DiscoveryScript>(options_.discovery, options_.timeoutS, options_.slotsPerHost);
}

std::string ElasticHosts::source() const {
  return script_ ? "host_discovery '" + options_.discovery + "'" : "hostfile " + options_.hostfile;
}

std::vector<HostSlots> ElasticHosts::fixedHosts() const {
  try {
    return readHostfile(options_.hostfile);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

void ElasticHosts::discoverFirst(Clock::time_point now) {
  std::vector<HostSlots> hosts;
  if (script_) {
    const DiscoveryResult first = script_->runOnce();
    if (!first.ok()) throw std::runtime_error(first.error + " (the run's first discovery)");
    hosts = first.hosts;
  } else {
    hosts = fixedHosts();
  }
  manager_.update(hosts, now);
  nextRun_ =
      now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.intervalS));
}

std::optional<ElasticHosts::Update> ElasticHosts::poll(Clock::time_point now) {
  if (!script_) {
    // Fixed hosts: read once, but a blacklisted one's cool-down still ends.
    if (now < nextRun_) return std::nullopt;
    nextRun_ =
        now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.intervalS));
    return Update{manager_.update(manager_.discovered(), now), ""};
  }
  if (!script_->running()) {
    if (now < nextRun_) return std::nullopt;
    script_->start();
  }
  std::optional<DiscoveryResult> result = script_->poll();
  if (!result) return std::nullopt;
  // The interval runs from one run's end to the next's start, as
  // horovodrun's discovery thread waits between runs.
  nextRun_ =
      now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.intervalS));
  if (!result->ok()) return Update{{}, result->error};
  return Update{manager_.update(result->hosts, now), ""};
}

bool ElasticHosts::usable(const std::string& host) const {
  for (const HostSlots& h : manager_.available()) {
    if (h.host == host) return true;
  }
  return false;
}

int ElasticHosts::freeSlots() const {
  int free = 0;
  for (const HostSlots& h : manager_.available()) {
    const auto used = std::count_if(placed_.begin(), placed_.end(),
                                    [&](const auto& p) { return p.second.first == h.host; });
    free += std::max(0, h.slots - static_cast<int>(used));
  }
  return free;
}

std::optional<SlotPlace> ElasticHosts::place(int slot) {
  for (const HostSlots& h : manager_.available()) {
    std::set<int> taken;
    for (const auto& [s, where] : placed_) {
      if (where.first == h.host) taken.insert(where.second);
    }
    if (static_cast<int>(taken.size()) >= h.slots) continue;
    int local = 0;
    while (taken.contains(local)) ++local;
    placed_[slot] = {h.host, local};
    return SlotPlace{h.host, local, h.slots};
  }
  return std::nullopt;
}

void ElasticHosts::release(int slot) { placed_.erase(slot); }

std::string ElasticHosts::hostOf(int slot) const {
  const auto it = placed_.find(slot);
  return it == placed_.end() ? "" : it->second.first;
}

std::optional<ElasticHosts::Clock::time_point> ElasticHosts::blacklist(const std::string& host,
                                                                       Clock::time_point now) {
  return manager_.blacklist(host, now);
}

}  // namespace dtb::core
