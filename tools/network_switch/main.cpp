// dtbench-switch: the network of tools/cluster.sh's hosts. One TAP device
// per host (moved into the host's namespace as its eth0), frames forwarded
// as a learning Ethernet switch forwards them, each port shaped as the
// control socket says: a one-way delay and a rate (tc's netem and tbf, done
// in user space because kernels without netem are common in containers and
// CI machines). Unshaped, it forwards at once. This file is the plumbing
// (devices, the control socket, the event loop); frame_switch.h the switch.
//
//   dtbench-switch --control SOCKET [--mtu BYTES] [--queue BYTES] TAP...
//
// It listens on SOCKET once every TAP exists (tools/cluster.sh waits for
// that), and runs until SIGTERM.
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstring>
#include <ctime>
#include <iostream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "frame_switch.h"
#include "precise_wake_ups.h"
#include "tap_device.h"

namespace dtb::netswitch {
namespace {

volatile std::sig_atomic_t stopRequested = 0;

int64_t monotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// Frames read from one TAP before the others get their turn.
constexpr int kFramesPerTurn = 64;

struct Options {
  std::string control;
  int mtu = 9000;
  size_t queueBytes = 64u << 20;
  std::vector<std::string> taps;
};

// A whole positive number, or an error naming the option.
uint64_t positive(const std::string& option, const std::string& text) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0)
    throw std::runtime_error(option + " '" + text + "': not a positive whole number");
  return value;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool hasValue = i + 1 < argc;
    if (arg == "--control" && hasValue) {
      options.control = argv[++i];
    } else if (arg == "--mtu" && hasValue) {
      options.mtu = static_cast<int>(std::min<uint64_t>(positive(arg, argv[++i]), 65535));
    } else if (arg == "--queue" && hasValue) {
      options.queueBytes = positive(arg, argv[++i]);
    } else if (!arg.empty() && arg[0] == '-') {
      throw std::runtime_error("unknown option '" + arg + "'");
    } else {
      options.taps.push_back(arg);
    }
  }
  if (options.control.empty() || options.taps.size() < 2)
    throw std::runtime_error(
        "usage: dtbench-switch --control SOCKET [--mtu BYTES] [--queue BYTES] TAP TAP...");
  return options;
}

int listenOn(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path))
    throw std::runtime_error("control socket path too long: " + path);
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  unlink(path.c_str());
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 || listen(fd, 8) != 0)
    throw std::runtime_error("cannot listen on " + path + ": " + std::strerror(errno));
  return fd;
}

// One command a connection. The forwarding waits meanwhile, so a client
// gets 100 ms for its line (dtbench sends it in one write) and is dropped.
void serveControl(int listener, FrameSwitch& frames, IdleSpinners& spinners) {
  const int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (client < 0) return;
  timeval patience{0, 100'000};
  setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof(patience));
  std::string line;
  char chunk[256];
  ssize_t got = 0;
  while (line.find('\n') == std::string::npos && line.size() < 256 &&
         (got = recv(client, chunk, sizeof(chunk), 0)) > 0)
    line.append(chunk, static_cast<size_t>(got));
  if (const size_t end = line.find('\n'); end != std::string::npos) {
    const std::string reply = frames.control(line.substr(0, end)) + "\n";
    spinners.spinWhile(frames.shaped());
    // A client gone before the reply must not take the switch with it (SIGPIPE).
    send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
  }
  close(client);
}

// The file descriptor `made` returned, or an error naming the call.
int checked(int made, const char* call) {
  if (made < 0) throw std::runtime_error(std::string(call) + ": " + std::strerror(errno));
  return made;
}

int armTimer(int timer, int64_t dueNs) {
  itimerspec when{};  // zero disarms
  if (dueNs != std::numeric_limits<int64_t>::max()) {
    when.it_value.tv_sec = dueNs / 1'000'000'000;
    when.it_value.tv_nsec = dueNs % 1'000'000'000;
  }
  return timerfd_settime(timer, TFD_TIMER_ABSTIME, &when, nullptr);
}

