// Gloo's rendezvous store over our Redis client (Gloo's own RedisStore is
// not built into Debian's libgloo): every wait is bounded and names the
// keys (so the ranks) that never came.
#pragma once

#include <gloo/rendezvous/store.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/redis_client.h"

namespace dtb::backend::gloo {

class RedisStore : public ::gloo::rendezvous::Store {
 public:
  // As RedisClient's; throws std::runtime_error naming host:port only.
  RedisStore(const std::string& address, std::chrono::milliseconds timeout);

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

 private:
  RedisClient client_;
  std::chrono::milliseconds timeout_;
};

}  // namespace dtb::backend::gloo
