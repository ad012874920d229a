// Rank 0's side of Horovod's negotiation (the controller's message table):
// each cycle every rank reports the tensors that became ready since its
// last report and that the response cache does not cover; a tensor is ready
// to reduce once every rank has reported it, and responses come out in the
// order tensors completed.
// Also the response cache: once negotiated, a tensor gets a bit position,
// the same on every rank, and later steps agree on it with one bitwise-AND
// all-reduce instead of a round trip through rank 0.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace dtb::strategy::fusion {

class MessageTable {
 public:
  explicit MessageTable(int world) : world_(world) {}

  // `reported[r]`: the tensors rank r reported this cycle. Returns those now
  // reported by all ranks, in the order they completed (within one cycle:
  // by rank, then by each rank's list).
  std::vector<uint32_t> add(const std::vector<std::vector<uint32_t>>& reported);
  // Tensors some rank reported that are still waiting for others, with the
  // ranks that reported them (for stall messages).
  const std::map<uint32_t, std::set<int>>& waiting() const { return waiting_; }

 private:
  int world_;
  std::map<uint32_t, std::set<int>> waiting_;
};

class ResponseCache {
 public:
  explicit ResponseCache(uint32_t capacity) : capacity_(capacity) {}

  // Adds a negotiated tensor (in the same order on every rank, so positions
  // agree); ignored when full or already there.
  void put(uint32_t tensor);
  bool contains(uint32_t tensor) const { return position_.count(tensor) != 0; }
  // 32-bit words for `capacity` bits.
  uint32_t words() const { return (capacity_ + 31) / 32; }
  // Sets the bits of the cached tensors among `ready`.
  void setBits(const std::vector<uint32_t>& ready, std::vector<int32_t>& bits) const;
  // The cached tensors whose bit is set, in cache order.
  std::vector<uint32_t> tensorsWithBits(const std::vector<int32_t>& bits) const;

 private:
  uint32_t capacity_;
  std::map<uint32_t, uint32_t> position_;
  std::vector<uint32_t> tensors_;  // by position
};

// What one rank has asked rank 0 to negotiate in this step. A tensor is
// asked for once, as Horovod's tensor queue hands each request to the
// controller once: asking again in every cycle until it is reduced would
// count a rank twice if the tensor completes earlier in the same cycle (the
// table then holds a stale request that completes the tensor in the next
// step before this rank has its gradient: ranks reduce different tensors).
class RequestLog {
 public:
  explicit RequestLog(size_t tensors) : asked_(tensors, false) {}
  // The tensors of `pending` to ask for now: neither cached nor asked for
  // before. They count as asked from now on.
  std::vector<uint32_t> take(const std::vector<uint32_t>& pending, const ResponseCache& cache);
  // `tensor` is reduced: it may be asked for again (the next step).
  void reduced(uint32_t tensor) { asked_[tensor] = false; }
  void clear() { asked_.assign(asked_.size(), false); }

 private:
  std::vector<bool> asked_;
};

}  // namespace dtb::strategy::fusion
