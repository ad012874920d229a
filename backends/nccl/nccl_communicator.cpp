#include "nccl_communicator.h"

#include <cstdlib>
#include <thread>

#include "common/wiring.h"
#include "dtbench/plugin.hpp"
#include "id_exchange.h"
#ifdef DTBENCH_HAVE_HIREDIS
#include "redis_id_store.h"
#endif
#include "nccl_types.h"

namespace dtb::backend::nccl {
namespace {

using Clock = std::chrono::steady_clock;

std::string cudaProblem(cudaError_t error) {
  cudaGetLastError();  // clear it, so the next call does not report it again
  return cudaGetErrorString(error);
}

void checkCuda(cudaError_t error, const char* what) {
  if (error != cudaSuccess) throw Error(DTB_STATUS_INTERNAL, std::string(what) + ": " + cudaProblem(error));
}

// The GPU of this rank: the host's choice (ABI 1.4), else the local rank's.
int chooseDevice(const dtb_rendezvous_t& rdv) {
  int count = 0;
  const cudaError_t probed = cudaGetDeviceCount(&count);
  if (probed != cudaSuccess || count == 0) {
    throw Error(DTB_STATUS_UNSUPPORTED,
                "no GPU is usable in this process (" +
                    (probed != cudaSuccess ? cudaProblem(probed) : std::string("no CUDA device")) +
                    "): nccl runs on GPUs only; use gloo or mpi on this machine");
  }
  int device = rdv.local_rank;
  const bool hostChose = rdv.struct_size >= offsetof(dtb_rendezvous_t, device) + sizeof(rdv.device);
  if (hostChose && rdv.device.type == DTB_DEVICE_CUDA) device = rdv.device.index;
  if (device < 0 || device >= count) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "rank " + std::to_string(rdv.rank) + " (local rank " +
                                                 std::to_string(rdv.local_rank) + ") would use GPU " +
                                                 std::to_string(device) + ", but " + std::to_string(count) +
                                                 " are visible");
  }
  return device;
}

// Sets NCCL_ALGO / NCCL_PROTO before the communicator is made, unless the
// user set them (their environment wins, as with NCCL itself).
void applyTuning(const Options& o) {
  if (auto algo = algorithmEnvironment(o.algorithm)) setenv("NCCL_ALGO", algo->c_str(), 0);
  if (auto proto = protocolEnvironment(o.protocol)) setenv("NCCL_PROTO", proto->c_str(), 0);
}

std::string noBitwiseAnd(dtb_dtype_t dtype) {
  return std::string("NCCL has no bitwise-AND reduction (asked of ") + dtypeName(dtype) +
         " data); Horovod-style response caches reduce their bits over a CPU backend";
}

// The run's rendezvous store: the shared directory, or the Redis server.
std::unique_ptr<IdStore> openIdStore(const dtb_rendezvous_t& rdv, std::chrono::milliseconds timeout) {
  if (rdv.store_path != nullptr) return std::make_unique<FileIdStore>(rdv.store_path);
#ifdef DTBENCH_HAVE_HIREDIS
  try {
    return std::make_unique<RedisIdStore>(rdv.store_address ? rdv.store_address : "", timeout);
  } catch (const std::runtime_error& e) {
    throw Error(DTB_STATUS_COMM_FAILURE, e.what());
  }
#else
  (void)timeout;
  throw Error(DTB_STATUS_UNSUPPORTED,
              "this build has no Redis support (install libhiredis-dev and rebuild); use a shared directory "
              "for the file store");
#endif
}

std::string resultText(ncclResult_t r, ncclComm_t comm) {
  std::string text = ncclGetErrorString(r);
  const char* last = ncclGetLastError(comm);
  if (last != nullptr && *last != '\0') text += " (" + std::string(last) + ")";
  return text;
}

// The NCCL handle, watched while a request is waited for.
class WatchedRequest : public Watched {
 public:
  WatchedRequest(ncclComm_t comm, const Launch& launch) : comm_(comm), launch_(launch) {}
  bool finished() override {
    const cudaError_t state = cudaEventQuery(launch_.end);
    if (state == cudaSuccess) return true;
    if (state != cudaErrorNotReady) cudaFailure_ = cudaProblem(state);
    return false;
  }
  std::optional<std::string> failure() override {
    if (!cudaFailure_.empty()) return "CUDA: " + cudaFailure_;
    ncclResult_t state = ncclSuccess;
    const ncclResult_t asked = ncclCommGetAsyncError(comm_, &state);
    if (asked != ncclSuccess) return "NCCL: " + resultText(asked, comm_);
    if (state != ncclSuccess && state != ncclInProgress) return "NCCL: " + resultText(state, comm_);
    return std::nullopt;
  }
  void abort() override { ncclCommAbort(comm_); }

