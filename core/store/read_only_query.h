// Running a user's SQL against a store, strictly read-only.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "store/database.h"

namespace dtb::core {

struct QueryResult {
  std::vector<std::string> columns;
  std::vector<std::vector<SqlValue>> rows;
};

// Opens `db` read-only and runs one statement. Throws StoreError for a
// missing file, a syntax error (SQLite's message), more than one statement,
// or a statement that would write ("... is read-only").
QueryResult runReadOnlyQuery(const std::filesystem::path& db, const std::string& sql);

}  // namespace dtb::core
