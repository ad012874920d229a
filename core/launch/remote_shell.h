// The ssh launcher (launcher = "ssh"): dtbench starts every rank itself on
// the hostfile's hosts through a remote shell — `ssh`, or the command
// launcher_args names — as horovodrun and torchrun's multi-node starts do,
// and reads its records from the shell's standard output. Unlike mpirun or
// srun, the coordinator then owns each rank's process: an elastic run can
// replace a world's ranks across hosts (elastic_launcher.h).
//
// Ranks fill the hosts in the hostfile's order, each up to its slots (Open
// MPI's default mapping, by slot); past the last slot they start again at
// the first host.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace dtb::core {

struct HostSlots {
  std::string host;
  int slots = 1;
};

// An Open MPI hostfile: "HOST [slots=N] [max_slots=M]" a line, # comments.
// Throws std::invalid_argument naming the file (and line) when it cannot be
// read or holds no host.
std::vector<HostSlots> readHostfile(const std::filesystem::path& file);

struct SlotPlace {
  std::string host;
  int localRank = 0;  // among the ranks of `world` on that host
  int localSize = 1;
};

// Where rank slot `slot` of a world of `world` ranks goes.
SlotPlace placeSlot(const std::vector<HostSlots>& hosts, int slot, int world);

// The path exec runs for `program`: itself when it names a path, else the
// first executable of that name on PATH; throws std::invalid_argument
// naming it when there is none.
std::string findOnPath(const std::string& program);

// The argument vector that runs `command` on `host` through `shell` (e.g.
// {"ssh"}): shell..., host, then one string for the remote shell — change
// to `directory`, set `environment` ("NAME=value" each), exec the command —
// every word quoted for a POSIX shell.
std::vector<std::string> remoteCommand(const std::vector<std::string>& shell, const std::string& host,
                                       const std::filesystem::path& directory,
                                       const std::vector<std::string>& environment,
                                       const std::vector<std::string>& command);

}  // namespace dtb::core
