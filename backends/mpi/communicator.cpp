#include "communicator.h"

#include <climits>
#include <cstring>

#include "common/reductions.h"
#include "common/wiring.h"
#include "datatypes.h"
#include "dtbench/plugin.hpp"
#include "runtime.h"

namespace dtb::backend::mpi {
namespace {

using Clock = std::chrono::steady_clock;

// MPI counts are ints: larger tensors are refused, not truncated.
void checkHost(const dtb_tensor_t& t, const char* what) {
  checkHostTensor(t, what, "mpi");
  if (t.count > static_cast<uint64_t>(INT_MAX)) {
    throw Error(DTB_STATUS_UNSUPPORTED, std::string("mpi: ") + what + " has " + std::to_string(t.count) +
                                            " elements; MPI counts stop at " + std::to_string(INT_MAX));
  }
}

}  // namespace

Communicator::Communicator(const dtb_host_t* host, const dtb_rendezvous_t& rdv)
    : host_(host),
      rank_(rdv.rank),
      size_(rdv.world_size),
      timeout_(rdv.timeout_ms > 0 ? rdv.timeout_ms : 60000) {
  ensureInitialized(size_);
  int mpiRank = 0, mpiSize = 0;
  MPI_Request joining = MPI_REQUEST_NULL;
  {
    std::lock_guard lock(mpiLock());
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &mpiRank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpiSize);
    if (mpiRank == rank_ && mpiSize == size_) MPI_Comm_idup(MPI_COMM_WORLD, &comm_, &joining);
  }
  if (mpiRank != rank_ || mpiSize != size_) {
    const char* launcher = launcherEnvironment();
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "mpi: the run wants rank " + std::to_string(rank_) + " of " +
                                                 std::to_string(size_) + " but MPI made this process rank " +
                                                 std::to_string(mpiRank) + " of " + std::to_string(mpiSize) +
                                                 " (started by " + (launcher ? launcher : "no MPI launcher") +
                                                 "); start exactly world_size processes with mpirun -np");
  }
  // The duplicate is itself a collective: bounded like every other.
  const auto deadline = Clock::now() + timeout_;
  for (int done = 0;;) {
    {
      std::lock_guard lock(mpiLock());
      MPI_Test(&joining, &done, MPI_STATUS_IGNORE);
    }
    if (done) break;
    if (Clock::now() > deadline) {
      markAbandoned();
      throw Error(DTB_STATUS_TIMEOUT, "mpi: rank " + std::to_string(rank_) + ": not all " +
                                          std::to_string(size_) + " ranks joined within " +
                                          std::to_string(timeout_.count()) + " ms");
    }
    std::this_thread::yield();
  }
  {
    std::lock_guard lock(mpiLock());
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  thread_ = std::thread([this] { progress(); });
}

Communicator::~Communicator() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();  // bounded: every collective in flight has timeout_
  if (!broken_) {
    std::lock_guard lock(mpiLock());
    MPI_Comm_free(&comm_);
  }
}

std::string Communicator::errorText(int code) const {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return "mpi: rank " + std::to_string(rank_) + ": " + std::string(text, static_cast<size_t>(length));
}

std::shared_ptr<Request> Communicator::enqueue(Start start, Finish finish, uint64_t bytesSent) {
  if (broken_) {
    throw Error(DTB_STATUS_COMM_FAILURE, "mpi: rank " + std::to_string(rank_) +
                                             ": the communicator is unusable after a collective failed "
                                             "or timed out");
  }
  auto request = std::make_shared<Request>();
  {
    std::lock_guard lock(mutex_);
    queue_.push_back({std::move(start), std::move(finish), request});
  }
  wake_.notify_one();
  bytesSent_ += bytesSent;
  ++collectives_;
  return request;
}

