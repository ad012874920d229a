// bounded_file.hpp — a file read only when it is a regular file no larger
// than a stated bound (or, where asked, a pipe read within that bound and a
// silence timeout). Optional C++ helper; header-only.
//
// Why: a path a user names may be a FIFO (open() blocks until a writer
// comes, for ever), /dev/zero or a symlink to it (reads never end), or a
// file far larger than anything the format could hold. The type and size
// are checked before anything is opened or read, which turns each into one
// line naming the file and the limit.
//
//   dtb::BoundedFile file(path, 64 << 20, "matrix file");  // throws BoundedFile::Error
//   std::string text = file.readAll();
#ifndef DTBENCH_BOUNDED_FILE_HPP
#define DTBENCH_BOUNDED_FILE_HPP

#include <fcntl.h>
#include <poll.h>
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

  // Whether a pipe (a FIFO, /dev/stdin under `|`, bash's <(...)) is read.
  // kRead reads it up to the bound, and fails when nothing arrives for
  // kPipeSilenceSeconds (a FIFO nobody writes to).
  enum class Pipes { kRefuse, kRead };
  static constexpr int kPipeSilenceSeconds = 10;

  // Refuses anything but a regular file of at most `maxBytes` (or a pipe,
  // with Pipes::kRead) before opening it: opening a device can have effects
  // of its own. Symlinks are followed. `what` names the file's role in the
  // messages ("matrix file", "IDX file").
  BoundedFile(const std::filesystem::path& path, uint64_t maxBytes, const std::string& what,
              Pipes pipes = Pipes::kRefuse)
      : path_(path), what_(what), maxBytes_(maxBytes) {
    struct stat named {};
    if (::stat(path.c_str(), &named) != 0) {
      fail(errno == ENOENT ? std::string("no such file")
                           : std::string("cannot stat: ") + std::strerror(errno));
    }
    pipe_ = S_ISFIFO(named.st_mode) && pipes == Pipes::kRead;
    if (!S_ISREG(named.st_mode) && !pipe_) {
      fail("is " + kindOf(named.st_mode) + ", not a regular file; a " + what_ + " must be one");
    }
    if (!pipe_ && static_cast<uint64_t>(named.st_size) > maxBytes)
      fail(overLimit(static_cast<uint64_t>(named.st_size)));
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) fail(std::string("cannot open: ") + std::strerror(errno));
    struct stat opened {};
    if (::fstat(fd_, &opened) != 0) closeAndFail(std::string("cannot stat: ") + std::strerror(errno));
    // Replaced between the stat and the open: checked again, on what was opened.
    if (opened.st_dev != named.st_dev || opened.st_ino != named.st_ino)
      closeAndFail("changed while being opened");
    size_ = pipe_ ? 0 : static_cast<uint64_t>(opened.st_size);
    if (!pipe_) {
      const int flags = ::fcntl(fd_, F_GETFL);
      if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
    }
  }
  ~BoundedFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  BoundedFile(const BoundedFile&) = delete;
  BoundedFile& operator=(const BoundedFile&) = delete;

  // The size fstat gave (0 for a pipe).
  uint64_t size() const { return size_; }
  bool isPipe() const { return pipe_; }
  const std::filesystem::path& path() const { return path_; }
  // The descriptor, handed over: the caller closes it (gzdopen, fdopen).
  int release() { return std::exchange(fd_, -1); }

  // The whole file: exactly size() bytes, as fstat said; a file that grew or
  // shrank while read is refused rather than read past its bound. A pipe:
  // what comes until its writer closes it, within the bound.
  std::string readAll() {
    if (pipe_) return readPipe();
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
  std::string readPipe() {
    std::string bytes;
    char chunk[1 << 16];
    for (;;) {
      pollfd wait{fd_, POLLIN, 0};
      const int ready = ::poll(&wait, 1, kPipeSilenceSeconds * 1000);
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) fail(std::string("poll failed: ") + std::strerror(errno));
      if (ready == 0) {
        fail("nothing came through this pipe for " + std::to_string(kPipeSilenceSeconds) +
             " s (a FIFO nobody writes to?); a " + what_ + " is best given as a file");
      }
      const ssize_t n = ::read(fd_, chunk, sizeof(chunk));
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n < 0) fail(std::string("read failed: ") + std::strerror(errno));
      if (n == 0) return bytes;  // the writer closed it
      if (bytes.size() + static_cast<uint64_t>(n) > maxBytes_)
        fail(overLimit(bytes.size() + static_cast<uint64_t>(n)) + " (so far)");
      bytes.append(chunk, static_cast<size_t>(n));
    }
  }

  std::string overLimit(uint64_t bytes) const {
    return std::to_string(bytes) + " bytes is over the " + std::to_string(maxBytes_) + "-byte limit of a " +
           what_;
  }

  // A constructor that throws runs no destructor: the descriptor is closed here.
  [[noreturn]] void closeAndFail(const std::string& why) {
    ::close(std::exchange(fd_, -1));
    fail(why);
  }

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
  uint64_t maxBytes_ = 0;
  bool pipe_ = false;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace dtb

#endif  // DTBENCH_BOUNDED_FILE_HPP
