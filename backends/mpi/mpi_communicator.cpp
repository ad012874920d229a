#include "mpi_communicator.h"

#include <algorithm>
#include <climits>
#include <cstddef>
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

MpiCommunicator::MpiCommunicator(const dtb_host_t* host, const dtb_rendezvous_t& rdv)
    : CommunicatorBase(host, rdv),
      timeout_(rdv.timeout_ms > 0 ? rdv.timeout_ms : 60000),
      queue_(waitsGuarded(rdv), kSpin) {
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
    // The user ops of half types, made now: later lookups make no MPI call,
    // so issuing never waits for the MPI lock a running collective holds.
    for (dtb_dtype_t dtype : {DTB_DTYPE_F16, DTB_DTYPE_BF16}) {
      for (dtb_reduce_op_t op : {DTB_REDUCE_SUM, DTB_REDUCE_MAX, DTB_REDUCE_MIN}) opOf(dtype, op);
    }
  }
  thread_ = std::thread([this] {
    queue_.serve([this](Job& job) { execute(job); });
    serving_ = false;
  });
}

bool MpiCommunicator::close() {
  closing_ = true;  // what is still queued fails instead of running: peers may never join it
  queue_.stop();
  // The collective in MPI now, if any, may never end: wait for it no longer
  // than the timeout, as any waiter would.
  while (serving_ && !abandoned_) {
    if (collectiveOverdue()) abandon();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (abandoned_) {
    thread_.detach();  // inside MPI for good; it still uses this object, which is never freed
    return false;
  }
  thread_.join();
  if (!broken_) {
    std::lock_guard lock(mpiLock());
    MPI_Comm_free(&comm_);
  }
  return true;
}

MpiCommunicator::~MpiCommunicator() {
  if (thread_.joinable()) close();
}

std::string MpiCommunicator::errorText(int code) const {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return "mpi: rank " + std::to_string(rank_) + ": " + std::string(text, static_cast<size_t>(length));
}

std::shared_ptr<Request> MpiCommunicator::enqueue(Run run, Finish finish, uint64_t bytesSent) {
  if (broken_) {
    throw Error(DTB_STATUS_COMM_FAILURE, "mpi: rank " + std::to_string(rank_) +
                                             ": the communicator is unusable after a collective failed "
                                             "or timed out");
  }
  auto request = std::make_shared<Request>();
  queue_.push({std::move(run), std::move(finish), request, Clock::now()});
  traffic_.collective(bytesSent);
  return request;
}

void MpiCommunicator::execute(Job& job) {
  if (broken_ || closing_) {
    job.request->finish(DTB_STATUS_COMM_FAILURE,
                        "mpi: rank " + std::to_string(rank_) + ": not started: " +
                            (closing_ ? "the communicator was closed" : "an earlier collective failed"));
    return;
  }
  int rc = MPI_SUCCESS;
  if (job.run) {
    yieldWhileWaiting(std::this_thread::get_id() != trainingThread_);
    const auto start = Clock::now();
    runningSinceNs_ = std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count();
    rc = job.run();
    runningSinceNs_ = 0;
    traffic_.busy(Clock::now() - start);
  }
  if (rc != MPI_SUCCESS) {
    broken_ = true;  // the ranks' call sequences no longer match
    job.request->finish(DTB_STATUS_COMM_FAILURE, errorText(rc));
    return;
  }
  if (job.finish) job.finish();
  job.request->finish(DTB_STATUS_OK, "");
}

bool MpiCommunicator::collectiveOverdue() const {
  const int64_t since = runningSinceNs_;
  return since != 0 && Clock::now().time_since_epoch() - std::chrono::nanoseconds(since) > timeout_;
}

void MpiCommunicator::abandon() {
  broken_ = true;
  abandoned_ = true;
  markAbandoned();
}

dtb_status_t MpiCommunicator::wait(dtb_request_t handle, int64_t timeoutMs) {
  const std::shared_ptr<Request>& r = fromHandle(handle);
  // Only a wait of the run's own timeout (every default wait) runs it
  // here: a shorter one (a poll) must return by its timeout, and a longer
  // one would hold a stuck collective past the run's. The thread never
  // leaves a waited-for collective to its caller.
  r->markWaited();
  if (timeoutMs == timeout_.count()) queue_.runUpTo(*r, [this](Job& job) { execute(job); });
  if (r->spinFor(kSpin)) {
    if (r->status() != DTB_STATUS_OK) host_->set_error(host_->ctx, r->message().c_str());
    return r->status();
  }
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs < 0 ? 0 : timeoutMs);
  for (;;) {
    // Short slices: the collective in MPI may pass its own timeout first.
    const auto slice = std::min<Clock::duration>(deadline - Clock::now(), std::chrono::milliseconds(50));
    if (r->waitFor(std::chrono::duration_cast<std::chrono::milliseconds>(slice) +
                   std::chrono::milliseconds(1))) {
      if (r->status() != DTB_STATUS_OK) host_->set_error(host_->ctx, r->message().c_str());
      return r->status();
    }
    const bool overdue = collectiveOverdue();
    if (abandoned_) {  // another waiter, or close(), gave up on the collective in MPI
      host_->set_error(host_->ctx, ("mpi: rank " + std::to_string(rank_) +
                                    ": not finished: the communicator was abandoned after a collective "
                                    "stayed in MPI past the " +
                                    std::to_string(timeout_.count()) + " ms timeout")
                                       .c_str());
      return DTB_STATUS_TIMEOUT;
    }
    if (overdue) {
      abandon();
      host_->set_error(host_->ctx,
                       ("mpi: rank " + std::to_string(rank_) + ": collective not finished after " +
                        std::to_string(timeout_.count()) + " ms (a peer stopped taking part?)")
                           .c_str());
      return DTB_STATUS_TIMEOUT;
    }
    if (Clock::now() >= deadline) {
      // The request may still end, but the step has failed and the ranks'
      // sequences may no longer match: nothing more is issued on it.
      broken_ = true;
      host_->set_error(host_->ctx, ("mpi: rank " + std::to_string(rank_) +
                                    ": collective not finished after " + std::to_string(timeoutMs) + " ms")
                                       .c_str());
      return DTB_STATUS_TIMEOUT;
    }
  }
}

