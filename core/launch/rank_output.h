// What the ranks of one run said, as the launchers read it: record lines cut
// out of each rank's byte stream, the errors they reported, and when anything
// last arrived (a run that goes silent is a hang). Shared by the local
// launcher (one pipe per rank) and the job launcher (mpirun/srun's tagged
// output).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "protocol/record_channel.h"

namespace dtb::core {

// "rank 2", "ranks 2, 3", "ranks 2, 3 on h1": ranks, and the host they
// share ("" for none named), as the launchers name ranks in errors.
std::string namedRanks(const std::vector<int>& ranks, const std::string& host);

class RankOutput {
 public:
  using OnRecord = std::function<void(int rank, const Record&)>;

  RankOutput(int world, OnRecord onRecord);

  // Bytes from rank `rank`'s record stream; complete lines become records.
  void feed(int rank, const char* data, size_t size);
  // One complete line from rank `rank`.
  void line(int rank, const std::string& text);

  const std::string& errorOf(int rank) const { return errors_[rank]; }
  // The first error a rank raised itself, and the first from a failed
  // collective (most likely a peer's fault); "" when none. Each is prefixed
  // "rank N: ".
  const std::string& firstOwnError() const { return firstOwnError_; }
  const std::string& firstPeerError() const { return firstPeerError_; }
  double secondsSilent() const;
  // Starts the silence clock again: after a wait in which no rank could speak.
  void heard() { lastRecord_ = std::chrono::steady_clock::now(); }
  // The ranks that reported neither an error nor their end, by the host
  // each said it runs on: "ranks 2, 3 on h1", or "" when every rank spoke.
  // After a failed collective these are the ones the others waited for —
  // hung, or on a host the coordinator can no longer hear.
  std::string silentRanks() const;
  // How many ranks reported an error or their end.
  int ranksHeardFrom() const;
  // The host rank (slot) `rank` said it runs on; "" before its host record.
  const std::string& hostOf(int rank) const { return hosts_[static_cast<size_t>(rank)]; }

 private:
  OnRecord onRecord_;
  std::vector<std::string> pending_;  // partial lines
  std::vector<std::string> errors_;
  std::vector<std::string> hosts_;  // from each rank's host record
  std::vector<bool> done_;
  std::string firstOwnError_, firstPeerError_;
  std::chrono::steady_clock::time_point lastRecord_;
};

}  // namespace dtb::core
