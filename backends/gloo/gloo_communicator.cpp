#include "gloo_communicator.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <netdb.h>

#include <cctype>
#include <chrono>
#include <cstring>
#include <fstream>

#include "common/reductions.h"
#include "common/wiring.h"
#include "dtbench/plugin.hpp"
#include "legacy_allreduce.h"
#include "point_to_point.h"
#include "ring_reduce_scatter.h"
#include "timed_store.h"
#ifdef DTBENCH_HAVE_HIREDIS
#include "redis_store.h"
#endif

namespace dtb::backend::gloo {
namespace {

// Gloo reports timeouts as IoException with "Timed out ..." (transport) or
// "Wait timeout for key(s)" (store) in the text.
bool isTimeout(const std::exception& e) {
  std::string text = e.what();
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text.find("timed out") != std::string::npos || text.find("timeout") != std::string::npos;
}

void checkHost(const dtb_tensor_t& t, const char* what) { checkHostTensor(t, what, "gloo"); }

// Whether getaddrinfo finds an address for `host` (as Gloo will look it up).
bool resolves(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const bool ok = getaddrinfo(host.c_str(), nullptr, &hints, &found) == 0 && found != nullptr;
  if (found != nullptr) freeaddrinfo(found);
  return ok;
}

// This host's net.core.wmem_max, the largest socket send buffer a process
// may ask for; Linux's default where it cannot be read.
int64_t socketSendLimit() {
  std::ifstream file("/proc/sys/net/core/wmem_max");
  int64_t bytes = 0;
  return file >> bytes && bytes > 0 ? bytes : 212992;
}

}  // namespace

GlooCommunicator::GlooCommunicator(const dtb_host_t* host, const dtb_rendezvous_t& rdv,
                                   const GlooOptions& options)
    : CommunicatorBase(host, rdv),
      timeout_(rdv.timeout_ms > 0 ? rdv.timeout_ms : 60000),
      options_(options),
      // No spin: a worker looking for the next job took the core from
      // compute (LeNet steps 4-18 % slower; job_queue.h).
      queue_(waitsGuarded(rdv), std::chrono::microseconds{0}) {
  if (size_ < 1 || rank_ < 0 || rank_ >= size_) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT,
                "gloo: rank " + std::to_string(rank_) + " of world " + std::to_string(size_) + " is invalid");
  }
  if (rdv.store_path == nullptr && rdv.store_address == nullptr) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT,
                "gloo: the rendezvous names neither a store directory nor a server");
  }
#ifndef DTBENCH_HAVE_HIREDIS
  if (rdv.store_path == nullptr) {
    throw Error(DTB_STATUS_UNSUPPORTED,
                "gloo: this build has no Redis support (install libhiredis-dev and rebuild); use a shared "
                "directory (rendezvous_dir) instead");
  }
#endif
  if (options_.mode != Mode::kAsync && size_ > 1) {
    if (const int64_t limit = socketSendLimit(); options_.syncMaxBytes > limit) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT,
                  "gloo: sync_max_bytes " + std::to_string(options_.syncMaxBytes) + " exceeds this host's " +
                      "net.core.wmem_max (" + std::to_string(limit) + " bytes, rank " +
                      std::to_string(rank_) +
                      "): a send that does not fit the socket's buffer can block two ranks sending to each "
                      "other; lower sync_max_bytes or raise the sysctl");
    }
  }
  // A store address may carry credentials ("user:password@host:port"): never shown.
  std::string where =
      rdv.store_path ? std::string(rdv.store_path) : "redis://" + std::string(rdv.store_address);
  if (const size_t at = where.rfind('@'); !rdv.store_path && at != std::string::npos)
    where = "redis://" + where.substr(at + 1);
  ::gloo::transport::tcp::attr attr;
  attr.hostname = rdv.bind_address ? rdv.bind_address : "127.0.0.1";
  // libgloo dereferences a failed lookup (SIGSEGV in CreateDevice): a name
  // that does not resolve — a host's own name missing from its
  // /etc/hosts — is said here instead.
  if (!resolves(attr.hostname))
    throw Error(DTB_STATUS_INVALID_ARGUMENT,
                "gloo: rank " + std::to_string(rank_) + " would bind to '" + attr.hostname +
                    "', which does not resolve on its host: name the interface the ranks talk over "
                    "(interface = \"eth0\"), or add the name to the host's /etc/hosts");
  try {
    auto device = ::gloo::transport::tcp::CreateDevice(attr);
    std::shared_ptr<::gloo::rendezvous::Store> base;
#ifdef DTBENCH_HAVE_HIREDIS
    if (rdv.store_path == nullptr) base = std::make_shared<RedisStore>(rdv.store_address, timeout_);
#endif
    if (!base) base = std::make_shared<::gloo::rendezvous::FileStore>(rdv.store_path);
    auto prefixed =
        std::make_shared<::gloo::rendezvous::PrefixStore>(rdv.prefix ? rdv.prefix : "dtbench", *base);
    TimedStore store(prefixed, timeout_);
    context_ = std::make_shared<::gloo::rendezvous::Context>(rank_, size_);
    context_->setTimeout(timeout_);
    context_->connectFullMesh(store, device);
    if (options_.mode != Mode::kAsync && size_ > 1) {
      const std::string syncPrefix = std::string(rdv.prefix ? rdv.prefix : "dtbench") + "/sync";
      TimedStore syncStore(std::make_shared<::gloo::rendezvous::PrefixStore>(syncPrefix, *base), timeout_);
      syncContext_ = std::make_shared<::gloo::rendezvous::Context>(rank_, size_);
      syncContext_->setTimeout(timeout_);
      syncContext_->connectFullMesh(syncStore, device);
      // Off the device thread's loop: reads happen in the collective's thread,
      // bounded by the sockets' timeouts (the rendezvous timeout).
      for (int peer = 0; peer < size_; ++peer) {
        if (peer != rank_) syncContext_->getPair(peer)->setSync(true, options_.mode == Mode::kBusyPoll);
      }
    }
    // PrefixStore keeps a reference to `base`; both may go once connected.
  } catch (const std::exception& e) {
    throw Error(isTimeout(e) ? DTB_STATUS_TIMEOUT : DTB_STATUS_COMM_FAILURE,
                "gloo: rank " + std::to_string(rank_) + " could not connect to its " +
                    std::to_string(size_ - 1) + " peers through " + where + " within " +
                    std::to_string(timeout_.count()) + " ms: " + e.what());
  }
  p2p_ = std::make_unique<PointToPoint>(context_, rank_, timeout_, traffic_);
  worker_ = std::thread([this] { queue_.serve([this](Job& job) { execute(job); }); });
}

