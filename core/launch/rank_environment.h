// Where a worker that a job launcher started finds its place: mpirun, srun
// and other PMI launchers put the rank and size in the environment (as
// torchrun puts RANK and WORLD_SIZE).
#pragma once

#include <optional>
#include <string>

namespace dtb::core {

struct RankEnvironment {
  int rank = 0;
  int world = 1;
  int localRank = 0;  // among the ranks on this host
  int localSize = 1;
  std::string source;  // the variable the rank came from, for messages
};

// The local rank the local launcher gives an elastic run's workers
// (elastic/local_places.h): kept in every world, so their GPUs are too.
inline constexpr const char* kLocalRankVariable = "DTBENCH_LOCAL_RANK";
// Its value in this process's environment, when set to a rank.
std::optional<int> localRankFromLauncher();

// The first launcher whose variables are set: Open MPI (OMPI_COMM_WORLD_*),
// Slurm (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID), PMI (PMI_RANK, PMI_SIZE),
// torchrun (RANK, WORLD_SIZE, LOCAL_RANK). nullopt when none is.
std::optional<RankEnvironment> rankFromEnvironment();

// The address a rank's transport binds: the IPv4 address `interface` has
// on this host when one is named (as GLOO_SOCKET_IFNAME picks one);
// otherwise loopback for local runs, else DTBENCH_BIND_ADDRESS, or this
// host's name (which its peers can resolve). Throws std::runtime_error
// naming the interface, the host and the interfaces it has.
std::string bindAddress(const std::string& launcher, const std::string& interface);

// The interface of this host whose IPv4 network holds `address` (an
// address, or a name to resolve; the interface with that very address
// first), so a run that named no interface still stores which one its
// ranks used; "" when none does or the name does not resolve.
std::string interfaceHolding(const std::string& address);

}  // namespace dtb::core
