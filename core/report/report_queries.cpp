#include "report/report_queries.h"

#include <fstream>
#include <sstream>

#include "store/embedded_sql.h"
#include "store/store_reader.h"

namespace dtb::core {
namespace {

// "20_scaling" -> "scaling"
std::string stemName(const std::string& stem) {
  const size_t underscore = stem.find('_');
  return underscore == std::string::npos ? stem : stem.substr(underscore + 1);
}

}  // namespace

ReportQueries::ReportQueries(std::filesystem::path database, std::filesystem::path sqlDir)
    : db_(openStoreForReading(database)), sqlDir_(std::move(sqlDir)) {
  if (sqlDir_.empty()) return;
  if (!std::filesystem::is_directory(sqlDir_))
    throw std::invalid_argument("--sql-dir " + sqlDir_.string() + ": no such folder");
  std::string names;
  for (const EmbeddedSql& q : reportQueries())
    names += (names.empty() ? "" : ", ") + std::string(q.name) + ".sql";
  for (const auto& entry : std::filesystem::directory_iterator(sqlDir_)) {
    if (entry.path().extension() != ".sql") continue;
    const std::string stem = entry.path().stem().string();
    bool known = false;
    for (const EmbeddedSql& q : reportQueries()) known = known || stem == q.name;
    if (!known)
      throw std::invalid_argument(
          entry.path().string() +
          ": no report query has this name, so it would be ignored (the queries: " + names + ")");
  }
}

std::filesystem::path ReportQueries::usersFile(const std::string& stem) const {
  if (sqlDir_.empty()) return {};
  std::filesystem::path mine = sqlDir_ / (stem + ".sql");
  return std::filesystem::exists(mine) ? mine : std::filesystem::path();
}

std::string ReportQueries::text(const std::string& name) const {
  for (const EmbeddedSql& q : reportQueries()) {
    if (stemName(q.name) != name) continue;
    if (const std::filesystem::path mine = usersFile(q.name); !mine.empty()) {
      std::ifstream in(mine);
      std::stringstream text;
      text << in.rdbuf();
      if (!in && !in.eof()) throw std::invalid_argument(mine.string() + ": cannot read it");
      return text.str();
    }
    return q.sql;
  }
  throw StoreError("no report query named '" + name + "'");
}

std::string ReportQueries::source(const std::string& name) const {
  for (const EmbeddedSql& q : reportQueries()) {
    if (stemName(q.name) != name) continue;
    const std::filesystem::path mine = usersFile(q.name);
    return mine.empty() ? "reports/queries/" + std::string(q.name) + ".sql (built in)" : mine.string();
  }
  return name;
}

QueryResult ReportQueries::run(const std::string& name,
                               const std::map<std::string, std::string>& placeholders) const {
  std::string sql = text(name);
  for (const auto& [key, value] : placeholders) {
    const std::string marker = "{" + key + "}";
    for (size_t at = sql.find(marker); at != std::string::npos; at = sql.find(marker, at + value.size())) {
      sql.replace(at, marker.size(), value);
    }
  }
  try {
    return runReadOnlyQuery(db_, sql);
  } catch (const StoreError& e) {
    throw StoreError("report query '" + name + "' (" + source(name) + "): " + e.what());
  }
}

const SqlValue& RowView::at(const std::string& column) const {
  for (size_t i = 0; i < result_.columns.size(); ++i) {
    if (result_.columns[i] == column) return result_.rows[row_][i];
  }
  throw StoreError("has no column '" + column + "', which the report reads");
}

bool RowView::has(const std::string& column) const {
  for (const std::string& c : result_.columns) {
    if (c == column) return true;
  }
  return false;
}

std::optional<double> RowView::number(const std::string& column) const {
  const SqlValue& v = at(column);
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* s = std::get_if<std::string>(&v)) {
    try {
      return std::stod(*s);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string RowView::text(const std::string& column) const {
  const SqlValue& v = at(column);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    std::ostringstream out;
    out << *d;
    return out.str();
  }
  return "";
}

}  // namespace dtb::core
