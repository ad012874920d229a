#include "negotiation.h"

namespace dtb::strategy::fusion {

std::vector<uint32_t> MessageTable::add(const std::vector<std::vector<uint32_t>>& reported) {
  std::vector<uint32_t> complete;
  for (int rank = 0; rank < static_cast<int>(reported.size()); ++rank) {
    for (uint32_t tensor : reported[rank]) {
      std::set<int>& ranks = waiting_[tensor];
      ranks.insert(rank);
      if (static_cast<int>(ranks.size()) == world_) {
        complete.push_back(tensor);
        waiting_.erase(tensor);
      }
    }
  }
  return complete;
}

void ResponseCache::put(uint32_t tensor) {
  if (tensors_.size() >= capacity_ || contains(tensor)) return;
  position_[tensor] = static_cast<uint32_t>(tensors_.size());
  tensors_.push_back(tensor);
}

void ResponseCache::setBits(const std::vector<uint32_t>& ready, std::vector<int32_t>& bits) const {
  for (uint32_t tensor : ready) {
    auto it = position_.find(tensor);
    if (it != position_.end()) bits[it->second / 32] |= static_cast<int32_t>(1u << (it->second % 32));
  }
}

std::vector<uint32_t> ResponseCache::tensorsWithBits(const std::vector<int32_t>& bits) const {
  std::vector<uint32_t> out;
  for (uint32_t p = 0; p < tensors_.size(); ++p) {
    if (static_cast<uint32_t>(bits[p / 32]) & (1u << (p % 32))) out.push_back(tensors_[p]);
  }
  return out;
}

std::vector<uint32_t> RequestLog::take(const std::vector<uint32_t>& pending, const ResponseCache& cache) {
  std::vector<uint32_t> ask;
  for (uint32_t tensor : pending) {
    if (cache.contains(tensor) || asked_[tensor]) continue;
    asked_[tensor] = true;
    ask.push_back(tensor);
  }
  return ask;
}

}  // namespace dtb::strategy::fusion
