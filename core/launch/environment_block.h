#pragma once

#include <string>
#include <vector>

namespace dtb::core {

// This process's environment with one variable set, made before fork() so
// the child only has to pass it to execve(): setenv() between fork and exec
// is not async-signal-safe in a process with threads (it may take a lock a
// vanished thread held).
class EnvironmentBlock {
 public:
  EnvironmentBlock(const std::string& name, const std::string& value);

  // NULL-terminated, as execve() takes it; valid while this object lives.
  char* const* pointers() { return pointers_.data(); }

 private:
  std::vector<std::string> entries_;
  std::vector<char*> pointers_;
};

}  // namespace dtb::core
