#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dtb::core {

// This process's environment with some variables set, made before fork()
// so the child only has to pass it to execve(): setenv() between fork and
// exec is not async-signal-safe in a process with threads (it may take a
// lock a vanished thread held).
class EnvironmentBlock {
 public:
  // Each of `set` (name, value), replacing this process's value of it.
  explicit EnvironmentBlock(const std::vector<std::pair<std::string, std::string>>& set);
  EnvironmentBlock(const std::string& name, const std::string& value) : EnvironmentBlock({{name, value}}) {}

  // NULL-terminated, as execve() takes it; valid while this object lives.
  char* const* pointers() { return pointers_.data(); }

 private:
  std::vector<std::string> entries_;
  std::vector<char*> pointers_;
};

}  // namespace dtb::core
