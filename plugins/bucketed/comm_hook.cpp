#include "comm_hook.h"

namespace dtb::strategy::bucketed {

std::unique_ptr<CommHook> makeCommHook(const std::string& name, const dtb_host_t* host, int world,
                                       const PowerSgdOptions& powerSgd, const dtb_device_t& device,
                                       dtb_dtype_t dtype) {
  // PowerSGD computes on the bucket's values in host code; the half hooks
  // cast on a GPU through the host's tensor_copy, which takes half
  // precisions since ABI 1.10.
  if (name == "powersgd" && device.type != DTB_DEVICE_HOST)
    throw Error(DTB_STATUS_UNSUPPORTED,
                "bucketed: comm_hook = \"powersgd\" works on host tensors only so far; "
                "this model's are on a GPU (comm_hook = \"allreduce\", \"fp16\" or "
                "\"bf16\" work on both)");
  if ((name == "fp16" || name == "bf16") && device.type != DTB_DEVICE_HOST &&
      host->abi_version < DTB_ABI_MAKE_VERSION(1, 10))
    throw Error(DTB_STATUS_UNSUPPORTED, "bucketed: comm_hook = \"" + name +
                                            "\" on a GPU needs a host of ABI 1.10 (tensor_copy in half "
                                            "precision); use a newer dtbench");
  // They compress f32 buckets; a mixed-precision run's are half already.
  if (name != "allreduce" && dtype != DTB_DTYPE_F32)
    throw Error(DTB_STATUS_UNSUPPORTED, "bucketed: comm_hook = \"" + name +
                                            "\" compresses f32 buckets, and this "
                                            "run's gradients are " +
                                            dtypeName(dtype) +
                                            " already (precision); comm_hook = \"allreduce\" sends them as "
                                            "they are");
  if (name == "fp16" || name == "bf16") return makeHalfCompressHook(host, world, name == "bf16", device);
  if (name == "powersgd") return makePowerSgdHook(host, world, powerSgd);
  return makeAllreduceHook(host, world);
}

}  // namespace dtb::strategy::bucketed
