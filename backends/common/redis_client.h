// A connection to the Redis server a run rendezvouses through, for ranks on
// hosts that share no file system: the few commands a rendezvous needs
// (SET with a day's expiry, GET, EXISTS), each bounded by the timeout given.
// Messages name host:port only, never the credentials.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

struct redisContext;

namespace dtb::backend {

class RedisClient {
 public:
  // `address` is "[[user]:password@]host[:port]" (port 6379 when left out);
  // with a password the client authenticates (AUTH). Throws
  // std::runtime_error when the server cannot be reached within `timeout`
  // or refuses the credentials.
  RedisClient(const std::string& address, std::chrono::milliseconds timeout);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  void set(const std::string& key, const std::string& value);
  std::optional<std::string> get(const std::string& key);  // nothing when the key is not there
  bool exists(const std::string& key);
  const std::string& address() const { return address_; }  // host:port

 private:
  std::string address_;
  std::mutex mutex_;  // one command at a time on the connection
  redisContext* context_ = nullptr;
};

}  // namespace dtb::backend
