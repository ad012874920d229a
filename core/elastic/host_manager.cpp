#include "elastic/host_manager.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace dtb::core {
namespace {

constexpr int kMaxSlots = 4096;

std::string trimmed(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1);
}

}  // namespace

std::vector<HostSlots> parseDiscoveredHosts(const std::string& text, int defaultSlots,
                                            const std::string& source) {
  std::vector<HostSlots> hosts;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    line = trimmed(line);
    if (line.empty()) continue;
    const auto bad = [&](const std::string& why) {
      return std::invalid_argument(source + ": line " + std::to_string(number) + " '" + line + "': " + why +
                                   " (expected HOST or HOST:SLOTS)");
    };
    const size_t colon = line.find(':');
    if (colon != std::string::npos && line.find(':', colon + 1) != std::string::npos)
      throw bad("more than one ':'");
    HostSlots h{trimmed(line.substr(0, colon)), defaultSlots};
    if (h.host.empty()) throw bad("no host");
    if (colon != std::string::npos) {
      const std::string slots = trimmed(line.substr(colon + 1));
      if (slots.empty() || slots.size() > 4 || slots.find_first_not_of("0123456789") != std::string::npos ||
          std::stoi(slots) < 1 || std::stoi(slots) > kMaxSlots) {
        throw bad("slots must be a number from 1 to " + std::to_string(kMaxSlots));
      }
      h.slots = std::stoi(slots);
    }
    auto same =
        std::find_if(hosts.begin(), hosts.end(), [&](const HostSlots& o) { return o.host == h.host; });
    if (same != hosts.end())
      same->slots = h.slots;
    else
      hosts.push_back(h);
  }
  return hosts;
}

void checkCooldownRange(const CooldownRange& range) {
  if (!(range.lowS >= 1 && range.lowS <= range.highS && range.highS <= 3600)) {
    throw std::invalid_argument(
        "blacklist cool-down range [" + std::to_string(range.lowS) + ", " + std::to_string(range.highS) +
        "] s: needs 1 <= low <= high <= 3600, as horovodrun's --blacklist-cooldown-range");
  }
}

HostManager::HostManager(std::optional<CooldownRange> range, uint64_t seed) : range_(range), random_(seed) {
  if (range_) checkCooldownRange(*range_);
}

// Out until the first discovery after its cool-down whitelists it (update()).
bool HostManager::blacklisted(const std::string& host) const {
  auto it = states_.find(host);
  return it != states_.end() && it->second.blacklisted;
}

HostChanges HostManager::update(const std::vector<HostSlots>& discovered, Clock::time_point now) {
  HostChanges changes;
  std::map<std::string, int> slots;
  for (const HostSlots& h : discovered) slots[h.host] = h.slots;
  for (const auto& [host, before] : slots_) {
    auto it = slots.find(host);
    if (it == slots.end() || it->second < before) changes.removed.push_back(host);
  }
  for (const HostSlots& h : discovered) {
    if (std::find(order_.begin(), order_.end(), h.host) == order_.end()) order_.push_back(h.host);
    auto before = slots_.find(h.host);
    State& state = states_[h.host];
    const bool back = state.blacklisted && state.cooldownEnd && now >= *state.cooldownEnd;
    if (back) state.blacklisted = false;  // its cool-down is over: whitelisted, as horovodrun does
    if (before == slots_.end() || h.slots > before->second || back) changes.added.push_back(h.host);
    if (back) changes.back.push_back(h.host);
  }
  slots_ = std::move(slots);
  return changes;
}

std::vector<HostSlots> HostManager::available() const {
  std::vector<HostSlots> hosts;
  for (const std::string& host : order_) {
    auto it = slots_.find(host);
    if (it != slots_.end() && !blacklisted(host)) hosts.push_back({host, it->second});
  }
  return hosts;
}

std::vector<HostSlots> HostManager::discovered() const {
  std::vector<HostSlots> hosts;
  for (const std::string& host : order_) {
    if (auto it = slots_.find(host); it != slots_.end()) hosts.push_back({host, it->second});
  }
  return hosts;
}

int HostManager::availableSlots() const {
  int total = 0;
  for (const HostSlots& h : available()) total += h.slots;
  return total;
}

std::optional<HostManager::Clock::time_point> HostManager::blacklist(const std::string& host,
                                                                     Clock::time_point now) {
  State& state = states_[host];
  state.blacklisted = true;
  if (!range_) return std::nullopt;
  if (state.cooldownEnd && now < *state.cooldownEnd) return state.cooldownEnd;  // already cooling down
  ++state.failures;
  // horovodrun: low x 2^failures plus up to one low of jitter, kept in [low, high].
  const double jitter = std::uniform_real_distribution<double>(0, 1)(random_);
  const double delay = range_->lowS * std::ldexp(1.0, std::min(state.failures, 30)) + jitter * range_->lowS;
  const double seconds = std::clamp(delay, range_->lowS, range_->highS);
  state.cooldownEnd =
      now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  return state.cooldownEnd;
}

}  // namespace dtb::core
