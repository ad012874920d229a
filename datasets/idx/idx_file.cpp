#include "idx_file.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <string>

#include "dtbench/bounded_file.hpp"
#include "dtbench/plugin.hpp"

namespace dtb::dataset::idx {
namespace {

// MNIST's training images are 47 MB; ten times the largest IDX file in use.
constexpr uint64_t kMaxIdxFileBytes = uint64_t{1} << 30;
// zlib's documented worst case for deflate: 1032 output bytes per input byte.
constexpr uint64_t kMaxDeflateRatio = 1032;

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
  throw Error(DTB_STATUS_IO_ERROR, file.string() + ": " + what);
}

// A file that is a regular file, opened through zlib (which reads plain
// files unchanged and inflates gzip), read no further than asked.
class IdxReader {
 public:
  explicit IdxReader(const std::filesystem::path& file) : file_(file) {
    int fd = -1;
    try {
      dtb::BoundedFile bounded(file, kMaxIdxFileBytes, "dataset (IDX) file");
      size_ = bounded.size();
      fd = bounded.release();
    } catch (const dtb::BoundedFile::Error& e) {
      fail(file, e.reason());
    }
    in_ = gzdopen(fd, "rb");  // takes the descriptor, but not when it fails
    if (in_ == nullptr) {
      ::close(fd);
      fail(file, "cannot open");
    }
  }
  ~IdxReader() { gzclose(in_); }
  IdxReader(const IdxReader&) = delete;
  IdxReader& operator=(const IdxReader&) = delete;

  // The bytes of the file on disk (compressed, for gzip).
  uint64_t sizeOnDisk() const { return size_; }
  // Whether zlib is inflating (known once the first bytes are read).
  bool compressed() { return gzdirect(in_) == 0; }
  uint64_t offset() const { return offset_; }

  // Up to `count` bytes into `out`; fewer only at the end of the data.
  size_t read(uint8_t* out, size_t count) {
    size_t done = 0;
    while (done < count) {
      const unsigned chunk = static_cast<unsigned>(std::min<size_t>(count - done, 1 << 30));
      const int n = gzread(in_, out + done, chunk);
      if (n < 0) {
        int code = 0;
        fail(file_, "corrupt compressed data after " + std::to_string(offset_ + done) +
                        " bytes: " + gzerror(in_, &code));
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    offset_ += done;
    return done;
  }

 private:
  std::filesystem::path file_;
  gzFile in_ = nullptr;
  uint64_t size_ = 0;
  uint64_t offset_ = 0;
};

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
  IdxReader in(file);
  uint8_t head[4 + 4 * 4];
  const size_t got = in.read(head, 4);
  if (got < 4) fail(file, "truncated: " + std::to_string(got) + " bytes, no IDX header");
  if (head[0] != 0 || head[1] != 0) fail(file, "not an IDX file: bytes 0-1 are not zero (offset 0)");
  if (head[2] != 0x08) {
    fail(file, "IDX type byte at offset 2 is 0x" + std::to_string(head[2]) +
                   "; only unsigned bytes (0x08) are supported");
  }
  const size_t ndim = head[3];
  if (ndim == 0 || ndim > 4) fail(file, "IDX dimension count at offset 3 is " + std::to_string(ndim));
  const size_t header = 4 + 4 * ndim;
  if (in.read(head + 4, header - 4) < header - 4)
    fail(file, "truncated in the header (" + std::to_string(in.offset()) + " bytes)");
  IdxArray array;
  uint64_t elements = 1;  // saturates past kMaxIdxFileBytes: four dims below 2^32 overflow 64 bits
  for (size_t d = 0; d < ndim; ++d) {
    const uint32_t dim = bigEndian(&head[4 + 4 * d]);
    array.dims.push_back(dim);
    elements = dim != 0 && elements > kMaxIdxFileBytes / dim ? kMaxIdxFileBytes + 1 : elements * dim;
  }
  // What the header promises is checked against the file before a byte of it
  // is allocated: a plain file holds exactly the header and the data, and
  // deflate expands at most kMaxDeflateRatio-fold.
  const std::string promise = "the header promises " + std::to_string(elements) +
                              " bytes of data after offset " + std::to_string(header);
  if (elements > kMaxIdxFileBytes) {
    fail(file, "the header's dimensions promise more than the " + std::to_string(kMaxIdxFileBytes) +
                   "-byte limit of an IDX file");
  }
  if (!in.compressed() && header + elements > in.sizeOnDisk()) {
    fail(file, "truncated: " + promise + ", the file has " + std::to_string(in.sizeOnDisk() - header));
  }
  if (in.compressed() && elements > in.sizeOnDisk() * kMaxDeflateRatio) {
    fail(file, "truncated: " + promise + ", more than its " + std::to_string(in.sizeOnDisk()) +
                   " compressed bytes can inflate to");
  }
  array.data.resize(elements);
  const size_t data = in.read(array.data.data(), elements);
  if (data < elements) {
    fail(file, "truncated: " + promise + ", the file has " + std::to_string(data));
  }
  uint8_t extra[4096];
  if (const size_t past = in.read(extra, sizeof(extra)); past > 0) {
    // A plain file says how much follows; inflating all of a .gz to count would be unbounded.
    const bool exact = !in.compressed() || past < sizeof(extra);
    const uint64_t count = in.compressed() ? past : in.sizeOnDisk() - header - elements;
    fail(file, "corrupt: " + std::string(exact ? "" : "at least ") + std::to_string(count) +
                   " bytes past the data end at offset " + std::to_string(header + elements));
  }
  return array;
}

}  // namespace dtb::dataset::idx
