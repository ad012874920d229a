// Starts the ranks of one run as processes on this machine and watches them:
// records flow back over one pipe per rank; a rank that dies (signal,
// non-zero exit) or a run that goes silent stops every rank of the run, and
// the failure says which rank and how. All ranks share a process group, so
// nothing is left behind.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

#include "run/record_channel.h"

namespace dtb::core {

struct LaunchOutcome {
  enum class Status { kOk, kFailed, kInterrupted } status = Status::kOk;
  std::string error;  // for kFailed: which rank, and what happened to it
};

struct LaunchOptions {
  std::filesystem::path executable;  // dtbench itself
  std::filesystem::path specFile;
  int world = 1;
  int threadsPerWorker = 1;  // OMP_NUM_THREADS of each worker (oneDNN's thread pool)
  double silenceLimitS = 120;  // no record from any rank for this long: a hang
  const std::atomic<bool>* interrupted = nullptr;
};

// Runs the workers to completion, calling `onRecord` for each record.
LaunchOutcome launchLocal(const LaunchOptions& options, const std::function<void(int rank, const Record&)>& onRecord);

}  // namespace dtb::core