// Moves what one TAP device has read into the switch (a bounded batch,
// then the other devices get their turn); false once the device is gone.
bool readFrames(const TapDevice& tap, size_t port, FrameSwitch& frames, std::vector<unsigned char>& buffer) {
  for (int n = 0; n < kFramesPerTurn; ++n) {
    const ssize_t length = read(tap.fd(), buffer.data(), buffer.size());
    if (length < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    if (length <= 0) {  // the device went away with its host
      std::cerr << "dtbench-switch: port " << tap.name() << " closed: " << std::strerror(errno) << "\n";
      return false;
    }
    frames.receive(port, buffer.data(), static_cast<size_t>(length), monotonicNs());
  }
  return true;
}

int run(const Options& options) {
  std::vector<std::unique_ptr<TapDevice>> taps;
  for (const std::string& name : options.taps) taps.push_back(std::make_unique<TapDevice>(name, options.mtu));
  std::vector<bool> alive(taps.size(), true);
  FrameSwitch frames(taps.size(), options.queueBytes, [&](size_t port, const Frame& frame) {
    // A host whose link is down refuses frames (EIO): they are lost, as on a cut cable.
    if (!alive[port]) return;
    [[maybe_unused]] const ssize_t written = write(taps[port]->fd(), frame.data(), frame.size());
  });

  IdleSpinners spinners;  // before real-time scheduling: they must not start at it
  askForPreciseWakeUps();
  const int timer = checked(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC), "timerfd_create");
  const int listener = listenOn(options.control);
  const int poll = checked(epoll_create1(EPOLL_CLOEXEC), "epoll_create1");
  auto watch = [&](int fd, uint64_t tag) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = tag;
    checked(epoll_ctl(poll, EPOLL_CTL_ADD, fd, &event), "epoll_ctl");
  };
  const uint64_t timerTag = taps.size(), listenerTag = taps.size() + 1;
  for (size_t i = 0; i < taps.size(); ++i) watch(taps[i]->fd(), i);
  watch(timer, timerTag);
  watch(listener, listenerTag);

  std::vector<unsigned char> buffer(static_cast<size_t>(options.mtu) + 64);
  epoll_event events[16];
  // SIGTERM only inside the wait (epoll_pwait unblocks it there): one that
  // came between the check and the wait would otherwise be missed.
  sigset_t stopSignals, duringWait;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  sigprocmask(SIG_BLOCK, &stopSignals, &duringWait);
  sigdelset(&duringWait, SIGTERM);
  sigdelset(&duringWait, SIGINT);
  while (!stopRequested) {
    const int ready = epoll_pwait(poll, events, 16, -1, &duringWait);
    if (ready < 0 && errno != EINTR)
      throw std::runtime_error(std::string("epoll_pwait: ") + std::strerror(errno));
    for (int e = 0; e < ready; ++e) {
      const uint64_t tag = events[e].data.u64;
      if (tag == listenerTag) {
        serveControl(listener, frames, spinners);
      } else if (tag == timerTag) {
        uint64_t expirations = 0;
        [[maybe_unused]] const ssize_t got = read(timer, &expirations, sizeof(expirations));
      } else if (!readFrames(*taps[tag], tag, frames, buffer)) {
        epoll_ctl(poll, EPOLL_CTL_DEL, taps[tag]->fd(), nullptr);
        alive[tag] = false;
      }
    }
    checked(armTimer(timer, frames.sendDue(monotonicNs())), "timerfd_settime");
  }
  unlink(options.control.c_str());
  return 0;
}

}  // namespace
}  // namespace dtb::netswitch

int main(int argc, char** argv) {
  struct sigaction stop {};
  stop.sa_handler = [](int) { dtb::netswitch::stopRequested = 1; };
  sigaction(SIGTERM, &stop, nullptr);
  sigaction(SIGINT, &stop, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a TAP or client gone: an error to handle, not a death
  try {
    return dtb::netswitch::run(dtb::netswitch::parse(argc, argv));
  } catch (const std::exception& error) {
    std::cerr << "dtbench-switch: " << error.what() << "\n";
    return 1;
  }
}