void Communicator::progress() {
  std::vector<Job> active;
  bool busy = false;
  Clock::time_point busySince;
  for (;;) {
    std::deque<Job> fresh;
    {
      std::unique_lock lock(mutex_);
      if (active.empty()) wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_ && queue_.empty() && active.empty()) return;
      fresh.swap(queue_);
    }
    for (Job& job : fresh) active.push_back(std::move(job));
    if (!busy && !active.empty()) {
      busy = true;
      busySince = Clock::now();
    }
    startQueued(active);
    testActive(active);
    if (active.empty()) {
      if (busy) {
        busyNs_ += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - busySince).count();
        busy = false;
      }
    } else {
      // Open MPI advances a non-blocking collective only inside MPI calls:
      // keep testing, giving the core away between tests.
      std::this_thread::yield();
    }
  }
}

void Communicator::startQueued(std::vector<Job>& active) {
  for (auto it = active.begin(); it != active.end();) {
    Job& job = *it;
    if (job.started != Clock::time_point{}) {
      ++it;
      continue;
    }
    job.started = Clock::now();
    if (broken_) {
      job.request->finish(DTB_STATUS_COMM_FAILURE, "mpi: rank " + std::to_string(rank_) +
                                                       ": not started: an earlier collective failed");
      it = active.erase(it);
      continue;
    }
    try {
      job.handle = job.start();
    } catch (const Error& e) {
      job.request->finish(e.status(), e.what());
      broken_ = true;  // the ranks' call sequences no longer match
      it = active.erase(it);
      continue;
    }
    if (job.handle == MPI_REQUEST_NULL) {  // nothing to move
      if (job.finish) job.finish();
      job.request->finish(DTB_STATUS_OK, "");
      it = active.erase(it);
      continue;
    }
    ++it;
  }
}

void Communicator::testActive(std::vector<Job>& active) {
  for (auto it = active.begin(); it != active.end();) {
    Job& job = *it;
    int done = 0;
    int rc;
    {
      std::lock_guard lock(mpiLock());
      rc = MPI_Test(&job.handle, &done, MPI_STATUS_IGNORE);
    }
    if (rc != MPI_SUCCESS) {
      broken_ = true;
      job.request->finish(DTB_STATUS_COMM_FAILURE, errorText(rc));
    } else if (done) {
      if (job.finish) job.finish();
      job.request->finish(DTB_STATUS_OK, "");
    } else if (Clock::now() - job.started > timeout_) {
      // MPI cannot cancel a collective: abandon it, and with it the communicator.
      broken_ = true;
      markAbandoned();
      job.request->finish(DTB_STATUS_TIMEOUT,
                          "mpi: rank " + std::to_string(rank_) + ": collective not finished after " +
                              std::to_string(timeout_.count()) + " ms (a peer stopped taking part?)");
    } else {
      ++it;
      continue;
    }
    it = active.erase(it);
  }
}

std::shared_ptr<Request> Communicator::allreduce(const dtb_tensor_t& buffer, dtb_reduce_op_t op) {
  checkHost(buffer, "all-reduce buffer");
  MPI_Op mpiOp;
  {
    std::lock_guard lock(mpiLock());
    mpiOp = opOf(buffer.dtype, op);  // throws for unsupported combinations
  }
  const uint64_t bytes = buffer.count * dtypeSize(buffer.dtype);
  auto start = [this, buffer, mpiOp] {
    MPI_Request r = MPI_REQUEST_NULL;
    if (buffer.count == 0) return r;
    std::lock_guard lock(mpiLock());
    const int rc = MPI_Iallreduce(MPI_IN_PLACE, buffer.data, static_cast<int>(buffer.count),
                                  datatypeOf(buffer.dtype), mpiOp, comm_, &r);
    if (rc != MPI_SUCCESS) throw Error(DTB_STATUS_COMM_FAILURE, errorText(rc));
    return r;
  };
  Finish finish;
  if (op == DTB_REDUCE_AVG)
    finish = [this, buffer] { scaleDown(buffer.data, buffer.dtype, buffer.count, size_); };
  return enqueue(start, finish, size_ > 1 ? 2 * bytes * (size_ - 1) / size_ : 0);
}

