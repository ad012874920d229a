#include "elastic/elastic_launcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "elastic/elastic_driver.h"
#include "elastic/elastic_world.h"
#include "launch/local_ranks.h"
#include "launch/rank_output.h"
#include "log/log.h"

namespace dtb::core {
namespace {

// A run can grow by one worker per add fault; room for a few. Across
// hosts, workers come and go with the hosts: room for many more (each
// blacklisting doubles a host's cool-down, which bounds how often).
constexpr int kSpareSlots = 4;
constexpr int kSpareSlotsAcrossHosts = 256;
constexpr int kResetsWithoutProgress = 3;

int slotCapacity(const LaunchOptions& options, const ElasticOptions& elastic) {
  return options.world + (elastic.hosts ? kSpareSlotsAcrossHosts : kSpareSlots);
}

}  // namespace

ElasticDriver::ElasticDriver(const LaunchOptions& options, const ElasticOptions& elastic,
                             const RecordHandler& onRecord, const WorldChangeHandler& onChange,
                             const HostEventHandler& onHostEvent)
    : options_(options),
      elastic_(elastic),
      onChange_(onChange),
      onHostEvent_(onHostEvent),
      ranks_(static_cast<size_t>(slotCapacity(options, elastic))),
      output_(slotCapacity(options, elastic), [this, &onRecord](int slot, const Record& r) {
        if (r.kind == Record::Kind::kReset) {
          leftWorld(slot, r);
        } else if (r.kind == Record::Kind::kGrow) {
          growAsked_ = true;
        } else {
          // Rank 0's first step in a new world: it formed, whoever joined is in.
          if (r.kind == Record::Kind::kEvent && r.eventRecord.kind == "recovered") joining_.clear();
          if (r.kind == Record::Kind::kStep) trained_.insert(slot);
          onRecord(slot, r);
        }
      }) {
  for (int s = 0; s < options.world; ++s) members_.push_back(s);
  if (elastic.hosts) hosts_.emplace(*elastic.hosts, static_cast<uint64_t>(getpid()));
}

LaunchOutcome ElasticDriver::run() {
  if (hosts_) {
    if (std::optional<LaunchOutcome> end = firstWorldOnHosts()) return *end;
    output_.heard();  // no worker ran while the hosts were awaited
  }
  for (const int s : members_) {
    if (std::string error = startRank(options_, s, parent_, group_, ranks_, placeOf(s, members_));
        !error.empty()) {
      stopAll(ranks_, group_);
      return {LaunchOutcome::Status::kFailed, error};
    }
  }
  nextSlot_ = options_.world;
  LaunchOutcome outcome = watch();
  stopAll(ranks_, group_);
  for (Rank& r : ranks_) {
    if (r.fd >= 0) close(r.fd);
  }
  return outcome;
}

LaunchOutcome ElasticDriver::watch() {
  for (;;) {
    readRanks(ranks_, output_);
    reap();
    if (hosts_) pollHosts();
    if (growAsked_ && !settling_) {
      if (std::optional<LaunchOutcome> end = grow()) return *end;
    }
    if (hosts_ && !settling_ && joining_.empty()) {
      if (std::optional<LaunchOutcome> end = followHosts()) return *end;
    }
    if (settling_) {
      if (std::optional<LaunchOutcome> end = settle()) return *end;
    } else if (allMembersFinished()) {
      // Their last records may have come after the read above.
      drainRanks(ranks_, output_, std::chrono::seconds(1));
      return {};
    }
    if (options_.interrupted && options_.interrupted->load()) {
      return {LaunchOutcome::Status::kInterrupted, "stopped by the user (Ctrl-C)"};
    }
    if (output_.secondsSilent() > options_.silenceLimitS && !(settling_ && settling_->belowMinSince)) {
      return {LaunchOutcome::Status::kFailed, "no rank reported anything for " +
                                                  std::to_string(static_cast<int>(output_.secondsSilent())) +
                                                  " s (a hang?); every rank was stopped"};
    }
  }
}

int ElasticDriver::rankOf(int slot) const {
  const auto at = std::find(members_.begin(), members_.end(), slot);
  return at == members_.end() ? -1 : static_cast<int>(at - members_.begin());
}

ElasticDriver::Settling& ElasticDriver::settling() {
  if (!settling_) {
    settling_.emplace();
    settling_->deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(elastic_.settleS));
    settling_->failedAt = std::chrono::system_clock::now();
  }
  return *settling_;
}

