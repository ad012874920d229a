// The report's SQL (reports/queries/*.sql, compiled in): each query is read
// from the user's --sql-dir when it holds a file of that name, else the
// built-in one, its placeholders ({experiments}, {experiment_a},
// {experiment_b}) replaced by experiment ids, and run read-only on one
// connection (store_reader.h).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/read_only_query.h"

namespace dtb::core {

class ReportQueries {
 public:
  // Throws std::invalid_argument when `sqlDir` is given but is no folder,
  // or holds a .sql file named like no report query (a typo would
  // otherwise be ignored silently).
  ReportQueries(std::filesystem::path database, std::filesystem::path sqlDir = {});

  // `name` is the file stem without its number ("scaling" for 20_scaling.sql).
  // Throws StoreError naming the query when it fails.
  QueryResult run(const std::string& name, const std::map<std::string, std::string>& placeholders) const;

  // The SQL as it would run, for --show-sql and errors.
  std::string text(const std::string& name) const;
  // Where that SQL comes from: the user's file in --sql-dir, or the
  // built-in reports/queries/NAME.sql.
  std::string source(const std::string& name) const;

 private:
  // The user's copy of a built-in query (empty when --sql-dir has none).
  std::filesystem::path usersFile(const std::string& stem) const;

  mutable Database db_;  // running a query changes no state a caller sees
  std::filesystem::path sqlDir_;
};

// A column of a result row by name.
class RowView {
 public:
  RowView(const QueryResult& result, size_t row) : result_(result), row_(row) {}
  std::optional<double> number(const std::string& column) const;  // nullopt for NULL
  double numberOr(const std::string& column, double fallback) const {
    return number(column).value_or(fallback);
  }
  std::string text(const std::string& column) const;  // "" for NULL
  // Whether the row has `column` at all: a column a newer view or query
  // added, read only where it is there (a user's older copy lacks it).
  bool has(const std::string& column) const;

 private:
  const SqlValue& at(const std::string& column) const;
  const QueryResult& result_;
  size_t row_;
};

}  // namespace dtb::core
