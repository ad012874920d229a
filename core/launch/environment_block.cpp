#include "launch/environment_block.h"

#include <unistd.h>

namespace dtb::core {

EnvironmentBlock::EnvironmentBlock(const std::string& name, const std::string& value) {
  const std::string prefix = name + "=";
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (!std::string(*entry).starts_with(prefix)) entries_.emplace_back(*entry);
  }
  entries_.push_back(prefix + value);
  for (std::string& entry : entries_) pointers_.push_back(entry.data());
  pointers_.push_back(nullptr);
}

}  // namespace dtb::core
