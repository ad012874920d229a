// One live plugin instance: the plugin's context, the host services it was
// given, and a reference to the library its code lives in. Members are
// declared so that teardown runs in the only safe order: the plugin's
// destroy(), then the services it may still have used, then the library.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "dtbench/backend.h"
#include "dtbench/dataset.h"
#include "dtbench/model.h"
#include "dtbench/strategy.h"
#include "host/host_services.h"
#include "host/plugin_config.h"
#include "plugin/loaded_plugin.h"

namespace dtb::core {

// A plugin call that returned an error. what() is one line:
// "strategy 'zero' (/path/dtbench-strategy-zero.so): create failed (invalid argument): <plugin's message>".
class PluginCallError : public std::runtime_error {
 public:
  PluginCallError(const std::string& message, dtb_status_t status)
      : std::runtime_error(message), status_(status) {}
  dtb_status_t status() const { return status_; }

 private:
  dtb_status_t status_;
};

class PluginInstance {
 public:
  // Resolves `given` against the plugin's parameters (throws
  // std::invalid_argument listing every problem) and prepares the services.
  PluginInstance(std::shared_ptr<const LoadedPlugin> plugin, const ParamValues& given);
  ~PluginInstance();
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;

  const LoadedPlugin& plugin() const { return *plugin_; }
  HostServices& services() { return *services_; }
  const dtb_host_t* host() const { return services_->table(); }
  void* context() const { return context_; }

  // Takes ownership of the context a create/open call returned.
  void adopt(void* context, void (*destroy)(void*));

  // Throws PluginCallError when `status` is not OK, with the plugin's own
  // message, or a note that it gave none (itself a plugin bug).
  void check(const char* function, dtb_status_t status);

 private:
  std::shared_ptr<const LoadedPlugin> plugin_;
  std::unique_ptr<HostServices> services_;
  void* context_ = nullptr;
  void (*destroy_)(void*) = nullptr;
};

// Create an instance of each kind; each throws PluginCallError when the
// plugin's create/open fails, or std::invalid_argument for a bad config.
std::unique_ptr<PluginInstance> openDataset(std::shared_ptr<const LoadedPlugin> plugin,
                                            const ParamValues& given);
std::unique_ptr<PluginInstance> createModel(std::shared_ptr<const LoadedPlugin> plugin,
                                            const ParamValues& given, const dtb_model_setup_t& setup);
// A strategy's services get the run's communicator, optimizer and model (the
// one whose parameters setup lists) before its create() runs (any may be
// null outside a run).
std::unique_ptr<PluginInstance> createStrategy(std::shared_ptr<const LoadedPlugin> plugin,
                                               const ParamValues& given, const dtb_strategy_setup_t& setup,
                                               Communicator* communicator = nullptr,
                                               OptimizerKernels* optimizer = nullptr,
                                               PluginInstance* model = nullptr);
std::unique_ptr<PluginInstance> createBackend(std::shared_ptr<const LoadedPlugin> plugin,
                                              const ParamValues& given, const dtb_rendezvous_t& rdv);

}  // namespace dtb::core
