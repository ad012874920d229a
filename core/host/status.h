// Names for the ABI's status codes, for messages.
#pragma once

#include <string_view>

#include "dtbench/dtbench.h"

namespace dtb::core {

// "invalid argument", "timeout", ...; "status <n>" for a value outside the enum.
std::string_view statusName(dtb_status_t status);

}  // namespace dtb::core