std::shared_ptr<Request> MpiCommunicator::allreduce(const dtb_tensor_t& buffer, dtb_reduce_op_t op) {
  checkHost(buffer, "all-reduce buffer");
  // No MPI lock: the thread may hold it for a whole collective, and the
  // half-type ops this looks up were made in the constructor.
  const MPI_Op mpiOp = opOf(buffer.dtype, op);  // throws for unsupported combinations
  const uint64_t bytes = buffer.count * dtypeSize(buffer.dtype);
  Run run;
  if (buffer.count > 0) {
    run = [this, buffer, mpiOp] {
      std::lock_guard lock(mpiLock());
      return MPI_Allreduce(MPI_IN_PLACE, buffer.data, static_cast<int>(buffer.count),
                           datatypeOf(buffer.dtype), mpiOp, comm_);
    };
  }
  Finish finish;
  if (op == DTB_REDUCE_AVG)
    finish = [this, buffer] { scaleDown(buffer.data, buffer.dtype, buffer.count, size_); };
  return enqueue(run, finish, size_ > 1 ? 2 * bytes * (size_ - 1) / size_ : 0);
}

std::shared_ptr<Request> MpiCommunicator::reduceScatter(const dtb_tensor_t& input, const dtb_tensor_t& output,
                                                        dtb_reduce_op_t op) {
  checkReduceScatterShapes(input, output, size_, "mpi");
  checkHost(input, "reduce-scatter input");    // MPI's count limit
  const MPI_Op mpiOp = opOf(input.dtype, op);  // no MPI lock: see allreduce
  Run run;
  if (output.count > 0) {
    run = [this, input, output, mpiOp] {
      std::lock_guard lock(mpiLock());
      return MPI_Reduce_scatter_block(input.data, output.data, static_cast<int>(output.count),
                                      datatypeOf(input.dtype), mpiOp, comm_);
    };
  }
  Finish finish;
  if (op == DTB_REDUCE_AVG)
    finish = [this, output] { scaleDown(output.data, output.dtype, output.count, size_); };
  return enqueue(run, finish, output.count * dtypeSize(input.dtype) * (size_ - 1));
}

std::shared_ptr<Request> MpiCommunicator::allgather(const dtb_tensor_t& input, const dtb_tensor_t& output) {
  checkAllgatherShapes(input, output, size_, "mpi");
  checkHost(output, "all-gather output");  // MPI's count limit
  const bool inPlace = allgatherInPlace(input, output, rank_, "mpi");
  Run run;
  if (input.count > 0) {
    run = [this, input, output, inPlace] {
      const MPI_Datatype type = datatypeOf(input.dtype);
      std::lock_guard lock(mpiLock());
      // MPI forbids aliased buffers; MPI_IN_PLACE is how it says "my block is already there".
      return MPI_Allgather(inPlace ? MPI_IN_PLACE : input.data, static_cast<int>(input.count), type,
                           output.data, static_cast<int>(input.count), type, comm_);
    };
  }
  return enqueue(run, nullptr, input.count * dtypeSize(input.dtype) * (size_ - 1));
}

std::shared_ptr<Request> MpiCommunicator::broadcast(const dtb_tensor_t& buffer, int root) {
  checkHost(buffer, "broadcast buffer");
  if (root < 0 || root >= size_) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT,
                "mpi: broadcast root " + std::to_string(root) + " is not a rank");
  }
  Run run;
  if (buffer.count > 0) {
    run = [this, buffer, root] {
      std::lock_guard lock(mpiLock());
      return MPI_Bcast(buffer.data, static_cast<int>(buffer.count), datatypeOf(buffer.dtype), root, comm_);
    };
  }
  const uint64_t bytes = buffer.count * dtypeSize(buffer.dtype);
  return enqueue(run, nullptr, rank_ == root ? bytes * (size_ - 1) : 0);
}

std::shared_ptr<Request> MpiCommunicator::barrier() {
  Run run = [this] {
    std::lock_guard lock(mpiLock());
    return MPI_Barrier(comm_);
  };
  return enqueue(run, nullptr, 0);
}

}  // namespace dtb::backend::mpi
