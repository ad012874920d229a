#include "cli/worker_command.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "launch/rank_environment.h"
#include "log/redact.h"
#include "plugin/crash_report.h"
#include "protocol/record_channel.h"
#include "protocol/run_spec.h"
#include "sweep/sweep_worker.h"
#include "worker/worker.h"

namespace dtb::cli {
namespace {

// A rank the ssh launcher started reads nothing, but its standard input is
// the coordinator's pipe through the remote shell: when that ends, the
// coordinator stopped this rank or can no longer hear it, and a remote
// process gets no signal for either (no terminal, SIGPIPE ignored).
void exitWhenStdinEnds() {
  std::thread([] {
    char byte = 0;
    ssize_t got = 0;
    while ((got = read(STDIN_FILENO, &byte, 1)) > 0 || (got < 0 && errno == EINTR)) {
    }
    std::fprintf(stderr,
                 "dtbench worker: standard input ended (the coordinator stopped this rank, or the "
                 "connection to it is gone): exiting\n");
    std::_Exit(1);
  }).detach();
}

}  // namespace

void addWorkerCommand(CLI::App& app, GlobalOptions& global) {
  struct Options {
    std::string spec;
    int rank = -1;
    int recordFd = -1;
    bool exitWithStdin = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("worker", "Run one rank of one run (started by dtbench run)");
  cmd->group("");  // hidden
  cmd->add_option("--spec", o->spec, "The run spec (TOML) written by the coordinator")->required();
  cmd->add_option("--rank", o->rank,
                  "This process's rank; by default the launcher's (OMPI_COMM_WORLD_RANK, SLURM_PROCID, ...)");
  cmd->add_option("--record-fd", o->recordFd, "File descriptor to write records to (-1: none)");
  cmd->add_flag(
      "--exit-with-stdin", o->exitWithStdin,
      "End when standard input ends (the ssh launcher's: its coordinator, or the connection, is gone)");
  cmd->allow_extras(false);
  cmd->callback([&global, o] {
    // A peer that died closes its sockets; writing to them must fail the
    // collective with an error (EPIPE), not kill this rank with SIGPIPE.
    signal(SIGPIPE, SIG_IGN);
    // Dies with whoever started it (coordinator, mpirun, srun): no orphan trains on.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (o->exitWithStdin) exitWhenStdinEnds();
    core::RecordWriter records(o->recordFd);
    core::crash::installHandlers(o->recordFd, o->rank);  // a plugin's crash is named in the run's error
    try {
      const core::RunSpec spec = core::RunSpec::read(o->spec);
      int rank = o->rank;
      if (rank < 0) {
        const auto launched = core::rankFromEnvironment();
        if (!launched) {
          throw std::runtime_error(
              "no --rank given and no launcher's rank in the environment (OMPI_COMM_WORLD_RANK, "
              "SLURM_PROCID, PMI_RANK or RANK)");
        }
        if (launched->world != spec.world) {
          throw std::runtime_error("the launcher started " + std::to_string(launched->world) +
                                   (launched->world == 1 ? " rank (" : " ranks (") + launched->source +
                                   "), the run wants world_size = " + std::to_string(spec.world));
        }
        rank = launched->rank;
      }
      o->rank = rank;
      core::crash::installHandlers(o->recordFd, rank);
      global.exitCode =
          spec.sweep ? core::runSweepWorker(spec, rank, records) : core::runWorker(spec, rank, records);
    } catch (const std::exception& e) {
      const std::string what = core::redactSecrets(e.what());
      records.error(o->rank, false, what);
      std::fprintf(stderr, "dtbench worker: %s\n", what.c_str());
      global.exitCode = 1;
    }
  });
}

}  // namespace dtb::cli
