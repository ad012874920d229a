// Who trains in an elastic run (recovery = "elastic", Horovod Elastic's
// way), generation by generation. The coordinator decides each new world —
// the survivors of a failure, or the members plus a worker that joins — and
// writes it to the run's store directory, where every worker waits for it:
// the one channel from the coordinator to its workers, and one that works on
// any host that shares the store directory. Generation 0 is the run as it
// started (ranks 0 .. world_size-1, no file); generation g meets under the
// rendezvous prefix <run prefix>-elastic<g>.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dtb::core {

struct ElasticWorld {
  int generation = 0;
  // Worker slots (the --rank each worker was started with) in rank order:
  // slots[r] trains as rank r of this generation.
  std::vector<int> slots;
  // A failure: every member goes back to its last commit before rank 0's
  // state is shared out. Else a join: the members go on from the commit
  // just made, and the new worker gets rank 0's state.
  bool rollback = false;

  int size() const { return static_cast<int>(slots.size()); }
  int rankOf(int slot) const;  // -1: not a member
};

// Writes generation `world.generation` whole (a temporary file renamed).
// Throws std::runtime_error naming the file.
void writeElasticWorld(const std::filesystem::path& storeDir, const ElasticWorld& world);

// Generation `generation`, or nullopt while it has not been written. Throws
// std::runtime_error naming the file when it cannot be read as a world.
std::optional<ElasticWorld> readElasticWorld(const std::filesystem::path& storeDir, int generation);

// The newest generation written so far (0 when none).
int newestElasticGeneration(const std::filesystem::path& storeDir);

// Worker `slot` is not in the newest world: the coordinator left it out
// (its host was removed by discovery, or blacklisted). Its work is done.
class LeftOutOfWorld : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Waits, polling, for at most `timeoutS` seconds for a generation from
// `from` on, and returns the newest: the world worker `slot` trains in next.
// Throws std::runtime_error saying what it waited for, or LeftOutOfWorld.
ElasticWorld waitForElasticWorld(const std::filesystem::path& storeDir, int from, double timeoutS, int slot);

// The rendezvous key prefix of generation `generation` of a run whose own is
// `runPrefix`.
std::string elasticPrefix(const std::string& runPrefix, int generation);

}  // namespace dtb::core
