// plugin.hpp — optional C++20 helpers for writing dtbench plugins in C++.
//
// Header-only; a plugin that uses it still links nothing from the host. The
// one rule it enforces: no exception ever crosses the C boundary. Wrap the
// body of every entry point in dtb::guard():
//
//   static dtb_status_t myStep(void* self) {
//     return dtb::guard(static_cast<MyStrategy*>(self)->host(), [&] {
//       static_cast<MyStrategy*>(self)->step();
//     });
//   }
//
// Throw dtb::Error(status, message) for a specific status; any other
// std::exception becomes DTB_STATUS_INTERNAL (std::bad_alloc:
// DTB_STATUS_OUT_OF_MEMORY) with its what() as the message.
#ifndef DTBENCH_PLUGIN_HPP
#define DTBENCH_PLUGIN_HPP

#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "dtbench/dtbench.h"

namespace dtb {

// An error with the status it should become at the boundary.
class Error : public std::runtime_error {
 public:
  Error(dtb_status_t status, const std::string& message) : std::runtime_error(message), status_(status) {}
  dtb_status_t status() const noexcept { return status_; }
  // True when the host already holds the message (a failed host call).
  bool reported() const noexcept { return reported_; }

 protected:
  Error(dtb_status_t status, const std::string& message, bool reported)
      : std::runtime_error(message), status_(status), reported_(reported) {}

 private:
  dtb_status_t status_;
  bool reported_ = false;
};

// Throws when a host call failed. The host already holds that call's message
// (e.g. which rank's all-reduce failed and why), so guard() passes the status
// on without overwriting it; `what` only names the call for debugging.
inline void check(dtb_status_t status, const char* what) {
  struct HostError : Error {
    HostError(dtb_status_t s, const char* w) : Error(s, w, true) {}
  };
  if (status != DTB_STATUS_OK) throw HostError(status, what);
}

// Runs `body`, turning any exception into a status plus host->set_error().
template <typename Body>
dtb_status_t guard(const dtb_host_t* host, Body&& body) noexcept {
  auto fail = [host](dtb_status_t status, const char* message) noexcept {
    if (host != nullptr && host->set_error != nullptr) host->set_error(host->ctx, message);
    return status;
  };
  try {
    std::forward<Body>(body)();
    return DTB_STATUS_OK;
  } catch (const Error& e) {
    if (e.reported()) return e.status();
    return fail(e.status(), e.what());
  } catch (const std::bad_alloc&) {
    return fail(DTB_STATUS_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(DTB_STATUS_INTERNAL, e.what());
  } catch (...) {
    return fail(DTB_STATUS_INTERNAL, "unknown exception");
  }
}

// Bytes per element of `dtype`; 0 for a value outside the enum.
constexpr size_t dtypeSize(dtb_dtype_t dtype) noexcept {
  switch (dtype) {
    case DTB_DTYPE_F64:
    case DTB_DTYPE_I64:
      return 8;
    case DTB_DTYPE_F32:
    case DTB_DTYPE_I32:
      return 4;
    case DTB_DTYPE_F16:
    case DTB_DTYPE_BF16:
      return 2;
    case DTB_DTYPE_U8:
    case DTB_DTYPE_I8:
      return 1;
  }
  return 0;
}

// A flat view of `count` elements of host memory.
inline dtb_tensor_t hostTensor(void* data, uint64_t count, dtb_dtype_t dtype) noexcept {
  dtb_tensor_t t{};
  t.data = data;
  t.count = count;
  t.dtype = dtype;
  t.device = {DTB_DEVICE_HOST, 0};
  t.ndim = 1;
  t.shape[0] = static_cast<int64_t>(count);
  return t;
}

// `count` zeroed elements of T from the host's allocator on `device`,
// counted under `category` (null for zero elements); release with
// host->free. (dtbench hosts give GPU memory zeroed: no memset here.)
template <typename T>
T* hostAllocZeroed(const dtb_host_t* host, uint64_t count, dtb_mem_category_t category,
                   dtb_device_t device = {DTB_DEVICE_HOST, 0}) {
  void* memory = nullptr;
  check(host->alloc(host->ctx, count * sizeof(T), device, category, &memory), "alloc");
  if (memory && device.type != DTB_DEVICE_CUDA) std::memset(memory, 0, count * sizeof(T));
  return static_cast<T*>(memory);
}

// "f32", "bf16", ...: the names the result store uses.
constexpr const char* dtypeName(dtb_dtype_t dtype) noexcept {
  switch (dtype) {
    case DTB_DTYPE_F32:
      return "f32";
    case DTB_DTYPE_F16:
      return "f16";
    case DTB_DTYPE_BF16:
      return "bf16";
    case DTB_DTYPE_F64:
      return "f64";
    case DTB_DTYPE_I32:
      return "i32";
    case DTB_DTYPE_I64:
      return "i64";
    case DTB_DTYPE_U8:
      return "u8";
    case DTB_DTYPE_I8:
      return "i8";
  }
  return "unknown";
}

}  // namespace dtb

#endif  // DTBENCH_PLUGIN_HPP
