#include "host/plugin_instance.h"

#include "host/status.h"

namespace dtb::core {

PluginInstance::PluginInstance(std::shared_ptr<const LoadedPlugin> plugin, const ParamValues& given)
    : plugin_(std::move(plugin)) {
  services_ = std::make_unique<HostServices>(std::string(kindName(plugin_->kind())) + "/" + plugin_->name(),
                                             resolveConfig(*plugin_, given));
}

PluginInstance::~PluginInstance() {
  if (context_ != nullptr && destroy_ != nullptr) destroy_(context_);
}

void PluginInstance::adopt(void* context, void (*destroy)(void*)) {
  context_ = context;
  destroy_ = destroy;
}

void PluginInstance::check(const char* function, dtb_status_t status) {
  std::optional<std::string> message = services_->takeError();
  if (status == DTB_STATUS_OK) return;
  std::string text = plugin_->label() + " (" + plugin_->path().string() + "): " + function + " failed (" +
                     std::string(statusName(status)) + "): ";
  if (message && !message->empty()) {
    text += *message;
  } else {
    text += "the plugin gave no message (a plugin bug: call host->set_error before failing)";
  }
  throw PluginCallError(text, status);
}

namespace {

// Calls the kind's create function and adopts its context. `Create` is a
// callable taking (host, void** out) and returning dtb_status_t.
template <typename Create>
std::unique_ptr<PluginInstance> instantiate(std::shared_ptr<const LoadedPlugin> plugin,
                                            const ParamValues& given, const char* function, Create&& create,
                                            void (*destroy)(void*), Communicator* communicator = nullptr,
                                            OptimizerKernels* optimizer = nullptr,
                                            PluginInstance* model = nullptr,
                                            const dtb_strategy_setup_t* strategySetup = nullptr) {
  auto instance = std::make_unique<PluginInstance>(std::move(plugin), given);
  instance->services().bind(communicator, optimizer, model);
  // optim_update's per-parameter options (no weight decay) come from these.
  if (strategySetup) instance->services().describeParams(strategySetup->params, strategySetup->param_count);
  void* context = nullptr;
  dtb_status_t status = create(instance->host(), &context);
  if (status == DTB_STATUS_OK && context == nullptr) {
    instance->services().takeError();
    throw PluginCallError(instance->plugin().label() + " (" + instance->plugin().path().string() +
                              "): " + function + " returned OK but no context",
                          DTB_STATUS_INTERNAL);
  }
  if (status == DTB_STATUS_OK) instance->adopt(context, destroy);
  instance->check(function, status);
  return instance;
}

}  // namespace

std::unique_ptr<PluginInstance> openDataset(std::shared_ptr<const LoadedPlugin> plugin,
                                            const ParamValues& given) {
  const auto& d = plugin->descriptor<dtb_dataset_plugin_v1_t>();
  return instantiate(
      std::move(plugin), given, "open", [&](const dtb_host_t* host, void** out) { return d.open(host, out); },
      d.close);
}

std::unique_ptr<PluginInstance> createModel(std::shared_ptr<const LoadedPlugin> plugin,
                                            const ParamValues& given, const dtb_model_setup_t& setup) {
  const auto& d = plugin->descriptor<dtb_model_plugin_v1_t>();
  return instantiate(
      std::move(plugin), given, "create",
      [&](const dtb_host_t* host, void** out) { return d.create(host, &setup, out); }, d.destroy);
}

std::unique_ptr<PluginInstance> createStrategy(std::shared_ptr<const LoadedPlugin> plugin,
                                               const ParamValues& given, const dtb_strategy_setup_t& setup,
                                               Communicator* communicator, OptimizerKernels* optimizer,
                                               PluginInstance* model) {
  const auto& d = plugin->descriptor<dtb_strategy_plugin_v1_t>();
  return instantiate(
      std::move(plugin), given, "create",
      [&](const dtb_host_t* host, void** out) { return d.create(host, &setup, out); }, d.destroy,
      communicator, optimizer, model, &setup);
}

std::unique_ptr<PluginInstance> createBackend(std::shared_ptr<const LoadedPlugin> plugin,
                                              const ParamValues& given, const dtb_rendezvous_t& rdv) {
  const auto& d = plugin->descriptor<dtb_backend_plugin_v1_t>();
  return instantiate(
      std::move(plugin), given, "create",
      [&](const dtb_host_t* host, void** out) { return d.create(host, &rdv, out); }, d.destroy);
}

}  // namespace dtb::core
