// A thin RAII layer over the SQLite C API: a connection and prepared
// statements, with errors that name the database file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace dtb::core {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A column value as SQLite has it.
using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;

class Statement;

class Database {
 public:
  // kReadOnly: SQLite's mode=ro (it may still make -wal and -shm files to
  // read a store in WAL mode); kImmutable: also immutable=1, for a file
  // nothing can change (no locks, no files beside it); kExisting: read and
  // write a store that must already be there (never creates an empty one).
  enum class Mode { kReadWrite, kReadOnly, kImmutable, kExisting };

  // Opens (kReadWrite: creating) `path`. Every connection waits up to
  // `busyTimeoutMs` for a lock instead of failing at once.
  Database(const std::filesystem::path& path, Mode mode, int busyTimeoutMs = 10000);
  ~Database();
  Database(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs one or more statements that return no rows.
  void exec(std::string_view sql);
  Statement prepare(std::string_view sql);
  int64_t lastInsertId() const;
  int userVersion();
  sqlite3* handle() const { return db_; }
  const std::filesystem::path& path() const { return path_; }

  // "<file>: <what>: <sqlite's message>"
  [[noreturn]] void fail(const std::string& what) const;

 private:
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(Database& db, std::string_view sql);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds by 1-based index; returns *this so binds chain.
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, std::nullopt_t);
  Statement& bind(int index, const SqlValue& value);

  // Advances to the next row; false when done.
  bool step();
  // Runs a statement that returns no rows, then resets it for reuse.
  void run();
  void reset();

  int columnCount() const;
  std::string columnName(int index) const;
  SqlValue column(int index) const;
  int64_t columnInt(int index) const;
  double columnReal(int index) const;  // an integer as a double; NULL as 0
  std::string columnText(int index) const;

  bool readOnly() const;
  sqlite3_stmt* handle() const { return stmt_; }

 private:
  Database* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back if the scope is left by an exception.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace dtb::core
