// The elastic launcher's driver (elastic_launcher.h), Horovod Elastic's
// driver: one object a run, holding its workers by slot, the current world,
// a failure being settled, the workers joining, and across hosts the hosts
// (elastic_hosts.h). Its failures and joins are in elastic_launcher.cpp,
// its hosts in elastic_driver_hosts.cpp.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "elastic/elastic_hosts.h"
#include "elastic/elastic_launcher.h"
#include "elastic/local_places.h"
#include "launch/local_ranks.h"
#include "launch/rank_output.h"

namespace dtb::core {

class ElasticDriver {
 public:
  using Clock = std::chrono::steady_clock;

  ElasticDriver(const LaunchOptions& options, const ElasticOptions& elastic, const RecordHandler& onRecord,
                const WorldChangeHandler& onChange, const HostEventHandler& onHostEvent);

  // Starts the first world's workers and watches the run to its end.
  LaunchOutcome run();

 private:
  // A failure being settled: who has left the broken world so far.
  struct Settling {
    Clock::time_point deadline;
    std::chrono::system_clock::time_point failedAt;
    std::string exitCause;             // a member that died, as the run's error would read
    std::string reportedCause;         // the first member's failed collective
    std::map<int, uint64_t> reported;  // slot -> the step of its last commit
    std::set<int> gone;                // slots dead, or stopped as hung
    std::string hung;                  // what the coordinator stopped as hung
    std::string blacklisted;           // across hosts: the hosts blacklisted for it
    std::optional<Clock::time_point> belowMinSince;
  };

  // Reads the workers, follows failures, joins and hosts until the members
  // finish, the run cannot go on, or the user stops it.
  LaunchOutcome watch();

  // Worker `slot`'s rank in the current world; -1: not a member.
  int rankOf(int slot) const;

  bool isMember(int slot) const { return rankOf(slot) >= 0; }

  // The failure being settled; begun (its deadline set) on first use.
  Settling& settling();

  // A member's collective failed: it has left its world and waits. A
  // report from a worker no longer a member (stopped as hung after it
  // wrote) is no news, nor is one from a world already replaced (the worker
  // then tries the newest one, and reports again if that fails) — unless a
  // failure is being settled: then it says the worker lives and comes to
  // the next world, which need not wait for its second timeout (a member
  // that dies while a worker joins breaks both the old world and the new).
  void leftWorld(int slot, const Record& r);

  // Ranks that ended: all well, or a member lost.
  void reap();

  // Every member that trains ended (a worker still joining does not count:
  // the run ended before it got in).
  bool allMembersFinished() const;

  // A worker that was to join died before it got in, or met no member:
  // the members, at their next commit or in their rendezvous with it, find
  // a world without it.
  void cancelJoin(int slot, const std::string& why);

  // SIGKILL to worker `slot` (unless reaped), and its remote lifeline closed.
  void stopWorker(int slot);

  // Every member has left the broken world, died, or is stopped; or the
  // survivors' collectives have had their time.
  bool settled() const;

  // Stops, as hung, every member that neither left the world nor died.
  // The ssh launcher's are named by the host they reported (a lost host's
  // ranks fall silent together): "ranks 2, 3 on h1 never joined ...".
  void stopHungMembers();

  // The failure being settled, as the run's error would read: a member's
  // death first, then the ones stopped as hung, then a failed collective;
  // with the hosts blacklisted for it.
  std::string cause() const;

  // Decides the next world once the failure has settled; the run's end when
  // it cannot go on.
  std::optional<LaunchOutcome> settle();

  // Counts one more reset — every new world, smaller or larger, as
  // horovodrun's --reset-limit counts them — and ends the run past the limit.
  std::optional<LaunchOutcome> pastResetLimit(const std::string& why);

  // Without a reset_limit, a world that fails again before its next commit,
  // time after time (a rank slower than collective_timeout_s, which every
  // new world keeps), would never end: the third reset in a row back to the
  // same commit ends the run.
  std::optional<LaunchOutcome> withoutProgress(uint64_t from);

  // What the departed wrote before they died is stored before the new
  // world's rows replace the steps past the commit.
  void drainGone();

  // The run's end: "elastic: " + why, when the failure was first seen.
  LaunchOutcome failed(const std::string& why);

  // [fault] add: one more worker, which the members let in at their next
  // commit (no rollback).
  std::optional<LaunchOutcome> grow();

  // The world `slots` plus `count` new workers, who join it: written, then
  // the new workers started (each reads it first thing); one that cannot
  // start is taken out again.
  void startJoiners(std::vector<int> slots, int count, bool rollback, WorldChange& change);

  // Writes the next world and tells the coordinator (onChange).
  void enter(std::vector<int> slots, bool rollback, WorldChange& change);

  // 0.5, 600: a number as a message shows it.
  static std::string number(double v);

  // ---- Across hosts (launcher = "ssh"), elastic_driver_hosts.cpp ----

  // The world's size to fill up to: max_np when set, else world_size.
  int targetSize() const { return elastic_.maxNp > 0 ? elastic_.maxNp : options_.world; }

  // How many new workers a world of `worldSize` takes now: free slots on
  // usable hosts, up to targetSize() and the slots left to start.
  int slotsToFill(int worldSize) const;

  // Across hosts, where worker `slot` starts; else the hostfile's order decides.
  // On one machine, its local rank (its GPU) for the run: the lowest that
  // none of `members`, the workers it trains beside, holds.
  std::optional<SlotPlace> placeOf(int slot, const std::vector<int>& members) {
    if (hosts_) return hosts_->place(slot);
    return SlotPlace{"", localPlaces_.place(slot, members), options_.world};
  }

  // The first discovery, then as many of world_size's workers as it has
  // slots for — at least min_np, waited for as horovodrun waits for them.
  // A first world smaller than world_size is written before anyone starts.
  std::optional<LaunchOutcome> firstWorldOnHosts();

  // Runs discovery when its interval is up; says what it changed.
  void pollHosts();

  // Between failures and joins: workers on hosts no longer usable leave at
  // the members' next commit; free slots are filled, the new workers
  // joining at it. One new world a call (a leave, then a fill, are two).
  std::optional<LaunchOutcome> followHosts();

  // The hosts of the workers a failure took: blacklisted, each once.
  void blacklistFailedHosts();

  // Blacklists worker `slot`'s host (unless it already is) and frees its
  // slot; what to add to the failure's cause: "; host X blacklisted for N s".
  std::string blacklistHostOf(int slot);

  // "h0, h1": for messages.
  static std::string joined(const std::set<std::string>& words);

  const LaunchOptions& options_;
  const ElasticOptions elastic_;
  const WorldChangeHandler& onChange_;
  const HostEventHandler& onHostEvent_;
  std::vector<Rank> ranks_;  // by slot
  RankOutput output_;
  std::vector<int> members_;  // slots of the current world, in rank order
  int generation_ = 0;
  int nextSlot_ = 0;
  int resets_ = 0;
  uint64_t lastFrom_ = UINT64_MAX;  // the commit the last reset went back to
  int sameCommit_ = 0;              // resets in a row back to it
  std::set<int> joining_;           // started to join, not yet in a world that trained
  std::set<int> trained_;           // workers that stepped in some world
  bool growAsked_ = false;
  std::optional<Settling> settling_;
  std::optional<ElasticHosts> hosts_;  // across hosts (launcher = "ssh")
  LocalPlaces localPlaces_;            // on one machine
  std::string discoveryError_;         // the last discovery's, said once
  pid_t group_ = 0;
  const pid_t parent_ = getpid();
};

}  // namespace dtb::core
