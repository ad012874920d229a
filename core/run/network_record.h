// What the store keeps of the network a run was shaped to: the profile and
// what the emulation applied (network/ shapes it, store/ keeps it; this is
// where a run joins the two, so that neither reaches up into the other).
#pragma once

#include <cstdint>

#include "network/network_profile.h"
#include "store/records.h"

namespace dtb::core {

RunNetworkRecord networkRecord(int64_t runId, const NetworkProfile& profile);

}  // namespace dtb::core
