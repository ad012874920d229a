#include "log/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace dtb::core {
namespace {

dtb_log_level_t initialLevel() {
  dtb_log_level_t level = DTB_LOG_WARN;
  if (const char* env = std::getenv("DTBENCH_LOG")) parseLogLevel(env, &level);
  return level;
}

std::atomic<int>& levelSlot() {
  static std::atomic<int> level{initialLevel()};
  return level;
}

const char* levelName(dtb_log_level_t level) {
  switch (level) {
    case DTB_LOG_DEBUG:
      return "debug";
    case DTB_LOG_INFO:
      return "info";
    case DTB_LOG_WARN:
      return "warn";
    case DTB_LOG_ERROR:
      return "error";
  }
  return "?";
}

}  // namespace

void setLogLevel(dtb_log_level_t level) { levelSlot().store(level); }

dtb_log_level_t logLevel() { return static_cast<dtb_log_level_t>(levelSlot().load()); }

bool parseLogLevel(std::string_view text, dtb_log_level_t* out) {
  for (auto level : {DTB_LOG_DEBUG, DTB_LOG_INFO, DTB_LOG_WARN, DTB_LOG_ERROR}) {
    if (text == levelName(level)) {
      *out = level;
      return true;
    }
  }
  return false;
}

void log(dtb_log_level_t level, std::string_view source, std::string_view message) {
  if (level < logLevel()) return;
  // One fprintf per line keeps lines of concurrent threads whole.
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::fprintf(stderr, "dtbench %s [%.*s] %.*s\n", levelName(level), static_cast<int>(source.size()),
               source.data(), static_cast<int>(message.size()), message.data());
}

}  // namespace dtb::core