void ElasticDriver::leftWorld(int slot, const Record& r) {
  if (!isMember(slot) || (r.generation < generation_ && !settling_)) return;
  if (joining_.contains(slot) && !settling_) {
    // No member failed: they did not come (their next commit is further off
    // than the rendezvous timeout). The joiner is let go, and the members
    // find a world without it, as when a joiner dies.
    stopWorker(slot);
    cancelJoin(slot,
               "worker " + std::to_string(slot) + " met no member within collective_timeout_s: " + r.message);
    return;
  }
  Settling& s = settling();
  s.reported[slot] = static_cast<uint64_t>(r.step);
  if (s.reportedCause.empty()) s.reportedCause = "rank " + std::to_string(rankOf(slot)) + ": " + r.message;
}

void ElasticDriver::reap() {
  for (int slot = 0; slot < nextSlot_; ++slot) {
    Rank& r = ranks_[slot];
    if (r.exited || r.pid <= 0 || waitpid(r.pid, &r.status, WNOHANG) != r.pid) continue;
    r.exited = true;
    const bool failed = WIFSIGNALED(r.status) || WEXITSTATUS(r.status) != 0;
    if (!isMember(slot) && hosts_) hosts_->release(slot);  // left out of the world: it ended
    if (!failed || !isMember(slot) || (settling_ && settling_->gone.contains(slot))) continue;
    if (joining_.contains(slot) && !settling_) {
      std::string why = describeExit(rankOf(slot), r, output_.errorOf(slot), output_.hostOf(slot));
      if (hosts_) why += blacklistHostOf(slot);
      cancelJoin(slot, why);
      continue;
    }
    joining_.erase(slot);  // a joiner that dies while a failure is settled is one more member gone
    Settling& s = settling();
    s.gone.insert(slot);
    s.reported.erase(slot);
    if (s.exitCause.empty())
      s.exitCause = describeExit(rankOf(slot), r, output_.errorOf(slot), output_.hostOf(slot));
  }
}

bool ElasticDriver::allMembersFinished() const {
  return std::all_of(members_.begin(), members_.end(),
                     [&](int slot) { return ranks_[slot].exited || joining_.contains(slot); });
}

void ElasticDriver::stopWorker(int slot) {
  if (!ranks_[slot].exited) kill(ranks_[slot].pid, SIGKILL);  // a reaped pid may be another's by now
  // A remote worker ends with its standard input, once its host hears again.
  if (ranks_[slot].lifeline >= 0) close(ranks_[slot].lifeline);
  ranks_[slot].lifeline = -1;
}

void ElasticDriver::cancelJoin(int slot, const std::string& why) {
  joining_.erase(slot);
  if (hosts_) hosts_->release(slot);
  std::vector<int> slots = members_;
  slots.erase(std::find(slots.begin(), slots.end(), slot));
  WorldChange change;
  change.kind = WorldChange::Kind::kJoinLost;
  change.reset = resets_;
  change.cause = why;
  change.failedAt = std::chrono::system_clock::now();
  enter(std::move(slots), false, change);
}

bool ElasticDriver::settled() const {
  const auto now = Clock::now();
  const bool waitedEnough = now > settling_->deadline;
  // A worker that said it started but never trained is still setting up
  // (reading its data, making its model): it reports once its rendezvous
  // fails, so it is waited for elastic_timeout_s longer before it counts as
  // hung. One that never said a word (its host unreachable) is not.
  const bool waitedForStarters =
      now > settling_->deadline +
                std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(elastic_.timeoutS));
  return std::all_of(members_.begin(), members_.end(), [&](int slot) {
    if (settling_->gone.contains(slot) || settling_->reported.contains(slot) || ranks_[slot].exited)
      return true;
    const char state = processState(ranks_[slot].pid);
    if (state == 'T' || state == 't') return true;
    const bool starting = !trained_.contains(slot) && !output_.hostOf(slot).empty();
    return starting ? waitedForStarters : waitedEnough;
  });
}

void ElasticDriver::stopHungMembers() {
  std::vector<std::pair<std::string, std::vector<int>>> byHost;  // in member order
  for (const int slot : members_) {
    // A reaped worker's pid may be another process's by now: never signalled.
    if (settling_->gone.contains(slot) || settling_->reported.contains(slot) || ranks_[slot].exited) continue;
    stopWorker(slot);
    settling_->gone.insert(slot);
    const std::string host = options_.launcher == "ssh" ? output_.hostOf(slot) : "";
    if (byHost.empty() || byHost.back().first != host || host.empty()) byHost.push_back({host, {}});
    byHost.back().second.push_back(rankOf(slot));
  }
  for (const auto& [host, ranks] : byHost) {
    settling_->hung +=
        std::string(settling_->hung.empty() ? "" : "; ") + namedRanks(ranks, host) +
        " never joined the collective (" +
        (options_.launcher == "ssh" ? "stopped, hung, or the host unreachable" : "stopped or hung") +
        "): the coordinator stopped " + (ranks.size() == 1 ? "it" : "them");
  }
}

