// What the store's tables, views and columns mean, read from the comments of
// the SQL that creates them (core/store/migrations/, reports/views/), so the
// schema's own text is the one place a column is explained:
//   - the comment lines right above CREATE TABLE or CREATE VIEW: what it
//     holds (its first sentence is the one-line summary);
//   - a trailing `-- ...` on a column's line inside CREATE TABLE, or on an
//     ALTER TABLE ... ADD COLUMN (else the comment lines right above that
//     ALTER TABLE): what the column is.
// Units come from the naming rules the schema follows (`_ms`, `_s`,
// `_bytes`, `samples_per_s`, ...). `dtbench schema` prints them.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dtb::core {

struct SchemaDocs {
  std::map<std::string, std::string> summary;                         // table or view -> one line
  std::map<std::pair<std::string, std::string>, std::string> column;  // (table, column) -> what it is
};

// Parses the given SQL texts, in order (a later ADD COLUMN documents a column
// of an earlier CREATE TABLE).
SchemaDocs parseSchemaDocs(const std::vector<std::string>& sqlTexts);

// The docs of this dtbench's embedded migrations and views.
const SchemaDocs& schemaDocs();

// The unit a column's name says: "ms", "s", "bytes", "samples/s", "GB/s",
// "fraction", "x", "UTC time", or "" when the name says none.
std::string columnUnit(const std::string& column);

}  // namespace dtb::core
