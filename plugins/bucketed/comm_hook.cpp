#include "comm_hook.h"

namespace dtb::strategy::bucketed {

std::unique_ptr<CommHook> makeCommHook(const std::string& name, const dtb_host_t* host, int world,
                                       const PowerSgdOptions& powerSgd) {
  if (name == "fp16" || name == "bf16") return makeHalfCompressHook(host, world, name == "bf16");
  if (name == "powersgd") return makePowerSgdHook(host, world, powerSgd);
  return makeAllreduceHook(host, world);
}

}  // namespace dtb::strategy::bucketed