GlooCommunicator::~GlooCommunicator() {
  queue_.stop();
  worker_.join();  // bounded: every Gloo call in flight has timeout_
  p2p_.reset();    // before the pairs its messages use
}

std::shared_ptr<Request> GlooCommunicator::send(const dtb_tensor_t& buffer, int peer, uint32_t tag) {
  return p2p_->send(buffer, peer, tag);
}

std::shared_ptr<Request> GlooCommunicator::recv(const dtb_tensor_t& buffer, int peer, uint32_t tag) {
  return p2p_->recv(buffer, peer, tag);
}

std::shared_ptr<Request> GlooCommunicator::enqueue(Op op, uint64_t bytesSent) {
  auto request = std::make_shared<Request>();
  // Callers issue one at a time (the ABI): tags follow issue order.
  queue_.push({std::move(op), nextTag_++, request, std::chrono::steady_clock::now()});
  traffic_.collective(bytesSent);
  return request;
}

void GlooCommunicator::execute(Job& job) {
  const auto start = std::chrono::steady_clock::now();
  try {
    job.op(job.tag);
    traffic_.busy(std::chrono::steady_clock::now() - start);
    job.request->finish(DTB_STATUS_OK, "");
  } catch (const std::exception& e) {
    const dtb_status_t status = isTimeout(e) ? DTB_STATUS_TIMEOUT : DTB_STATUS_COMM_FAILURE;
    job.request->finish(status, "gloo: rank " + std::to_string(rank_) + ": " + e.what());
  }
}

dtb_status_t GlooCommunicator::wait(dtb_request_t handle, int64_t timeoutMs) {
  Request& r = *fromHandle(handle);
  r.markWaited();
  // Each Gloo call ends within the run's timeout; a shorter wait (a poll)
  // must return by its own, so it leaves the collective to the worker.
  if (timeoutMs >= timeout_.count()) queue_.runUpTo(r, [this](Job& job) { execute(job); });
  return waitForRequest(host_, kName, rank_, handle, timeoutMs);
}

bool GlooCommunicator::runsSync(dtb_dtype_t dtype, dtb_reduce_op_t op, uint64_t bytes) const {
  const Algorithm a = options_.algorithm;
  return syncContext_ && legacyReduces(dtype, op) && bytes <= static_cast<uint64_t>(options_.syncMaxBytes) &&
         (a == Algorithm::kAuto || a == Algorithm::kRingChunked || a == Algorithm::kHalvingDoubling);
}

