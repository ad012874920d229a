#include "launch/rank_environment.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <stdexcept>

#include "store/environment.h"

namespace dtb::core {
namespace {

std::optional<int> integer(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0) return std::nullopt;
  return static_cast<int>(value);
}

// The IPv4 address of `name` on this host.
std::string interfaceAddress(const std::string& name) {
  ifaddrs* all = nullptr;
  if (getifaddrs(&all) != 0)
    throw std::runtime_error("interface = \"" + name + "\": cannot list this host's interfaces");
  std::set<std::string> names;
  std::string address;
  bool present = false;
  for (const ifaddrs* i = all; i; i = i->ifa_next) {
    names.insert(i->ifa_name);
    if (name != i->ifa_name) continue;
    present = true;
    if (address.empty() && i->ifa_addr && i->ifa_addr->sa_family == AF_INET) {
      char text[INET_ADDRSTRLEN] = {};
      inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof(text));
      address = text;
    }
  }
  freeifaddrs(all);
  if (!address.empty()) return address;
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  throw std::runtime_error("interface = \"" + name +
                           "\": " + (present ? "has no IPv4 address" : "no such interface") + " on host " +
                           hostName() + " (it has " + known + ")");
}

}  // namespace

std::optional<int> localRankFromLauncher() {
  const std::optional<int> local = integer(kLocalRankVariable);
  return local && *local >= 0 ? local : std::nullopt;
}

std::optional<RankEnvironment> rankFromEnvironment() {
  struct Names {
    const char *rank, *world, *localRank, *localSize;
  };
  static const Names kLaunchers[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
       "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},
      {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
      {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
  };
  for (const Names& n : kLaunchers) {
    const auto rank = integer(n.rank);
    const auto world = integer(n.world);
    if (!rank || !world) continue;
    RankEnvironment e;
    e.rank = *rank;
    e.world = *world;
    e.localRank = integer(n.localRank).value_or(*rank);
    e.localSize = integer(n.localSize).value_or(*world);
    e.source = n.rank;
    return e;
  }
  return std::nullopt;
}

std::string interfaceHolding(const std::string& address) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  if (getaddrinfo(address.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return "";
  const in_addr_t wanted = reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr.s_addr;
  freeaddrinfo(found);
  ifaddrs* all = nullptr;
  if (getifaddrs(&all) != 0) return "";
  std::string exact, network;
  for (const ifaddrs* i = all; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !i->ifa_netmask) continue;
    const in_addr_t mine = reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr;
    const in_addr_t mask = reinterpret_cast<const sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr;
    if (mine == wanted && exact.empty()) exact = i->ifa_name;
    // Debian names its host 127.0.1.1 in /etc/hosts: on lo's network, not its address.
    if ((mine & mask) == (wanted & mask) && network.empty()) network = i->ifa_name;
  }
  freeifaddrs(all);
  return exact.empty() ? network : exact;
}

std::string bindAddress(const std::string& launcher, const std::string& interface) {
  if (!interface.empty()) return interfaceAddress(interface);
  if (launcher == "local") return "127.0.0.1";
  if (const char* given = std::getenv("DTBENCH_BIND_ADDRESS"); given && *given) return given;
  const std::string host = hostName();
  return host == "unknown" || host.empty() ? "127.0.0.1" : host;
}

}  // namespace dtb::core
