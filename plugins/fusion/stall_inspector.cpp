#include "stall_inspector.h"

namespace dtb::strategy::fusion {

std::optional<std::string> StallInspector::inspect(const std::vector<uint32_t>& ready,
                                                   const std::map<uint32_t, std::set<int>>& waiting,
                                                   int64_t nowNs, const std::vector<std::string>& names) {
  for (uint32_t t : ready) waitingSinceNs_.erase(t);
  std::optional<std::string> stalled;
  for (const auto& [t, ranks] : waiting) {
    const int64_t since = waitingSinceNs_.emplace(t, nowNs).first->second;
    if ((nowNs - since) / 1e9 < timeoutS_ || stalled) continue;
    std::string missing;
    for (int r = 0; r < world_; ++r) {
      if (!ranks.count(r)) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    }
    stalled = "fusion: stalled for " + std::to_string(timeoutS_) + " s: tensor '" + names[t] +
              "' was submitted by " + std::to_string(ranks.size()) + " of " + std::to_string(world_) +
              " ranks; rank(s) " + missing +
              " never submitted it (do all ranks compute the same parameters?)";
  }
  return stalled;
}

}  // namespace dtb::strategy::fusion
