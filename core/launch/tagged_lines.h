// The job launcher's stdout taken back apart into each rank's own lines.
// srun --label prefixes every whole line ("  3: text"). mpirun --tag-output
// tags each chunk it forwards ("[1,3]<stdout>:text"), and a chunk may end
// inside a line: Open MPI reads a rank's output from a pseudo-terminal, as
// much as is there, so a record can arrive in two chunks, the second tagged
// again, possibly after other ranks' chunks:
//   [1,0]<stdout>:step 0 90 2 ... co[1,0]<stdout>:mm_exposed_s=4.3e-07 ...
// Read as whole lines, such records were lost (a few steps in most runs, now
// and then an epoch); TaggedLines joins a rank's chunks until its newline.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dtb::core {

// One whole line of the launcher's output split into (rank, text):
// "[1,3]<stdout>:text" (mpirun --tag-output) or "3: text" (srun --label).
std::optional<std::pair<int, std::string>> splitTaggedLine(const std::string& line);

class TaggedLines {
 public:
  explicit TaggedLines(int world) : partial_(static_cast<size_t>(world > 0 ? world : 0)) {}

  // One line of the launcher's stdout, without its newline: the ranks' lines
  // it completes, in order (none while a rank's line is still arriving).
  // Lines of ranks outside the world, and untagged ones, are dropped; so is
  // a rank's unfinished line past kMaxLineBytes (no record is that long).
  std::vector<std::pair<int, std::string>> take(const std::string& line);

  // Once the job ended: each rank's line that never got its newline (a rank
  // cut off while writing), for the log.
  std::vector<std::pair<int, std::string>> unfinished() const;

  static constexpr size_t kMaxLineBytes = size_t{1} << 20;

 private:
  std::vector<std::string> partial_;  // by rank: a line begun in an earlier chunk
};

}  // namespace dtb::core
