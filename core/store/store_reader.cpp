#include "store/store_reader.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "log/log.h"
#include "store/embedded_sql.h"
#include "store/result_store.h"

namespace dtb::core {
namespace {

// Nothing can change the store while we read: it is on a read-only mount,
// or its file is write-protected for everyone. (A store we merely cannot
// write may be another user's that their run is writing: that one is read
// with locks, as any reader.)
bool cannotChange(const std::filesystem::path& path) {
  struct statvfs mount {};
  if (::statvfs(path.c_str(), &mount) == 0 && (mount.f_flag & ST_RDONLY) != 0) return true;
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && (info.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0;
}

void warnOfUnreadWal(const std::filesystem::path& path) {
  std::error_code ec;
  const auto walBytes = std::filesystem::file_size(path.string() + "-wal", ec);
  if (!ec && walBytes > 0) {
    log(DTB_LOG_WARN, "store",
        path.string() +
            ": its -wal file holds transactions SQLite cannot read without write access to the "
            "store: the newest results may be missing");
  }
}

bool unreadableFile(int code) { return code == SQLITE_NOTADB || code == SQLITE_CORRUPT; }

int readVersion(Database& db, const std::filesystem::path& path) {
  try {
    return db.userVersion();
  } catch (const StoreError&) {
    if (unreadableFile(sqlite3_extended_errcode(db.handle()) & 0xff)) {
      throw StoreError(path.string() + ": not a SQLite database (or it is corrupt)");
    }
    throw;
  }
}

}  // namespace

Database openStoreForReading(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw StoreError(path.string() + ": no such database file");
  const bool immutable = cannotChange(path);
  if (immutable) warnOfUnreadWal(path);
  std::optional<Database> db(std::in_place, path,
                             immutable ? Database::Mode::kImmutable : Database::Mode::kReadOnly);
  int version = 0;
  try {
    version = readVersion(*db, path);
  } catch (const StoreError& e) {
    // A store in WAL mode whose -shm file we may not create (another user's
    // directory): read it as it is on disk, saying what that costs.
    const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
    if (immutable || access(dir.c_str(), W_OK) == 0 ||
        std::string(e.what()).find("not a SQLite") != std::string::npos) {
      throw;
    }
    log(DTB_LOG_WARN, "store",
        path.string() + ": cannot be read with locks (" + e.what() +
            "); read without them: a run writing it now may show half-written");
    warnOfUnreadWal(path);
    db.emplace(path, Database::Mode::kImmutable);
    version = readVersion(*db, path);
  }
  const int latest = ResultStore::schemaVersion();
  if (version == 0) throw StoreError(path.string() + ": not a dtbench result store (no schema version)");
  if (version > latest) {
    throw StoreError(path.string() + ": schema version " + std::to_string(version) +
                     " is newer than this dtbench understands (" + std::to_string(latest) +
                     "); read it with a newer dtbench");
  }
  if (version < latest) {
    throw StoreError(path.string() + ": schema version " + std::to_string(version) +
                     " is older than this dtbench's (" + std::to_string(latest) + "); `dtbench upgrade " +
                     path.string() + "` brings it up (readers never change a store)");
  }
  for (const EmbeddedSql& view : reportViews()) {
    std::string sql = view.sql;
    const size_t create = sql.find("CREATE VIEW");
    if (create == std::string::npos)
      throw StoreError(std::string("view ") + view.name + " has no CREATE VIEW");
    sql.replace(create, 11, "CREATE TEMP VIEW");
    db->exec(sql);
  }
  return std::move(*db);
}

}  // namespace dtb::core
