#include "matrix/toml_source.h"

#include "dtbench/bounded_file.hpp"

namespace dtb::core {

std::string readTomlFile(const std::filesystem::path& path, const std::string& role) {
  // A pipe too: `dtbench validate <(sed ... m.toml)` and `... | dtbench validate /dev/stdin`.
  BoundedFile file(path, kMaxTomlFileBytes, role, BoundedFile::Pipes::kRead);
  return file.readAll();
}

std::string otherFormatHint(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return {};
  return "; this looks like JSON (a DeepSpeed ds_config.json?): dtbench reads TOML matrices, "
         "docs/matrix.md shows one and gives dtbench's word for DeepSpeed's keys";
}

}  // namespace dtb::core
