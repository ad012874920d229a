#include "sweep/collective_sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "cuda/cuda_memory.h"
#include "dtbench/half.hpp"
#include "dtbench/plugin.hpp"
#include "host/blocking_collective.h"
#include "sweep/gpu_check.h"
#include "sweep/memory_bandwidth.h"
#include "sweep/sweep_memory.h"
#include "sweep/sweep_pattern.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

// Element i of a buffer of `dtype`, as a double.
double readAt(const void* data, dtb_dtype_t dtype, size_t i) {
  switch (dtype) {
    case DTB_DTYPE_F32:
      return static_cast<const float*>(data)[i];
    case DTB_DTYPE_F64:
      return static_cast<const double*>(data)[i];
    case DTB_DTYPE_F16:
      return halfToFloat(static_cast<const uint16_t*>(data)[i]);
    case DTB_DTYPE_BF16:
      return bfloat16ToFloat(static_cast<const uint16_t*>(data)[i]);
    case DTB_DTYPE_I32:
      return static_cast<const int32_t*>(data)[i];
    case DTB_DTYPE_I64:
      return static_cast<double>(static_cast<const int64_t*>(data)[i]);
    case DTB_DTYPE_I8:
      return static_cast<const int8_t*>(data)[i];
    case DTB_DTYPE_U8:
      return static_cast<const uint8_t*>(data)[i];
  }
  return NAN;
}

// Integers wrap as the backends' integer sums do.
void writeAt(void* data, dtb_dtype_t dtype, size_t i, double v) {
  const auto whole = static_cast<int64_t>(v);
  switch (dtype) {
    case DTB_DTYPE_F32:
      static_cast<float*>(data)[i] = static_cast<float>(v);
      break;
    case DTB_DTYPE_F64:
      static_cast<double*>(data)[i] = v;
      break;
    case DTB_DTYPE_F16:
      static_cast<uint16_t*>(data)[i] = floatToHalf(static_cast<float>(v));
      break;
    case DTB_DTYPE_BF16:
      static_cast<uint16_t*>(data)[i] = floatToBfloat16(static_cast<float>(v));
      break;
    case DTB_DTYPE_I32:
      static_cast<int32_t*>(data)[i] = static_cast<int32_t>(whole);
      break;
    case DTB_DTYPE_I64:
      static_cast<int64_t*>(data)[i] = whole;
      break;
    case DTB_DTYPE_I8:
      static_cast<int8_t*>(data)[i] = static_cast<int8_t>(whole);
      break;
    case DTB_DTYPE_U8:
      static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(whole);
      break;
  }
}

// What `expected` becomes when stored in `dtype` (rounding, wrapping).
double asStored(dtb_dtype_t dtype, double expected) {
  uint64_t slot = 0;
  writeAt(&slot, dtype, 0, expected);
  return readAt(&slot, dtype, 0);
}

// One collective at one size: its tensors over buffers big enough for the
// sweep's largest size, S as nccl-tests counts it, and what each output
// element must hold after the check. On a GPU backend the tensors are GPU
// memory, filled from the host copy `hostIn` and checked where they lie.
struct Call {
  std::string op;
  dtb_dtype_t dtype;
  dtb_reduce_op_t reduceOp;
  int rank, world;
  dtb_tensor_t input{}, output{};  // all-reduce and broadcast work in place on `input`
  void* hostIn = nullptr;
  int64_t bytes = 0;

