#include "datatypes.h"

#include <map>
#include <utility>

#include "common/reductions.h"
#include "dtbench/plugin.hpp"

namespace dtb::backend::mpi {
namespace {

// MPI calls a user op as inout[i] = in[i] op inout[i].
template <dtb_dtype_t D, dtb_reduce_op_t O>
void halfReduce(void* in, void* inout, int* len, MPI_Datatype*) {
  static const ReduceFn reduce = reduction(D, O, "mpi");
  reduce(inout, in, inout, static_cast<size_t>(*len));
}

template <dtb_dtype_t D>
MPI_User_function* halfFunction(dtb_reduce_op_t op) {
  switch (op) {
    case DTB_REDUCE_MAX:
      return &halfReduce<D, DTB_REDUCE_MAX>;
    case DTB_REDUCE_MIN:
      return &halfReduce<D, DTB_REDUCE_MIN>;
    default:
      return &halfReduce<D, DTB_REDUCE_SUM>;
  }
}

}  // namespace

MPI_Datatype datatypeOf(dtb_dtype_t dtype) {
  switch (dtype) {
    case DTB_DTYPE_F32:
      return MPI_FLOAT;
    case DTB_DTYPE_F64:
      return MPI_DOUBLE;
    case DTB_DTYPE_I32:
      return MPI_INT32_T;
    case DTB_DTYPE_I64:
      return MPI_INT64_T;
    case DTB_DTYPE_U8:
      return MPI_UINT8_T;
    case DTB_DTYPE_I8:
      return MPI_INT8_T;
    case DTB_DTYPE_F16:
    case DTB_DTYPE_BF16:
      return MPI_UINT16_T;
  }
  throw Error(DTB_STATUS_INVALID_ARGUMENT, "mpi: unknown dtype " + std::to_string(dtype));
}

MPI_Op opOf(dtb_dtype_t dtype, dtb_reduce_op_t op) {
  reduction(dtype, op, "mpi");  // the same refusals as every CPU backend
  if (dtype == DTB_DTYPE_F16 || dtype == DTB_DTYPE_BF16) {
    const dtb_reduce_op_t base = op == DTB_REDUCE_AVG ? DTB_REDUCE_SUM : op;
    // Made under the MPI lock by the first communicator (it asks for every
    // one); later lookups only read, with no MPI call and no lock.
    static std::map<std::pair<int, int>, MPI_Op> created;  // freed with MPI at exit
    MPI_Op& made = created[{dtype, base}];
    if (made == MPI_Op{}) {
      MPI_User_function* fn =
          dtype == DTB_DTYPE_F16 ? halfFunction<DTB_DTYPE_F16>(base) : halfFunction<DTB_DTYPE_BF16>(base);
      MPI_Op_create(fn, /*commute=*/1, &made);
    }
    return made;
  }
  switch (op) {
    case DTB_REDUCE_SUM:
    case DTB_REDUCE_AVG:
      return MPI_SUM;
    case DTB_REDUCE_MAX:
      return MPI_MAX;
    case DTB_REDUCE_MIN:
      return MPI_MIN;
    case DTB_REDUCE_BAND:
      return MPI_BAND;
  }
  throw Error(DTB_STATUS_INVALID_ARGUMENT, "mpi: unknown reduce op " + std::to_string(op));
}

}  // namespace dtb::backend::mpi
