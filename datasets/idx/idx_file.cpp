#include "idx_file.h"

#include <zlib.h>

#include <string>

#include "dtbench/plugin.hpp"

namespace dtb::dataset::idx {
namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
  throw Error(DTB_STATUS_IO_ERROR, file.string() + ": " + what);
}

// The whole file, inflated if it is gzip (zlib reads plain files unchanged).
std::vector<uint8_t> slurp(const std::filesystem::path& file) {
  gzFile in = gzopen(file.c_str(), "rb");
  if (in == nullptr) fail(file, "cannot open");
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  for (;;) {
    const int n = gzread(in, chunk, sizeof(chunk));
    if (n < 0) {
      int code = 0;
      const std::string why = gzerror(in, &code);
      gzclose(in);
      fail(file, "corrupt compressed data after " + std::to_string(bytes.size()) + " bytes: " + why);
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  gzclose(in);
  return bytes;
}

uint32_t bigEndian(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

}  // namespace

IdxArray readIdx(const std::filesystem::path& requested) {
  std::filesystem::path file = requested;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    std::filesystem::path gz = requested.string() + ".gz";
    if (!std::filesystem::exists(gz, ec)) {
      fail(requested, "no such file (nor " + gz.filename().string() +
                          "); tools/fetch-datasets.sh builds MNIST and Fashion-MNIST IDX files");
    }
    file = gz;
  }
  const std::vector<uint8_t> bytes = slurp(file);
  if (bytes.size() < 4) fail(file, "truncated: " + std::to_string(bytes.size()) + " bytes, no IDX header");
  if (bytes[0] != 0 || bytes[1] != 0) fail(file, "not an IDX file: bytes 0-1 are not zero (offset 0)");
  if (bytes[2] != 0x08) {
    fail(file, "IDX type byte at offset 2 is 0x" + std::to_string(bytes[2]) +
                   "; only unsigned bytes (0x08) are supported");
  }
  const size_t ndim = bytes[3];
  if (ndim == 0 || ndim > 4) fail(file, "IDX dimension count at offset 3 is " + std::to_string(ndim));
  const size_t header = 4 + 4 * ndim;
  if (bytes.size() < header)
    fail(file, "truncated in the header (" + std::to_string(bytes.size()) + " bytes)");
  IdxArray array;
  uint64_t elements = 1;
  for (size_t d = 0; d < ndim; ++d) {
    array.dims.push_back(bigEndian(&bytes[4 + 4 * d]));
    elements *= array.dims.back();
  }
  if (bytes.size() - header < elements) {
    fail(file, "truncated: the header promises " + std::to_string(elements) + " bytes of data after offset " +
                   std::to_string(header) + ", the file has " + std::to_string(bytes.size() - header));
  }
  if (bytes.size() - header > elements) {
    fail(file, "corrupt: " + std::to_string(bytes.size() - header - elements) +
                   " bytes past the data end at offset " + std::to_string(header + elements));
  }
  array.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
  return array;
}

}  // namespace dtb::dataset::idx