  bool onGpu() const { return input.device.type == DTB_DEVICE_CUDA; }
  void fill(int forRank) {
    for (size_t i = 0; i < input.count; ++i) writeAt(hostIn, dtype, i, sweep::pattern(forRank, i));
    if (onGpu()) copyToGpu(input.data, hostIn, input.count * dtypeSize(dtype), input.device.index);
  }
  sweep::Expectation expected() const {
    const sweep::Collective c = op == "allreduce"        ? sweep::Collective::kAllreduce
                                : op == "reduce_scatter" ? sweep::Collective::kReduceScatter
                                : op == "allgather"      ? sweep::Collective::kAllgather
                                                         : sweep::Collective::kBroadcast;
    return {c, reduceOp, rank, world, input.count, output.count};
  }
  bool inPlace() const { return op == "allreduce" || op == "broadcast"; }
  const dtb_tensor_t& result() const { return inPlace() ? input : output; }
  // Elements of the result that are wrong: counted on the GPU where the
  // result lies there, else here.
  int64_t wrongElements() const {
    const sweep::Expectation want = expected();
    if (onGpu()) return countWrongOnGpu(result(), want);
    int64_t wrong = 0;
    for (size_t i = 0; i < result().count; ++i) {
      const double expectedValue = asStored(dtype, want.at(i));
      const double value = readAt(result().data, dtype, i);
      if (std::abs(value - expectedValue) > sweep::tolerance(dtype) * std::abs(expectedValue)) ++wrong;
    }
    return wrong;
  }

  dtb_status_t start(Communicator& comm, dtb_request_t* r, std::string* e) {
    if (op == "allreduce") return comm.allreduce(&input, reduceOp, r, e);
    if (op == "reduce_scatter") return comm.reduceScatter(&input, &output, reduceOp, r, e);
    if (op == "allgather") return comm.allgather(&input, &output, r, e);
    return comm.broadcast(&input, 0, r, e);
  }
  void run(Communicator& comm) {
    runCollective(comm, [&](dtb_request_t* r, std::string* e) { return start(comm, r, e); });
  }
  // One call timed on the GPU: events around it on `timer`'s stream, which
  // the backend runs it on (set_stream), as nccl-tests times a call.
  double runTimedOnGpu(Communicator& comm, GpuTimer& timer) {
    dtb_request_t request = nullptr;
    std::string error;
    timer.start();
    dtb_status_t status = start(comm, &request, &error);
    timer.stop();
    if (status == DTB_STATUS_OK) status = comm.wait(request, DTB_TIMEOUT_DEFAULT, &error);
    if (status != DTB_STATUS_OK) throw PluginCallError(error, status);
    return timer.seconds();
  }
};

// The memory a sweep's calls work in, grown to the largest call so far:
// host vectors, or for a GPU backend GPU buffers and a host copy of the
// input to fill them from.
class SweepBuffers {
 public:
  explicit SweepBuffers(dtb_device_t device) : device_(device) {}

  void place(Call& call, size_t inCount, size_t outCount) {
    const size_t element = dtypeSize(call.dtype);
    in_.resize(std::max(in_.size(), inCount * element));
    call.hostIn = in_.data();
    if (device_.type != DTB_DEVICE_CUDA) {
      out_.resize(std::max(out_.size(), outCount * element));
      call.input = hostTensor(in_.data(), inCount, call.dtype);
      call.output = hostTensor(out_.data(), outCount, call.dtype);
      return;
    }
    grow(gpuIn_, inCount * element);
    grow(gpuOut_, outCount * element);
    call.input = hostTensor(gpuIn_->data(), inCount, call.dtype);
    call.output = hostTensor(gpuOut_->data(), outCount, call.dtype);
    call.input.device = call.output.device = device_;
  }

 private:
  void grow(std::unique_ptr<GpuBuffer>& gpu, size_t bytes) {
    if (gpu && gpu->bytes() >= bytes) return;
    gpu.reset();  // freed first: the old and the new may not both fit
    gpu = std::make_unique<GpuBuffer>(bytes, device_.index);
  }

  dtb_device_t device_;
  std::vector<uint8_t> in_, out_;
  std::unique_ptr<GpuBuffer> gpuIn_, gpuOut_;
};

// The sweep's stream in the backend's hands (set_stream) for as long as the
// sweep runs, taken back however it ends: the stream dies with its timer.
class StreamLease {
 public:
  StreamLease(Communicator& comm, void* stream) : comm_(comm) {
    std::string error;
    if (const dtb_status_t set = comm_.setStream(stream, &error); set != DTB_STATUS_OK)
      throw PluginCallError(error, set);
  }
  ~StreamLease() {
    std::string ignored;  // a failed communicator has no stream to give back
    comm_.setStream(nullptr, &ignored);
  }
  StreamLease(const StreamLease&) = delete;
  StreamLease& operator=(const StreamLease&) = delete;

