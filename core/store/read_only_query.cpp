#include "store/read_only_query.h"

namespace dtb::core {

QueryResult runReadOnlyQuery(const std::filesystem::path& path, const std::string& sql) {
  Database db(path, Database::Mode::kReadOnly);
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &raw, &tail) != SQLITE_OK) {
    throw StoreError(path.string() + ": " + sqlite3_errmsg(db.handle()));
  }
  sqlite3_finalize(raw);
  if (raw == nullptr) throw StoreError("the query is empty");
  for (const char* c = tail; c && *c; ++c) {
    if (*c != ' ' && *c != '\n' && *c != '\t' && *c != '\r' && *c != ';') {
      throw StoreError("one statement at a time, please: found more after the first ';'");
    }
  }
  const size_t length = static_cast<size_t>(tail - sql.c_str());
  Statement statement = db.prepare(std::string_view(sql.c_str(), length));
  if (!statement.readOnly()) {
    throw StoreError(path.string() + ": dtbench query is read-only and this statement would change the "
                                     "database; results are written only by dtbench run");
  }
  QueryResult result;
  for (int i = 0; i < statement.columnCount(); ++i) result.columns.push_back(statement.columnName(i));
  while (statement.step()) {
    std::vector<SqlValue> row;
    for (int i = 0; i < statement.columnCount(); ++i) row.push_back(statement.column(i));
    result.rows.push_back(std::move(row));
  }
  return result;
}

}  // namespace dtb::core
