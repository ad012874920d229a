// MPI itself, once per process: initialised by the first communicator,
// finalised when the process exits, and never finalised after a collective
// was abandoned (MPI_Finalize would wait for it forever; mpirun ends the job
// when a rank exits without finalising).
#pragma once

#include <mutex>

namespace dtb::backend::mpi {

// Initialises MPI (MPI_THREAD_SERIALIZED or better) if nobody has; throws
// dtb::Error naming what is missing when this process was not started by an
// MPI launcher but `world` > 1 ranks are wanted.
void ensureInitialized(int world);

// Every MPI call goes under this lock: the library is used as
// MPI_THREAD_SERIALIZED, whatever level it provides.
std::mutex& mpiLock();

// How a blocking collective waits inside Open MPI: hard polling (Open MPI's
// default, the lowest latency) for a collective the waiting caller runs
// itself — it has nothing else to do — and yielding the core for one the
// communicator's thread runs while the caller computes. Process-wide; the
// run lock orders its callers. No effect when the user set
// OMPI_MCA_mpi_yield_when_idle, or for another MPI.
void yieldWhileWaiting(bool yield);

// A collective was abandoned after a timeout: skip MPI_Finalize at exit.
void markAbandoned();

// "rank and size from mpirun / srun": which launcher environment this
// process sees, or nullptr when none.
const char* launcherEnvironment();

}  // namespace dtb::backend::mpi
