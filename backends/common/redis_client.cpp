#include "common/redis_client.h"

#include <hiredis/hiredis.h>

#include <stdexcept>

namespace dtb::backend {
namespace {

constexpr int kExpirySeconds = 24 * 3600;  // finished runs leave nothing behind for long

struct Reply {
  redisReply* reply;
  ~Reply() {
    if (reply) freeReplyObject(reply);
  }
};

}  // namespace

RedisClient::RedisClient(const std::string& address, std::chrono::milliseconds timeout) {
  // "[[USER]:PASSWORD@]HOST[:PORT]", as in redis://user:password@host:port.
  std::string user, password, hostPort = address;
  if (const size_t at = address.rfind('@'); at != std::string::npos) {
    const std::string userinfo = address.substr(0, at);
    hostPort = address.substr(at + 1);
    const size_t colon = userinfo.find(':');
    user = userinfo.substr(0, colon);
    if (colon != std::string::npos) password = userinfo.substr(colon + 1);
  }
  address_ = hostPort;  // what messages name: never the password
  if (!user.empty() && password.empty()) {
    // Redis's AUTH takes a user with a password, never a user alone; going on
    // without AUTH would fail later with a less helpful NOAUTH.
    throw std::runtime_error("redis://" + user + "@" + hostPort +
                             ": a user name needs its password after a ':' (USER:PASSWORD@HOST), or give the "
                             "password alone (:PASSWORD@HOST)");
  }
  const size_t colon = hostPort.rfind(':');
  const std::string host = colon == std::string::npos ? hostPort : hostPort.substr(0, colon);
  const int port = colon == std::string::npos ? 6379 : std::stoi(hostPort.substr(colon + 1));
  timeval limit{static_cast<time_t>(timeout.count() / 1000),
                static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
  context_ = redisConnectWithTimeout(host.c_str(), port, limit);
  if (context_ == nullptr || context_->err) {
    const std::string why = context_ ? context_->errstr : "out of memory";
    if (context_) redisFree(context_);
    context_ = nullptr;
    throw std::runtime_error("cannot reach the Redis server at " + address_ + ": " + why);
  }
  redisSetTimeout(context_, limit);
  if (!password.empty()) {
    Reply r{static_cast<redisReply*>(user.empty()
                                         ? redisCommand(context_, "AUTH %b", password.data(), password.size())
                                         : redisCommand(context_, "AUTH %b %b", user.data(), user.size(),
                                                        password.data(), password.size()))};
    if (r.reply == nullptr || r.reply->type == REDIS_REPLY_ERROR) {
      const std::string why =
          r.reply ? std::string(r.reply->str, r.reply->len) : std::string(context_->errstr);
      redisFree(context_);
      context_ = nullptr;
      throw std::runtime_error("the Redis server at " + address_ + " refused the credentials: " + why);
    }
  }
}

RedisClient::~RedisClient() {
  if (context_) redisFree(context_);
}

void RedisClient::set(const std::string& key, const std::string& value) {
  std::lock_guard lock(mutex_);
  Reply r{static_cast<redisReply*>(redisCommand(context_, "SET %b %b EX %d", key.data(), key.size(),
                                                value.data(), value.size(), kExpirySeconds))};
  if (!r.reply || r.reply->type == REDIS_REPLY_ERROR) {
    throw std::runtime_error("redis " + address_ + ": SET " + key +
                             " failed: " + (r.reply ? r.reply->str : context_->errstr));
  }
}

bool RedisClient::exists(const std::string& key) {
  std::lock_guard lock(mutex_);
  Reply r{static_cast<redisReply*>(redisCommand(context_, "EXISTS %b", key.data(), key.size()))};
  if (!r.reply || r.reply->type != REDIS_REPLY_INTEGER) {
    throw std::runtime_error("redis " + address_ + ": EXISTS " + key +
                             " failed: " + (r.reply && r.reply->str ? r.reply->str : context_->errstr));
  }
  return r.reply->integer > 0;
}

std::optional<std::string> RedisClient::get(const std::string& key) {
  std::lock_guard lock(mutex_);
  Reply r{static_cast<redisReply*>(redisCommand(context_, "GET %b", key.data(), key.size()))};
  if (r.reply && r.reply->type == REDIS_REPLY_NIL) return std::nullopt;
  if (!r.reply || r.reply->type != REDIS_REPLY_STRING) {
    throw std::runtime_error("redis " + address_ + ": GET " + key + " failed");
  }
  return std::string(r.reply->str, r.reply->len);
}

}  // namespace dtb::backend
