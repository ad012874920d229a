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
    : db_(openStoreForReading(database)), sqlDir_(std::move(sqlDir)) {}

std::string ReportQueries::text(const std::string& name) const {
  for (const EmbeddedSql& q : reportQueries()) {
    if (stemName(q.name) != name) continue;
    if (!sqlDir_.empty()) {
      const std::filesystem::path mine = sqlDir_ / (std::string(q.name) + ".sql");
      if (std::filesystem::exists(mine)) {
        std::ifstream in(mine);
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
      }
    }
    return q.sql;
  }
  throw StoreError("no report query named '" + name + "'");
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
    throw StoreError("report query '" + name + "' (reports/queries/): " + e.what());
  }
}

const SqlValue& RowView::at(const std::string& column) const {
  for (size_t i = 0; i < result_.columns.size(); ++i) {
    if (result_.columns[i] == column) return result_.rows[row_][i];
  }
  throw StoreError("report query has no column '" + column + "'");
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