std::shared_ptr<Request> Communicator::reduceScatter(const dtb_tensor_t& input, const dtb_tensor_t& output,
                                                     dtb_reduce_op_t op) {
  checkReduceScatterShapes(input, output, size_, "mpi");
  checkHost(input, "reduce-scatter input");  // MPI's count limit
  MPI_Op mpiOp;
  {
    std::lock_guard lock(mpiLock());
    mpiOp = opOf(input.dtype, op);
  }
  auto start = [this, input, output, mpiOp] {
    MPI_Request r = MPI_REQUEST_NULL;
    if (output.count == 0) return r;
    std::lock_guard lock(mpiLock());
    const int rc = MPI_Ireduce_scatter_block(input.data, output.data, static_cast<int>(output.count),
                                             datatypeOf(input.dtype), mpiOp, comm_, &r);
    if (rc != MPI_SUCCESS) throw Error(DTB_STATUS_COMM_FAILURE, errorText(rc));
    return r;
  };
  Finish finish;
  if (op == DTB_REDUCE_AVG)
    finish = [this, output] { scaleDown(output.data, output.dtype, output.count, size_); };
  return enqueue(start, finish, output.count * dtypeSize(input.dtype) * (size_ - 1));
}

std::shared_ptr<Request> Communicator::allgather(const dtb_tensor_t& input, const dtb_tensor_t& output) {
  checkAllgatherShapes(input, output, size_, "mpi");
  checkHost(output, "all-gather output");  // MPI's count limit
  const bool inPlace = allgatherInPlace(input, output, rank_, "mpi");
  auto start = [this, input, output, inPlace] {
    MPI_Request r = MPI_REQUEST_NULL;
    if (input.count == 0) return r;
    const MPI_Datatype type = datatypeOf(input.dtype);
    std::lock_guard lock(mpiLock());
    // MPI forbids aliased buffers; MPI_IN_PLACE is how it says "my block is already there".
    const int rc = MPI_Iallgather(inPlace ? MPI_IN_PLACE : input.data, static_cast<int>(input.count), type,
                                  output.data, static_cast<int>(input.count), type, comm_, &r);
    if (rc != MPI_SUCCESS) throw Error(DTB_STATUS_COMM_FAILURE, errorText(rc));
    return r;
  };
  return enqueue(start, nullptr, input.count * dtypeSize(input.dtype) * (size_ - 1));
}

std::shared_ptr<Request> Communicator::broadcast(const dtb_tensor_t& buffer, int root) {
  checkHost(buffer, "broadcast buffer");
  if (root < 0 || root >= size_) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT,
                "mpi: broadcast root " + std::to_string(root) + " is not a rank");
  }
  auto start = [this, buffer, root] {
    MPI_Request r = MPI_REQUEST_NULL;
    if (buffer.count == 0) return r;
    std::lock_guard lock(mpiLock());
    const int rc =
        MPI_Ibcast(buffer.data, static_cast<int>(buffer.count), datatypeOf(buffer.dtype), root, comm_, &r);
    if (rc != MPI_SUCCESS) throw Error(DTB_STATUS_COMM_FAILURE, errorText(rc));
    return r;
  };
  const uint64_t bytes = buffer.count * dtypeSize(buffer.dtype);
  return enqueue(start, nullptr, rank_ == root ? bytes * (size_ - 1) : 0);
}

std::shared_ptr<Request> Communicator::barrier() {
  auto start = [this] {
    MPI_Request r = MPI_REQUEST_NULL;
    std::lock_guard lock(mpiLock());
    const int rc = MPI_Ibarrier(comm_, &r);
    if (rc != MPI_SUCCESS) throw Error(DTB_STATUS_COMM_FAILURE, errorText(rc));
    return r;
  };
  return enqueue(start, nullptr, 0);
}

dtb_comm_counters_t Communicator::counters() const {
  dtb_comm_counters_t c{};
  c.bytes_sent = bytesSent_;
  c.bytes_received = bytesSent_;  // every collective here is symmetric over the ranks
  c.collectives = collectives_;
  c.busy_ns = busyNs_;
  return c;
}

}  // namespace dtb::backend::mpi
