#include "plugin/descriptor.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

namespace dtb::core {
namespace {

// The size of T up to and including `Last`: the ABI 1.0 size of a struct
// that later minors may extend. Spelled with the 1.0 last member so that
// adding members never raises the minimum.
#define DTB_SIZE_THROUGH(T, Last) (offsetof(T, Last) + sizeof(((T*)nullptr)->Last))

template <typename T>
T copyGrowable(const void* raw) {
  T out{};
  const auto* header = static_cast<const dtb_plugin_header_t*>(raw);
  std::memcpy(&out, raw, std::min<size_t>(header->struct_size, sizeof(T)));
  return out;
}

using Member = std::pair<const char*, bool>;  // name, present

void requireMembers(std::initializer_list<Member> members) {
  for (const auto& [name, present] : members) {
    if (!present) throw std::invalid_argument(std::string("required member '") + name + "' is NULL");
  }
}

void checkStrategy(const dtb_strategy_plugin_v1_t& d) {
  requireMembers({{"create", d.create != nullptr},
                  {"destroy", d.destroy != nullptr},
                  {"finish_backward", d.finish_backward != nullptr},
                  {"step", d.step != nullptr}});
  const int stateMembers = (d.state_size != nullptr) + (d.state_save != nullptr) + (d.state_load != nullptr);
  if (stateMembers != 0 && stateMembers != 3) {
    throw std::invalid_argument("state_size, state_save and state_load must be all set or all NULL");
  }
}

void checkBackend(const dtb_backend_plugin_v1_t& d) {
  requireMembers({{"create", d.create != nullptr},
                  {"destroy", d.destroy != nullptr},
                  {"allreduce", d.allreduce != nullptr},
                  {"reduce_scatter", d.reduce_scatter != nullptr},
                  {"allgather", d.allgather != nullptr},
                  {"broadcast", d.broadcast != nullptr},
                  {"barrier", d.barrier != nullptr},
                  {"test", d.test != nullptr},
                  {"wait", d.wait != nullptr},
                  {"request_free", d.request_free != nullptr}});
  if ((d.capabilities & (DTB_BACKEND_CAP_HOST_MEMORY | DTB_BACKEND_CAP_CUDA_MEMORY)) == 0) {
    throw std::invalid_argument("capabilities name no memory it accepts (HOST_MEMORY or CUDA_MEMORY)");
  }
}

void checkModel(const dtb_model_plugin_v1_t& d) {
  requireMembers({{"create", d.create != nullptr},
                  {"destroy", d.destroy != nullptr},
                  {"params", d.params != nullptr},
                  {"layers", d.layers != nullptr},
                  {"set_mode", d.set_mode != nullptr},
                  {"forward", d.forward != nullptr},
                  {"backward", d.backward != nullptr}});
}

void checkDataset(const dtb_dataset_plugin_v1_t& d) {
  requireMembers({{"open", d.open != nullptr},
                  {"close", d.close != nullptr},
                  {"info", d.info != nullptr},
                  {"split_info", d.split_info != nullptr},
                  {"read", d.read != nullptr}});
}

// A v1 descriptor into the host's layout, checked.
template <typename T>
T adaptV1(const void* raw, void (*check)(const T&)) {
  T descriptor = copyGrowable<T>(raw);
  check(descriptor);
  return descriptor;
}

}  // namespace

size_t minimumDescriptorSize(PluginKind kind) {
  switch (kind) {
    case PluginKind::kStrategy:
      return DTB_SIZE_THROUGH(dtb_strategy_plugin_v1_t, state_load);
    case PluginKind::kBackend:
      return DTB_SIZE_THROUGH(dtb_backend_plugin_v1_t, counters);
    case PluginKind::kModel:
      return DTB_SIZE_THROUGH(dtb_model_plugin_v1_t, backward);
    case PluginKind::kDataset:
      return DTB_SIZE_THROUGH(dtb_dataset_plugin_v1_t, read);
  }
  return sizeof(dtb_plugin_header_t);
}

AnyDescriptor adaptDescriptor(PluginKind kind, unsigned major, const void* raw) {
  if (major != 1) throw std::invalid_argument("no adapter for ABI major " + std::to_string(major));
  switch (kind) {
    case PluginKind::kStrategy:
      return adaptV1<dtb_strategy_plugin_v1_t>(raw, checkStrategy);
    case PluginKind::kBackend:
      return adaptV1<dtb_backend_plugin_v1_t>(raw, checkBackend);
    case PluginKind::kModel:
      return adaptV1<dtb_model_plugin_v1_t>(raw, checkModel);
    case PluginKind::kDataset:
      return adaptV1<dtb_dataset_plugin_v1_t>(raw, checkDataset);
  }
  throw std::invalid_argument("unknown plugin kind");
}

}  // namespace dtb::core
