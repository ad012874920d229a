#include "cli/schema_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "launch/launch.h"
#include "store/database.h"
#include "store/result_format.h"
#include "store/result_store.h"
#include "store/schema_docs.h"
#include "store/store_reader.h"

namespace dtb::cli {
namespace {

struct Column {
  std::string name, type, unit, doc;
};

struct SchemaObject {
  std::string name, kind, summary;  // kind: "table" or "view"
  std::vector<Column> columns;
};

// Every table and view the store holds (its own and this dtbench's TEMP
// views), with their columns as SQLite declares them.
std::vector<SchemaObject> readSchema(core::Database& db) {
  const core::SchemaDocs& docs = core::schemaDocs();
  std::vector<SchemaObject> objects;
  core::Statement list = db.prepare(
      "SELECT name, type FROM (SELECT name, type FROM sqlite_temp_schema UNION SELECT name, type FROM "
      "sqlite_schema) WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' "
      "GROUP BY name ORDER BY type, name");
  while (list.step()) {
    SchemaObject o{list.columnText(0), list.columnText(1), "", {}};
    if (const auto it = docs.summary.find(o.name); it != docs.summary.end()) o.summary = it->second;
    core::Statement info = db.prepare("SELECT name, type FROM pragma_table_info(?)");
    info.bind(1, o.name);
    while (info.step()) {
      Column c{info.columnText(0), info.columnText(1), core::columnUnit(info.columnText(0)), ""};
      if (const auto it = docs.column.find({o.name, c.name}); it != docs.column.end()) c.doc = it->second;
      o.columns.push_back(std::move(c));
    }
    objects.push_back(std::move(o));
  }
  return objects;
}

// Grouped for reading: each object's line, then its columns aligned.
void printText(const std::vector<SchemaObject>& objects) {
  for (const SchemaObject& o : objects) {
    std::printf("%s (%s)%s%s\n", o.name.c_str(), o.kind.c_str(), o.summary.empty() ? "" : ": ",
                o.summary.c_str());
    size_t name = 0, type = 0, unit = 0;
    for (const Column& c : o.columns) {
      name = std::max(name, c.name.size());
      type = std::max(type, c.type.size());
      unit = std::max(unit, c.unit.size());
    }
    for (const Column& c : o.columns) {
      std::string line = "  " + c.name + std::string(name - c.name.size() + 2, ' ') + c.type +
                         std::string(type - c.type.size() + 2, ' ') + c.unit;
      if (!c.doc.empty()) line += std::string(unit - c.unit.size() + 2, ' ') + c.doc;
      while (!line.empty() && line.back() == ' ') line.pop_back();
      std::printf("%s\n", line.c_str());
    }
    std::printf("\n");
  }
}

// One row per column, for csv, json, markdown or an aligned table.
void printRows(const std::vector<SchemaObject>& objects, core::ResultFormat format) {
  core::ResultWriter writer(format,
                            [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); });
  writer.columns({"object", "kind", "summary", "column", "type", "unit", "meaning"});
  for (const SchemaObject& o : objects) {
    for (const Column& c : o.columns) writer.row({o.name, o.kind, o.summary, c.name, c.type, c.unit, c.doc});
  }
  writer.finish();
}

// This dtbench's schema, from a store made for the purpose and removed after.
std::vector<SchemaObject> ownSchema() {
  const std::filesystem::path tmp =
      core::temporaryDirectory("dtbench schema makes a scratch store there: point TMPDIR at a directory");
  const std::filesystem::path dir = tmp / ("dtbench-schema-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::vector<SchemaObject> objects;
  try {
    { core::ResultStore store(dir / "schema.db"); }
    core::Database db(dir / "schema.db", core::Database::Mode::kReadOnly);
    objects = readSchema(db);
  } catch (...) {
    std::filesystem::remove_all(dir);
    throw;
  }
  std::filesystem::remove_all(dir);
  return objects;
}

}  // namespace

void addSchemaCommand(CLI::App& app, GlobalOptions& global) {
  struct Options {
    std::string db, format = "text";
    std::vector<std::string> names;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "schema",
      "The result store's tables and views: what each holds, and its columns with type, unit and meaning.\n"
      "Examples:\n"
      "  dtbench schema results.db            every table and view\n"
      "  dtbench schema results.db verdict    one view\n"
      "  dtbench schema                       this dtbench's schema, without a store");
  cmd->add_option("db", o->db, "The result store (SQLite file); this dtbench's schema when left out");
  cmd->add_option("names", o->names, "Only these tables or views");
  cmd->add_option("--format", o->format, "text (grouped), or one row per column: table, csv, json, markdown")
      ->check(CLI::IsMember({"text", "table", "csv", "json", "markdown"}));
  cmd->allow_extras(false);
  cmd->callback([&global, o] {
    try {
      std::vector<SchemaObject> objects;
      std::error_code ec;
      if (!o->db.empty() && !std::filesystem::exists(o->db, ec) && o->db.find('/') == std::string::npos &&
          o->db.find('.') == std::string::npos) {
        // `dtbench schema run`: a table's name where the store goes, and no
        // such file here; read as a name of this dtbench's schema.
        o->names.insert(o->names.begin(), o->db);
        o->db.clear();
      }
      if (o->db.empty()) {
        objects = ownSchema();
      } else {
        core::Database db = core::openStoreForReading(o->db);
        objects = readSchema(db);
      }
      if (!o->names.empty()) {
        std::vector<SchemaObject> chosen;
        for (const std::string& name : o->names) {
          const auto it = std::find_if(objects.begin(), objects.end(),
                                       [&](const SchemaObject& x) { return x.name == name; });
          if (it == objects.end()) {
            std::string known;
            for (const SchemaObject& x : objects) known += (known.empty() ? "" : ", ") + x.name;
            std::fprintf(stderr, "dtbench schema: no table or view named '%s' (there are: %s)\n",
                         name.c_str(), known.c_str());
            global.exitCode = 1;
            return;
          }
          chosen.push_back(*it);
        }
        objects = std::move(chosen);
      }
      if (o->format == "text") {
        printText(objects);
      } else {
        printRows(objects, *core::parseResultFormat(o->format));
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dtbench schema: %s\n", e.what());
      global.exitCode = 1;
    }
  });
}

}  // namespace dtb::cli
