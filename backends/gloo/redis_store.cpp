#include "redis_store.h"

#include <stdexcept>
#include <thread>

namespace dtb::backend::gloo {

RedisStore::RedisStore(const std::string& address, std::chrono::milliseconds timeout)
    : client_(address, timeout), timeout_(timeout) {}

void RedisStore::set(const std::string& key, const std::vector<char>& data) {
  client_.set(key, std::string(data.begin(), data.end()));
}

std::vector<char> RedisStore::get(const std::string& key) {
  wait({key});
  const std::optional<std::string> value = client_.get(key);
  if (!value) throw std::runtime_error("redis " + client_.address() + ": GET " + key + " found nothing");
  return std::vector<char>(value->begin(), value->end());
}

void RedisStore::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + std::min(timeout, timeout_);
  for (const std::string& key : keys) {
    while (!client_.exists(key)) {
      if (std::chrono::steady_clock::now() > deadline) {
        // "timeout" in the text: the backend reports it as DTB_STATUS_TIMEOUT.
        throw std::runtime_error("Wait timeout for key(s): " + key + " on the Redis server at " +
                                 client_.address());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

}  // namespace dtb::backend::gloo
