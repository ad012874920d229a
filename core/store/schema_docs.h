// What the store's tables, views and columns mean, read from the comments of
// the SQL that creates them (core/store/migrations/, reports/views/), so the
// schema's own text is the one place a column is explained:
//   - the comment lines right above CREATE TABLE or CREATE VIEW: what it
//     holds (its first sentence is the one-line summary);
//   - in those lines, a column list: a line indented by two spaces or more
//     that starts with a column's name (lower case), then two spaces or
//     more, then what the column is; lines indented further than the name
//     go on with it. Several columns may share one line ("runs, runs_ok
//     meaning"). A view documents its columns this way:
//       -- What the view holds, in one sentence. More about it.
//       --   label        the configuration's label (COALESCE(label, strategy))
//       --   step_ms      one optimizer step, the slowest rank's; continued
//       --                on lines indented further than the name
//       CREATE VIEW ...
//   - a trailing `-- ...` on a column's line inside CREATE TABLE, or on an
//     ALTER TABLE ... ADD COLUMN (else the column list, else the first
//     sentence of the comment lines right above that ALTER TABLE): what the
//     column is. A trailing comment wins over a column list.
// Units come from the naming rules the schema follows (`_ms`, `_s`,
// `_bytes`, `samples_per_s`, ...). `dtbench schema` prints them. The text is
// for users: what a value means, never how the schema came to be.
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
