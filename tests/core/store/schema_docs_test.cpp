// What `dtbench schema` says of a table, view or column comes from the
// comments of the SQL that made it: the parser's rules, and that this
// dtbench's own schema is documented — every table, view and column of a
// fresh store, in words for users (no issue numbers, no migration history).
#include "store/schema_docs.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "store/database.h"
#include "store/embedded_sql.h"
#include "store/result_store.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {

TEST(SchemaDocs, CommentsAboveAndBesideTheSqlSayWhatEachThingIs) {
  const SchemaDocs docs = parseSchemaDocs({R"sql(
-- Not about anything: a blank line follows.

-- One matrix cell x one repeat. More detail
-- that is not the summary.
CREATE TABLE run (
  id     INTEGER PRIMARY KEY,
  error  TEXT,                 -- why it failed: rank, plugin, message
  cell   INTEGER NOT NULL,
  UNIQUE (id, cell)            -- not a column
);
CREATE TABLE IF NOT EXISTS bare (x INTEGER);  -- a one-line table: no columns parsed
)sql",
                                           R"sql(
-- What sets a configuration apart.
ALTER TABLE run ADD COLUMN label TEXT;  -- "zero stage=3"
ALTER TABLE run ADD COLUMN cpus INTEGER;
-- The run's host. Its name.
ALTER TABLE run ADD COLUMN host TEXT;
-- Speed-up per world size, from the medians:
--   S = thr / thr_ref. Then more.
CREATE VIEW scaling AS SELECT 1;
)sql"});
  EXPECT_EQ(docs.summary.at("run"), "One matrix cell x one repeat.");
  EXPECT_EQ(docs.summary.count("bare"), 0u);
  EXPECT_EQ(docs.summary.at("scaling"), "Speed-up per world size, from the medians:");
  EXPECT_EQ(docs.column.at({"run", "error"}), "why it failed: rank, plugin, message");
  EXPECT_EQ(docs.column.at({"run", "label"}), "\"zero stage=3\"");
  EXPECT_EQ(docs.column.count({"run", "id"}), 0u);
  EXPECT_EQ(docs.column.count({"run", "cpus"}), 0u);
  EXPECT_EQ(docs.column.at({"run", "host"}), "The run's host.");
  EXPECT_EQ(docs.column.count({"run", "UNIQUE"}), 0u);
}

// A view's columns: indented "name  meaning" lines in its header,
// continued on lines indented further; formulas and queries are no column.
TEST(SchemaDocs, AViewsHeaderListsItsColumns) {
  const SchemaDocs docs = parseSchemaDocs({R"sql(
-- Speed-up per world size. More detail.
--   S = thr / thr_ref   (a formula: no column)
--   SELECT x  FROM scaling  (a query: no column)
--   speedup      S, against the smallest world size;
--                NULL at that size itself
--   runs, runs_ok  runs, and those that ended well
--   efficiency  S x G_ref / G
-- Prose again: not a column.
--     of the prose
CREATE VIEW scaling AS SELECT 1;
-- The queue.
--   experiment_id, cell  the cell to compute again
CREATE TABLE queue (experiment_id INTEGER, cell INTEGER);
-- Columns added.
--   spread  (max - min) / median
--   noisy   1 when the spread is above 10 %
ALTER TABLE queue ADD COLUMN spread REAL;
ALTER TABLE queue ADD COLUMN noisy INTEGER;  -- 1: noisy
)sql"});
  EXPECT_EQ(docs.summary.at("scaling"), "Speed-up per world size.");
  EXPECT_EQ(docs.column.at({"scaling", "speedup"}),
            "S, against the smallest world size; NULL at that size itself");
  EXPECT_EQ(docs.column.at({"scaling", "runs"}), "runs, and those that ended well");
  EXPECT_EQ(docs.column.at({"scaling", "runs_ok"}), "runs, and those that ended well");
  EXPECT_EQ(docs.column.at({"scaling", "efficiency"}), "S x G_ref / G");
  EXPECT_EQ(docs.column.count({"scaling", "S"}), 0u);
  EXPECT_EQ(docs.column.count({"scaling", "x"}), 0u);
  EXPECT_EQ(docs.column.at({"queue", "cell"}), "the cell to compute again");
  EXPECT_EQ(docs.column.at({"queue", "spread"}), "(max - min) / median");
  EXPECT_EQ(docs.column.at({"queue", "noisy"}), "1: noisy");  // its own comment wins
}

TEST(SchemaDocs, UnitsFollowTheSchemasNamingRules) {
  EXPECT_EQ(columnUnit("comm_exposed_ms"), "ms");
  EXPECT_EQ(columnUnit("steady_seconds"), "");
  EXPECT_EQ(columnUnit("data_s"), "s");
  EXPECT_EQ(columnUnit("p95_us"), "µs");
  EXPECT_EQ(columnUnit("peak_rss_bytes"), "bytes");
  EXPECT_EQ(columnUnit("bytes_sent"), "bytes");
  EXPECT_EQ(columnUnit("samples_per_s"), "samples/s");
  EXPECT_EQ(columnUnit("busbw_gbps"), "GB/s");
  EXPECT_EQ(columnUnit("efficiency"), "fraction");
  EXPECT_EQ(columnUnit("comm_hidden_share"), "fraction");
  EXPECT_EQ(columnUnit("speedup"), "x");
  EXPECT_EQ(columnUnit("started_at"), "UTC time");
  EXPECT_EQ(columnUnit("world_size"), "");
}

TEST(SchemaDocs, EveryViewAndTheMainTablesSayWhatTheyHold) {
  const SchemaDocs& docs = schemaDocs();
  for (const EmbeddedSql& view : reportViews()) {
    const std::string name = std::string(view.name).substr(std::string(view.name).find('_') + 1);
    ASSERT_TRUE(docs.summary.count(name)) << "view " << name << " has no comment above its CREATE VIEW";
    EXPECT_GT(docs.summary.at(name).size(), 10u) << name;
  }
  for (const char* table :
       {"experiment", "run", "run_param", "epoch", "step", "memory", "collective", "event"})
    EXPECT_TRUE(docs.summary.count(table)) << "table " << table;
  EXPECT_EQ(docs.column.at({"run", "error"}), "why it failed: rank, plugin, message");
  EXPECT_EQ(docs.column.at({"run", "label"}).empty(), false);  // from a later ALTER TABLE
}

// True when `lower` holds `word` followed by a number (after an optional
// '#'), of exactly `digits` digits when that is not 0.
bool wordThenNumber(const std::string& lower, const std::string& word, size_t digits = 0) {
  for (size_t at = lower.find(word); at != std::string::npos; at = lower.find(word, at + 1)) {
    if (at > 0 && std::isalpha(static_cast<unsigned char>(lower[at - 1]))) continue;  // a word of its own
    size_t i = at + word.size();
    if (i < lower.size() && lower[i] == '#') ++i;
    const size_t first = i;
    while (i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i]))) ++i;
    if (i > first && (digits == 0 || i - first == digits)) return true;
  }
  return false;
}

