#include "host/status.h"

namespace dtb::core {

std::string_view statusName(dtb_status_t status) {
  switch (status) {
    case DTB_STATUS_OK:
      return "ok";
    case DTB_STATUS_INVALID_ARGUMENT:
      return "invalid argument";
    case DTB_STATUS_NOT_FOUND:
      return "not found";
    case DTB_STATUS_UNSUPPORTED:
      return "unsupported";
    case DTB_STATUS_OUT_OF_MEMORY:
      return "out of memory";
    case DTB_STATUS_TIMEOUT:
      return "timeout";
    case DTB_STATUS_COMM_FAILURE:
      return "communication failure";
    case DTB_STATUS_IO_ERROR:
      return "I/O error";
    case DTB_STATUS_INTERNAL:
      return "internal error";
  }
  return "unknown status";
}

}  // namespace dtb::core
