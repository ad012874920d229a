#include "elastic/elastic_launcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "elastic/elastic_world.h"
#include "launch/local_ranks.h"
#include "launch/rank_output.h"
#include "log/log.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

// A run can grow by one worker per add fault; room for a few.
constexpr int kSpareSlots = 4;
constexpr int kResetsWithoutProgress = 3;

// A failure being settled: who has left the broken world so far.
struct Settling {
  Clock::time_point deadline;
  std::chrono::system_clock::time_point failedAt;
  std::string exitCause;             // a member that died, as the run's error would read
  std::string reportedCause;         // the first member's failed collective
  std::map<int, uint64_t> reported;  // slot -> the step of its last commit
  std::set<int> gone;                // slots dead, or stopped as hung
  std::string hung;                  // what the coordinator stopped as hung
  std::optional<Clock::time_point> belowMinSince;
};

class ElasticDriver {
 public:
  ElasticDriver(const LaunchOptions& options, const ElasticOptions& elastic, const RecordHandler& onRecord,
                const WorldChangeHandler& onChange)
      : options_(options),
        elastic_(elastic),
        onChange_(onChange),
        ranks_(static_cast<size_t>(options.world + kSpareSlots)),
        output_(options.world + kSpareSlots, [this, &onRecord](int slot, const Record& r) {
          if (r.kind == Record::Kind::kReset) {
            leftWorld(slot, r);
          } else if (r.kind == Record::Kind::kGrow) {
            growAsked_ = true;
          } else {
            // Rank 0's first step in a new world: it formed, whoever joined is in.
            if (r.kind == Record::Kind::kEvent && r.eventRecord.kind == "recovered") joining_.clear();
            onRecord(slot, r);
          }
        }) {
    for (int s = 0; s < options.world; ++s) members_.push_back(s);
  }

