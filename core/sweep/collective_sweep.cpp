#include "sweep/collective_sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "cuda/cuda_memory.h"
#include "dtbench/half.hpp"
#include "dtbench/plugin.hpp"
#include "run/blocking_collective.h"
#include "sweep/memory_bandwidth.h"

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

// Relative error allowed: averages are scaled by 1/world in the dtype.
double tolerance(dtb_dtype_t dtype) {
  switch (dtype) {
    case DTB_DTYPE_F64:
      return 1e-12;
    case DTB_DTYPE_F32:
      return 1e-6;
    case DTB_DTYPE_F16:
      return 2e-3;
    case DTB_DTYPE_BF16:
      return 1e-2;
    default:
      return 0;
  }
}

// Rank r's i-th input: small integers every dtype holds exactly.
double pattern(int rank, size_t i) { return (rank + 1) * static_cast<double>(i % 7 + 1); }

double reduced(dtb_reduce_op_t op, int world, size_t i) {
  const double k = static_cast<double>(i % 7 + 1);
  switch (op) {
    case DTB_REDUCE_MAX:
      return k * world;
    case DTB_REDUCE_MIN:
      return k;
    case DTB_REDUCE_AVG:
      return k * (world + 1) / 2.0;
    default:
      return k * world * (world + 1) / 2.0;
  }
}

// One collective at one size: its tensors over buffers big enough for the
// sweep's largest size, S as nccl-tests counts it, and what each output
// element must hold after the check. On a GPU backend the tensors are GPU
// memory, filled and read back through the host copies `hostIn`/`hostOut`.
struct Call {
  std::string op;
  dtb_dtype_t dtype;
  dtb_reduce_op_t reduceOp;
  int rank, world;
  dtb_tensor_t input{}, output{};  // all-reduce and broadcast work in place on `input`
  void* hostIn = nullptr;
  void* hostOut = nullptr;
  int64_t bytes = 0;

  bool onGpu() const { return input.device.type == DTB_DEVICE_CUDA; }
  void fill(int forRank) {
    for (size_t i = 0; i < input.count; ++i) writeAt(hostIn, dtype, i, pattern(forRank, i));
    if (onGpu()) copyToGpu(input.data, hostIn, input.count * dtypeSize(dtype), input.device.index);
  }
  double expectedAt(size_t i) const {
    if (op == "allreduce") return reduced(reduceOp, world, i);
    if (op == "reduce_scatter") return reduced(reduceOp, world, static_cast<size_t>(rank) * output.count + i);
    if (op == "allgather") return pattern(static_cast<int>(i / input.count), i % input.count);
    return pattern(0, i);  // broadcast from rank 0
  }
  bool inPlace() const { return op == "allreduce" || op == "broadcast"; }
  const dtb_tensor_t& result() const { return inPlace() ? input : output; }
  // The result in host memory (copied back from the GPU first).
  const void* resultOnHost() const {
    void* host = inPlace() ? hostIn : hostOut;
    if (onGpu()) copyFromGpu(host, result().data, result().count * dtypeSize(dtype), result().device.index);
    return host;
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
  // One call timed on the GPU: events on `timer`'s stream, which the
  // backend orders the collective with (set_stream), as nccl-tests times.
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

// The memory a sweep's calls work in: host vectors, and for a GPU backend
// GPU buffers as large, both grown to the largest call so far.
class SweepBuffers {
 public:
  explicit SweepBuffers(dtb_device_t device) : device_(device) {}

  void place(Call& call, size_t inCount, size_t outCount) {
    const size_t element = dtypeSize(call.dtype);
    grow(in_, gpuIn_, inCount * element);
    grow(out_, gpuOut_, outCount * element);
    call.hostIn = in_.data();
    call.hostOut = out_.data();
    call.input = hostTensor(gpuIn_ ? gpuIn_->data() : in_.data(), inCount, call.dtype);
    call.output = hostTensor(gpuOut_ ? gpuOut_->data() : out_.data(), outCount, call.dtype);
    call.input.device = call.output.device = device_;
  }

 private:
  void grow(std::vector<uint8_t>& host, std::unique_ptr<GpuBuffer>& gpu, size_t bytes) {
    host.resize(std::max(host.size(), bytes));
    if (device_.type == DTB_DEVICE_CUDA && (!gpu || gpu->bytes() < host.size())) {
      gpu.reset();  // free first: the old and the new may not both fit
      gpu = std::make_unique<GpuBuffer>(host.size(), device_.index);
    }
  }

  dtb_device_t device_;
  std::vector<uint8_t> in_, out_;
  std::unique_ptr<GpuBuffer> gpuIn_, gpuOut_;
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
  const int64_t referenceBytes = std::clamp<int64_t>(sweep.maxBytes, int64_t{1} << 20, int64_t{256} << 20);
  std::vector<double> gbps = {gpu ? gpuMemcpyGbps(referenceBytes, device.index) : memcpyGbps(referenceBytes)};
  allreduceDoubles(comm, gbps, DTB_REDUCE_AVG);
  if (rank == 0) records.reference({0, gpu ? "gpu_memcpy" : "memcpy", referenceBytes, gbps[0]});

  std::unique_ptr<GpuTimer> timer;
  if (gpu) {
    timer = std::make_unique<GpuTimer>(device.index);
    std::string error;
    if (const dtb_status_t set = comm.setStream(timer->stream(), &error); set != DTB_STATUS_OK)
      throw PluginCallError(error, set);
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
          const dtb_tensor_t& result = call.result();
          const void* got = call.resultOnHost();
          for (size_t i = 0; i < result.count; ++i) {
            const double expected = asStored(dtype, call.expectedAt(i));
            const double value = readAt(got, dtype, i);
            if (std::abs(value - expected) > tolerance(dtype) * std::abs(expected)) wrong[0] += 1;
          }
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
  if (timer) {
    std::string error;
    comm.setStream(nullptr, &error);  // the timer's stream goes with it
  }
  barrier(comm);
}

}  // namespace dtb::core
