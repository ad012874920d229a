// bounded_file.hpp — a file opened for reading only when it is a regular
// file no larger than a stated bound. Optional C++ helper; header-only.
//
// Why: a path a user names may be a FIFO (open() blocks until a writer
// comes, for ever), /dev/zero or a symlink to it (reads never end), or a
// file far larger than anything the format could hold. Checking the type
// and size on the open descriptor, before the first byte is read, turns
// each into one line naming the file and the limit.
//
//   dtb::BoundedFile file(path, 64 << 20, "matrix file");  // throws BoundedFile::Error
//   std::string text = file.readAll();
#ifndef DTBENCH_BOUNDED_FILE_HPP
#define DTBENCH_BOUNDED_FILE_HPP

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>

namespace dtb {

class BoundedFile {
 public:
  // "PATH: REASON"; reason() alone for callers that name the file themselves.
  class Error : public std::runtime_error {
   public:
    Error(const std::filesystem::path& path, const std::string& reason)
        : std::runtime_error(path.string() + ": " + reason), reason_(reason) {}
    const std::string& reason() const { return reason_; }

   private:
    std::string reason_;
  };

  // Opens `path` (symlinks followed) without blocking, then refuses anything
  // but a regular file of at most `maxBytes`. `what` names the file's role
  // in the messages ("matrix file", "IDX file").
  BoundedFile(const std::filesystem::path& path, uint64_t maxBytes, const std::string& what)
      : path_(path), what_(what) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0)
      fail(errno == ENOENT ? std::string("no such file")
                           : std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail(std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
      fail("is " + kindOf(st.st_mode) + ", not a regular file; a " + what_ + " must be one");
    size_ = static_cast<uint64_t>(st.st_size);
    if (size_ > maxBytes) {
      fail(std::to_string(size_) + " bytes is over the " + std::to_string(maxBytes) + "-byte limit of a " +
           what_);
    }
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  }
  ~BoundedFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  BoundedFile(const BoundedFile&) = delete;
  BoundedFile& operator=(const BoundedFile&) = delete;

  uint64_t size() const { return size_; }
  const std::filesystem::path& path() const { return path_; }
  // The descriptor, handed over: the caller closes it (gzdopen, fdopen).
  int release() { return std::exchange(fd_, -1); }

  // The whole file: exactly size() bytes, as fstat said. A file that grew or
  // shrank while read is refused rather than read past its bound.
  std::string readAll() {
    std::string bytes(size_, '\0');
    uint64_t done = 0;
    while (done < size_) {
      const ssize_t n = ::read(fd_, bytes.data() + done, size_ - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail(std::string("read failed: ") + std::strerror(errno));
      if (n == 0)
        fail("shrank while being read (" + std::to_string(done) + " of " + std::to_string(size_) + " bytes)");
      done += static_cast<uint64_t>(n);
    }
    char extra = 0;
    if (::read(fd_, &extra, 1) > 0) fail("grew while being read (past " + std::to_string(size_) + " bytes)");
    return bytes;
  }

  [[noreturn]] void fail(const std::string& why) const { throw Error(path_, why); }

 private:
  static std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "an unusual file";
  }

  std::filesystem::path path_;
  std::string what_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace dtb

#endif  // DTBENCH_BOUNDED_FILE_HPP
