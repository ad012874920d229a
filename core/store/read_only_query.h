// Running a user's SQL against a store, strictly read-only, within a time
// limit, its rows handed on as they come.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "store/database.h"

namespace dtb::core {

struct QueryResult {
  std::vector<std::string> columns;
  std::vector<std::vector<SqlValue>> rows;
};

struct RowHandler {
  std::function<void(std::vector<std::string>)> columns;  // once, before any row
  std::function<void(std::vector<SqlValue>)> row;
  // Called from another thread while the statement is still inside SQLite
  // kQueryOverrunGraceS past the limit: in one SQL function, where SQLite
  // cannot be interrupted (printf('%.*c', 2000000000, 'x') spins 18 s in
  // SQLite 3.40). The caller's other members may be in use by then; empty:
  // the statement runs on.
  std::function<void()> overrun;
};

// How long past its limit a statement may stay inside SQLite before the
// overrun handler is called.
constexpr int kQueryOverrunGraceS = 2;

// The longest string or blob a user's query may make (SQLITE_LIMIT_LENGTH).
constexpr int kMaxQueryValueBytes = 64 << 20;

// Runs one statement on `db` (opened by openStoreForReading), stopping it
// after `limit` (zero: no limit). Throws StoreError for a syntax error
// (SQLite's message, the line and a caret under the place), more than one
// statement, a value over kMaxQueryValueBytes, a statement that would
// write ("... is read-only"), or the time limit.
void streamReadOnlyQuery(Database& db, const std::string& sql, std::chrono::milliseconds limit,
                         const RowHandler& handler);

// The whole result in memory, without a time limit: for dtbench's own
// queries, whose results are small.
QueryResult runReadOnlyQuery(Database& db, const std::string& sql);
QueryResult runReadOnlyQuery(const std::filesystem::path& db, const std::string& sql);

}  // namespace dtb::core
