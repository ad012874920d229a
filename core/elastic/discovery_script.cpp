#include "elastic/discovery_script.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "elastic/host_manager.h"
#include "launch/piped_child.h"

namespace dtb::core {
namespace {

constexpr size_t kMaxErrorText = 2048;  // of its standard error, kept for the message

// Appends what `fd` holds now to `text`, up to `limit` bytes in all; false
// once the writer closed its end. `over` is set when it wrote past the
// limit; with `keepLast` the text keeps the last `limit` bytes instead.
bool readInto(int fd, std::string& text, size_t limit, bool& over, bool keepLast = false) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    if (keepLast) {
      text.append(buffer, static_cast<size_t>(n));
      if (text.size() > limit) text.erase(0, text.size() - limit);
      continue;
    }
    const size_t room = limit > text.size() ? limit - text.size() : 0;
    text.append(buffer, std::min(room, static_cast<size_t>(n)));
    if (static_cast<size_t>(n) > room) over = true;
  }
}

std::string lastLine(const std::string& text) {
  const size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  const size_t newline = text.rfind('\n', end);
  const size_t begin = newline == std::string::npos ? 0 : newline + 1;
  return text.substr(begin, end - begin + 1);
}

}  // namespace

DiscoveryScript::DiscoveryScript(std::string command, double timeoutS, int defaultSlots)
    : command_(std::move(command)), timeoutS_(timeoutS), defaultSlots_(defaultSlots) {}

DiscoveryScript::~DiscoveryScript() { killRun(); }

void DiscoveryScript::start() {
  if (running()) return;
  output_.clear();
  errors_.clear();
  tooMuch_ = false;
  // Its own process group (a timeout kills whatever it started too),
  // through /bin/sh as horovodrun runs its script.
  PipedChild child;
  if (std::string error = startPipedChild({"/bin/sh", "-c", command_}, {SIGKILL, true}, child);
      !error.empty()) {
    pending_ = DiscoveryResult{{}, "host_discovery '" + command_ + "': " + error};
    return;
  }
  pid_ = child.pid;
  out_ = child.out;
  err_ = child.err;
  started_ = std::chrono::steady_clock::now();
}

void DiscoveryScript::drain() {
  if (out_ >= 0 && !readInto(out_, output_, kMaxDiscoveryOutput, tooMuch_)) {
    close(out_);
    out_ = -1;
  }
  bool ignored = false;
  if (err_ >= 0 && !readInto(err_, errors_, kMaxErrorText, ignored, true)) {
    close(err_);
    err_ = -1;
  }
}

void DiscoveryScript::closePipes() {
  for (int* fd : {&out_, &err_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

void DiscoveryScript::killRun() {
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  closePipes();
}

std::optional<DiscoveryResult> DiscoveryScript::poll() {
  if (pending_) {
    DiscoveryResult result = std::move(*pending_);
    pending_.reset();
    return result;
  }
  if (pid_ <= 0) return std::nullopt;
  drain();
  const std::string name = "host_discovery '" + command_ + "'";
  const std::string tooMuch = name + " printed more than " + std::to_string(kMaxDiscoveryOutput / 1024) +
                              " KiB (a host a line is all it should print)";
  int status = 0;
  const pid_t done = waitpid(pid_, &status, WNOHANG);
  if (done == pid_) {
    kill(-pid_, SIGKILL);  // what it left running in the background ends with it
    pid_ = -1;
    drain();  // what it wrote before it ended is still in the pipes
    closePipes();
    if (tooMuch_) return DiscoveryResult{{}, tooMuch};
    return finish(status);
  }
  if (tooMuch_) {
    killRun();
    return DiscoveryResult{{}, tooMuch + ": killed"};
  }
  if (std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count() > timeoutS_) {
    killRun();
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%g", timeoutS_);
    return DiscoveryResult{{},
                           name + " did not finish within discovery_timeout_s = " + seconds + " s: killed"};
  }
  return std::nullopt;
}

DiscoveryResult DiscoveryScript::finish(int status) {
  const std::string name = "host_discovery '" + command_ + "'";
  const std::string said = lastLine(errors_);
  const std::string because = said.empty() ? "" : ": " + said;
  if (WIFSIGNALED(status))
    return {{}, name + " was killed by signal " + std::to_string(WTERMSIG(status)) + because};
  if (WEXITSTATUS(status) != 0) {
    const int code = WEXITSTATUS(status);
    return {{},
            name + " exited with code " + std::to_string(code) +
                (code == 127   ? " (no such command?)"
                 : code == 126 ? " (not executable?)"
                               : "") +
                because};
  }
  try {
    return {parseDiscoveredHosts(output_, defaultSlots_, name), ""};
  } catch (const std::invalid_argument& e) {
    return {{}, e.what()};
  }
}

DiscoveryResult DiscoveryScript::runOnce() {
  start();
  for (;;) {
    if (std::optional<DiscoveryResult> result = poll()) return *result;
    pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
    ::poll(fds, 2, 10);
  }
}

}  // namespace dtb::core