std::string ElasticDriver::cause() const {
  const std::string& what = !settling_->exitCause.empty() ? settling_->exitCause
                            : !settling_->hung.empty()    ? settling_->hung
                                                          : settling_->reportedCause;
  return what + settling_->blacklisted;
}

std::optional<LaunchOutcome> ElasticDriver::settle() {
  if (!settled()) return std::nullopt;
  stopHungMembers();
  if (hosts_) blacklistFailedHosts();
  std::vector<int> survivors;
  for (const int slot : members_) {
    if (!settling_->reported.contains(slot) || ranks_[slot].exited) continue;
    // On a blacklisted host it leaves with its host, as horovodrun drops a
    // blacklisted host's every worker: it finds itself out of the world, and ends.
    if (hosts_ && !hosts_->usable(hosts_->hostOf(slot))) continue;
    survivors.push_back(slot);
  }
  const int minNp = std::max(1, elastic_.minNp);
  // Across hosts, free slots are filled at once: new workers join the
  // survivors' new world (a world below min_np waits for them).
  const int newcomers = hosts_ ? slotsToFill(static_cast<int>(survivors.size())) : 0;
  if (survivors.empty()) {
    // No member left to train, commit or ask for a worker ([fault] add
    // comes from a member): nothing can ever join, so no wait.
    return failed("no worker left and none can join (every member of the world of " +
                  std::to_string(members_.size()) + " is gone" +
                  (hosts_ ? ", or leaves with its blacklisted host" : "") + "), after " + cause());
  }
  if (static_cast<int>(survivors.size()) + newcomers < minNp) {
    // Nothing joins a local run by itself: the wait is Horovod's, for
    // hosts that discovery might still bring; said once, not kept silent.
    if (!settling_->belowMinSince) {
      settling_->belowMinSince = Clock::now();
      log(DTB_LOG_WARN, "elastic",
          std::to_string(survivors.size()) + " worker" + (survivors.size() == 1 ? "" : "s") +
              " left, below min_np = " + std::to_string(minNp) + ": waiting up to elastic_timeout_s = " +
              number(elastic_.timeoutS) + " s for one to join, after " + cause());
    }
    if (std::chrono::duration<double>(Clock::now() - *settling_->belowMinSince).count() < elastic_.timeoutS)
      return std::nullopt;
    return failed(std::to_string(survivors.size()) + " worker" + (survivors.size() == 1 ? "" : "s") +
                  " left, below min_np = " + std::to_string(minNp) + ", and none joined within " +
                  "elastic_timeout_s = " + number(elastic_.timeoutS) + " s, after " + cause());
  }
  if (std::optional<LaunchOutcome> end = pastResetLimit(cause())) return end;
  const uint64_t from = settling_->reported.at(survivors.front());
  if (std::optional<LaunchOutcome> end = withoutProgress(from)) return end;
  drainGone();
  WorldChange change;
  change.kind = WorldChange::Kind::kReset;
  change.reset = resets_;  // counted by pastResetLimit
  change.cause = cause();
  change.failedAt = settling_->failedAt;
  change.resumedStep = static_cast<int64_t>(from);
  if (settling_->belowMinSince) output_.heard();  // no rank could speak while it waited
  settling_.reset();
  for (const int slot : members_) {  // the gone, and those left out with their host
    if (hosts_ && std::find(survivors.begin(), survivors.end(), slot) == survivors.end())
      hosts_->release(slot);
  }
  startJoiners(std::move(survivors), newcomers, true, change);
  return std::nullopt;
}

std::optional<LaunchOutcome> ElasticDriver::pastResetLimit(const std::string& why) {
  ++resets_;
  if (elastic_.resetLimit == 0 || resets_ <= elastic_.resetLimit) return std::nullopt;
  return failed("reset_limit = " + std::to_string(elastic_.resetLimit) + " reached, then " + why);
}

