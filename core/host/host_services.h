// The dtb_host_t table one plugin instance gets, and the host state behind
// it: the instance's configuration, its error channel, its memory ledger,
// metrics and events.
//
// The communicator and optimizer members answer DTB_STATUS_UNSUPPORTED
// unless the run binds them (it does so for strategies; a model or dataset
// never gets them).
//
// Every member is a C entry point: its body runs inside guarded() or
// guardedVoid(), so no exception ever unwinds into a plugin.
#pragma once

#include <chrono>
#include <exception>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dtbench/dtbench.h"
#include "dtbench/model.h"
#include "host/memory_ledger.h"
#include "host/plugin_config.h"

namespace dtb::core {

class TraceRecorder;

class Communicator;
class OptimizerKernels;
enum class WeightDecay;  // host/optimizer_kernels.h
class PluginInstance;

class HostServices {
 public:
  // `source` prefixes this instance's log lines, e.g. "strategy/zero".
  HostServices(std::string source, ParamValues config);
  HostServices(const HostServices&) = delete;
  HostServices& operator=(const HostServices&) = delete;

  const dtb_host_t* table() const { return &table_; }
  const std::string& source() const { return source_; }
  const ParamValues& config() const { return config_; }
  MemoryLedger& memory() { return memory_; }

  // The plugin's trace_span calls go here (ignored while unset).
  void traceTo(TraceRecorder* trace) { trace_ = trace; }

  // Gives this instance the run's communicator, optimizer and model (not
  // owned; they outlive the instance). Any may be null. The model answers
  // param_release.
  void bind(Communicator* communicator, OptimizerKernels* optimizer, PluginInstance* model = nullptr) {
    communicator_ = communicator;
    optimizer_ = optimizer;
    model_ = model;
  }

  // The strategy's parameters (dtb_strategy_setup_t), whose flags
  // optim_update honours per `param_index` (DTB_PARAM_FLAG_NO_WEIGHT_DECAY).
  // Until given, every index gets the optimizer's defaults.
  void describeParams(dtb_param_t* const* params, uint32_t count);

  // The C boundary, for a member returning a status: runs `body`; an
  // exception becomes DTB_STATUS_OUT_OF_MEMORY (std::bad_alloc) or
  // DTB_STATUS_INTERNAL (anything else), with a message naming `function` on
  // the calling thread's error channel.
  template <typename Body>
  static dtb_status_t guarded(dtb_host_ctx_t ctx, const char* function, Body&& body) noexcept {
    try {
      return body();
    } catch (...) {
      return failure(ctx, function, std::current_exception());
    }
  }
  // For a member that cannot report: the exception is logged and swallowed.
  template <typename Body>
  static void guardedVoid(dtb_host_ctx_t ctx, const char* function, Body&& body) noexcept {
    try {
      body();
    } catch (...) {
      logFailure(ctx, function, std::current_exception());
    }
  }

  // The message the plugin gave with set_error() on this thread since the
  // last take, if any; clears it.
  std::optional<std::string> takeError();

  // What the plugin reported with event(), stamped when it did.
  struct PluginEvent {
    std::chrono::steady_clock::time_point at;
    std::string kind, detail;
  };
  std::map<std::string, double> metrics() const;
  // The metrics added since the last take (one step's); clears them.
  std::map<std::string, double> takeMetrics();
  std::vector<PluginEvent> events() const;
  // The events reported since the last take; clears them.
  std::vector<PluginEvent> takeEvents();

 private:
  static HostServices& self(dtb_host_ctx_t ctx);
  static dtb_status_t failure(dtb_host_ctx_t ctx, const char* function, std::exception_ptr error) noexcept;
  static void logFailure(dtb_host_ctx_t ctx, const char* function, std::exception_ptr error) noexcept;
  static void setErrorText(dtb_host_ctx_t ctx, const std::string& message);
  static void logThunk(dtb_host_ctx_t ctx, dtb_log_level_t level, const char* message);
  static void setErrorThunk(dtb_host_ctx_t ctx, const char* message);
  // A communicator, optimizer or model service before the engine binds them.
  static dtb_status_t unbound(dtb_host_ctx_t ctx, const char* what);
  // False, with the message, when one of the plugin's `pointers` (which the
  // host would otherwise dereference blindly) is NULL.
  static bool given(dtb_host_ctx_t ctx, const char* function, std::initializer_list<const void*> pointers);
  static dtb_status_t allocThunk(dtb_host_ctx_t ctx, uint64_t bytes, dtb_device_t device,
                                 dtb_mem_category_t category, void** out);
  static void freeThunk(dtb_host_ctx_t ctx, void* ptr);
  template <typename T>
  dtb_status_t lookup(const char* key, T* out);
  void installCommunicator();
  void installOptimizer();  // optimizer_services.cpp, with update, checkStep and agreeOnStep
  void installParamRelease();
  void installTensorCopy();
  // optim_update and optim_update_many: their arguments, then applyUpdates.
  dtb_status_t update(dtb_tensor_t* param, const dtb_tensor_t* grad, float* state, uint32_t paramIndex);
  dtb_status_t updateMany(dtb_tensor_t* params, const dtb_tensor_t* grads, float* const* states,
                          const uint32_t* paramIndices, uint32_t count);
  // Both services' work: every slice's checks (`numbered`: messages name
  // the slice's index), then the updates, a GPU's in one call of the
  // optimizer, which fuses them.
  dtb_status_t applyUpdates(const char* function, bool numbered, const dtb_tensor_t* params,
                            const dtb_tensor_t* grads, float* const* states, const uint32_t* paramIndices,
                            uint32_t count);
  // One slice's checks, every one before a kernel is queued: `function`
  // and `slice` (optim_update_many's index; -1: none) lead the message; its
  // weight decay in `decay`.
  dtb_status_t checkUpdate(const char* function, int64_t slice, const dtb_tensor_t& param,
                           const dtb_tensor_t& grad, const float* state, uint32_t paramIndex,
                           WeightDecay* decay);
  // One checked slice in host memory, f32 or the run's low precision.
  void updateOnHost(const dtb_tensor_t& param, const dtb_tensor_t& grad, float* state, WeightDecay decay);
  dtb_status_t checkStep(const dtb_tensor_t* grads, uint32_t count, int32_t* apply);
  // optim_check's collective: the ranks' overflow flags (MAX), and with a
  // shard's squares (`squares` non-null) both summed.
  dtb_status_t agreeOnStep(float* flag, double* squares);
  // The message of a failed communicator call, onto this instance's channel.
  dtb_status_t relay(dtb_status_t status, const std::string& message);
  // The body of a comm_* member: guarded, the communicator bound, every one
  // of `pointers` given, the communicator's message kept with its status.
  template <typename Call>
  static dtb_status_t toCommunicator(dtb_host_ctx_t ctx, const char* function,
                                     std::initializer_list<const void*> pointers, Call&& call) noexcept;

  std::string source_;
  ParamValues config_;
  MemoryLedger memory_;
  mutable std::mutex mutex_;  // metrics_ and events_
  std::map<std::string, double> metrics_;
  std::vector<PluginEvent> events_;
  Communicator* communicator_ = nullptr;
  TraceRecorder* trace_ = nullptr;
  OptimizerKernels* optimizer_ = nullptr;
  PluginInstance* model_ = nullptr;
  std::vector<uint32_t> paramFlags_;  // DTB_PARAM_FLAG_* by parameter index
  uint64_t paramElements_ = 0;        // of every parameter given to describeParams
  dtb_host_t table_{};
};

}  // namespace dtb::core
