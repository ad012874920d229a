// A rank's communicator for a run: the cell's backend plugin, created with
// the run's rendezvous (store, key prefix, bind address, timeout). Used by
// training workers and collective sweeps alike.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dtbench/plugin.hpp"
#include "host/communicator.h"
#include "plugin/loader.h"
#include "run/run_spec.h"

namespace dtb::core {

std::unique_ptr<Communicator> connectRank(const RunSpec& spec, int rank, PluginLoader& loader);

// The loader a worker uses: the run's plugin directories before the default path.
PluginLoader workerLoader(const RunSpec& spec);

// Starts a collective with start(&request, &error), then waits for it within
// the communicator's timeout; throws PluginCallError with the backend's
// message (which names the rank) on failure.
template <typename Start>
void runCollective(Communicator& comm, Start&& start) {
  dtb_request_t request = nullptr;
  std::string error;
  dtb_status_t status = start(&request, &error);
  if (status == DTB_STATUS_OK) status = comm.wait(request, DTB_TIMEOUT_DEFAULT, &error);
  if (status != DTB_STATUS_OK) throw PluginCallError(error, status);
}

// All-reduces a few doubles in place (figures every rank contributes to).
inline void allreduceDoubles(Communicator& comm, std::vector<double>& values, dtb_reduce_op_t op) {
  dtb_tensor_t t = dtb::hostTensor(values.data(), values.size(), DTB_DTYPE_F64);
  runCollective(comm, [&](dtb_request_t* r, std::string* e) { return comm.allreduce(&t, op, r, e); });
}

}  // namespace dtb::core