std::optional<LaunchOutcome> ElasticDriver::withoutProgress(uint64_t from) {
  sameCommit_ = lastFrom_ == from ? sameCommit_ + 1 : 1;
  lastFrom_ = from;
  if (elastic_.resetLimit > 0 || sameCommit_ < kResetsWithoutProgress) return std::nullopt;
  return failed(std::to_string(kResetsWithoutProgress) + " resets in a row went back to the commit of step " +
                std::to_string(from) +
                " and failed again before the next (a rank slower than collective_timeout_s? reset_limit "
                "bounds this): " +
                cause());
}

void ElasticDriver::drainGone() {
  const auto until = Clock::now() + std::chrono::seconds(1);
  auto open = [&] {
    return std::any_of(settling_->gone.begin(), settling_->gone.end(),
                       [&](int slot) { return ranks_[slot].fd >= 0; });
  };
  while (open() && Clock::now() < until) readRanks(ranks_, output_);
}

LaunchOutcome ElasticDriver::failed(const std::string& why) {
  LaunchOutcome outcome{LaunchOutcome::Status::kFailed, "elastic: " + why};
  outcome.failedAt = settling_ ? settling_->failedAt : std::chrono::system_clock::now();
  return outcome;
}

std::optional<LaunchOutcome> ElasticDriver::grow() {
  growAsked_ = false;
  if (elastic_.maxNp > 0 && static_cast<int>(members_.size()) >= elastic_.maxNp) {
    log(DTB_LOG_WARN, "elastic",
        "[fault] add not honoured: the world has " + std::to_string(members_.size()) +
            " workers, max_np = " + std::to_string(elastic_.maxNp));
    return std::nullopt;
  }
  if (nextSlot_ >= static_cast<int>(ranks_.size())) {
    log(DTB_LOG_WARN, "elastic",
        "[fault] add not honoured: a run starts at most " + std::to_string(ranks_.size()) + " workers");
    return std::nullopt;
  }
  if (hosts_ && hosts_->freeSlots() == 0) {
    log(DTB_LOG_WARN, "elastic", "[fault] add not honoured: no free slot on " + hosts_->source());
    return std::nullopt;
  }
  if (std::optional<LaunchOutcome> end = pastResetLimit("a worker asked to join")) return end;
  WorldChange change;
  change.kind = WorldChange::Kind::kJoin;
  change.reset = resets_;
  change.failedAt = std::chrono::system_clock::now();
  startJoiners(members_, 1, false, change);
  return std::nullopt;
}

void ElasticDriver::startJoiners(std::vector<int> slots, int count, bool rollback, WorldChange& change) {
  std::vector<std::pair<int, std::optional<SlotPlace>>> joiners;
  for (int i = 0; i < count; ++i) {
    const int slot = nextSlot_++;
    joiners.push_back({slot, placeOf(slot, slots)});
    slots.push_back(slot);
    joining_.insert(slot);
  }
  if (hosts_ && !joiners.empty()) {  // where they start, for the world change's cause
    std::set<std::string> where;
    for (const auto& [slot, place] : joiners) where.insert(place ? place->host : "?");
    const std::string started = std::to_string(joiners.size()) + " worker" +
                                (joiners.size() == 1 ? "" : "s") + " started on " + joined(where);
    change.cause += (change.cause.empty() ? "" : "; ") + started;
  }
  enter(std::move(slots), rollback, change);
  for (const auto& [slot, place] : joiners) {
    if (std::string error = startRank(options_, slot, parent_, group_, ranks_, place); !error.empty()) {
      ranks_[slot].exited = true;
      // Across hosts its host is blacklisted: the next look for free slots
      // would otherwise try it again at once, and again.
      cancelJoin(slot, "worker " + std::to_string(slot) + " could not start: " + error +
                           (hosts_ ? blacklistHostOf(slot) : ""));
    }
  }
}

void ElasticDriver::enter(std::vector<int> slots, bool rollback, WorldChange& change) {
  change.before = static_cast<int>(members_.size());
  change.generation = ++generation_;
  writeElasticWorld(elastic_.storeDir, {generation_, slots, rollback});
  members_ = std::move(slots);
  change.after = static_cast<int>(members_.size());
  change.decidedAt = std::chrono::system_clock::now();
  onChange_(change);
}

std::string ElasticDriver::number(double v) {
  std::string text = std::to_string(v);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

LaunchOutcome launchElastic(const LaunchOptions& options, const ElasticOptions& elastic,
                            const RecordHandler& onRecord, const WorldChangeHandler& onChange,
                            const HostEventHandler& onHostEvent) {
  return ElasticDriver(options, elastic, onRecord, onChange, onHostEvent).run();
}

}  // namespace dtb::core
