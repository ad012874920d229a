#include "launch/environment_block.h"

#include <unistd.h>

namespace dtb::core {

EnvironmentBlock::EnvironmentBlock(const std::vector<std::pair<std::string, std::string>>& set) {
  auto replaced = [&](const std::string& entry) {
    for (const auto& [name, value] : set) {
      if (entry.starts_with(name + "=")) return true;
    }
    return false;
  };
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (!replaced(*entry)) entries_.emplace_back(*entry);
  }
  for (const auto& [name, value] : set) entries_.push_back(name + "=" + value);
  for (std::string& entry : entries_) pointers_.push_back(entry.data());
  pointers_.push_back(nullptr);
}

}  // namespace dtb::core
