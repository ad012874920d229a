// What `dtbench schema` says of a table, view or column comes from the
// comments of the SQL that made it: the parser's rules, and that this
// dtbench's own schema is documented (a view without its header comment, or
// a table column without a unit where its name promises one, fails here).
#include "store/schema_docs.h"

#include <gtest/gtest.h>

#include "store/embedded_sql.h"

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

TEST(SchemaDocs, UnitsFollowTheSchemasNamingRules) {
  EXPECT_EQ(columnUnit("comm_exposed_ms"), "ms");
  EXPECT_EQ(columnUnit("steady_seconds"), "");
  EXPECT_EQ(columnUnit("data_s"), "s");
  EXPECT_EQ(columnUnit("p95_us"), "µs");
  EXPECT_EQ(columnUnit("peak_rss_bytes"), "bytes");
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

}  // namespace
}  // namespace dtb::core
