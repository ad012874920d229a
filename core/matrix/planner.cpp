#include "matrix/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

#include "host/plugin_config.h"
#include "matrix/cell_checks.h"
#include "matrix/column.h"
#include "matrix/key_hints.h"
#include "matrix/path_params.h"
#include "matrix/run_schema.h"
#include "matrix/setting_conversion.h"
#include "plugin/plugin_error.h"

namespace dtb::core {
namespace {

constexpr size_t kMaxCells = 100000;  // beyond this a matrix is surely a mistake
// Combinations expand() may visit before exclusions: checked before any is
// made, so six axes of 100 values are refused at once instead of crossed
// (room for exclusions to bring twice the cap back under it).
constexpr double kMaxCombinations = 2.0 * kMaxCells;

// Keys that vary together: a zip group, a single axis, or a fixed value.
struct Dimension {
  std::vector<std::string> keys;
  std::vector<std::vector<ParamValue>> rows;  // rows[i][k] is keys[k]'s i-th value
};

std::string hint(const std::string& word, const std::vector<ParamSpec>& candidates) {
  if (std::string foreign = foreignWordHint(word); !foreign.empty()) return foreign;
  std::string best = closestName(word, candidates);
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

class Planner {
 public:
  Planner(const MatrixFile& m, const PluginLoader& loader, PlanScope scope)
      : m_(m), loader_(loader), problems_(m.problems), scope_(scope) {}

  Plan plan() {
    Plan plan;
    plan.name = m_.name;
    plan.description = m_.description;
    plan.repeats = repeats();
    runColumns();
    loadPlugins();
    pluginColumns();
    checkRequiredPluginParams();
    checkZips();
    includeRules_ = rules(m_.includes, "include", true);
    excludeRules_ = rules(m_.excludes, "exclude", false);
    if (problems_.empty()) expand(plan);
    if (!problems_.empty()) {
      problems_.insert(problems_.end(), warnings_.begin(), warnings_.end());
      throw MatrixError(std::move(problems_));
    }
    for (auto& [key, plugin] : plugins_) plan.plugins[key] = plugin;
    plan.warnings = MatrixError(warnings_).problems();  // in file order
    return plan;
  }

 private:
  void fail(SourceLocation where, std::string message) {
    problems_.push_back({std::move(where), std::move(message)});
  }

  void warn(SourceLocation where, std::string message) {
    warnings_.push_back({std::move(where), std::move(message), true});
  }

  int64_t repeats() {
    if (!m_.repeats) return 1;
    auto value = m_.repeats->node->value_exact<int64_t>();
    if (!value || *value < 1 || *value > 1000) {
      fail(m_.repeats->where, "repeats must be an integer from 1 to 1000");
      return 1;
    }
    return *value;
  }

  void runColumns() {
    std::set<std::string> given;
    for (const RawSetting& raw : m_.run) {
      const ParamSpec* spec = findRunKey(raw.key);
      if (!spec) {
        const bool fault = raw.key.rfind("fault.", 0) == 0;
        fail(raw.where, "unknown key '" + (fault ? raw.key.substr(6) : raw.key) + "' in " +
                            (fault ? "[fault]" : "[run]") + unknownKeyHint(raw.key, runSchema()) +
                            (fault ? "; [fault] has kind, rank, step, seconds and slow_ms"
                                   : "; plugin parameters go in [KIND.NAME] tables"));
        continue;
      }
      given.insert(raw.key);
      if (auto column = converter_.convert(raw, *spec, raw.key, true)) {
        if (raw.key == "rendezvous_store") checkRendezvousStores(*column, raw);
        columns_.push_back(std::move(*column));
      }
    }
    for (const ParamSpec& spec : runSchema()) {
      if (given.contains(spec.name)) continue;
      if (!spec.defaultValue) {
        fail({m_.path, 1, 1}, "[run] needs '" + spec.name + "' (" + spec.doc + ")");
        continue;
      }
      columns_.push_back({spec.name, {*spec.defaultValue}, false, {m_.path, 0, 0}});
    }
  }

  void checkRendezvousStores(const Column& column, const RawSetting& raw) {
    const toml::array* array = raw.node->as_array();
    for (size_t i = 0; i < column.values.size(); ++i) {
      if (auto problem = rendezvousStoreProblem(std::get<std::string>(column.values[i]))) {
        fail(locate(m_.path, array ? *array->get(i) : *raw.node), "'rendezvous_store': " + *problem);
      }
    }
  }

  const Column* findColumn(const std::string& key) const {
    for (const Column& c : columns_) {
      if (c.key == key) return &c;
    }
    return nullptr;
  }

  // The declaration behind any key a rule or zip may name.
  const ParamSpec* specFor(const std::string& key) const {
    if (const ParamSpec* spec = findRunKey(key)) return spec;
    if (const ParamSpec* spec = findDerivedKey(key)) return spec;
    const size_t first = key.find('.'), second = key.find('.', first + 1);
    if (second == std::string::npos) return nullptr;
    auto it = plugins_.find(key.substr(0, first) + "/" + key.substr(first + 1, second - first - 1));
    return it == plugins_.end() ? nullptr : it->second->findParam(key.substr(second + 1));
  }

  // exclude/include tables: key = value (or [values] for exclude).
  std::vector<Rule> rules(const std::vector<RawRule>& raws, const std::string& what, bool single) {
    std::vector<Rule> out;
    for (const RawRule& raw : raws) {
      Rule rule;
      for (const RawSetting& setting : raw.match) {
        const ParamSpec* spec = specFor(setting.key);
        if (!spec) {
          fail(setting.where, "unknown key '" + setting.key + "' in " + what +
                                  unknownKeyHint(setting.key, runSchema()) +
                                  (setting.key.find('.') == std::string::npos
                                       ? ""
                                       : " (plugin keys are KIND.NAME.PARAM of a plugin some cell uses)"));
          continue;
        }
        if (auto column = converter_.convert(setting, *spec, setting.key, !single))
          rule.push_back(std::move(*column));
      }
      out.push_back(std::move(rule));
    }
    return out;
  }

  // Every plugin named by some cell must load; its name's location is blamed.
  void loadPlugins() {
    for (PluginKind kind : allPluginKinds()) {
      const std::string key = pluginKey(kind);
      std::vector<std::pair<std::string, SourceLocation>> names;
      if (const Column* c = findColumn(key)) {
        for (const ParamValue& v : c->values) names.emplace_back(std::get<std::string>(v), c->where);
      }
      for (const RawRule& include : m_.includes) {
        for (const RawSetting& setting : include.match) {
          auto name = setting.node->value_exact<std::string>();
          if (setting.key == key && name) names.emplace_back(*name, setting.where);
        }
      }
      for (const auto& [name, where] : names) {
        const std::string id = key + "/" + name;
        if (plugins_.contains(id) || failedPlugins_.contains(id)) continue;
        try {
          plugins_[id] = loader_.load(kind, name);
        } catch (const PluginError& e) {
          failedPlugins_.insert(id);
          fail(where, "cannot use " + key + " '" + name + "': " + e.what() + suggestPlugin(kind, name));
        }
      }
    }
  }

  std::string suggestPlugin(PluginKind kind, const std::string& name) const {
    std::vector<ParamSpec> available;
    for (const auto& found : loader_.discover(kind)) {
      if (found.plugin) available.push_back({found.plugin->name(), DTB_PARAM_STRING, {}, "", {}, {}, {}});
    }
    std::string text = hint(name, available);
    if (text.empty() && !available.empty()) {
      text = " (available:";
      for (const ParamSpec& s : available) text += " " + s.name;
      text += ")";
    }
    return text;
  }

  void pluginColumns() {
    for (const RawPluginTable& table : m_.plugins) {
      const std::string kind(kindName(table.kind));
      const std::string id = kind + "/" + table.name;
      auto it = plugins_.find(id);
      if (it == plugins_.end()) {
        if (failedPlugins_.contains(id)) continue;  // already reported
        std::vector<ParamSpec> used;
        for (const auto& [key, plugin] : plugins_) {
          if (plugin->kind() == table.kind)
            used.push_back({plugin->name(), DTB_PARAM_STRING, {}, "", {}, {}, {}});
        }
        unusedTable(table, hint(table.name, used));
        continue;
      }
      const LoadedPlugin& plugin = *it->second;
      for (const RawSetting& raw : table.settings) {
        const ParamSpec* spec = plugin.findParam(raw.key);
        if (!spec) {
          fail(raw.where, "unknown parameter '" + raw.key + "' of " + plugin.label() +
                              hint(raw.key, plugin.params()) + "; `dtbench plugins " + table.name +
                              "` lists them");
          continue;
        }
        if (auto column = converter_.convert(raw, *spec, kind + "." + table.name + "." + raw.key, true)) {
          if (isPathParam(*spec)) converter_.checkPathsExist(*column, raw);
          columns_.push_back(std::move(*column));
        }
      }
    }
  }

  // A table of a plugin no cell uses is a warning, so that a value can be
  // commented out of an axis without its table; its parameters go
  // unchecked. Named by --set, the plugin is a mistake on the command line.
  void unusedTable(const RawPluginTable& table, const std::string& hint) {
    const std::string kind(kindName(table.kind));
    for (const RawSetting& raw : table.settings) {
      if (converter_.fromCommandLine(raw.where)) {
        fail(raw.where, "unknown key '" + kind + "." + table.name + "." + raw.key + "': no cell uses " +
                            kind + " '" + table.name + "'" + hint);
        return;
      }
    }
    warn(table.where, "[" + kind + "." + table.name + "] configures " + kind + " '" + table.name +
                          "', which no cell uses" + hint + "; its parameters are not checked");
  }

  // A plugin parameter without a default must be set for every cell using it.
  void checkRequiredPluginParams() {
    for (const auto& [id, plugin] : plugins_) {
      const std::string kind(kindName(plugin->kind()));
      for (const ParamSpec& spec : plugin->params()) {
        const std::string key = kind + "." + plugin->name() + "." + spec.name;
        if (spec.defaultValue || findColumn(key)) continue;
        fail({m_.path, 1, 1}, plugin->label() + " needs parameter '" + spec.name + "' (" + spec.doc +
                                  "): set it in [" + kind + "." + plugin->name() + "]");
      }
    }
  }

  void checkZips() {
    std::set<std::string> zipped;
    for (const RawZip& zip : m_.zips) {
      std::vector<const Column*> members;
      for (const std::string& key : zip.keys) {
        const Column* c = findColumn(key);
        if (!c || !c->axis) {
          fail(zip.where, "zip names '" + key + "', which is not an axis (give it an array of values)");
          continue;
        }
        if (!zipped.insert(key).second) fail(zip.where, "'" + key + "' is in two zip groups");
        members.push_back(c);
      }
      for (const Column* c : members) {
        if (ownerOf(c->key) != ownerOf(members.front()->key)) {
          fail(zip.where, "a zip group mixes '" + members.front()->key + "' and '" + c->key +
                              "': zip run keys together, or parameters of one plugin together");
        } else if (c->values.size() != members.front()->values.size()) {
          fail(zip.where, "zip group lengths differ: '" + members.front()->key + "' has " +
                              std::to_string(members.front()->values.size()) + " values, '" + c->key +
                              "' has " + std::to_string(c->values.size()));
        }
      }
    }
  }

  // Dimensions of the columns selected by `owner` ("" for run keys).
  std::vector<Dimension> dimensions(const std::string& owner, const std::set<std::string>& skip) const {
    std::vector<Dimension> dims;
    std::set<std::string> done;
    for (const Column& column : columns_) {
      if (ownerOf(column.key) != owner || done.contains(column.key) || skip.contains(column.key)) continue;
      const RawZip* zip = nullptr;
      for (const RawZip& z : m_.zips) {
        if (std::find(z.keys.begin(), z.keys.end(), column.key) != z.keys.end()) zip = &z;
      }
      Dimension dim;
      std::vector<const Column*> members;
      if (zip) {
        for (const std::string& key : zip->keys) members.push_back(findColumn(key));
      } else {
        members.push_back(&column);
      }
      for (const Column* m : members) {
        dim.keys.push_back(m->key);
        done.insert(m->key);
      }
      for (size_t i = 0; i < column.values.size(); ++i) {
        std::vector<ParamValue> row;
        for (const Column* m : members) row.push_back(m->values[i]);
        dim.rows.push_back(std::move(row));
      }
      dims.push_back(std::move(dim));
    }
    return dims;
  }

  // Calls `emit` for every combination of `dims` on top of `base`.
  void cross(const std::vector<Dimension>& dims, size_t at, std::map<std::string, ParamValue>& values,
             const std::function<void(std::map<std::string, ParamValue>&)>& emit) const {
    if (at == dims.size()) return emit(values);
    for (const auto& row : dims[at].rows) {
      if (pastCap_) return;  // expand() reports it; crossing on would only take time
      for (size_t k = 0; k < row.size(); ++k) values[dims[at].keys[k]] = row[k];
      cross(dims, at + 1, values, emit);
    }
  }

  // Adds the parameters of each plugin the cell uses, crossing their axes.
  void withPlugins(std::map<std::string, ParamValue> values, size_t kindIndex,
                   const std::set<std::string>& fixed, std::vector<Cell>& out) {
    if (out.size() > kMaxCells) {
      pastCap_ = true;
      return;
    }
    const auto kinds = allPluginKinds();
    if (kindIndex == kinds.size()) {
      finish(std::move(values), out);
      return;
    }
    const std::string kind = pluginKey(kinds[kindIndex]);
    const std::string name = std::get<std::string>(values.at(kind));
    const LoadedPlugin& plugin = *plugins_.at(kind + "/" + name);
    const std::string owner = kind + "." + name + ".";
    for (const ParamSpec& spec : plugin.params()) {
      if (!spec.defaultValue) continue;  // resolveConfig below reports it
      if (!fixed.contains(owner + spec.name)) values[owner + spec.name] = *spec.defaultValue;
    }
    cross(dimensions(owner, fixed), 0, values,
          [&](std::map<std::string, ParamValue>& v) { withPlugins(v, kindIndex + 1, fixed, out); });
  }

  void finish(std::map<std::string, ParamValue> values, std::vector<Cell>& out) {
    const int64_t world = std::get<int64_t>(values.at("world_size"));
    // The samples of one optimizer step over every rank, as DeepSpeed's
    // train_batch_size = micro-batch x accumulation x world: what samples/s counts.
    values[kGlobalBatchKey] = std::get<int64_t>(values.at("batch_size")) * world *
                              std::get<int64_t>(values.at("accumulation_steps"));
    const double lr = std::get<double>(values.at("lr"));
    values[kEffectiveLrKey] = std::get<std::string>(values.at("lr_scaling")) == "linear" ? lr * world : lr;
    Cell cell;
    cell.values = std::move(values);
    for (const Rule& rule : excludeRules_) {
      if (matches(cell, rule)) return;
    }
    out.push_back(std::move(cell));
  }

  static bool matches(const Cell& cell, const Rule& rule) {
    if (rule.empty()) return false;
    for (const Column& c : rule) {
      const ParamValue* v = cell.find(c.key);
      if (!v || std::find(c.values.begin(), c.values.end(), *v) == c.values.end()) return false;
    }
    return true;
  }

  // How many combinations expand() would visit at most (before exclusions):
  // the run's dimensions, times for each plugin kind the most its named
  // plugins' own axes multiply a cell by. A double: it may pass 2^64.
  double combinations() const {
    auto product = [this](const std::string& owner) {
      double n = 1;
      for (const Dimension& d : dimensions(owner, {})) n *= static_cast<double>(d.rows.size());
      return n;
    };
    double total = product("");
    for (PluginKind kind : allPluginKinds()) {
      const std::string key = pluginKey(kind);
      double most = 1;
      if (const Column* names = findColumn(key)) {
        for (const ParamValue& name : names->values) {
          if (const auto* text = std::get_if<std::string>(&name))
            most = std::max(most, product(key + "." + *text + "."));
        }
      }
      total *= most;
    }
    return total + static_cast<double>(includeRules_.size());
  }

  // The axes with the most values, for the message that refuses a matrix.
  std::string largestAxes() const {
    std::vector<const Column*> axes;
    for (const Column& c : columns_) {
      if (c.axis) axes.push_back(&c);
    }
    std::sort(axes.begin(), axes.end(),
              [](const Column* a, const Column* b) { return a->values.size() > b->values.size(); });
    std::string text;
    for (size_t i = 0; i < axes.size() && i < 4; ++i) {
      text += (i ? " x " : "") + axes[i]->key + " (" + std::to_string(axes[i]->values.size()) + ")";
    }
    return text;
  }

  void expand(Plan& plan) {
    if (const double n = combinations(); n > kMaxCombinations) {
      char count[32];
      std::snprintf(count, sizeof(count), "%.3g", n);
      fail({m_.path, 1, 1}, std::string("the matrix crosses up to ") + count + " combinations (" +
                                largestAxes() + ", ...); at most " + std::to_string(kMaxCells) +
                                " cells run: split it, or zip axes that vary together");
      return;
    }
    std::vector<Cell> cells;
    std::map<std::string, ParamValue> values;
    cross(dimensions("", {}), 0, values,
          [&](std::map<std::string, ParamValue>& v) { withPlugins(v, 0, {}, cells); });
    for (const Rule& include : includeRules_) {
      std::map<std::string, ParamValue> base;
      for (const Column& c : columns_) {
        if (ownerOf(c.key).empty() && !c.axis) base[c.key] = c.values[0];
      }
      std::set<std::string> fixed;
      for (const Column& c : include) {
        base[c.key] = c.values[0];
        fixed.insert(c.key);
      }
      bool complete = true;
      for (const Column& c : columns_) {
        if (ownerOf(c.key).empty() && !base.contains(c.key)) {
          fail(m_.includes.empty() ? SourceLocation{m_.path, 0, 0} : m_.includes.front().where,
               "an include entry leaves axis '" + c.key + "' unset: give it a value");
          complete = false;
        }
      }
      if (complete) withPlugins(base, 0, fixed, cells);
    }
    if (cells.size() > kMaxCells) {
      fail({m_.path, 1, 1}, "the matrix has more than " + std::to_string(kMaxCells) + " cells");
      return;
    }
    if (cells.empty()) {
      fail({m_.path, 1, 1}, "no cells are left: every combination is excluded");
      return;
    }
    for (size_t i = 0; i < cells.size(); ++i) cells[i].index = static_cast<int>(i);
    const CellChecks checks{cells,
                            plugins_,
                            [this](const std::string& key) {
                              const Column* at = findColumn(key);
                              return at ? at->where : SourceLocation{m_.path, 1, 1};
                            },
                            scope_,
                            problems_,
                            warnings_};
    checkRecovery(checks);
    checkPlacement(checks);
    checkPrecision(checks);
    plan.cells = std::move(cells);
  }

  const MatrixFile& m_;
  const PluginLoader& loader_;
  bool pastCap_ = false;  // expand() made more than kMaxCells cells: stop crossing
  std::vector<Problem> problems_;
  std::vector<Problem> warnings_;
  SettingConverter converter_{m_.path, problems_, warnings_};
  std::vector<Column> columns_;
  std::vector<Rule> includeRules_;
  std::vector<Rule> excludeRules_;
  std::map<std::string, std::shared_ptr<const LoadedPlugin>> plugins_;
  std::set<std::string> failedPlugins_;
  PlanScope scope_;
};

}  // namespace

Plan planMatrix(const MatrixFile& matrix, const PluginLoader& loader, PlanScope scope) {
  return Planner(matrix, loader, scope).plan();
}

}  // namespace dtb::core