std::shared_ptr<Request> GlooCommunicator::allreduce(const dtb_tensor_t& buffer, dtb_reduce_op_t op) {
  checkHost(buffer, "all-reduce buffer");
  const ReduceFn reduce = reduction(buffer.dtype, op, "gloo");  // throws for unsupported combinations
  const size_t elementSize = dtypeSize(buffer.dtype);
  const uint64_t bytes = buffer.count * elementSize;
  const Algorithm algorithm = options_.algorithm;
  const bool legacy = algorithm == Algorithm::kRingChunked || algorithm == Algorithm::kHalvingDoubling;
  if (legacy && !legacyReduces(buffer.dtype, op)) {
    throw Error(DTB_STATUS_UNSUPPORTED,
                "gloo: ring_chunked and halving_doubling reduce floats and 32/64-bit integers with "
                "sum, avg, min or max, and integers with band, only; use algorithm = \"ring\"");
  }
  // A sync all-reduce under auto takes halving-doubling: at 2 ranks it beat
  // ring_chunked at every size in sync mode here (docs/backends.md).
  const bool sync = runsSync(buffer.dtype, op, bytes);
  const Algorithm legacyAlgorithm = legacy ? algorithm : Algorithm::kHalvingDoubling;
  auto job = [this, buffer, op, reduce, elementSize, algorithm, sync, legacy, legacyAlgorithm](uint32_t tag) {
    if (buffer.count == 0) return;
    if (size_ > 1 && (sync || legacy)) {
      legacyAllreduce(legacyAlgorithm, sync ? syncContext_ : context_, buffer, op);
    } else if (size_ > 1) {
      ::gloo::AllreduceOptions opts(context_);
      opts.setAlgorithm(algorithm == Algorithm::kBcube  ? ::gloo::AllreduceOptions::Algorithm::BCUBE
                        : algorithm == Algorithm::kRing ? ::gloo::AllreduceOptions::Algorithm::RING
                                                        : ::gloo::AllreduceOptions::Algorithm::UNSPECIFIED);
      // Gloo only needs the element size from the type; `reduce` knows the real dtype.
      switch (elementSize) {
        case 1:
          opts.setOutput(static_cast<uint8_t*>(buffer.data), buffer.count);
          break;
        case 2:
          opts.setOutput(static_cast<uint16_t*>(buffer.data), buffer.count);
          break;
        case 4:
          opts.setOutput(static_cast<uint32_t*>(buffer.data), buffer.count);
          break;
        default:
          opts.setOutput(static_cast<uint64_t*>(buffer.data), buffer.count);
          break;
      }
      opts.setReduceFunction(reduce);
      opts.setTag(tag);
      opts.setTimeout(timeout_);
      ::gloo::allreduce(opts);
    }
    if (op == DTB_REDUCE_AVG) scaleDown(buffer.data, buffer.dtype, buffer.count, size_);
  };
  return enqueue(job, size_ > 1 ? 2 * bytes * (size_ - 1) / size_ : 0);
}

std::shared_ptr<Request> GlooCommunicator::reduceScatter(const dtb_tensor_t& input,
                                                         const dtb_tensor_t& output, dtb_reduce_op_t op) {
  checkReduceScatterShapes(input, output, size_, "gloo");
  const ReduceFn reduce = reduction(input.dtype, op, "gloo");
  const size_t elementSize = dtypeSize(input.dtype);
  auto job = [this, input, output, op, reduce, elementSize](uint32_t tag) {
    ringReduceScatter(context_, input.data, output.data, output.count, elementSize, reduce, tag, timeout_);
    if (op == DTB_REDUCE_AVG) scaleDown(output.data, output.dtype, output.count, size_);
  };
  return enqueue(job, output.count * elementSize * (size_ - 1));
}

std::shared_ptr<Request> GlooCommunicator::allgather(const dtb_tensor_t& input, const dtb_tensor_t& output) {
  checkAllgatherShapes(input, output, size_, "gloo");
  // In place is Gloo's own case too: it then copies the block onto itself.
  allgatherInPlace(input, output, rank_, "gloo");
  const size_t bytes = input.count * dtypeSize(input.dtype);
  auto job = [this, input, output, bytes](uint32_t tag) {
    if (bytes == 0) return;
    if (size_ == 1) {
      std::memmove(output.data, input.data, bytes);
      return;
    }
    ::gloo::AllgatherOptions opts(context_);
    opts.setInput<uint8_t>(context_->createUnboundBuffer(input.data, bytes));  // bytes: no reduction
    opts.setOutput<uint8_t>(context_->createUnboundBuffer(output.data, bytes * size_));
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    ::gloo::allgather(opts);
  };
  return enqueue(job, bytes * (size_ - 1));
}

std::shared_ptr<Request> GlooCommunicator::broadcast(const dtb_tensor_t& buffer, int root) {
  checkHost(buffer, "broadcast buffer");
  if (root < 0 || root >= size_) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT,
                "gloo: broadcast root " + std::to_string(root) + " is not a rank");
  }
  const size_t bytes = buffer.count * dtypeSize(buffer.dtype);
  auto job = [this, buffer, root, bytes](uint32_t tag) {
    if (bytes == 0 || size_ == 1) return;
    ::gloo::BroadcastOptions opts(context_);
    opts.setOutput<uint8_t>(context_->createUnboundBuffer(buffer.data, bytes));
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    ::gloo::broadcast(opts);
  };
  return enqueue(job, rank_ == root ? bytes * (size_ - 1) : 0);
}

std::shared_ptr<Request> GlooCommunicator::barrier() {
  auto job = [this](uint32_t tag) {
    if (size_ == 1) return;
    ::gloo::BarrierOptions opts(context_);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    ::gloo::barrier(opts);
  };
  return enqueue(job, 0);
}

}  // namespace dtb::backend::gloo
