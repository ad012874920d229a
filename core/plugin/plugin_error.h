// The one error type of plugin loading: a file and what is wrong with it.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace dtb::core {

// what() is one line: "<file>: <cause>", ready to show a user.
class PluginError : public std::runtime_error {
 public:
  PluginError(const std::filesystem::path& file, const std::string& cause)
      : std::runtime_error(file.string() + ": " + cause), file_(file), cause_(cause) {}

  const std::filesystem::path& file() const { return file_; }
  const std::string& cause() const { return cause_; }

 private:
  std::filesystem::path file_;
  std::string cause_;
};

}  // namespace dtb::core
