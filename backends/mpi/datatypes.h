// dtbench dtypes and reduce ops as MPI datatypes and MPI_Ops. MPI has no
// half-precision types: f16 and bf16 travel as 16-bit words and reduce with
// user-defined ops that add in float, as the Gloo backend does.
#pragma once

#include <mpi.h>

#include "dtbench/dtbench.h"

namespace dtb::backend::mpi {

MPI_Datatype datatypeOf(dtb_dtype_t dtype);

// AVG reduces as SUM (the caller scales after). Throws dtb::Error
// (UNSUPPORTED) for combinations the CPU backends do not do (AVG of
// integers, BAND of floats). Call under mpiLock(): user ops are created once.
MPI_Op opOf(dtb_dtype_t dtype, dtb_reduce_op_t op);

}  // namespace dtb::backend::mpi
