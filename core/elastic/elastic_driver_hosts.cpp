// The elastic driver across hosts (launcher = "ssh"): the first world on
// the hosts discovery reports, discovery polled, hosts blacklisted, free
// slots filled and dropped hosts' workers let go (elastic_driver.h).
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "elastic/elastic_driver.h"
#include "log/log.h"

namespace dtb::core {

int ElasticDriver::slotsToFill(int worldSize) const {
  const int spare = static_cast<int>(ranks_.size()) - nextSlot_;
  return std::max(0, std::min({hosts_->freeSlots(), targetSize() - worldSize, spare}));
}

std::optional<LaunchOutcome> ElasticDriver::firstWorldOnHosts() {
  try {
    hosts_->discoverFirst(Clock::now());
  } catch (const std::runtime_error& e) {
    return failed(e.what());
  }
  const int minNp = std::max(1, elastic_.minNp);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(elastic_.timeoutS));
  bool said = false;
  while (hosts_->freeSlots() < minNp) {
    if (!said)
      log(DTB_LOG_WARN, "elastic",
          hosts_->source() + " offers " + std::to_string(hosts_->freeSlots()) +
              " slots, below min_np = " + std::to_string(minNp) +
              ": waiting up to elastic_timeout_s = " + number(elastic_.timeoutS) + " s for more");
    said = true;
    if (Clock::now() > deadline)
      return failed(hosts_->source() + " offered " + std::to_string(hosts_->freeSlots()) +
                    " slots, below min_np = " + std::to_string(minNp) +
                    ", for elastic_timeout_s = " + number(elastic_.timeoutS) + " s");
    if (options_.interrupted && options_.interrupted->load())
      return LaunchOutcome{LaunchOutcome::Status::kInterrupted, "stopped by the user (Ctrl-C)"};
    pollHosts();
    usleep(20000);
  }
  const int first = std::min(options_.world, hosts_->freeSlots());
  if (first < options_.world) {
    std::vector<int> slots(static_cast<size_t>(first));
    for (int s = 0; s < first; ++s) slots[static_cast<size_t>(s)] = s;
    WorldChange change;
    change.kind = WorldChange::Kind::kStart;
    change.cause = hosts_->source() + " offers " + std::to_string(first) +
                   " of world_size = " + std::to_string(options_.world) + " slots";
    change.failedAt = std::chrono::system_clock::now();
    enter(std::move(slots), false, change);
  }
  return std::nullopt;
}

void ElasticDriver::pollHosts() {
  std::optional<ElasticHosts::Update> update = hosts_->poll(Clock::now());
  if (!update) return;
  if (!update->error.empty()) {
    // A later discovery failing is a warning, and the hosts stay as they
    // were (horovodrun's); said once until it works again.
    if (update->error != discoveryError_) {
      log(DTB_LOG_WARN, "elastic", update->error + " (the hosts stay as they were; retried)");
      onHostEvent_("discovery_failed", update->error);
    }
    discoveryError_ = update->error;
    return;
  }
  discoveryError_.clear();
  const HostChanges& changes = update->changes;
  for (const std::string& host : changes.added) {
    const bool back = std::find(changes.back.begin(), changes.back.end(), host) != changes.back.end();
    onHostEvent_("host_added",
                 host + (back ? " back after its cool-down" : "") + " (" + hosts_->source() + ")");
  }
  for (const std::string& host : changes.removed)
    onHostEvent_("host_removed", host + " (" + hosts_->source() + ")");
}

std::optional<LaunchOutcome> ElasticDriver::followHosts() {
  std::vector<int> staying;
  std::set<std::string> leaving;
  for (const int slot : members_) {
    const std::string host = hosts_->hostOf(slot);
    if (hosts_->usable(host))
      staying.push_back(slot);
    else
      leaving.insert(host);
  }
  if (!leaving.empty() && !staying.empty()) {
    if (std::optional<LaunchOutcome> end = pastResetLimit("hosts left")) return end;
    WorldChange change;
    change.kind = WorldChange::Kind::kLeave;
    change.reset = resets_;
    const size_t workers = members_.size() - staying.size();
    change.cause = "host" + std::string(leaving.size() == 1 ? " " : "s ") + joined(leaving) + " left " +
                   hosts_->source() + ": " + std::to_string(workers) +
                   (workers == 1 ? " worker leaves" : " workers leave") + " at the next commit";
    change.failedAt = std::chrono::system_clock::now();
    for (const int slot : members_) {
      if (std::find(staying.begin(), staying.end(), slot) == staying.end()) hosts_->release(slot);
    }
    enter(std::move(staying), false, change);
    return std::nullopt;
  }
  const int count = slotsToFill(static_cast<int>(members_.size()));
  if (count == 0) return std::nullopt;
  if (std::optional<LaunchOutcome> end = pastResetLimit("hosts joined")) return end;
  WorldChange change;
  change.kind = WorldChange::Kind::kJoin;
  change.reset = resets_;
  change.failedAt = std::chrono::system_clock::now();
  startJoiners(members_, count, false, change);
  return std::nullopt;
}

void ElasticDriver::blacklistFailedHosts() {
  for (const int slot : settling_->gone) settling_->blacklisted += blacklistHostOf(slot);
}

std::string ElasticDriver::blacklistHostOf(int slot) {
  const std::string host = hosts_->hostOf(slot);
  hosts_->release(slot);
  const auto now = Clock::now();
  if (host.empty() || hosts_->blacklisted(host)) return "";
  const std::optional<Clock::time_point> back = hosts_->blacklist(host, now);
  const std::string text =
      "host " + host + " blacklisted " +
      (back ? "for " + number(std::round(std::chrono::duration<double>(*back - now).count() * 10) / 10) +
                  " s (blacklist_cooldown_range)"
            : "for the rest of the run (no blacklist_cooldown_range)");
  onHostEvent_("blacklist", text);
  return "; " + text;
}

std::string ElasticDriver::joined(const std::set<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : ", ") + w;
  return text;
}

}  // namespace dtb::core
