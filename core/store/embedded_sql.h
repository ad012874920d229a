// SQL compiled into the binary: the store's schema migrations
// (core/store/migrations/), the report views (reports/views/) and the
// report's queries (reports/queries/).
#pragma once

#include <span>

namespace dtb::core {

struct EmbeddedSql {
  const char* name;  // file stem, e.g. "0001_initial", "30_scaling"
  const char* sql;
};

// Migration i brings the schema from version i to i + 1 (PRAGMA user_version).
std::span<const EmbeddedSql> schemaMigrations();

// The report's SELECTs (reports/queries/), named by stem ("20_scaling").
std::span<const EmbeddedSql> reportQueries();

// CREATE VIEW statements, in dependency order; the view is named by the
// stem without its numeric prefix ("30_scaling" creates view scaling).
std::span<const EmbeddedSql> reportViews();

}  // namespace dtb::core
