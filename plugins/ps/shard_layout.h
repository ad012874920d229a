// How the parameters are split among the servers: all of them laid end to
// end in registration order (Psi elements) and cut into one contiguous
// shard per server, as equal as the element count allows; a parameter may
// straddle two shards. BytePS partitions its tensors the same way to keep
// the servers' load even.
#pragma once

#include <cstdint>
#include <vector>

#include "dtbench/model.h"

namespace dtb::strategy::ps {

// A run of one parameter's elements inside a shard.
struct Segment {
  uint32_t param;        // dtb_param_t.index
  uint64_t paramOffset;  // first element in the parameter
  uint64_t shardOffset;  // where it lies in the shard
  uint64_t count;
};

struct Shard {
  uint64_t elements = 0;
  std::vector<Segment> segments;
};

class ShardLayout {
 public:
  // `counts`: each parameter's elements, by index; `shards` >= 1.
  ShardLayout(const std::vector<uint64_t>& counts, int shards);

  int shards() const { return static_cast<int>(shards_.size()); }
  const Shard& shard(int s) const { return shards_[static_cast<size_t>(s)]; }
  uint64_t elements() const { return elements_; }

  // Copies the shard's elements of `part` of every parameter into `out`
  // (shard.elements floats), or back from `in`.
  void gather(int s, dtb_param_t* const* params, dtb_tensor_t dtb_param_t::*part, float* out) const;
  void scatter(int s, const float* in, dtb_param_t* const* params, dtb_tensor_t dtb_param_t::*part) const;

 private:
  std::vector<Shard> shards_;
  uint64_t elements_ = 0;
};

}  // namespace dtb::strategy::ps
