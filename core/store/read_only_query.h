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
  // Called from another thread when the statement runs on 2 s past the
  // limit inside one SQL function, where SQLite cannot be interrupted
  // (printf('%.*c', 2000000000, 'x')); empty: it runs on.
  std::function<void()> overrun;
};

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
