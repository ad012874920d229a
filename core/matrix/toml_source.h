// Reading a TOML file a user names (a matrix, a [comm] sweep): a regular
// file or a pipe of at most kMaxTomlFileBytes, read whole. A matrix is a few
// kilobytes; the bound keeps `validate` of a 1 GB file, of /dev/zero or of
// a FIFO nobody writes to from taking minutes, all memory, or for ever.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace dtb::core {

constexpr uint64_t kMaxTomlFileBytes = uint64_t{4} << 20;  // 4 MiB

// The text of `path`. Throws dtb::BoundedFile::Error naming the file and
// what is wrong (a device, too large, a pipe silent for 10 s); `role` says
// what the file was meant to be ("matrix file").
std::string readTomlFile(const std::filesystem::path& path, const std::string& role);

// A hint for text that failed to parse as TOML but is another format users
// bring (a DeepSpeed ds_config.json): empty when it looks like nothing known.
std::string otherFormatHint(std::string_view text);

}  // namespace dtb::core
