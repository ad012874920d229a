// The Gloo backend plugin: dtbench's C ABI over gloo::Context on TCP.
#include "dtbench/plugin.hpp"

#include <memory>
#include <string>

#include "common/wiring.h"
#include "dtbench/backend.h"
#include "dtbench/export.hpp"
#include "gloo_communicator.h"

namespace dtb::backend::gloo {
namespace {

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "algorithm", DTB_PARAM_STRING, "auto",
     "All-reduce algorithm: auto lets Gloo choose (ring today); ring_chunked and halving_doubling use "
     "Gloo's legacy algorithm classes, set up anew for every call",
     0, 0, 0, "auto|ring|bcube|ring_chunked|halving_doubling"},
};

dtb_backend_plugin_v1_t makeDescriptor() {
  dtb_backend_plugin_v1_t d{};
  d.header = pluginHeader<dtb_backend_plugin_v1_t>(
      "gloo", "0.1.0", "Gloo collectives over TCP (CPU memory), rendezvous through a file store", kParams);
  d.capabilities = DTB_BACKEND_CAP_HOST_MEMORY | DTB_BACKEND_CAP_ALLREDUCE | DTB_BACKEND_CAP_REDUCE_SCATTER |
                   DTB_BACKEND_CAP_ALLGATHER | DTB_BACKEND_CAP_BROADCAST | DTB_BACKEND_CAP_BARRIER |
                   DTB_BACKEND_CAP_REBUILD;
  d.create = [](const dtb_host_t* host, const dtb_rendezvous_t* rdv, void** out) {
    return guard(host, [&] {
      const char* algorithm = nullptr;
      check(host->config_get_string(host->ctx, "algorithm", &algorithm), "algorithm");
      *out = new GlooCommunicator(host, *rdv, parseAlgorithm(algorithm));
    });
  };
  wireCollectives<GlooCommunicator>(d);
  return d;
}

}  // namespace

DTB_EXPORT_BACKEND_PLUGIN(makeDescriptor())

}  // namespace dtb::backend::gloo
