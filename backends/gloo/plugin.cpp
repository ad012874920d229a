// The Gloo backend plugin: dtbench's C ABI over gloo::Context on TCP.
#include "dtbench/plugin.hpp"

#include <memory>
#include <string>

#include "common/wiring.h"
#include "dtbench/backend.h"
#include "dtbench/export.hpp"
#include "gloo_communicator.h"
#include "gloo_settings.h"

namespace dtb::backend::gloo {
namespace {

constexpr dtb_param_spec_t kParams[] = {kAlgorithm.spec(), kMode.spec(), kSyncMaxBytes.spec()};

dtb_backend_plugin_v1_t makeDescriptor() {
  dtb_backend_plugin_v1_t d{};
  d.header = pluginHeader<dtb_backend_plugin_v1_t>(
      "gloo", "0.1.0", "Gloo collectives over TCP (CPU memory), rendezvous through a file store", kParams);
  d.capabilities = DTB_BACKEND_CAP_HOST_MEMORY | DTB_BACKEND_CAP_ALLREDUCE | DTB_BACKEND_CAP_REDUCE_SCATTER |
                   DTB_BACKEND_CAP_ALLGATHER | DTB_BACKEND_CAP_BROADCAST | DTB_BACKEND_CAP_BARRIER |
                   DTB_BACKEND_CAP_REBUILD | DTB_BACKEND_CAP_SEND_RECV;
  d.create = [](const dtb_host_t* host, const dtb_rendezvous_t* rdv, void** out) {
    return guard(host, [&] {
      GlooOptions options;
      options.algorithm = parseAlgorithm(kAlgorithm.get(host));
      options.mode = parseMode(kMode.get(host));
      options.syncMaxBytes = kSyncMaxBytes.get(host);
      *out = new GlooCommunicator(host, *rdv, options);
    });
  };
  wireCollectives<GlooCommunicator>(d);
  // Its own wait: it may run the collective itself.
  d.wait = [](void* comm, dtb_request_t request, int64_t timeoutMs) {
    return static_cast<GlooCommunicator*>(comm)->wait(request, timeoutMs);
  };
  d.send = [](void* comm, const dtb_tensor_t* buffer, int32_t peer, uint32_t tag, dtb_request_t* out) {
    auto* c = static_cast<GlooCommunicator*>(comm);
    return guard(c->host(), [&] { *out = toHandle(c->send(*buffer, peer, tag)); });
  };
  d.recv = [](void* comm, dtb_tensor_t* buffer, int32_t peer, uint32_t tag, dtb_request_t* out) {
    auto* c = static_cast<GlooCommunicator*>(comm);
    return guard(c->host(), [&] { *out = toHandle(c->recv(*buffer, peer, tag)); });
  };
  return d;
}

}  // namespace

DTB_EXPORT_BACKEND_PLUGIN(makeDescriptor())

}  // namespace dtb::backend::gloo
