#include "run/rank_environment.h"

#include <unistd.h>

#include <cstdlib>

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

}  // namespace

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

std::string bindAddress(const std::string& launcher) {
  if (launcher == "local") return "127.0.0.1";
  if (const char* given = std::getenv("DTBENCH_BIND_ADDRESS"); given && *given) return given;
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') return "127.0.0.1";
  return host;
}

}  // namespace dtb::core
