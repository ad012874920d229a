#include "store/run_owner.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "store/environment.h"

namespace dtb::core {
namespace {

std::string bootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// Field 22 of /proc/<pid>/stat, after the command name (which may hold
// spaces and parentheses: read from the last ')').
std::string startTime(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return "";
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return field;
  }
  return "";
}

std::string identityOf(int64_t pid) {
  const std::string start = startTime(pid);
  return start.empty() ? "" : bootId() + ":" + start;
}

}  // namespace

RunOwner thisProcessAsOwner() {
  const int64_t pid = getpid();
  return {hostName(), pid, identityOf(pid)};
}

bool ownerAlive(const RunOwner& owner) {
  if (owner.host != hostName() || owner.pid <= 0) return false;
  const std::string now = identityOf(owner.pid);
  return !now.empty() && now == owner.identity;
}

}  // namespace dtb::core
