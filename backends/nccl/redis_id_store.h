// The id exchange through a Redis server (rendezvous_store = "redis://..."),
// for ranks on hosts that share no file system.
#pragma once

#include <chrono>
#include <string>

#include "common/redis_client.h"
#include "id_exchange.h"

namespace dtb::backend::nccl {

class RedisIdStore : public IdStore {
 public:
  RedisIdStore(const std::string& address, std::chrono::milliseconds timeout) : client_(address, timeout) {}
  void set(const std::string& key, const std::string& value) override { client_.set(key, value); }
  std::optional<std::string> tryGet(const std::string& key) override { return client_.get(key); }
  std::string where() const override { return "the Redis server at " + client_.address(); }

 private:
  RedisClient client_;
};

}  // namespace dtb::backend::nccl
