#include "run/network_record.h"

namespace dtb::core {

RunNetworkRecord networkRecord(int64_t runId, const NetworkProfile& profile) {
  return {runId,
          profile.name,
          profile.emulatedLatencyUs(),
          profile.emulatedGigabytesPerS(),
          profile.latencyUs,
          profile.gigabytesPerS,
          kNetworkTimeScale};
}

}  // namespace dtb::core
