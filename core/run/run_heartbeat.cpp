#include "run/run_heartbeat.h"

#include <optional>

#include "log/log.h"
#include "store/database.h"
#include "store/result_store.h"

namespace dtb::core {

static_assert(ResultStore::kHeartbeatMissedS >= 3 * RunHeartbeat::kEvery.count(),
              "a live run must not be taken for an interrupted one between two beats");

RunHeartbeat::RunHeartbeat(std::filesystem::path database, int64_t runId)
    : database_(std::move(database)), runId_(runId), thread_([this] { beat(); }) {}

RunHeartbeat::~RunHeartbeat() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void RunHeartbeat::beat() {
  bool warned = false;
  std::optional<Database> db;  // one connection for the run; never one that creates a file
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, kEvery, [this] { return stopping_; })) {
    try {
      if (!db) db.emplace(database_, Database::Mode::kExisting);
      db->prepare("UPDATE run SET heartbeat_at = ? WHERE id = ?").bind(1, utcNow()).bind(2, runId_).run();
    } catch (const StoreError& e) {
      // A full disk or a busy store: the run goes on; a missed beat only
      // makes readers think it stopped sooner.
      if (!warned) log(DTB_LOG_WARN, "run", std::string("heartbeat not written: ") + e.what());
      warned = true;
      db.reset();  // opened afresh at the next beat
    }
  }
}

}  // namespace dtb::core
