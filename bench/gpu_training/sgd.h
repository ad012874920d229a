// Momentum SGD on GPU tensors, launched on the default stream: the
// benchmark's optimizer until the strategies run theirs on the device.
#pragma once

#include <cstdint>

namespace dtb::bench {

bool sgdStep(float* w, const float* g, float* b, uint64_t n, float lr, float momentum, float decay);

}  // namespace dtb::bench
