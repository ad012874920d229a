#include "comm_hook.h"

namespace dtb::strategy::bucketed {

std::unique_ptr<CommHook> makeCommHook(const std::string& name, const dtb_host_t* host, int world,
                                       const PowerSgdOptions& powerSgd, const dtb_device_t& device,
                                       dtb_dtype_t dtype) {
  // The compressing hooks compute on the bucket's values in host code.
  if (name != "allreduce" && device.type != DTB_DEVICE_HOST)
    throw Error(DTB_STATUS_UNSUPPORTED, "bucketed: comm_hook = \"" + name +
                                            "\" works on host tensors only so far; this model's are on a GPU "
                                            "(comm_hook = \"allreduce\" works on both)");
  // They compress f32 buckets; a mixed-precision run's are half already.
  if (name != "allreduce" && dtype != DTB_DTYPE_F32)
    throw Error(DTB_STATUS_UNSUPPORTED, "bucketed: comm_hook = \"" + name +
                                            "\" compresses f32 buckets, and this "
                                            "run's gradients are " +
                                            dtypeName(dtype) +
                                            " already (precision); comm_hook = \"allreduce\" sends them as "
                                            "they are");
  if (name == "fp16" || name == "bf16") return makeHalfCompressHook(host, world, name == "bf16");
  if (name == "powersgd") return makePowerSgdHook(host, world, powerSgd);
  return makeAllreduceHook(host, world);
}

}  // namespace dtb::strategy::bucketed