 private:
  ncclComm_t comm_;
  const Launch& launch_;
  std::string cudaFailure_;
};

}  // namespace

Launch::~Launch() {
  if (start) cudaEventDestroy(start);
  if (end) cudaEventDestroy(end);
}

NcclCommunicator::NcclCommunicator(const dtb_host_t* host, const dtb_rendezvous_t& rdv, Options options)
    : CommunicatorBase(host, rdv),
      device_(chooseDevice(rdv)),
      options_(std::move(options)),
      timeout_(rdv.timeout_ms) {
  checkCuda(cudaSetDevice(device_), "cudaSetDevice");
  const std::unique_ptr<IdStore> store = openIdStore(rdv, timeout_);
  const std::string id = shareUniqueId(
      *store, std::string(rdv.prefix ? rdv.prefix : "") + "nccl-unique-id", rank_,
      [] {
        ncclUniqueId made{};
        const ncclResult_t r = ncclGetUniqueId(&made);
        if (r != ncclSuccess) throw Error(DTB_STATUS_INTERNAL, "ncclGetUniqueId: " + resultText(r, nullptr));
        return std::string(made.internal, sizeof(made.internal));
      },
      timeout_);
  if (id.size() != sizeof(ncclUniqueId::internal))
    throw Error(DTB_STATUS_IO_ERROR, "the NCCL id in the store has " + std::to_string(id.size()) +
                                         " bytes, not " + std::to_string(sizeof(ncclUniqueId::internal)));
  ncclUniqueId unique{};
  id.copy(unique.internal, id.size());

  applyTuning(options_);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // every call returns at once: waits are ours to bound
  if (options_.maxCtas > 0) config.maxCTAs = options_.maxCtas;
  const ncclResult_t init = ncclCommInitRankConfig(&comm_, size_, unique, rank_, &config);
  if (init != ncclSuccess && init != ncclInProgress) {
    if (comm_) ncclCommAbort(comm_);
    comm_ = nullptr;
    throw Error(DTB_STATUS_COMM_FAILURE, "ncclCommInitRankConfig: " + resultText(init, nullptr));
  }
  try {
    settle(nullptr, "joining the communicator (are all ranks started, each on its own GPU?)");
    int priority = 0, greatest = 0;
    checkCuda(cudaDeviceGetStreamPriorityRange(&priority, &greatest), "cudaDeviceGetStreamPriorityRange");
    checkCuda(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest), "cudaStreamCreate");
    checkCuda(cudaMalloc(&barrierScratch_, sizeof(float)), "cudaMalloc");
  } catch (...) {
    if (!health_.aborted()) ncclCommAbort(comm_);
    if (stream_) cudaStreamDestroy(stream_);
    throw;
  }
}

