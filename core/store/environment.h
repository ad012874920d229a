// Where and with what a run ran, as key/value pairs for the environment
// table. A fixed list of facts — never the process environment wholesale,
// which may hold secrets.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dtb::core {

std::string hostName();

// The value of the first "key: value" line starting with `key` in `file`
// (/proc/meminfo, /proc/cpuinfo); "" when there is none.
std::string procField(const char* file, const std::string& key);

// host, os, cpu_model, cpu_cores, memory_bytes, gpus, cuda_driver,
// dtbench_version, git_commit, compiler, build_type, lib.<name> for every
// library dtbench was built against (SQLite, Gloo, Open MPI, oneDNN, NCCL,
// cuDNN, ...), and the few DTBENCH_* variables that change behaviour.
std::vector<std::pair<std::string, std::string>> captureEnvironment();

}  // namespace dtb::core
