#include "runtime.h"

#include <dlfcn.h>
#include <mpi.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "dtbench/plugin.hpp"

namespace dtb::backend::mpi {
namespace {

std::atomic<bool> abandoned{false};

// Open MPI's switch for yielding in its progress loop (libopen-pal), when
// this process is Open MPI's and the user left the choice to us.
using SetYield = void (*)(bool);
SetYield setYield = nullptr;
std::atomic<bool> yielding{true};  // what MPI_Init was told

// Finalises at process exit (the library is never unloaded before: -z nodelete).
struct Finalizer {
  ~Finalizer() {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized && !abandoned) MPI_Finalize();
  }
} finalizer;

// Open MPI loads its transports as plugins that expect libmpi's symbols to be
// global; we were dlopen()ed locally, so promote libmpi before MPI_Init.
void promoteLibmpi() {
  for (const char* name : {"libmpi.so.40", "libmpi.so"}) {
    if (dlopen(name, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD) != nullptr) return;
  }
}

}  // namespace

std::mutex& mpiLock() {
  static std::mutex lock;
  return lock;
}

void markAbandoned() { abandoned = true; }

void yieldWhileWaiting(bool yield) {
  if (setYield && yielding.exchange(yield) != yield) setYield(yield);
}

const char* launcherEnvironment() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE")) return "mpirun (OMPI_COMM_WORLD_SIZE)";
  if (std::getenv("PMIX_RANK")) return "a PMIx launcher (PMIX_RANK)";
  if (std::getenv("PMI_SIZE")) return "a PMI launcher (PMI_SIZE)";
  if (std::getenv("SLURM_STEP_NUM_TASKS")) return "srun (SLURM_STEP_NUM_TASKS)";
  return nullptr;
}

void ensureInitialized(int world) {
  std::lock_guard lock(mpiLock());
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized) throw Error(DTB_STATUS_COMM_FAILURE, "mpi: MPI was already finalised in this process");
  if (initialized) return;
  if (world > 1 && launcherEnvironment() == nullptr) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT,
                "mpi: this process was not started by mpirun or srun, so it cannot reach its " +
                    std::to_string(world - 1) +
                    " peers; set launcher = \"mpirun\" (or \"srun\") in the matrix, or leave launcher "
                    "unset for backend = \"mpi\" (dtbench comm: --launcher auto or mpirun)");
  }
  promoteLibmpi();
  // A blocking collective waits inside MPI on the communicator's thread,
  // which shares the rank's cores with compute: with Open MPI's default
  // aggressive polling it took the core from forward and backward (LeNet and
  // ResNet-18 trained 7-33 % slower than with non-blocking collectives), so
  // it yields while it waits — what Open MPI does by itself when
  // oversubscribed. A user's own setting stands.
  const bool userChose = std::getenv("OMPI_MCA_mpi_yield_when_idle") != nullptr;
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
  if (!userChose) {
    if (void* pal = dlopen("libopen-pal.so.40", RTLD_NOW | RTLD_NOLOAD))
      setYield = reinterpret_cast<SetYield>(dlsym(pal, "opal_progress_set_yield_when_idle"));
  }
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    throw Error(DTB_STATUS_COMM_FAILURE, "mpi: MPI_Init_thread failed");
  if (provided < MPI_THREAD_SERIALIZED) {
    throw Error(DTB_STATUS_UNSUPPORTED,
                "mpi: this MPI library gives thread level " + std::to_string(provided) +
                    "; the backend needs MPI_THREAD_SERIALIZED (its progress thread makes the calls)");
  }
}

}  // namespace dtb::backend::mpi