  LaunchOutcome run() {
    for (int s = 0; s < options_.world; ++s) {
      if (std::string error = startRank(options_, s, parent_, group_, ranks_); !error.empty()) {
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

 private:
  LaunchOutcome watch() {
    for (;;) {
      readRanks(ranks_, output_);
      reap();
      if (growAsked_ && !settling_) {
        if (std::optional<LaunchOutcome> end = grow()) return *end;
      }
      if (settling_) {
        if (std::optional<LaunchOutcome> end = settle()) return *end;
      } else if (allMembersFinished()) {
        return {};
      }
      if (options_.interrupted && options_.interrupted->load()) {
        return {LaunchOutcome::Status::kInterrupted, "stopped by the user (Ctrl-C)"};
      }
      if (output_.secondsSilent() > options_.silenceLimitS && !(settling_ && settling_->belowMinSince)) {
        return {LaunchOutcome::Status::kFailed,
                "no rank reported anything for " + std::to_string(static_cast<int>(output_.secondsSilent())) +
                    " s (a hang?); every rank was stopped"};
      }
    }
  }

  int rankOf(int slot) const {
    const auto at = std::find(members_.begin(), members_.end(), slot);
    return at == members_.end() ? -1 : static_cast<int>(at - members_.begin());
  }

  bool isMember(int slot) const { return rankOf(slot) >= 0; }

  Settling& settling() {
    if (!settling_) {
      settling_.emplace();
      settling_->deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                               std::chrono::duration<double>(elastic_.settleS));
      settling_->failedAt = std::chrono::system_clock::now();
    }
    return *settling_;
  }

  // A member's collective failed: it has left its world and waits. A
  // report from a world already replaced (the worker then tries the newest
  // one, and reports again if that fails) or from a worker no longer a
  // member (stopped as hung after it wrote) is no news.
  void leftWorld(int slot, const Record& r) {
    if (!isMember(slot) || r.generation < generation_) return;
    Settling& s = settling();
    s.reported[slot] = static_cast<uint64_t>(r.step);
    if (s.reportedCause.empty()) s.reportedCause = "rank " + std::to_string(rankOf(slot)) + ": " + r.message;
  }

  // Ranks that ended: all well, or a member lost.
  void reap() {
    for (int slot = 0; slot < nextSlot_; ++slot) {
      Rank& r = ranks_[slot];
      if (r.exited || r.pid <= 0 || waitpid(r.pid, &r.status, WNOHANG) != r.pid) continue;
      r.exited = true;
      const bool failed = WIFSIGNALED(r.status) || WEXITSTATUS(r.status) != 0;
      if (!failed || !isMember(slot) || (settling_ && settling_->gone.contains(slot))) continue;
      if (joining_.contains(slot)) {
        cancelJoin(slot, describeExit(rankOf(slot), r, output_.errorOf(slot), output_.hostOf(slot)));
        continue;
      }
      Settling& s = settling();
      s.gone.insert(slot);
      s.reported.erase(slot);
      if (s.exitCause.empty())
        s.exitCause = describeExit(rankOf(slot), r, output_.errorOf(slot), output_.hostOf(slot));
    }
  }

  // Every member that trains ended (a worker still joining does not count:
  // the run ended before it got in).
  bool allMembersFinished() const {
    return std::all_of(members_.begin(), members_.end(),
                       [&](int slot) { return ranks_[slot].exited || joining_.contains(slot); });
  }

  // A worker that was to join died before it got in: the members, at their
  // next commit or in their rendezvous with it, find a world without it.
  void cancelJoin(int slot, const std::string& why) {
    joining_.erase(slot);
    std::vector<int> slots = members_;
    slots.erase(std::find(slots.begin(), slots.end(), slot));
    WorldChange change;
    change.reset = resets_;
    change.cause = why;
    change.failedAt = std::chrono::system_clock::now();
    enter(std::move(slots), false, change);
  }

  // Every member has left the broken world, died, or is stopped; or the
  // survivors' collectives have had their time.
  bool settled() const {
    const bool waitedEnough = Clock::now() > settling_->deadline;
    return std::all_of(members_.begin(), members_.end(), [&](int slot) {
      if (settling_->gone.contains(slot) || settling_->reported.contains(slot) || ranks_[slot].exited)
        return true;
      const char state = processState(ranks_[slot].pid);
      return waitedEnough || state == 'T' || state == 't';
    });
  }

  // Stops, as hung, every member that neither left the world nor died.
  // The ssh launcher's are named by the host they reported (a lost host's
  // ranks fall silent together): "ranks 2, 3 on h1 never joined ...".
  void stopHungMembers() {
    std::vector<std::pair<std::string, std::vector<int>>> byHost;  // in member order
    for (const int slot : members_) {
      // A reaped worker's pid may be another process's by now: never signalled.
      if (settling_->gone.contains(slot) || settling_->reported.contains(slot) || ranks_[slot].exited)
        continue;
      kill(ranks_[slot].pid, SIGKILL);
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

  std::string cause() const {
    if (!settling_->exitCause.empty()) return settling_->exitCause;
    if (!settling_->hung.empty()) return settling_->hung;
    return settling_->reportedCause;
  }

  // Decides the next world once the failure has settled; the run's end when
  // it cannot go on.
  std::optional<LaunchOutcome> settle() {
    if (!settled()) return std::nullopt;
    stopHungMembers();
    std::vector<int> survivors;
    for (const int slot : members_) {
      if (settling_->reported.contains(slot) && !ranks_[slot].exited) survivors.push_back(slot);
    }
    const int minNp = std::max(1, elastic_.minNp);
    if (survivors.empty()) {
      // No member left to train, commit or ask for a worker ([fault] add
      // comes from a member): nothing can ever join, so no wait.
      return failed("no worker left and none can join (every member of the world of " +
                    std::to_string(members_.size()) + " is gone), after " + cause());
    }
    if (static_cast<int>(survivors.size()) < minNp) {
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
    change.failure = true;
    change.reset = resets_;  // counted by pastResetLimit
    change.cause = cause();
    change.failedAt = settling_->failedAt;
    change.resumedStep = static_cast<int64_t>(from);
    settling_.reset();
    enter(std::move(survivors), true, change);
    return std::nullopt;
  }

  // Counts one more reset — every new world, smaller or larger, as
  // horovodrun's --reset-limit counts them — and ends the run past the limit.
  std::optional<LaunchOutcome> pastResetLimit(const std::string& why) {
    ++resets_;
    if (elastic_.resetLimit == 0 || resets_ <= elastic_.resetLimit) return std::nullopt;
    return failed("reset_limit = " + std::to_string(elastic_.resetLimit) + " reached, then " + why);
  }

  // Without a reset_limit, a world that fails again before its next commit,
  // time after time (a rank slower than collective_timeout_s, which every
  // new world keeps), would never end: the third reset in a row back to the
  // same commit ends the run.
  std::optional<LaunchOutcome> withoutProgress(uint64_t from) {
    sameCommit_ = lastFrom_ == from ? sameCommit_ + 1 : 1;
    lastFrom_ = from;
    if (elastic_.resetLimit > 0 || sameCommit_ < kResetsWithoutProgress) return std::nullopt;
    return failed(std::to_string(kResetsWithoutProgress) +
                  " resets in a row went back to the commit of step " + std::to_string(from) +
                  " and failed again before the next (a rank slower than collective_timeout_s? reset_limit "
                  "bounds this): " +
                  cause());
  }

  // What the departed wrote before they died is stored before the new
  // world's rows replace the steps past the commit.
  void drainGone() {
    const auto until = Clock::now() + std::chrono::seconds(1);
    auto open = [&] {
      return std::any_of(settling_->gone.begin(), settling_->gone.end(),
                         [&](int slot) { return ranks_[slot].fd >= 0; });
    };
    while (open() && Clock::now() < until) readRanks(ranks_, output_);
  }

  LaunchOutcome failed(const std::string& why) {
    LaunchOutcome outcome{LaunchOutcome::Status::kFailed, "elastic: " + why};
    outcome.failedAt = settling_ ? settling_->failedAt : std::chrono::system_clock::now();
    return outcome;
  }

  // [fault] add: one more worker, which the members let in at their next
  // commit (no rollback).
  std::optional<LaunchOutcome> grow() {
    growAsked_ = false;
    if (elastic_.maxNp > 0 && static_cast<int>(members_.size()) >= elastic_.maxNp) {
      log(DTB_LOG_WARN, "elastic",
          "[fault] add not honoured: the world has " + std::to_string(members_.size()) +
              " workers, max_np = " + std::to_string(elastic_.maxNp));
      return std::nullopt;
    }
    if (nextSlot_ >= static_cast<int>(ranks_.size())) {
      log(DTB_LOG_WARN, "elastic",
          "[fault] add not honoured: a run adds at most " + std::to_string(kSpareSlots) + " workers");
      return std::nullopt;
    }
    if (std::optional<LaunchOutcome> end = pastResetLimit("a worker asked to join")) return end;
    const int slot = nextSlot_++;
    std::vector<int> slots = members_;
    slots.push_back(slot);
    WorldChange change;
    change.reset = resets_;
    change.failedAt = std::chrono::system_clock::now();
    enter(std::move(slots), false, change);
    joining_.insert(slot);
    // Started once its world is written: it reads it first thing.
    if (std::string error = startRank(options_, slot, parent_, group_, ranks_); !error.empty()) {
      ranks_[slot].exited = true;
      cancelJoin(slot, "worker " + std::to_string(slot) + " could not start: " + error);
    }
    return std::nullopt;
  }

  void enter(std::vector<int> slots, bool rollback, WorldChange& change) {
    change.before = static_cast<int>(members_.size());
    change.generation = ++generation_;
    writeElasticWorld(elastic_.storeDir, {generation_, slots, rollback});
    members_ = std::move(slots);
    change.after = static_cast<int>(members_.size());
    change.decidedAt = std::chrono::system_clock::now();
    onChange_(change);
  }

  static std::string number(double v) {
    std::string text = std::to_string(v);
    text.erase(text.find_last_not_of('0') + 1);
    if (!text.empty() && text.back() == '.') text.pop_back();
    return text;
  }

  const LaunchOptions& options_;
  const ElasticOptions elastic_;
  const WorldChangeHandler& onChange_;
  std::vector<Rank> ranks_;  // by slot
  RankOutput output_;
  std::vector<int> members_;  // slots of the current world, in rank order
  int generation_ = 0;
  int nextSlot_ = 0;
  int resets_ = 0;
  uint64_t lastFrom_ = UINT64_MAX;  // the commit the last reset went back to
  int sameCommit_ = 0;              // resets in a row back to it
  std::set<int> joining_;           // started to join, not yet in a world that trained
  bool growAsked_ = false;
  std::optional<Settling> settling_;
  pid_t group_ = 0;
  const pid_t parent_ = getpid();
};

}  // namespace

LaunchOutcome launchElastic(const LaunchOptions& options, const ElasticOptions& elastic,
                            const RecordHandler& onRecord, const WorldChangeHandler& onChange) {
  return ElasticDriver(options, elastic, onRecord, onChange).run();
}

}  // namespace dtb::core
