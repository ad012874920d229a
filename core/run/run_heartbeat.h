// While a run goes on, its coordinator says so in the store every few
// seconds (run.heartbeat_at), from a thread of its own with its own
// connection, so a run whose workers are silent still shows a live
// coordinator. A run whose heartbeat stops is one whose coordinator died:
// readers show it 'interrupted' after ResultStore::kHeartbeatStaleS, and the
// next writer marks it (result_store.h).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <thread>

namespace dtb::core {

class RunHeartbeat {
 public:
  static constexpr std::chrono::seconds kEvery{5};

  RunHeartbeat(std::filesystem::path database, int64_t runId);
  ~RunHeartbeat();  // stops beating
  RunHeartbeat(const RunHeartbeat&) = delete;
  RunHeartbeat& operator=(const RunHeartbeat&) = delete;

 private:
  void beat();

  std::filesystem::path database_;
  int64_t runId_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace dtb::core
