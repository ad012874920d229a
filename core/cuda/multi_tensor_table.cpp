#include "cuda/multi_tensor_table.h"

namespace dtb::core {

std::vector<MultiTensorTable> packMultiTensorTables(const std::vector<MultiTensorSlice>& slices) {
  std::vector<MultiTensorTable> tables;
  uint64_t elements = 0;
  for (const MultiTensorSlice& s : slices) {
    if (s.count == 0) continue;
    if (tables.empty() || tables.back().size == MultiTensorTable::kCapacity) {
      tables.emplace_back();
      elements = 0;
    }
    MultiTensorTable& t = tables.back();
    const uint32_t k = t.size++;
    elements += s.count;
    t.end[k] = elements;
    t.param[k] = s.param;
    t.grad[k] = s.grad;
    t.state[k] = s.state;
    t.weightDecay[k] = s.weightDecay;
  }
  return tables;
}

}  // namespace dtb::core
