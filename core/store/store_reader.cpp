#include "store/store_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "log/log.h"
#include "store/embedded_sql.h"
#include "store/result_store.h"

namespace dtb::core {
namespace {

// Nothing can change the store while we read: we cannot write it or its
// directory (a read-only mount), or its file is write-protected for all.
bool cannotChange(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && (info.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) return true;
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  return access(path.c_str(), W_OK) != 0 || access(dir.c_str(), W_OK) != 0;
}

}  // namespace

Database openStoreForReading(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw StoreError(path.string() + ": no such database file");
  const bool immutable = cannotChange(path);
  std::error_code ec;
  const auto walBytes = std::filesystem::file_size(path.string() + "-wal", ec);
  if (immutable && !ec && walBytes > 0) {
    log(DTB_LOG_WARN, "store",
        path.string() + ": its -wal file holds transactions SQLite cannot read without write access to the "
                        "store: the newest results may be missing");
  }
  Database db(path, immutable ? Database::Mode::kImmutable : Database::Mode::kReadOnly);
  int version = 0;
  try {
    version = db.userVersion();
  } catch (const StoreError&) {
    throw StoreError(path.string() + ": not a SQLite database (or it is corrupt)");
  }
  const int latest = ResultStore::schemaVersion();
  if (version == 0) throw StoreError(path.string() + ": not a dtbench result store (no schema version)");
  if (version > latest) {
    throw StoreError(path.string() + ": schema version " + std::to_string(version) +
                     " is newer than this dtbench understands (" + std::to_string(latest) +
                     "); read it with a newer dtbench");
  }
  if (version < latest) {
    throw StoreError(path.string() + ": schema version " + std::to_string(version) + " is older than this dtbench's (" +
                     std::to_string(latest) + "); `dtbench upgrade " + path.string() +
                     "` brings it up (readers never change a store)");
  }
  for (const EmbeddedSql& view : reportViews()) {
    std::string sql = view.sql;
    const size_t create = sql.find("CREATE VIEW");
    if (create == std::string::npos) throw StoreError(std::string("view ") + view.name + " has no CREATE VIEW");
    sql.replace(create, 11, "CREATE TEMP VIEW");
    db.exec(sql);
  }
  return db;
}

}  // namespace dtb::core