// What a user reads must not tell how the schema came to be: "issue 19",
// "since 0010", "migration 12", "10,000 runs", "written before". (No
// std::regex: GCC 12 warns inside it under the sanitizers, and -Werror.)
bool tellsHistory(const std::string& text) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"issue ", "bug ", "pr ", "migration ", "schema version "})
    if (wordThenNumber(lower, word)) return true;
  if (wordThenNumber(lower, "since ", 4)) return true;
  const size_t runs = lower.find(",000 runs");
  if (runs != std::string::npos && runs > 0 && std::isdigit(static_cast<unsigned char>(lower[runs - 1])))
    return true;
  return lower.find("written before") != std::string::npos;
}

TEST(SchemaDocs, HistoryIsRecognised) {
  for (const char* told :
       {"issue 19: the hosts", "see Issue #7", "since 0010", "A store that answers at 10,000 runs",
        "added in migration 12", "rows written before it"})
    EXPECT_TRUE(tellsHistory(told)) << told;
  for (const char* plain : {"bus bytes per step", "since 1.6 of the ABI", "tissue 3", "the run's 10 steps"})
    EXPECT_FALSE(tellsHistory(plain)) << plain;
}

// Every table and view of a fresh store (its own and this dtbench's views)
// says what it holds, and every column of each what it is. The failure
// names each one that does not, so one run lists all that is left to do.
TEST(SchemaDocs, EveryTableViewAndColumnOfAFreshStoreIsDocumentedForUsers) {
  testing::TempDir dir;
  { ResultStore store(dir / "fresh.db"); }
  Database db(dir / "fresh.db", Database::Mode::kReadOnly);
  const SchemaDocs& docs = schemaDocs();
  std::vector<std::string> undocumented, historical;
  std::set<std::pair<std::string, std::string>> columns;
  Statement objects = db.prepare(
      "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY "
      "name");
  while (objects.step()) {
    const std::string object = objects.columnText(0);
    const auto summary = docs.summary.find(object);
    if (summary == docs.summary.end() || summary->second.size() < 10)
      undocumented.push_back(object);
    else if (tellsHistory(summary->second))
      historical.push_back(object + ": " + summary->second);
    Statement info = db.prepare("SELECT name FROM pragma_table_info(?)");
    info.bind(1, object);
    while (info.step()) {
      const std::string column = info.columnText(0);
      columns.insert({object, column});
      const auto doc = docs.column.find({object, column});
      if (doc == docs.column.end() || doc->second.empty())
        undocumented.push_back(object + "." + column);
      else if (tellsHistory(doc->second))
        historical.push_back(object + "." + column + ": " + doc->second);
    }
  }
  std::vector<std::string> stray;  // a column list naming a column its object does not have
  for (const auto& [key, doc] : docs.column) {
    if (!columns.count(key)) stray.push_back(key.first + "." + key.second);
  }
  auto lines = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += "\n  " + s;
    return out;
  };
  EXPECT_TRUE(undocumented.empty()) << undocumented.size() << " without a doc:" << lines(undocumented);
  EXPECT_TRUE(historical.empty()) << "development history in user-facing docs:" << lines(historical);
  EXPECT_TRUE(stray.empty()) << "docs of columns that do not exist:" << lines(stray);
}

}  // namespace
}  // namespace dtb::core
