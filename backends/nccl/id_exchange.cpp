#include "id_exchange.h"

#include <fstream>
#include <iterator>
#include <thread>

#include "dtbench/plugin.hpp"

namespace dtb::backend::nccl {

std::filesystem::path FileIdStore::pathOf(const std::string& key) const {
  std::string name = key;
  for (char& c : name) {
    if (c == '/') c = '_';  // a key is one file, never a path into another directory
  }
  return directory_ / name;
}

void FileIdStore::set(const std::string& key, const std::string& value) {
  const std::filesystem::path path = pathOf(key);
  const std::filesystem::path partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(value.data(), static_cast<std::streamsize>(value.size()));
    if (!out.flush()) throw Error(DTB_STATUS_IO_ERROR, "cannot write " + partial.string());
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) throw Error(DTB_STATUS_IO_ERROR, "cannot rename " + partial.string() + ": " + error.message());
}

std::optional<std::string> FileIdStore::tryGet(const std::string& key) {
  std::ifstream in(pathOf(key), std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string shareUniqueId(IdStore& store, const std::string& key, int rank,
                          const std::function<std::string()>& make, std::chrono::milliseconds timeout) {
  if (rank == 0) {
    std::string id = make();
    store.set(key, id);
    return id;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (std::optional<std::string> id = store.tryGet(key)) return *id;
    if (std::chrono::steady_clock::now() >= deadline) {
      throw Error(DTB_STATUS_TIMEOUT, "rank " + std::to_string(rank) + ": rank 0's NCCL id (key \"" + key +
                                          "\") did not appear in " + store.where() + " within " +
                                          std::to_string(timeout.count()) +
                                          " ms: is rank 0 running, and does it share this store?");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace dtb::backend::nccl
