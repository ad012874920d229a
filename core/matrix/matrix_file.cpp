#include "matrix/matrix_file.h"

#include <algorithm>

#include "dtbench/bounded_file.hpp"
#include "matrix/key_hints.h"
#include "matrix/overrides.h"
#include "matrix/toml_depth.h"
#include "matrix/toml_source.h"

namespace dtb::core {
namespace {

class Parser {
 public:
  Parser(MatrixFile& m, std::vector<Problem>& problems) : m_(m), problems_(problems) {}

  void parse() {
    for (const auto& [key, node] : m_.document) {
      const std::string name(key.str());
      if (name == "experiment") {
        experiment(node);
      } else if (name == "run") {
        if (auto* table = expectTable(node, "[run]")) appendRunSettings(settings(*table), "");
      } else if (name == "fault") {
        // Run keys fault.kind, fault.rank, ... (matrix/run_schema.cpp).
        if (auto* table = expectTable(node, "[fault]")) appendRunSettings(settings(*table), "fault.");
      } else if (name == "matrix") {
        matrix(node);
      } else if (name == "comm") {
        // A collective sweep's settings, read by `dtbench comm FILE` (comm/sweep_spec.h).
      } else if (auto kind = parseKind(name)) {
        pluginTables(*kind, node);
      } else {
        fail(node, "unknown table [" + name + "]" + foreignWordHint(name) +
                       "; a matrix has [experiment], [run], [fault], [matrix], [comm] and plugin tables "
                       "[strategy.NAME], [backend.NAME], [model.NAME], [dataset.NAME]");
      }
    }
    if (m_.name.empty() && !m_.document.contains("experiment")) {
      problems_.push_back({{m_.path, 1, 1}, "missing [experiment] table with name = \"...\""});
    }
  }

 private:
  void fail(const toml::node& node, std::string message) {
    problems_.push_back({locate(m_.path, node), std::move(message)});
  }

  const toml::table* expectTable(const toml::node& node, const std::string& what) {
    if (const toml::table* table = node.as_table()) return table;
    fail(node, what + " must be a table");
    return nullptr;
  }

  // [run] and [fault] are one set of run keys, in file order.
  void appendRunSettings(std::vector<RawSetting> more, const std::string& prefix) {
    for (RawSetting& s : more) s.key = prefix + s.key;
    m_.run.insert(m_.run.end(), more.begin(), more.end());
    std::stable_sort(m_.run.begin(), m_.run.end(),
                     [](const RawSetting& a, const RawSetting& b) { return fileOrder(a) < fileOrder(b); });
  }

  static std::pair<int, int> fileOrder(const RawSetting& s) {
    return std::make_pair(s.where.line > 0 ? s.where.line : 1 << 30, s.where.column);
  }

  // In file order (a toml::table iterates by key): the first axis written
  // varies slowest; keys from --set (no line) come last.
  std::vector<RawSetting> settings(const toml::table& table) {
    std::vector<RawSetting> out;
    for (const auto& [key, node] : table) {
      out.push_back({std::string(key.str()), &node, locate(m_.path, node)});
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const RawSetting& a, const RawSetting& b) { return fileOrder(a) < fileOrder(b); });
    return out;
  }

  void experiment(const toml::node& node) {
    const toml::table* table = expectTable(node, "[experiment]");
    if (!table) return;
    for (const auto& [key, value] : *table) {
      const std::string name(key.str());
      if (name == "name" || name == "description") {
        auto text = value.value_exact<std::string>();
        if (!text) {
          fail(value, "[experiment] " + name + " must be a string");
          continue;
        }
        (name == "name" ? m_.name : m_.description) = *text;
      } else {
        fail(value, "unknown key '" + name +
                        "' in [experiment] (it has name and description; run "
                        "settings go in [run])");
      }
    }
    if (m_.name.empty()) fail(node, "[experiment] needs a non-empty name = \"...\"");
  }

