// Timed spans of one rank, written as a Chrome trace (the JSON "Trace Event
// Format" chrome://tracing and Perfetto read): one complete event ("ph":
// "X") per span, the rank as the process, the recording thread as the
// thread, so a strategy's background thread shows beside the training loop.
// A span whose category begins with "gpu:" is work timed on a GPU (NCCL's
// collectives, by CUDA events), not on the thread that reports it: it goes
// on a row of its own, named by the rest of the category ("gpu:nccl" is the
// row "GPU: nccl"), so what ran on the GPU shows under the host's phases.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dtb::core {

class TraceRecorder {
 public:
  explicit TraceRecorder(int rank) : rank_(rank) {}

  static constexpr const char* kGpuCategory = "gpu:";
  static constexpr uint32_t kFirstGpuRow = 1000;  // the rows' tids: after any thread's

  // begin and end in steady-clock nanoseconds. Thread-safe.
  void span(std::string name, std::string category, int64_t beginNs, int64_t endNs);
  size_t size() const;
  // Writes every span so far; throws std::runtime_error naming the file.
  void write(const std::filesystem::path& file) const;

  static int64_t nowNs();

 private:
  struct Span {
    std::string name, category;
    int64_t beginNs, endNs;
    uint32_t thread;
  };
  int rank_;
  mutable std::mutex mutex_;
  std::vector<Span> spans_;
  std::vector<std::thread::id> threads_;  // index: the trace's tid
  std::vector<std::string> gpuRows_;      // index: tid - kFirstGpuRow
};

}  // namespace dtb::core
