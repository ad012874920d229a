// Rank 0's watch over negotiation (Horovod's StallInspector): a tensor that
// some ranks submitted and others have not, for longer than the stall
// timeout, fails the step with the ranks that never submitted it — instead
// of every rank waiting for ever.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dtb::strategy::fusion {

class StallInspector {
 public:
  StallInspector(double timeoutS, int world) : timeoutS_(timeoutS), world_(world) {}

  // After a negotiation round at `nowNs`: `ready` completed; `waiting` (the
  // message table's) still lack some ranks. The message for the first
  // tensor waiting longer than the timeout ("'name' was submitted by 1 of 2
  // ranks; rank(s) 1 never submitted it ..."), or nothing.
  std::optional<std::string> inspect(const std::vector<uint32_t>& ready,
                                     const std::map<uint32_t, std::set<int>>& waiting, int64_t nowNs,
                                     const std::vector<std::string>& names);

 private:
  double timeoutS_;
  int world_;
  std::map<uint32_t, int64_t> waitingSinceNs_;  // first report of a waiting tensor
};

}  // namespace dtb::strategy::fusion
