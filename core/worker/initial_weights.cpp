#include "worker/initial_weights.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/cuda_memory.h"
#include "host/blocking_collective.h"

namespace dtb::core {

double weightChecksum(const dtb_param_t* const* params, uint32_t count) {
  double checksum = 0;
  std::vector<float> copy;  // of a parameter on a GPU
  for (uint32_t i = 0; i < count; ++i) {
    const dtb_tensor_t& value = params[i]->value;
    const auto* v = static_cast<const float*>(value.data);
    if (value.device.type == DTB_DEVICE_CUDA) {
      copy.resize(value.count);
      copyFromGpu(copy.data(), value.data, value.count * sizeof(float), value.device.index);
      v = copy.data();
    }
    for (uint64_t k = 0; k < value.count; ++k) checksum += v[k] * double(k % 7 + 1);
  }
  return checksum;
}

void syncInitialWeights(Communicator& comm, dtb_param_t* const* params, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    runCollective(
        comm, [&](dtb_request_t* r, std::string* e) { return comm.broadcast(&params[i]->value, 0, r, e); });
  }
  const double checksum = weightChecksum(params, count);
  std::vector<double> low = {checksum}, high = {checksum};
  allreduceDoubles(comm, low, DTB_REDUCE_MIN);
  allreduceDoubles(comm, high, DTB_REDUCE_MAX);
  if (low[0] != high[0]) throw std::runtime_error("ranks hold different initial weights after the broadcast");
}

}  // namespace dtb::core