  void matrix(const toml::node& node) {
    const toml::table* table = expectTable(node, "[matrix]");
    if (!table) return;
    for (const auto& [key, value] : *table) {
      const std::string name(key.str());
      if (name == "repeats") {
        m_.repeats = RawSetting{name, &value, locate(m_.path, value)};
      } else if (name == "zip") {
        zips(value);
      } else if (name == "exclude" || name == "include") {
        rules(value, name, name == "exclude" ? m_.excludes : m_.includes);
      } else {
        fail(value, "unknown key '" + name + "' in [matrix] (it has zip, exclude, include, repeats)");
      }
    }
  }

  void zips(const toml::node& node) {
    const toml::array* groups = node.as_array();
    if (!groups)
      return fail(node, "zip must be an array of key lists, e.g. zip = [[\"world_size\", \"batch_size\"]]");
    for (const toml::node& group : *groups) {
      const toml::array* keys = group.as_array();
      RawZip zip{{}, locate(m_.path, group)};
      if (!keys || keys->size() < 2) {
        fail(group, "each zip group is an array of at least two key names");
        continue;
      }
      for (const toml::node& key : *keys) {
        if (auto text = key.value_exact<std::string>()) {
          zip.keys.push_back(*text);
        } else {
          fail(key, "zip keys are strings, e.g. \"world_size\" or \"strategy.zero.stage\"");
        }
      }
      m_.zips.push_back(std::move(zip));
    }
  }

  void rules(const toml::node& node, const std::string& what, std::vector<RawRule>& out) {
    const toml::array* array = node.as_array();
    if (!array)
      return fail(node, what + " must be an array of tables, e.g. " + what + " = [{ world_size = 1 }]");
    for (const toml::node& element : *array) {
      const toml::table* table = element.as_table();
      if (!table || table->empty()) {
        fail(element, "each " + what + " entry is a non-empty table of key = value");
        continue;
      }
      out.push_back({settings(*table), locate(m_.path, element)});
    }
  }

  void pluginTables(PluginKind kind, const toml::node& node) {
    const std::string kindText(kindName(kind));
    const toml::table* table = node.as_table();
    if (!table) {
      return fail(node, "'" + kindText + "' is a table of plugin tables, [" + kindText +
                            ".NAME]; to choose the " + kindText + " write " + kindText +
                            " = \"NAME\" in [run]");
    }
    for (const auto& [name, params] : *table) {
      const toml::table* paramTable = params.as_table();
      if (!paramTable) {
        fail(params, "[" + kindText + "." + std::string(name.str()) +
                         "] must be a table of that plugin's parameters");
        continue;
      }
      m_.plugins.push_back({kind, std::string(name.str()), settings(*paramTable), locate(m_.path, params)});
    }
  }

  MatrixFile& m_;
  std::vector<Problem>& problems_;
};

}  // namespace

SourceLocation locate(const std::string& file, const toml::node& node) {
  const toml::source_region& region = node.source();
  if (region.path && *region.path != file) return {*region.path, 0, 0};
  return {file, static_cast<int>(region.begin.line), static_cast<int>(region.begin.column)};
}

MatrixFile parseMatrix(const std::string& path, std::string text, const std::vector<std::string>& sets) {
  MatrixFile m;
  m.path = path;
  m.text = std::move(text);
  if (const auto deep = tooDeep(m.text))
    throw MatrixError({{{path, deep->line, deep->column}, deep->message}});
  try {
    m.document = toml::parse(m.text, path);
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    throw MatrixError({{{path, static_cast<int>(begin.line), static_cast<int>(begin.column)},
                        "TOML syntax: " + std::string(e.description()) + otherFormatHint(m.text)}});
  }
  if (m.document.contains("comm") && !m.document.contains("run")) {
    throw MatrixError({{{path, 0, 0},
                        "a collective sweep ([comm], no [run]): run it with `dtbench comm " + path +
                            "`; `dtbench run` and `validate` read training matrices"}});
  }
  applyOverrides(m.document, sets, m.problems);
  Parser(m, m.problems).parse();
  return m;
}

MatrixFile readMatrixFile(const std::filesystem::path& path, const std::vector<std::string>& sets) {
  std::string text;
  try {
    text = readTomlFile(path, "matrix file");
  } catch (const BoundedFile::Error& e) {
    throw MatrixError({{{path.string(), 0, 0}, e.reason()}});
  }
  return parseMatrix(path.string(), std::move(text), sets);
}

}  // namespace dtb::core
