#include "shard_layout.h"

#include <algorithm>
#include <cstring>

namespace dtb::strategy::ps {

ShardLayout::ShardLayout(const std::vector<uint64_t>& counts, int shards)
    : shards_(static_cast<size_t>(shards)) {
  for (uint64_t c : counts) elements_ += c;
  // Shard s holds elements [s * total / S, (s + 1) * total / S).
  auto boundary = [&](int s) { return elements_ * static_cast<uint64_t>(s) / static_cast<uint64_t>(shards); };
  uint64_t paramStart = 0;
  for (uint32_t p = 0; p < counts.size(); ++p) {
    const uint64_t paramEnd = paramStart + counts[p];
    for (int s = 0; s < shards; ++s) {
      const uint64_t begin = std::max(paramStart, boundary(s)), end = std::min(paramEnd, boundary(s + 1));
      if (begin >= end) continue;
      Shard& shard = shards_[static_cast<size_t>(s)];
      shard.segments.push_back({p, begin - paramStart, begin - boundary(s), end - begin});
      shard.elements += end - begin;
    }
    paramStart = paramEnd;
  }
}

void ShardLayout::gather(int s, dtb_param_t* const* params, dtb_tensor_t dtb_param_t::*part,
                         float* out) const {
  for (const Segment& g : shard(s).segments) {
    const auto* from = static_cast<const float*>((params[g.param]->*part).data) + g.paramOffset;
    std::memcpy(out + g.shardOffset, from, g.count * sizeof(float));
  }
}

void ShardLayout::scatter(int s, const float* in, dtb_param_t* const* params,
                          dtb_tensor_t dtb_param_t::*part) const {
  for (const Segment& g : shard(s).segments) {
    auto* to = static_cast<float*>((params[g.param]->*part).data) + g.paramOffset;
    std::memcpy(to, in + g.shardOffset, g.count * sizeof(float));
  }
}

}  // namespace dtb::strategy::ps
