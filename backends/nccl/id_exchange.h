// NCCL's unique id, made by rank 0 and handed to every rank through the
// host's rendezvous store, as torch.distributed hands it through its TCP or
// file store: the store is how ranks that share nothing else find each other.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace dtb::backend::nccl {

// The two calls the exchange needs of a store.
class IdStore {
 public:
  virtual ~IdStore() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  virtual std::optional<std::string> tryGet(const std::string& key) = 0;
  // Where the store is, for messages ("the file store /tmp/x").
  virtual std::string where() const = 0;
};

// The file store of local runs: one file per key in a directory all ranks
// share, written whole then renamed, so a reader never sees half an id.
class FileIdStore : public IdStore {
 public:
  explicit FileIdStore(std::filesystem::path directory) : directory_(std::move(directory)) {}
  void set(const std::string& key, const std::string& value) override;
  std::optional<std::string> tryGet(const std::string& key) override;
  std::string where() const override { return "the file store " + directory_.string(); }

 private:
  std::filesystem::path pathOf(const std::string& key) const;
  std::filesystem::path directory_;
};

// Rank 0 calls make() and publishes its bytes under `key`; every other rank
// waits for them up to `timeout`, then throws dtb::Error (TIMEOUT) naming
// the store and the key. Returns the id's bytes on every rank.
std::string shareUniqueId(IdStore& store, const std::string& key, int rank,
                          const std::function<std::string()>& make, std::chrono::milliseconds timeout);

}  // namespace dtb::backend::nccl
