#include "host/host_services.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <new>
#include <utility>

#include "cuda/cuda_memory.h"
#include "dtbench/plugin.hpp"
#include "host/communicator.h"
#include "host/optimizer_kernels.h"
#include "host/plugin_instance.h"
#include "host/status.h"
#include "host/tensor_copy.h"
#include "host/trace_recorder.h"
#include "log/log.h"

namespace dtb::core {
namespace {

// The message channel: set_error() writes the calling thread's slot, and the
// host reads it right after the failing call returns on that same thread.
struct ErrorSlot {
  const HostServices* owner = nullptr;
  std::string message;
};
thread_local ErrorSlot errorSlot;

int64_t nowNs(dtb_host_ctx_t) noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

HostServices::HostServices(std::string source, ParamValues config)
    : source_(std::move(source)), config_(std::move(config)) {
  table_.struct_size = sizeof(dtb_host_t);
  table_.abi_version = DTB_ABI_VERSION;
  table_.ctx = reinterpret_cast<dtb_host_ctx_t>(this);
  table_.log = &logThunk;
  table_.set_error = &setErrorThunk;
  table_.now_ns = &nowNs;
  table_.alloc = &allocThunk;
  table_.free = &freeThunk;
  table_.config_get_bool = [](dtb_host_ctx_t ctx, const char* key, int32_t* out) {
    return guarded(ctx, "config_get_bool", [&] {
      bool value = false;
      const dtb_status_t status = self(ctx).lookup(key, out ? &value : nullptr);
      if (status == DTB_STATUS_OK) *out = value ? 1 : 0;
      return status;
    });
  };
  table_.config_get_int = [](dtb_host_ctx_t ctx, const char* key, int64_t* out) {
    return guarded(ctx, "config_get_int", [&] { return self(ctx).lookup(key, out); });
  };
  table_.config_get_float = [](dtb_host_ctx_t ctx, const char* key, double* out) {
    return guarded(ctx, "config_get_float", [&] { return self(ctx).lookup(key, out); });
  };
  table_.config_get_string = [](dtb_host_ctx_t ctx, const char* key, const char** out) {
    return guarded(ctx, "config_get_string", [&] {
      const std::string* value = nullptr;
      const dtb_status_t status = self(ctx).lookup(key, out ? &value : nullptr);
      if (status == DTB_STATUS_OK) *out = value->c_str();  // config_ lives as long as the instance
      return status;
    });
  };
  table_.config_get_int_list = [](dtb_host_ctx_t ctx, const char* key, int64_t* out, uint64_t capacity,
                                  uint64_t* outCount) {
    return guarded(ctx, "config_get_int_list", [&] {
      if (!given(ctx, "config_get_int_list", {outCount}) ||
          (capacity > 0 && !given(ctx, "config_get_int_list", {out})))
        return DTB_STATUS_INVALID_ARGUMENT;
      const std::vector<int64_t>* value = nullptr;
      const dtb_status_t status = self(ctx).lookup(key, &value);
      if (status != DTB_STATUS_OK) return status;
      *outCount = value->size();
      for (uint64_t i = 0; i < value->size() && i < capacity; ++i) out[i] = (*value)[i];
      return DTB_STATUS_OK;
    });
  };
  table_.metric_add = [](dtb_host_ctx_t ctx, const char* name, double value) {
    guardedVoid(ctx, "metric_add", [&] {
      HostServices& host = self(ctx);
      if (name == nullptr) {
        log(DTB_LOG_WARN, host.source_, "metric_add without a name; ignored");
        return;
      }
      // One value that is not finite is dropped alone: summed in, it would
      // take the step's finite values of the metric with it.
      if (!std::isfinite(value)) return;
      std::lock_guard lock(host.mutex_);
      host.metrics_[name] += value;
    });
  };
  table_.event = [](dtb_host_ctx_t ctx, const char* kind, const char* detail) {
    guardedVoid(ctx, "event", [&] {
      HostServices& host = self(ctx);
      PluginEvent event{std::chrono::steady_clock::now(), kind ? kind : "", detail ? detail : ""};
      std::lock_guard lock(host.mutex_);
      host.events_.push_back(std::move(event));
    });
  };
  table_.trace_span = [](dtb_host_ctx_t ctx, const char* name, const char* category, int64_t beginNs,
                         int64_t endNs) {
    guardedVoid(ctx, "trace_span", [&] {
      HostServices& host = self(ctx);
      if (host.trace_) host.trace_->span(name ? name : "", category ? category : "", beginNs, endNs);
    });
  };
  installCommunicator();
  installOptimizer();
  installParamRelease();
  installTensorCopy();
}

HostServices& HostServices::self(dtb_host_ctx_t ctx) { return *reinterpret_cast<HostServices*>(ctx); }

dtb_status_t HostServices::failure(dtb_host_ctx_t ctx, const char* function,
                                   std::exception_ptr error) noexcept {
  dtb_status_t status = DTB_STATUS_INTERNAL;
  try {
    try {
      std::rethrow_exception(error);
    } catch (const std::bad_alloc&) {
      status = DTB_STATUS_OUT_OF_MEMORY;
      setErrorText(ctx, std::string(function) + ": out of memory");
    } catch (const std::exception& e) {
      setErrorText(ctx, std::string(function) + ": internal error in the host: " + e.what());
    } catch (...) {
      setErrorText(ctx, std::string(function) + ": internal error in the host (an unknown exception)");
    }
  } catch (...) {
    // No memory even for the message: the status alone tells the plugin.
  }
  return status;
}

void HostServices::logFailure(dtb_host_ctx_t ctx, const char* function, std::exception_ptr error) noexcept {
  try {
    std::string what = "an unknown exception";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    log(DTB_LOG_ERROR, self(ctx).source_,
        std::string(function) + " failed in the host and was ignored: " + what);
  } catch (...) {
    // Not even a log line can be written: nothing more to do without throwing.
  }
}

void HostServices::setErrorText(dtb_host_ctx_t ctx, const std::string& message) {
  errorSlot.owner = &self(ctx);
  errorSlot.message = message;
}

dtb_status_t HostServices::unbound(dtb_host_ctx_t ctx, const char* what) {
  setErrorText(ctx, std::string(what) +
                        ": not available to this plugin instance (only a strategy inside a run has "
                        "a communicator, an optimizer and a model)");
  return DTB_STATUS_UNSUPPORTED;
}

bool HostServices::given(dtb_host_ctx_t ctx, const char* function,
                         std::initializer_list<const void*> pointers) {
  for (const void* p : pointers) {
    if (p == nullptr) {
      setErrorText(ctx, std::string(function) + ": a required pointer argument is NULL");
      return false;
    }
  }
  return true;
}

void HostServices::describeParams(dtb_param_t* const* params, uint32_t count) {
  paramFlags_.assign(count, 0);
  paramElements_ = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (params != nullptr && params[i] != nullptr) {
      paramFlags_[i] = params[i]->flags;
      paramElements_ += params[i]->value.count;
    }
  }
}

void HostServices::logThunk(dtb_host_ctx_t ctx, dtb_log_level_t level, const char* message) {
  guardedVoid(ctx, "log", [&] { log(level, self(ctx).source_, message ? message : "(null)"); });
}

void HostServices::setErrorThunk(dtb_host_ctx_t ctx, const char* message) {
  errorSlot.owner = &self(ctx);
  try {
    errorSlot.message = message ? message : "";
  } catch (...) {
    // No memory for the copy: the failure is still recorded, without its text.
    errorSlot.message.clear();
  }
}

dtb_status_t HostServices::allocThunk(dtb_host_ctx_t ctx, uint64_t bytes, dtb_device_t device,
                                      dtb_mem_category_t category, void** out) {
  return guarded(ctx, "alloc", [&] {
    if (!given(ctx, "alloc", {out})) return DTB_STATUS_INVALID_ARGUMENT;
    HostServices& host = self(ctx);
    *out = nullptr;
    if (device.type != DTB_DEVICE_HOST && device.type != DTB_DEVICE_CUDA &&
        device.type != DTB_DEVICE_CUDA_HOST) {
      setErrorThunk(ctx, "alloc: unknown device type");
      return DTB_STATUS_INVALID_ARGUMENT;
    }
    if (category < DTB_MEM_PARAMS || category > DTB_MEM_OTHER) {
      setErrorThunk(ctx, "alloc: unknown memory category");
      return DTB_STATUS_INVALID_ARGUMENT;
    }
    const std::string where = device.type == DTB_DEVICE_CUDA ? " on GPU " + std::to_string(device.index)
                              : device.type == DTB_DEVICE_CUDA_HOST ? " of pinned host memory"
                                                                    : "";
    try {
      *out = host.memory_.allocate(bytes, category, device);
      return DTB_STATUS_OK;
    } catch (const std::bad_alloc&) {
      setErrorText(ctx, "alloc: cannot allocate " + std::to_string(bytes) + " bytes" + where);
      return DTB_STATUS_OUT_OF_MEMORY;
    } catch (const GpuUnavailable& e) {
      setErrorText(ctx, std::string("alloc: no GPU memory in this process: ") + e.what());
      return DTB_STATUS_UNSUPPORTED;
    }
  });
}

void HostServices::freeThunk(dtb_host_ctx_t ctx, void* ptr) {
  guardedVoid(ctx, "free", [&] {
    HostServices& host = self(ctx);
    if (!host.memory_.release(ptr)) {
      log(DTB_LOG_ERROR, host.source_, "free() of a pointer that alloc() did not return; ignored");
    }
  });
}

template <typename T>
dtb_status_t HostServices::lookup(const char* key, T* out) {
  if (key == nullptr || out == nullptr) {
    setErrorThunk(table_.ctx, "config: the key and the output pointer must not be NULL");
    return DTB_STATUS_INVALID_ARGUMENT;
  }
  auto it = config_.find(key);
  if (it == config_.end()) {
    setErrorText(table_.ctx, "config: no parameter '" + std::string(key) + "' is declared by this plugin");
    return DTB_STATUS_NOT_FOUND;
  }
  using Stored = std::remove_const_t<std::remove_pointer_t<T>>;
  if constexpr (std::is_pointer_v<T>) {
    if (const auto* value = std::get_if<Stored>(&it->second)) {
      *out = value;
      return DTB_STATUS_OK;
    }
  } else {
    if (const auto* value = std::get_if<T>(&it->second)) {
      *out = *value;
      return DTB_STATUS_OK;
    }
  }
  setErrorText(table_.ctx, "config: parameter '" + std::string(key) + "' has another type");
  return DTB_STATUS_INVALID_ARGUMENT;
}

dtb_status_t HostServices::relay(dtb_status_t status, const std::string& message) {
  if (status != DTB_STATUS_OK) setErrorText(table_.ctx, message);
  return status;
}

template <typename Call>
dtb_status_t HostServices::toCommunicator(dtb_host_ctx_t ctx, const char* function,
                                          std::initializer_list<const void*> pointers, Call&& call) noexcept {
  return guarded(ctx, function, [&] {
    HostServices& h = self(ctx);
    if (!h.communicator_) return unbound(ctx, function);
    if (!given(ctx, function, pointers)) return DTB_STATUS_INVALID_ARGUMENT;
    std::string error;
    return h.relay(call(*h.communicator_, &error), error);
  });
}

// Each comm_* member forwards to the bound communicator, or says there is none.
void HostServices::installCommunicator() {
  table_.comm_rank = [](dtb_host_ctx_t ctx) noexcept {
    Communicator* c = self(ctx).communicator_;
    return int32_t{c ? c->rank() : 0};
  };
  table_.comm_size = [](dtb_host_ctx_t ctx) noexcept {
    Communicator* c = self(ctx).communicator_;
    return int32_t{c ? c->size() : 1};
  };
  table_.comm_allreduce = [](dtb_host_ctx_t ctx, dtb_tensor_t* buffer, dtb_reduce_op_t op,
                             dtb_request_t* out) {
    return toCommunicator(ctx, "comm_allreduce", {buffer, out}, [&](Communicator& c, std::string* error) {
      return c.allreduce(buffer, op, out, error);
    });
  };
  table_.comm_reduce_scatter = [](dtb_host_ctx_t ctx, const dtb_tensor_t* in, dtb_tensor_t* outTensor,
                                  dtb_reduce_op_t op, dtb_request_t* out) {
    return toCommunicator(
        ctx, "comm_reduce_scatter", {in, outTensor, out},
        [&](Communicator& c, std::string* error) { return c.reduceScatter(in, outTensor, op, out, error); });
  };
  table_.comm_allgather = [](dtb_host_ctx_t ctx, const dtb_tensor_t* in, dtb_tensor_t* outTensor,
                             dtb_request_t* out) {
    return toCommunicator(
        ctx, "comm_allgather", {in, outTensor, out},
        [&](Communicator& c, std::string* error) { return c.allgather(in, outTensor, out, error); });
  };
  table_.comm_broadcast = [](dtb_host_ctx_t ctx, dtb_tensor_t* buffer, int32_t root, dtb_request_t* out) {
    return toCommunicator(ctx, "comm_broadcast", {buffer, out}, [&](Communicator& c, std::string* error) {
      return c.broadcast(buffer, root, out, error);
    });
  };
  table_.comm_barrier = [](dtb_host_ctx_t ctx, dtb_request_t* out) {
    return toCommunicator(ctx, "comm_barrier", {out},
                          [&](Communicator& c, std::string* error) { return c.barrier(out, error); });
  };
  table_.comm_test = [](dtb_host_ctx_t ctx, dtb_request_t request, int32_t* done) {
    return toCommunicator(ctx, "comm_test", {done},
                          [&](Communicator& c, std::string* error) { return c.test(request, done, error); });
  };
  table_.comm_wait = [](dtb_host_ctx_t ctx, dtb_request_t request, int64_t timeoutMs) {
    return toCommunicator(ctx, "comm_wait", {}, [&](Communicator& c, std::string* error) {
      return c.wait(request, timeoutMs, error);
    });
  };
  table_.comm_waited = [](dtb_host_ctx_t ctx, int64_t beginNs, int64_t endNs) noexcept {
    if (Communicator* c = self(ctx).communicator_) c->waitedElsewhere(beginNs, endNs);
  };
  table_.comm_send = [](dtb_host_ctx_t ctx, const dtb_tensor_t* buffer, int32_t peer, uint32_t tag,
                        dtb_request_t* out) {
    return toCommunicator(ctx, "comm_send", {buffer, out}, [&](Communicator& c, std::string* error) {
      return c.send(buffer, peer, tag, out, error);
    });
  };
  table_.comm_recv = [](dtb_host_ctx_t ctx, dtb_tensor_t* buffer, int32_t peer, uint32_t tag,
                        dtb_request_t* out) {
    return toCommunicator(ctx, "comm_recv", {buffer, out}, [&](Communicator& c, std::string* error) {
      return c.recv(buffer, peer, tag, out, error);
    });
  };
  table_.comm_set_stream = [](dtb_host_ctx_t ctx, void* stream) {
    return toCommunicator(ctx, "comm_set_stream", {},
                          [&](Communicator& c, std::string* error) { return c.setStream(stream, error); });
  };
}

void HostServices::installParamRelease() {
  table_.param_release = [](dtb_host_ctx_t ctx, dtb_param* param, dtb_param_part_t part) {
    return guarded(ctx, "param_release", [&] {
      HostServices& h = self(ctx);
      if (!h.model_) return unbound(ctx, "param_release");
      if (param == nullptr) {
        setErrorThunk(ctx, "param_release: no parameter given");
        return DTB_STATUS_INVALID_ARGUMENT;
      }
      if (h.optimizer_ && h.optimizer_->paramDtype() != DTB_DTYPE_F32) {
        // The strategy's records are the host's low-precision copies
        // (train/mixed_precision.h): theirs is the storage given back. The
        // model keeps its own, from which it computes in f32.
        if (h.optimizer_->releaseRecord(*param, part)) return DTB_STATUS_OK;
        setErrorText(ctx, "param_release: '" + std::string(param->name ? param->name : "?") +
                              "' is not one of the parameters this strategy was given");
        return DTB_STATUS_INVALID_ARGUMENT;
      }
      const auto& api = h.model_->plugin().descriptor<dtb_model_plugin_v1_t>();
      const std::string model = h.model_->plugin().label();
      if (!api.release_param) {
        // Not an error of the caller's: it keeps using the model's storage.
        setErrorText(ctx, model + " cannot release its parameter storage (no release_param)");
        return DTB_STATUS_UNSUPPORTED;
      }
      const dtb_status_t status = api.release_param(h.model_->context(), param->index, part);
      const std::optional<std::string> why = h.model_->services().takeError();
      return h.relay(status, model + ": release_param of '" + (param->name ? param->name : "?") +
                                 "' failed: " + why.value_or("no message"));
    });
  };
}

void HostServices::installTensorCopy() {
  table_.tensor_copy = [](dtb_host_ctx_t ctx, const dtb_tensor_t* dst, uint64_t dstOffset,
                          const dtb_tensor_t* src, uint64_t srcOffset, uint64_t count, float scale,
                          int32_t accumulate) {
    return guarded(ctx, "tensor_copy", [&] {
      HostServices& h = self(ctx);
      if (!h.communicator_ && !h.optimizer_) return unbound(ctx, "tensor_copy");  // bound for strategies
      std::string error;
      const dtb_status_t status =
          tensorCopy({dst, dstOffset}, {src, srcOffset}, count, scale, accumulate != 0, &error);
      if (status != DTB_STATUS_OK) setErrorText(ctx, error);
      return status;
    });
  };
}

std::optional<std::string> HostServices::takeError() {
  if (errorSlot.owner != this) return std::nullopt;
  errorSlot.owner = nullptr;
  return std::move(errorSlot.message);
}

std::map<std::string, double> HostServices::metrics() const {
  std::lock_guard lock(mutex_);
  return metrics_;
}

std::map<std::string, double> HostServices::takeMetrics() {
  std::lock_guard lock(mutex_);
  return std::exchange(metrics_, {});
}

std::vector<HostServices::PluginEvent> HostServices::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

std::vector<HostServices::PluginEvent> HostServices::takeEvents() {
  std::lock_guard lock(mutex_);
  return std::exchange(events_, {});
}

}  // namespace dtb::core