 private:
  Communicator& comm_;
};

// Sets up `call` for `size` bytes in `buffers`; false when the size holds
// no element per rank.
bool shape(Call& call, int64_t size, SweepBuffers& buffers) {
  const size_t element = dtypeSize(call.dtype);
  const bool split = call.op == "reduce_scatter" || call.op == "allgather";
  const size_t perRank = static_cast<size_t>(size) / element / (split ? call.world : 1);
  if (perRank == 0) return false;
  const size_t inCount = call.op == "reduce_scatter" ? perRank * call.world : perRank;
  const size_t outCount = call.op == "allgather" ? perRank * call.world : perRank;
  buffers.place(call, inCount, outCount);
  call.bytes = static_cast<int64_t>((split ? perRank * call.world : perRank) * element);
  return true;
}

void barrier(Communicator& comm) {
  runCollective(comm, [&](dtb_request_t* r, std::string* e) { return comm.barrier(r, e); });
}

double percentile(std::vector<double> sorted, double p) {
  std::sort(sorted.begin(), sorted.end());
  const size_t index = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size()))) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

}  // namespace

void runCollectiveSweep(const SweepSpec& sweep, Communicator& comm, int rank, int world,
                        RecordWriter& records) {
  const std::vector<int64_t> sizes = sweep.sizes();

  // The reference first, every rank copying at once (as they all move data
  // in a collective): host memcpy, or on a GPU backend the GPU's own copy.
  const dtb_device_t device = comm.device();
  const bool gpu = comm.memory() == DTB_DEVICE_CUDA;
  barrier(comm);
  const int64_t referenceBytes = sweepReferenceBytes(sweep);
  std::vector<double> gbps = {gpu ? gpuMemcpyGbps(referenceBytes, device.index) : memcpyGbps(referenceBytes)};
  allreduceDoubles(comm, gbps, DTB_REDUCE_AVG);
  if (rank == 0) records.reference({0, gpu ? "gpu_memcpy" : "memcpy", referenceBytes, gbps[0]});

  std::unique_ptr<GpuTimer> timer;
  std::optional<StreamLease> lease;  // after the timer: gives its stream back before it is destroyed
  if (gpu) {
    timer = std::make_unique<GpuTimer>(device.index);
    lease.emplace(comm, timer->stream());
  }
  SweepBuffers buffers(device);
  for (const std::string& op : sweep.ops) {
    for (const std::string& dtypeName : sweep.dtypes) {
      const dtb_dtype_t dtype = sweepDtype(dtypeName);
      for (int64_t size : sizes) {
        Call call{op, dtype, sweepReduceOp(sweep.reduceOp), rank, world};
        if (!shape(call, size, buffers)) continue;
        call.fill(rank);
        for (int64_t w = 0; w < sweep.warmup; ++w) call.run(comm);
        std::vector<double> times(static_cast<size_t>(sweep.iterations));
        for (double& t : times) {
          if (timer) {
            t = call.runTimedOnGpu(comm, *timer);
            continue;
          }
          const auto start = Clock::now();
          call.run(comm);
          t = std::chrono::duration<double>(Clock::now() - start).count();
        }
        allreduceDoubles(comm, times, DTB_REDUCE_AVG);  // each call's time, averaged over the ranks

        std::vector<double> wrong = {0};
        if (sweep.check) {
          call.fill(rank);
          call.run(comm);
          wrong[0] = static_cast<double>(call.wrongElements());
          allreduceDoubles(comm, wrong, DTB_REDUCE_SUM);
        }
        if (rank == 0) {
          CollectiveRecord c;
          c.rank = 0;
          c.op = op;
          c.dtype = dtb::dtypeName(dtype);
          c.bytes = call.bytes;
          c.iterations = sweep.iterations;
          double total = 0;
          for (double t : times) total += t;
          c.timeS = total / static_cast<double>(times.size());
          c.p50S = percentile(times, 0.50);
          c.p95S = percentile(times, 0.95);
          c.wrong = static_cast<int64_t>(wrong[0]);
          records.collective(c);
        }
      }
    }
  }
  lease.reset();
  barrier(comm);
}

}  // namespace dtb::core
