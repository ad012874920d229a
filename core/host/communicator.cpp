#include "host/communicator.h"

#include <algorithm>
#include <cmath>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_tensor_ops.h"
#include "dtbench/plugin.hpp"
#include "host/status.h"
#include "log/log.h"
#include "plugin/backend_memory.h"

namespace dtb::core {

static uint64_t bytesOf(const dtb_tensor_t& t) { return t.count * dtypeSize(t.dtype); }

Communicator::Communicator(std::unique_ptr<PluginInstance> backend, int rank, int world,
                           std::chrono::milliseconds defaultTimeout, dtb_device_t device)
    : backend_(std::move(backend)),
      rank_(rank),
      world_(world),
      defaultTimeout_(defaultTimeout),
      device_(device) {}

Communicator::~Communicator() {
  if (guard_) guard_->remove(watch_.get());
  for (const auto& [request, inFlight] : outstanding_) api().request_free(backend_->context(), request);
  for (dtb_request_t request : timedOut_) api().request_free(backend_->context(), request);
}

void Communicator::guardWaits(WaitGuard& guard) {
  guard_ = &guard;
  watch_ =
      std::make_unique<WaitGuard::Watch>(backend_->plugin().label() + " on rank " + std::to_string(rank_));
  guard.add(watch_.get());
}

void Communicator::settle(std::vector<dtb_request_t>& requests, std::chrono::milliseconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  for (;;) {
    for (auto it = requests.begin(); it != requests.end();) {
      std::lock_guard lock(backendMutex_);
      int32_t done = 0;
      const dtb_status_t status = api().test(backend_->context(), *it, &done);
      if (status == DTB_STATUS_OK && !done) {
        ++it;
        continue;
      }
      api().request_free(backend_->context(), *it);  // ended, well or not
      it = requests.erase(it);
    }
    if (requests.empty() || std::chrono::steady_clock::now() > deadline) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

bool Communicator::settleTimedOut(std::chrono::milliseconds within) {
  std::vector<dtb_request_t> requests;
  {
    std::lock_guard lock(mutex_);
    requests.swap(timedOut_);
  }
  settle(requests, within);
  std::lock_guard lock(mutex_);
  timedOut_.insert(timedOut_.end(), requests.begin(), requests.end());
  return timedOut_.empty();
}

void Communicator::traceTo(TraceRecorder* trace) {
  trace_ = trace;
  backend_->services().traceTo(trace);
}

bool Communicator::abandon(std::chrono::milliseconds within) {
  std::vector<dtb_request_t> requests;
  {
    std::lock_guard lock(mutex_);
    requests.swap(timedOut_);
    for (const auto& [request, inFlight] : outstanding_) requests.push_back(request);
    outstanding_.clear();
  }
  settle(requests, within);
  std::lock_guard lock(mutex_);
  timedOut_.insert(timedOut_.end(), requests.begin(), requests.end());
  return timedOut_.empty();
}

dtb_status_t Communicator::failed(dtb_status_t status, std::string* error) {
  std::optional<std::string> message = backend_->services().takeError();
  if (error) {
    *error = backend_->plugin().label() + " on rank " + std::to_string(rank_) + ": " +
             (message ? *message : std::string(statusName(status)) + " (the backend gave no message)");
  }
  return status;
}

dtb_status_t Communicator::started(dtb_status_t status, dtb_request_t* request, const char* op,
                                   uint64_t bytes, double busFactor, std::string* error,
                                   std::shared_ptr<GpuStaging::Staged> staged,
                                   std::shared_ptr<GpuStaging::Staged> stagedInput) {
  endPolling();  // issuing is work of its own, not a wait
  if (status != DTB_STATUS_OK) {
    *request = nullptr;  // whatever the backend left there: nothing to wait for
    if (staged) staging_.finish(*staged, false);
    if (stagedInput) staging_.finish(*stagedInput, false);
    return failed(status, error);
  }
  ++collectives_;
  bytes_ += bytes;
  // Rounded, not cut: S x 2(n-1)/n of 3000 bytes at 3 ranks is 4000, which
  // the double product gives as 3999.99...
  busBytes_ += static_cast<uint64_t>(std::llround(static_cast<double>(bytes) * busFactor));
  std::lock_guard lock(mutex_);
  outstanding_.emplace(
      *request, InFlight{op, trace_ ? TraceRecorder::nowNs() : 0, std::move(staged), std::move(stagedInput)});
  return status;
}

dtb_status_t Communicator::unknown(const char* function, std::string* error) const {
  if (error) {
    *error = std::string(function) + " on rank " + std::to_string(rank_) +
             ": not a request in flight on this communicator (never issued, or already waited for: each "
             "request is waited for exactly once)";
  }
  return DTB_STATUS_INVALID_ARGUMENT;
}

bool Communicator::isOutstanding(dtb_request_t request) {
  std::lock_guard lock(mutex_);
  return request != nullptr && outstanding_.count(request) > 0;
}

std::optional<double> Communicator::busySeconds() const {
  if (!api().counters) return std::nullopt;
  dtb_comm_counters_t c{};
  c.struct_size = sizeof(c);
  std::lock_guard lock(backendMutex_);
  if (api().counters(backend_->context(), &c) != DTB_STATUS_OK || c.struct_size < sizeof(c))
    return std::nullopt;
  return static_cast<double>(c.busy_ns) / 1e9;
}

dtb_device_type_t Communicator::memory() const {
  return movesGpuMemoryOnly(api()) ? DTB_DEVICE_CUDA : DTB_DEVICE_HOST;
}

bool Communicator::misplaced(const dtb_tensor_t& tensor, dtb_request_t* out, std::string* error,
                             bool stageable) const {
  // Every loaded backend names the memory it takes (the loader refuses one
  // that names none).
  const uint32_t caps = api().capabilities;
  const bool onGpu = tensor.device.type == DTB_DEVICE_CUDA;
  const uint32_t needed = onGpu ? DTB_BACKEND_CAP_CUDA_MEMORY : DTB_BACKEND_CAP_HOST_MEMORY;
  if (tensor.count == 0 || (caps & needed) || (stageable && stagedThroughHost(tensor, caps))) return false;
  *out = nullptr;
  if (error) {
    *error = backend_->plugin().label() + " on rank " + std::to_string(rank_) + ": " +
             (onGpu ? "a tensor in GPU memory, but this backend moves host memory only: "
                      "use nccl for GPU tensors, or copy them to the host first"
                    : "a tensor in host memory, but this backend moves GPU memory only: allocate it on "
                      "DTB_DEVICE_CUDA, or use gloo or mpi");
  }
  return true;
}

bool Communicator::stageIfNeeded(const dtb_tensor_t& tensor, std::shared_ptr<GpuStaging::Staged>* staged,
                                 dtb_request_t* out, std::string* error, bool copyIn) {
  if (!stagedThroughHost(tensor, api().capabilities)) return true;
  std::string why;
  try {
    *staged = staging_.stage(tensor, copyIn);
    return true;
  } catch (const std::bad_alloc&) {
    why = "no pinned host memory for " + std::to_string(bytesOf(tensor)) + " bytes";
  } catch (const std::exception& e) {  // GpuUnavailable, or CUDA refusing the pointer
    why = e.what();
  }
  *out = nullptr;
  if (error) {
    *error = backend_->plugin().label() + " on rank " + std::to_string(rank_) +
             ": a tensor in GPU memory, for a backend that moves host memory only, could not be staged "
             "through pinned host memory (" +
             why + "): use nccl for GPU tensors, or copy them to the host first";
  }
  return false;
}

bool Communicator::stageBoth(const dtb_tensor_t& input, const dtb_tensor_t& output,
                             std::shared_ptr<GpuStaging::Staged>* stagedIn,
                             std::shared_ptr<GpuStaging::Staged>* stagedOut, dtb_request_t* out,
                             std::string* error) {
  if (misplaced(input, out, error, true) || misplaced(output, out, error, true)) return false;
  if (!stageIfNeeded(input, stagedIn, out, error)) return false;
  // The output is overwritten whole (all-gather in place: its own block
  // comes from the staged input), so nothing is copied in.
  if (stageIfNeeded(output, stagedOut, out, error, /*copyIn=*/false)) return true;
  if (*stagedIn) staging_.finish(**stagedIn, false);
  return false;
}

dtb_status_t Communicator::setStream(void* stream, std::string* error) {
  // An older backend's missing member reads as NULL: the loader copied its
  // descriptor into a zeroed struct of this host's layout.
  const auto& d = api();
  if (d.set_stream == nullptr) {
    if (stream == nullptr) return DTB_STATUS_OK;  // no ordering asked, none there
    if (error) *error = backend_->plugin().label() + " has no GPU streams to order with";
    return DTB_STATUS_UNSUPPORTED;
  }
  std::lock_guard lock(backendMutex_);
  streamChosen_ = true;
  const dtb_status_t status = d.set_stream(backend_->context(), stream);
  if (status == DTB_STATUS_OK) {
    strategyStream_ = stream;
    streamUnknown_ = stream == nullptr;  // the backend's own: nothing the host can order
  }
  return status == DTB_STATUS_OK ? status : failed(status, error);
}

bool Communicator::collectivesStreamKnown() const {
  const auto& d = api();
  if (!(d.capabilities & DTB_BACKEND_CAP_CUDA_MEMORY)) return true;
  return d.set_stream != nullptr && !streamUnknown_;
}

void Communicator::onHostStreamByDefault(const dtb_tensor_t& tensor) {
  if (streamChosen_ || tensor.device.type != DTB_DEVICE_CUDA || tensor.count == 0 ||
      !(api().capabilities & DTB_BACKEND_CAP_CUDA_MEMORY) || api().set_stream == nullptr)
    return;
  streamChosen_ = true;
  void* stream = nullptr;
  try {
    stream = gpuWorkStream(tensor.device.index);
  } catch (const std::exception& e) {  // no GPU: the backend will say so at the collective
    log(DTB_LOG_WARN, "communicator", std::string("the host's GPU stream: ") + e.what());
    streamUnknown_ = true;
    return;
  }
  if (api().set_stream(backend_->context(), stream) != DTB_STATUS_OK) {
    streamUnknown_ = true;
    const std::optional<std::string> why = backend_->services().takeError();
    log(DTB_LOG_WARN, "communicator",
        backend_->plugin().label() + " refused the host's GPU stream (" + why.value_or("no message") +
            "): its collectives are ordered with tensor copies by the strategy's waits only");
  }
}

Communicator* Communicator::controlFor(const dtb_tensor_t& tensor) const {
  return control_ && tensor.device.type == DTB_DEVICE_HOST && movesGpuMemoryOnly(api()) ? control_.get()
                                                                                        : nullptr;
}

dtb_status_t Communicator::viaControl(dtb_status_t status, dtb_request_t* out) {
  if (status == DTB_STATUS_OK) {
    std::lock_guard lock(mutex_);
    controlRequests_.insert(*out);
  }
  return status;
}

bool Communicator::takeControlRequest(dtb_request_t request, bool keep) {
  std::lock_guard lock(mutex_);
  auto it = controlRequests_.find(request);
  if (it == controlRequests_.end()) return false;
  if (!keep) controlRequests_.erase(it);
  return true;
}

dtb_status_t Communicator::allreduce(dtb_tensor_t* buffer, dtb_reduce_op_t op, dtb_request_t* out,
                                     std::string* error) {
  if (Communicator* c = controlFor(*buffer)) return viaControl(c->allreduce(buffer, op, out, error), out);
  return issueInPlace(
      "allreduce", buffer, bytesOf(*buffer), 2.0 * (world_ - 1) / world_, out, error,
      [&](dtb_tensor_t* given) { return api().allreduce(backend_->context(), given, op, out); });
}

dtb_status_t Communicator::reduceScatter(const dtb_tensor_t* input, dtb_tensor_t* output, dtb_reduce_op_t op,
                                         dtb_request_t* out, std::string* error) {
  if (Communicator* c = controlFor(*input))
    return viaControl(c->reduceScatter(input, output, op, out, error), out);
  return issueInto("reduce_scatter", input, output, bytesOf(*input), out, error,
                   [&](const dtb_tensor_t* in, dtb_tensor_t* result) {
                     return api().reduce_scatter(backend_->context(), in, result, op, out);
                   });
}

dtb_status_t Communicator::allgather(const dtb_tensor_t* input, dtb_tensor_t* output, dtb_request_t* out,
                                     std::string* error) {
  if (Communicator* c = controlFor(*input)) return viaControl(c->allgather(input, output, out, error), out);
  // In place (input inside output) is ABI 1.2; an older backend would take
  // it as the aliasing MPI forbids. Refused with a way out, never corrupted.
  const auto* inBytes = static_cast<const char*>(input->data);
  const auto* allBytes = static_cast<const char*>(output->data);
  const bool overlaps =
      bytesOf(*input) > 0 && inBytes < allBytes + bytesOf(*output) && allBytes < inBytes + bytesOf(*input);
  const uint32_t built = backend_->plugin().descriptor<dtb_backend_plugin_v1_t>().header.abi_version;
  if (overlaps && DTB_ABI_VERSION_MINOR(built) < 2) {
    *out = nullptr;
    if (error)
      *error = backend_->plugin().label() + " was built for ABI " + backend_->plugin().abiVersion() +
               ", before all-gather in place (ABI 1.2): rebuild it against this dtbench's headers";
    return DTB_STATUS_UNSUPPORTED;
  }
  // Staged, the input is its own pinned copy: no longer in place for the
  // backend, the same result.
  return issueInto("allgather", input, output, bytesOf(*output), out, error,
                   [&](const dtb_tensor_t* in, dtb_tensor_t* result) {
                     return api().allgather(backend_->context(), in, result, out);
                   });
}

dtb_status_t Communicator::broadcast(dtb_tensor_t* buffer, int32_t root, dtb_request_t* out,
                                     std::string* error) {
  if (Communicator* c = controlFor(*buffer)) return viaControl(c->broadcast(buffer, root, out, error), out);
  return issueInPlace(
      "broadcast", buffer, bytesOf(*buffer), world_ > 1 ? 1.0 : 0.0, out, error,
      [&](dtb_tensor_t* given) { return api().broadcast(backend_->context(), given, root, out); });
}

dtb_status_t Communicator::barrier(dtb_request_t* out, std::string* error) {
  const dtb_status_t status = issue(nullptr, [&] { return api().barrier(backend_->context(), out); });
  return started(status, out, "barrier", 0, 0.0, error);
}

std::optional<dtb_status_t> Communicator::p2pRefused(const char* op, const dtb_tensor_t& buffer, int32_t peer,
                                                     dtb_request_t* out, std::string* error) const {
  *out = nullptr;
  const dtb_backend_plugin_v1_t& d = api();
  const std::string where = backend_->plugin().label() + " on rank " + std::to_string(rank_) + ": ";
  // An older backend's members read as NULL (the loader copies descriptors
  // into a zeroed struct of this host's layout).
  if (!d.send || !d.recv || !(d.capabilities & DTB_BACKEND_CAP_SEND_RECV)) {
    *error =
        where + "no point-to-point " + op + " (a parameter server needs a backend with send and recv: gloo)";
    return DTB_STATUS_UNSUPPORTED;
  }
  if (buffer.device.type != DTB_DEVICE_HOST) {
    *error = where + op + " takes host tensors only";
    return DTB_STATUS_UNSUPPORTED;
  }
  if (peer < 0 || peer >= world_ || peer == rank_) {
    *error = where + op + " with peer " + std::to_string(peer) + ": not another rank of this world of " +
             std::to_string(world_);
    return DTB_STATUS_INVALID_ARGUMENT;
  }
  return std::nullopt;
}

dtb_status_t Communicator::send(const dtb_tensor_t* buffer, int32_t peer, uint32_t tag, dtb_request_t* out,
                                std::string* error) {
  if (auto refused = p2pRefused("send", *buffer, peer, out, error)) return *refused;
  const dtb_status_t status =
      issue(nullptr, [&] { return api().send(backend_->context(), buffer, peer, tag, out); });
  return started(status, out, "send", bytesOf(*buffer), 1.0, error);
}

dtb_status_t Communicator::recv(dtb_tensor_t* buffer, int32_t peer, uint32_t tag, dtb_request_t* out,
                                std::string* error) {
  if (auto refused = p2pRefused("recv", *buffer, peer, out, error)) return *refused;
  const dtb_status_t status =
      issue(nullptr, [&] { return api().recv(backend_->context(), buffer, peer, tag, out); });
  return started(status, out, "recv", 0, 0.0, error);
}

dtb_status_t Communicator::test(dtb_request_t request, int32_t* done, std::string* error) {
  if (control_ && takeControlRequest(request, /*keep=*/true)) return control_->test(request, done, error);
  if (!isOutstanding(request)) return unknown("comm_test", error);
  dtb_status_t status;
  {
    std::lock_guard lock(backendMutex_);
    status = api().test(backend_->context(), request, done);
  }
  if (std::this_thread::get_id() == trainingThread_) {
    // Back-to-back tests of one request, with nothing between, are a
    // blocking poll loop.
    const int64_t now = TraceRecorder::nowNs();
    if (lastUnfinishedTestNs_ >= 0 && polled_ == request) trainingWaitNanos_ += now - lastUnfinishedTestNs_;
    const bool unfinished = status == DTB_STATUS_OK && !*done;
    lastUnfinishedTestNs_ = unfinished ? now : -1;
    polled_ = unfinished ? request : nullptr;
  }
  return status == DTB_STATUS_OK ? status : failed(status, error);
}

void Communicator::countWait(std::chrono::steady_clock::duration waited) {
  const int64_t nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count();
  waitNanos_ += nanos;
  if (std::this_thread::get_id() == trainingThread_) {
    trainingWaitNanos_ += nanos;
    endPolling();
  }
}

dtb_status_t Communicator::wait(dtb_request_t request, int64_t timeoutMs, std::string* error) {
  if (control_ && takeControlRequest(request, /*keep=*/false)) {
    // The control's wait is this communicator's too: the step's exposed
    // communication reads this one's counts.
    const auto start = std::chrono::steady_clock::now();
    const dtb_status_t status = control_->wait(request, timeoutMs, error);
    countWait(std::chrono::steady_clock::now() - start);
    return status;
  }
  std::optional<InFlight> inFlight;
  {
    // Taken out first, so that a second wait of the same request, even from
    // another thread, is refused rather than reaching the backend.
    std::lock_guard lock(mutex_);
    auto it = request ? outstanding_.lower_bound(request) : outstanding_.end();
    if (it == outstanding_.end() || it->first != request) return unknown("comm_wait", error);
    inFlight = it->second;
    outstanding_.erase(it);
  }
  const int64_t timeout = timeoutMs < 0 ? defaultTimeout_.count() : timeoutMs;
  // From before the lock: time spent behind another thread's wait is waiting too.
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock backendLock(backendMutex_);
  if (watch_)
    watch_->begin(inFlight->op, std::max(std::chrono::milliseconds(timeout), defaultTimeout_), start);
  dtb_status_t status = api().wait(backend_->context(), request, timeout);
  if (watch_) watch_->end();
  countWait(std::chrono::steady_clock::now() - start);
  if (status != DTB_STATUS_OK) failed(status, error);
  const bool hold = status == DTB_STATUS_TIMEOUT && holdTimedOut_;
  if (!hold) api().request_free(backend_->context(), request);
  backendLock.unlock();
  // The result back on the GPU. A request that timed out may still run in
  // the backend: its pinned buffer stays out of the pool for good.
  if (inFlight->stagedInput && status != DTB_STATUS_TIMEOUT) staging_.finish(*inFlight->stagedInput, false);
  if (inFlight->staged && status != DTB_STATUS_TIMEOUT) {
    try {
      staging_.finish(*inFlight->staged, status == DTB_STATUS_OK);
    } catch (const std::exception& e) {
      if (error)
        *error = backend_->plugin().label() + " on rank " + std::to_string(rank_) + ": " + inFlight->op +
                 " done, but its result could not be copied back to the GPU: " + e.what();
      status = DTB_STATUS_INTERNAL;
    }
  }
  if (hold) {
    std::lock_guard lock(mutex_);
    timedOut_.push_back(request);
  }
  if (trace_ && inFlight->beginNs != 0)
    trace_->span(inFlight->op, "collective", inFlight->beginNs, TraceRecorder::nowNs());
  return status;
}

}  // namespace dtb::core
