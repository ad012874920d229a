// A rendezvous store on a Redis server, for ranks on hosts that share no
// file system (Gloo's own RedisStore is not built into Debian's libgloo).
// Keys expire after a day, so finished runs leave nothing behind for long;
// every wait is bounded and names the keys (so the ranks) that never came.
#pragma once

#include <gloo/rendezvous/store.h>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

struct redisContext;

namespace dtb::backend::gloo {

class RedisStore : public ::gloo::rendezvous::Store {
 public:
  // `address` is "[[user]:password@]host[:port]" (port 6379 when left out);
  // with a password the store authenticates (AUTH). Throws
  // std::runtime_error, naming host:port only, when the server cannot be
  // reached within `timeout` or refuses the credentials.
  RedisStore(const std::string& address, std::chrono::milliseconds timeout);
  ~RedisStore() override;

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

 private:
  bool exists(const std::string& key);
  std::string address_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  redisContext* context_ = nullptr;
};

}  // namespace dtb::backend::gloo
