// A rendezvous store whose every wait is bounded by our timeout. Gloo's
// FileStore::get waits for a key with a fixed 30 s; this makes the
// rendezvous honour the run's collective timeout instead, and say which
// keys (so which ranks) never appeared.
#pragma once

#include <gloo/rendezvous/store.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace dtb::backend::gloo {

class TimedStore : public ::gloo::rendezvous::Store {
 public:
  TimedStore(std::shared_ptr<::gloo::rendezvous::Store> inner, std::chrono::milliseconds timeout)
      : inner_(std::move(inner)), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override { inner_->set(key, data); }

  std::vector<char> get(const std::string& key) override {
    wait({key});
    return inner_->get(key);
  }

  void wait(const std::vector<std::string>& keys) override { inner_->wait(keys, timeout_); }

  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    inner_->wait(keys, std::min(timeout, timeout_));
  }

 private:
  std::shared_ptr<::gloo::rendezvous::Store> inner_;
  std::chrono::milliseconds timeout_;
};

}  // namespace dtb::backend::gloo
