#include "gloo_communicator.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring_chunked.h>
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

#include "common/reductions.h"
#include "common/wiring.h"
#include "dtbench/plugin.hpp"
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

// Gloo's legacy allreduce algorithms, typed.
template <typename T>
void legacyAllreduce(Algorithm algorithm, const std::shared_ptr<::gloo::Context>& context, void* data,
                     size_t count, dtb_reduce_op_t op) {
  const ::gloo::ReductionFunction<T>* fn = op == DTB_REDUCE_MAX   ? ::gloo::ReductionFunction<T>::max
                                           : op == DTB_REDUCE_MIN ? ::gloo::ReductionFunction<T>::min
                                                                  : ::gloo::ReductionFunction<T>::sum;
  std::vector<T*> ptrs{static_cast<T*>(data)};
  if (algorithm == Algorithm::kRingChunked) {
    ::gloo::AllreduceRingChunked<T>(context, ptrs, static_cast<int>(count), fn).run();
  } else {
    ::gloo::AllreduceHalvingDoubling<T>(context, ptrs, static_cast<int>(count), fn).run();
  }
}

}  // namespace

Algorithm parseAlgorithm(const std::string& name) {
  if (name == "auto") return Algorithm::kAuto;
  if (name == "ring") return Algorithm::kRing;
  if (name == "bcube") return Algorithm::kBcube;
  if (name == "ring_chunked") return Algorithm::kRingChunked;
  if (name == "halving_doubling") return Algorithm::kHalvingDoubling;
  throw Error(DTB_STATUS_INVALID_ARGUMENT, "gloo: unknown algorithm '" + name + "'");
}

GlooCommunicator::GlooCommunicator(const dtb_host_t* host, const dtb_rendezvous_t& rdv, Algorithm algorithm)
    : CommunicatorBase(host, rdv),
      timeout_(rdv.timeout_ms > 0 ? rdv.timeout_ms : 60000),
      algorithm_(algorithm) {
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
    // PrefixStore keeps a reference to `base`; both may go once connected.
  } catch (const std::exception& e) {
    throw Error(isTimeout(e) ? DTB_STATUS_TIMEOUT : DTB_STATUS_COMM_FAILURE,
                "gloo: rank " + std::to_string(rank_) + " could not connect to its " +
                    std::to_string(size_ - 1) + " peers through " + where + " within " +
                    std::to_string(timeout_.count()) + " ms: " + e.what());
  }
  worker_ = std::thread([this] { work(); });
}

GlooCommunicator::~GlooCommunicator() {
  queue_.stop();
  worker_.join();  // bounded: every Gloo call in flight has timeout_
}

std::shared_ptr<Request> GlooCommunicator::enqueue(Op op, uint64_t bytesSent) {
  auto request = std::make_shared<Request>();
  queue_.push({std::move(op), nextTag_++, request});  // callers issue one at a time (the ABI)
  traffic_.collective(bytesSent);
  return request;
}

void GlooCommunicator::work() {
  while (std::optional<Job> next = queue_.pop()) {
    Job& job = *next;
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
}

std::shared_ptr<Request> GlooCommunicator::allreduce(const dtb_tensor_t& buffer, dtb_reduce_op_t op) {
  checkHost(buffer, "all-reduce buffer");
  const ReduceFn reduce = reduction(buffer.dtype, op, "gloo");  // throws for unsupported combinations
  const size_t elementSize = dtypeSize(buffer.dtype);
  const bool legacy = algorithm_ == Algorithm::kRingChunked || algorithm_ == Algorithm::kHalvingDoubling;
  if (legacy && (op == DTB_REDUCE_BAND || elementSize < 4)) {
    throw Error(DTB_STATUS_UNSUPPORTED,
                "gloo: ring_chunked and halving_doubling reduce 32/64-bit types with "
                "sum, avg, min or max only; use algorithm = \"ring\"");
  }
  const uint64_t bytes = buffer.count * elementSize;
  auto job = [this, buffer, op, reduce, elementSize, legacy](uint32_t tag) {
    if (buffer.count == 0) return;
    if (size_ > 1 && legacy) {
      switch (buffer.dtype) {
        case DTB_DTYPE_F32:
          legacyAllreduce<float>(algorithm_, context_, buffer.data, buffer.count, op);
          break;
        case DTB_DTYPE_F64:
          legacyAllreduce<double>(algorithm_, context_, buffer.data, buffer.count, op);
          break;
        case DTB_DTYPE_I32:
          legacyAllreduce<int32_t>(algorithm_, context_, buffer.data, buffer.count, op);
          break;
        default:
          legacyAllreduce<int64_t>(algorithm_, context_, buffer.data, buffer.count, op);
          break;
      }
    } else if (size_ > 1) {
      ::gloo::AllreduceOptions opts(context_);
      opts.setAlgorithm(algorithm_ == Algorithm::kBcube  ? ::gloo::AllreduceOptions::Algorithm::BCUBE
                        : algorithm_ == Algorithm::kRing ? ::gloo::AllreduceOptions::Algorithm::RING
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
