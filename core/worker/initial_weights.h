// DDP's rule for the start of a run: every rank trains from rank 0's
// weights. A model seeded alike should already hold them; the broadcast makes
// sure, and the checksum proves it before the first step.
#pragma once

#include <cstdint>

#include "dtbench/model.h"
#include "host/communicator.h"

namespace dtb::core {

// Broadcasts rank 0's parameters, then checks every rank holds the same (a
// checksum's min and max over the ranks agree). Throws std::runtime_error
// when they differ, PluginCallError when a collective fails.
void syncInitialWeights(Communicator& comm, dtb_param_t* const* params, uint32_t count);

// A checksum of the parameters' values (each weighted by its position, so
// that swapped values count): equal on ranks that hold the same weights.
double weightChecksum(const dtb_param_t* const* params, uint32_t count);

}  // namespace dtb::core
