#include "network/network_emulator.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace dtb::core {

std::optional<NetworkEmulator> NetworkEmulator::fromEnvironment() {
  const char* socket = std::getenv(kNetworkControlVariable);
  if (socket == nullptr || *socket == '\0') return std::nullopt;
  return NetworkEmulator(socket);
}

std::string NetworkEmulator::ask(const std::string& line) const {
  auto failure = [&](const std::string& what) {
    return std::runtime_error("the emulated network's switch (" + std::string(kNetworkControlVariable) + "=" +
                              socket_ + ") " + what + " (is tools/cluster.sh's cluster still up?)");
  };
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_.size() >= sizeof(address.sun_path)) throw failure("has a path too long for a Unix socket");
  std::strncpy(address.sun_path, socket_.c_str(), sizeof(address.sun_path) - 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw failure(std::string("cannot be reached: ") + std::strerror(errno));
  // A switch that hangs must not hang the matrix.
  timeval patience{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof(patience));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &patience, sizeof(patience));
  const std::string request = line + "\n";
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    const std::string why = std::strerror(errno);
    close(fd);
    throw failure("cannot be reached: " + why);
  }
  std::string reply;
  char c = 0;
  ssize_t got = 0;
  while ((got = read(fd, &c, 1)) == 1 && c != '\n') reply += c;
  const int readError = errno;
  close(fd);
  if (got == 0) throw failure("closed the connection without answering '" + line + "'");
  if (got < 0)
    throw failure(readError == EAGAIN || readError == EWOULDBLOCK
                      ? "did not answer '" + line + "' within 5 s"
                      : "could not be read (" + std::string(std::strerror(readError)) + ")");
  if (reply.starts_with("error: ")) throw failure("refused '" + line + "': " + reply.substr(7));
  return reply;
}

void NetworkEmulator::shape(const NetworkProfile& profile) const {
  const auto latencyNs = std::llround(profile.emulatedLatencyUs() * 1e3);
  const auto bytesPerS = std::llround(profile.emulatedGigabytesPerS() * 1e9);
  ask("shape " + profile.name + " " + std::to_string(latencyNs) + " " + std::to_string(bytesPerS));
}

void requireEmulatedNetworkFor(const std::string& network) {
  if (network.empty() || NetworkEmulator::fromEnvironment()) return;
  throw std::invalid_argument(
      "network = \"" + network +
      "\" needs the emulated network of tools/cluster.sh's hosts: run dtbench on one " +
      "of them (tools/cluster.sh on DIR h0 dtbench ...), which sets " + kNetworkControlVariable +
      "; on other hosts leave network unset (docs/networks.md)");
}

std::optional<NetworkProfile> shapeNetworkFor(const std::string& network) {
  requireEmulatedNetworkFor(network);
  const std::optional<NetworkEmulator> emulator = NetworkEmulator::fromEnvironment();
  if (!emulator) return std::nullopt;
  const NetworkProfile* profile = findNetworkProfile(network.empty() ? "none" : network);
  if (profile == nullptr)
    throw std::invalid_argument("network = \"" + network + "\": no such profile (" + networkProfileNames() +
                                ")");
  emulator->shape(*profile);
  return *profile;
}

}  // namespace dtb::core
