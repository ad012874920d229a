// The IDX format of MNIST and Fashion-MNIST (big-endian header: two zero
// bytes, a type byte — 0x08 for unsigned bytes —, the number of dimensions,
// then one uint32 per dimension; then the data), raw or gzip-compressed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace dtb::dataset::idx {

struct IdxArray {
  std::vector<uint32_t> dims;  // e.g. {60000, 28, 28}
  std::vector<uint8_t> data;
};

// Reads `path`, or `path` + ".gz" when only that exists. Throws dtb::Error
// (IO_ERROR) naming the file and the byte offset of what is wrong: missing,
// not IDX, not unsigned bytes, truncated, or trailing data.
IdxArray readIdx(const std::filesystem::path& path);

}  // namespace dtb::dataset::idx