NcclCommunicator::~NcclCommunicator() {
  cudaSetDevice(device_);
  pending_.clear();  // never launched: abandoned, as backend.h allows
  if (!health_.aborted()) {
    // A clean end: finalize (waits for outstanding work, bounded), then free.
    const ncclResult_t finalized = ncclCommFinalize(comm_);
    ncclResult_t state = finalized;
    const auto deadline = Clock::now() + timeout_;
    while (finalized == ncclSuccess || finalized == ncclInProgress) {
      if (ncclCommGetAsyncError(comm_, &state) != ncclSuccess || state != ncclInProgress) break;
      if (Clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    if (state == ncclSuccess) {
      ncclCommDestroy(comm_);
    } else {
      ncclCommAbort(comm_);
    }
  }
  if (barrierScratch_) cudaFree(barrierScratch_);
  if (stream_) cudaStreamDestroy(stream_);
}

void NcclCommunicator::fail(dtb_status_t status, const std::string& what) const {
  throw Error(status, "nccl: rank " + std::to_string(rank_) + ": " + what);
}

void NcclCommunicator::checkUsable() const {
  if (health_.aborted()) {
    fail(DTB_STATUS_COMM_FAILURE,
         "the communicator was aborted (" + health_.reason() + "); a new one must be made");
  }
}

void NcclCommunicator::abortBecause(const std::string& reason) {
  if (!health_.aborted()) ncclCommAbort(comm_);
  health_.abortedBecause(reason);
}

// After a non-blocking call returned ncclInProgress, NCCL finishes it in the
// background; nothing else may be called until the state settles.
void NcclCommunicator::settle(const Request* request, const char* what) {
  const auto deadline = Clock::now() + timeout_;
  for (;;) {
    ncclResult_t state = ncclSuccess;
    const ncclResult_t asked = ncclCommGetAsyncError(comm_, &state);
    if (asked != ncclSuccess) state = asked;
    if (state == ncclSuccess) return;
    const std::string doing = request ? request->name() : std::string(what);
    if (state != ncclInProgress) {
      const std::string why = resultText(state, comm_);
      abortBecause(why);
      fail(DTB_STATUS_COMM_FAILURE, doing + ": " + why);
    }
    if (Clock::now() >= deadline) {
      abortBecause(doing + " took longer than the timeout");
      fail(DTB_STATUS_TIMEOUT,
           doing + ": not done after " + std::to_string(timeout_.count()) + " ms; aborted");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

void NcclCommunicator::checkTensor(const dtb_tensor_t& t, const char* what) const {
  if (t.device.type != DTB_DEVICE_CUDA) {
    fail(DTB_STATUS_UNSUPPORTED, std::string(what) +
                                     " is in host memory; NCCL moves GPU memory only (allocate it with "
                                     "host->alloc on DTB_DEVICE_CUDA, or use gloo or mpi for host memory)");
  }
  if (t.device.index != device_) {
    fail(DTB_STATUS_INVALID_ARGUMENT, std::string(what) + " is on GPU " + std::to_string(t.device.index) +
                                          ", this communicator on GPU " + std::to_string(device_));
  }
  if (t.count > 0 && t.data == nullptr) fail(DTB_STATUS_INVALID_ARGUMENT, std::string(what) + " has no data");
  if (!ncclTypeOf(t.dtype))
    fail(DTB_STATUS_UNSUPPORTED, std::string(what) + " has a dtype NCCL does not know");
}

std::shared_ptr<Request> NcclCommunicator::issue(const char* op, uint64_t busBytes, Call call) {
  checkUsable();
  auto request = std::make_shared<Request>();
  request->op = op;  // the message is made only if it fails: issuing stays cheap
  request->sequence = ++issued_;
  traffic_.collective(busBytes);
  pending_.push_back({std::move(call), request});
  // A stream's order is the order of launches: nothing waits for a group then.
  if (!options_.groupCalls || userStream_) flush();
  return request;
}

// A launch's events, reused once no request holds them: creating two events
// per collective would add microseconds to every small one.
std::shared_ptr<Launch> NcclCommunicator::takeLaunch() {
  for (const std::shared_ptr<Launch>& launch : launches_) {
    if (launch.use_count() == 1) {
      launch->counted = false;
      launch->anchor.reset();
      return launch;
    }
  }
  auto launch = std::make_shared<Launch>();
  if (options_.busyTime) {
    checkCuda(cudaEventCreate(&launch->start), "cudaEventCreate");
    checkCuda(cudaEventCreate(&launch->end), "cudaEventCreate");
  } else {
    checkCuda(cudaEventCreateWithFlags(&launch->end, cudaEventDisableTiming), "cudaEventCreate");
  }
  launches_.push_back(launch);
  return launch;
}

void NcclCommunicator::flush() {
  if (pending_.empty()) return;
  std::vector<Pending> batch;
  batch.swap(pending_);
  std::shared_ptr<Launch> launch;
  try {
    checkUsable();
    checkCuda(cudaSetDevice(device_), "cudaSetDevice");
    launch = takeLaunch();
    // On the caller's stream when it set one (NCCL's own model: the stream
    // orders the collective with the kernels around it), else on ours.
    const cudaStream_t stream = userStream_ ? userStream_ : stream_;
    if (launch->start) {
      launch->anchor = clock_.anchorFor(stream);
      launch->name = batch.front().request->name() +
                     (batch.size() > 1 ? " +" + std::to_string(batch.size() - 1) : std::string());
      checkCuda(cudaEventRecord(launch->start, stream), "cudaEventRecord");
    }
    const bool group = batch.size() > 1;
    if (group && ncclGroupStart() != ncclSuccess) fail(DTB_STATUS_INTERNAL, "ncclGroupStart failed");
    ncclResult_t result = ncclSuccess;
    for (const Pending& p : batch) {
      result = p.call(stream);
      if (result != ncclSuccess && result != ncclInProgress) break;
    }
    if (group) {
      const ncclResult_t ended = ncclGroupEnd();
      if (result == ncclSuccess || result == ncclInProgress) result = ended;
    }
    if (result != ncclSuccess && result != ncclInProgress) {
      // A non-blocking communicator keeps a failed call's error and answers
      // every later call with it: it is done for, whatever the error was.
      const std::string why = resultText(result, comm_);
      abortBecause(why);
      fail(result == ncclInvalidArgument || result == ncclInvalidUsage ? DTB_STATUS_INVALID_ARGUMENT
                                                                       : DTB_STATUS_COMM_FAILURE,
           batch.front().request->name() + ": " + why);
    }
    settle(batch.front().request.get(), nullptr);
    checkCuda(cudaEventRecord(launch->end, stream), "cudaEventRecord");
  } catch (...) {
    // Each request of the batch ends with the failure; issued alone, the
    // issuing call fails with it too; grouped, each request's wait says it.
    dtb_status_t status = DTB_STATUS_INTERNAL;
    std::string message = "nccl: rank " + std::to_string(rank_) + ": launching failed";
    try {
      throw;
    } catch (const Error& e) {
      status = e.status();
      message = e.what();
    } catch (const std::bad_alloc&) {
      status = DTB_STATUS_OUT_OF_MEMORY;
      message += ": out of host memory";
    } catch (const std::exception& e) {
      message += std::string(": ") + e.what();
    }
    for (Pending& p : batch) {
      p.request->complete = true;
      p.request->status = status;
      p.request->message = message;
    }
    if (!options_.groupCalls || userStream_) throw Error(status, message);
    return;
  }
  for (Pending& p : batch) p.request->launch = launch;
}

void NcclCommunicator::finish(Request& request) {
  request.complete = true;
  Launch& launch = *request.launch;
  if (launch.counted || !launch.start) return;
  launch.counted = true;
  float ms = 0;
  if (cudaEventElapsedTime(&ms, launch.start, launch.end) == cudaSuccess)
    traffic_.busy(std::chrono::nanoseconds(static_cast<int64_t>(static_cast<double>(ms) * 1e6)));
  // Where it ran on the GPU, on a row of the trace of its own (ignored
  // unless the run writes one).
  if (!launch.anchor) return;
  const std::optional<int64_t> begin = GpuClock::hostNs(*launch.anchor, launch.start);
  const std::optional<int64_t> end = GpuClock::hostNs(*launch.anchor, launch.end);
  if (begin && end) host_->trace_span(host_->ctx, launch.name.c_str(), "gpu:nccl", *begin, *end);
}

void NcclCommunicator::failRequest(Request& request, dtb_status_t status, const std::string& what) const {
  request.complete = true;
  request.status = status;
  request.message = "nccl: rank " + std::to_string(rank_) + ": " + request.name() + ": " + what;
}

bool NcclCommunicator::test(Request& request) {
  flush();
  if (request.complete) return true;
  if (health_.aborted()) {
    failRequest(request, DTB_STATUS_COMM_FAILURE, "the communicator was aborted (" + health_.reason() + ")");
    return true;
  }
  cudaSetDevice(device_);
  WatchedRequest watched(comm_, *request.launch);
  if (std::optional<std::string> failure = watched.failure()) {
    abortBecause(*failure);
    failRequest(request, DTB_STATUS_COMM_FAILURE, *failure + "; communicator aborted");
    return true;
  }
  if (watched.finished()) finish(request);
  return request.complete;
}

dtb_status_t NcclCommunicator::wait(Request& request, std::chrono::milliseconds timeout, std::string* why) {
  try {
    flush();
  } catch (const Error&) {
    // The request holds the failure (below).
  }
  if (!request.complete) {
    cudaSetDevice(device_);
    if (health_.aborted()) {
      failRequest(request, DTB_STATUS_COMM_FAILURE,
                  "the communicator was aborted (" + health_.reason() + ")");
    } else {
      WatchedRequest watched(comm_, *request.launch);
      const Verdict verdict = watch(watched, timeout);
      if (verdict.status == DTB_STATUS_OK) {
        finish(request);
      } else {
        health_.abortedBecause(request.name() + ": " + verdict.why);  // watch() aborted it
        failRequest(request, verdict.status,
                    verdict.why +
                        (verdict.status == DTB_STATUS_TIMEOUT
                             ? "; communicator aborted (a peer is stuck or gone: its own log or exit status "
                               "names it)"
                             : "; communicator aborted"));
      }
    }
  }
  if (request.status != DTB_STATUS_OK) *why = request.message;
  return request.status;
}

void NcclCommunicator::setStream(void* stream) {
  flush();  // what was issued before keeps the ordering it was issued with
  userStream_ = static_cast<cudaStream_t>(stream);
}

std::shared_ptr<Request> NcclCommunicator::allreduce(const dtb_tensor_t& buffer, dtb_reduce_op_t op) {
  checkTensor(buffer, "all-reduce buffer");
  const std::optional<ncclRedOp_t> red = ncclOpOf(op);
  if (!red) fail(DTB_STATUS_UNSUPPORTED, noBitwiseAnd(buffer.dtype));
  const uint64_t bytes = buffer.count * dtypeSize(buffer.dtype);
  return issue("allreduce", bytes * 2 * (size_ - 1) / size_, [=, this](cudaStream_t s) {
    return ncclAllReduce(buffer.data, buffer.data, buffer.count, *ncclTypeOf(buffer.dtype), *red, comm_, s);
  });
}

std::shared_ptr<Request> NcclCommunicator::reduceScatter(const dtb_tensor_t& input,
                                                         const dtb_tensor_t& output, dtb_reduce_op_t op) {
  checkTensor(input, "reduce-scatter input");
  checkTensor(output, "reduce-scatter output");
  requireReduceScatterShapes(input, output, size_, kName);
  const std::optional<ncclRedOp_t> red = ncclOpOf(op);
  if (!red) fail(DTB_STATUS_UNSUPPORTED, noBitwiseAnd(input.dtype));
  const uint64_t bytes = input.count * dtypeSize(input.dtype);
  return issue("reduce_scatter", bytes * (size_ - 1) / size_, [=, this](cudaStream_t s) {
    return ncclReduceScatter(input.data, output.data, output.count, *ncclTypeOf(input.dtype), *red, comm_, s);
  });
}

std::shared_ptr<Request> NcclCommunicator::allgather(const dtb_tensor_t& input, const dtb_tensor_t& output) {
  checkTensor(input, "all-gather input");
  checkTensor(output, "all-gather output");
  requireAllgatherShapes(input, output, size_, kName);
  allgatherInPlace(input, output, rank_, kName);  // throws for any overlap but NCCL's in-place one
  const uint64_t bytes = output.count * dtypeSize(output.dtype);
  return issue("allgather", bytes * (size_ - 1) / size_, [=, this](cudaStream_t s) {
    return ncclAllGather(input.data, output.data, input.count, *ncclTypeOf(input.dtype), comm_, s);
  });
}

std::shared_ptr<Request> NcclCommunicator::broadcast(const dtb_tensor_t& buffer, int root) {
  checkTensor(buffer, "broadcast buffer");
  if (root < 0 || root >= size_)
    fail(DTB_STATUS_INVALID_ARGUMENT, "broadcast root " + std::to_string(root) + " is not a rank");
  const uint64_t bytes = buffer.count * dtypeSize(buffer.dtype);
  return issue("broadcast", size_ > 1 ? bytes : 0, [=, this](cudaStream_t s) {
    return ncclBroadcast(buffer.data, buffer.data, buffer.count, *ncclTypeOf(buffer.dtype), root, comm_, s);
  });
}

// As ProcessGroupNCCL's barrier: an all-reduce of one element, waited for.
std::shared_ptr<Request> NcclCommunicator::barrier() {
  return issue("barrier", 0, [this](cudaStream_t s) {
    return ncclAllReduce(barrierScratch_, barrierScratch_, 1, ncclFloat32, ncclSum, comm_, s);
  });
}

}  // namespace dtb::backend::nccl
