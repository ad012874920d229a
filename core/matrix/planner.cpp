#include "matrix/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

#include "cuda/cuda_probe.h"
#include "dtbench/strategy.h"
#include "host/plugin_config.h"
#include "matrix/device_check.h"
#include "matrix/key_hints.h"
#include "matrix/path_params.h"
#include "matrix/run_schema.h"
#include "plugin/plugin_error.h"

namespace dtb::core {
namespace {

constexpr size_t kMaxCells = 100000;  // beyond this a matrix is surely a mistake
// Combinations expand() may visit before exclusions: checked before any is
// made, so six axes of 100 values are refused at once instead of crossed
// (room for exclusions to bring twice the cap back under it).
constexpr double kMaxCombinations = 2.0 * kMaxCells;

// The values one key takes: one (fixed) or several (an axis).
struct Column {
  std::string key;  // "world_size" or "strategy.bucketed.bucket_cap_mb"
  std::vector<ParamValue> values;
  bool axis = false;
  SourceLocation where;
};

// Keys that vary together: a zip group, a single axis, or a fixed value.
struct Dimension {
  std::vector<std::string> keys;
  std::vector<std::vector<ParamValue>> rows;  // rows[i][k] is keys[k]'s i-th value
};

std::string tomlTypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date/time";
  }
}

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
  using Rule = std::vector<Column>;

  void fail(SourceLocation where, std::string message) {
    problems_.push_back({std::move(where), std::move(message)});
  }

  void warn(SourceLocation where, std::string message) {
    warnings_.push_back({std::move(where), std::move(message), true});
  }

  // A setting from the command line (--set), not from the file.
  bool fromCommandLine(const SourceLocation& where) const { return where.file != m_.path; }

  // An int parameter given as a float that is an exact integer, as DeepSpeed
  // configurations write them (reduce_bucket_size = 5e8): that integer.
  std::optional<ParamValue> wholeNumber(const ParamSpec& spec, const toml::node& node,
                                        const std::string& key) {
    const auto real = node.value_exact<double>();
    if (spec.type != DTB_PARAM_INT || !real) return std::nullopt;
    // 2^63 is a double exactly; every double below it in size fits an int64.
    if (std::isfinite(*real) && std::trunc(*real) == *real && std::abs(*real) < 9223372036854775808.0) {
      return static_cast<int64_t>(*real);
    }
    fail(locate(m_.path, node), "'" + key + "' expects int, got " + formatParamValue(*real) +
                                    ", which is not a whole number (a float is taken for an int only "
                                    "when it is one, e.g. 5e8)");
    return std::nullopt;
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

  // Converts a setting's TOML value into one value or an axis of `spec`'s type.
  std::optional<Column> convert(const RawSetting& raw, const ParamSpec& spec, const std::string& key,
                                bool allowAxis) {
    Column column{key, {}, false, raw.where};
    const toml::array* array = raw.node->as_array();
    const bool listType = spec.type == DTB_PARAM_INT_LIST;
    const bool isAxis = array && (!listType || (!array->empty() && array->front().is_array()));
    std::vector<const toml::node*> elements;
    if (isAxis) {
      if (!allowAxis) {
        fail(raw.where, "'" + key + "' takes one value here, not an array");
        return std::nullopt;
      }
      if (array->empty()) {
        fail(raw.where, "empty axis '" + key + "': give at least one value");
        return std::nullopt;
      }
      for (const toml::node& element : *array) elements.push_back(&element);
      column.axis = true;
    } else {
      elements.push_back(raw.node);
    }
    bool ok = true;
    for (const toml::node* element : elements) {
      std::optional<ParamValue> value = paramValueFromToml(spec.type, *element);
      if (!value && element->is_floating_point() && spec.type == DTB_PARAM_INT) {
        value = wholeNumber(spec, *element, key);
        if (!value) {
          ok = false;
          continue;
        }
      }
      if (!value) {
        fail(locate(m_.path, *element), "'" + key + "' expects " + std::string(paramTypeName(spec.type)) +
                                            ", got " + tomlTypeName(*element));
        ok = false;
        continue;
      }
      if (auto problem = checkParamValue(spec, *value)) {
        fail(locate(m_.path, *element), "'" + key + "': " + *problem);
        ok = false;
        continue;
      }
      column.values.push_back(std::move(*value));
    }
    if (!ok) return std::nullopt;
    if (isPathParam(spec) && !ownerOf(key).empty()) resolvePaths(column, raw);
    return column;
  }

  // A relative path a plugin parameter is given in the file is read from the
  // file's directory (path_params.h); one given with --set, from the working
  // directory, as any path on a command line.
  void resolvePaths(Column& column, const RawSetting& raw) const {
    const std::filesystem::path base = fromCommandLine(raw.where) ? "." : directoryOf(m_.path);
    for (ParamValue& value : column.values) {
      if (auto* text = std::get_if<std::string>(&value)) *text = resolvePath(base, *text);
    }
  }

  // A path a cell reads that is not on this machine: a warning, not an error,
  // for the data may be only on the hosts that run it (launcher mpirun, srun).
  void checkPathsExist(const Column& column, const RawSetting& raw) {
    const toml::array* array = raw.node->as_array();
    for (size_t i = 0; i < column.values.size(); ++i) {
      const toml::node& element = array ? *array->get(i) : *raw.node;
      const std::string written = element.value_or<std::string>("");
      const auto* resolved = std::get_if<std::string>(&column.values[i]);
      if (!resolved) continue;
      if (auto problem = missingPathProblem(column.key, written, *resolved))
        warn(locate(m_.path, element), *problem);
    }
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
      if (auto column = convert(raw, *spec, raw.key, true)) {
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
        if (auto column = convert(setting, *spec, setting.key, !single)) rule.push_back(std::move(*column));
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
        if (auto column = convert(raw, *spec, kind + "." + table.name + "." + raw.key, true)) {
          if (isPathParam(*spec)) checkPathsExist(*column, raw);
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
      if (fromCommandLine(raw.where)) {
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

  // The prefix "strategy.bucketed." of a plugin key; "" for run keys.
  static std::string ownerOf(const std::string& key) {
    const size_t first = key.find('.');
    if (first == std::string::npos) return "";
    return key.substr(0, key.find('.', first + 1) + 1);
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
    checkFaultRanks(cells);
    checkRestartableStrategies(cells);
    checkElasticCells(cells);
    checkDevices(cells);
    checkSshLaunches(cells);
    warnNetworksOnOneHost(cells);
    plan.cells = std::move(cells);
  }

  // An emulated network shapes the links between hosts; a cell whose ranks
  // all run here (the local launcher) sends nothing over it. Allowed (its
  // store says which network was set), but said once.
  void warnNetworksOnOneHost(const std::vector<Cell>& cells) {
    for (const Cell& cell : cells) {
      const std::string network = cell.text("network");
      if (network.empty() || network == "none") continue;
      if (resolveLauncher(cell.text("launcher"), cell.text("backend")) != "local") continue;
      const Column* at = findColumn("network");
      warn(at ? at->where : SourceLocation{m_.path, 1, 1},
           "cell " + std::to_string(cell.index) + " sets network = \"" + network +
               "\" but runs every rank on this host (launcher local): the emulated network shapes the links "
               "between hosts, and none of its traffic crosses one (launcher mpirun or ssh with a hostfile "
               "does)");
      return;
    }
  }

  // The ssh launcher starts ranks on the hostfile's hosts: without one it
  // has nowhere to start them.
  void checkSshLaunches(const std::vector<Cell>& cells) {
    for (const Cell& cell : cells) {
      if (cell.text("launcher") != "ssh" || !cell.text("hostfile").empty()) continue;
      const Column* at = findColumn("launcher");
      fail(at ? at->where : SourceLocation{m_.path, 1, 1},
           "launcher = \"ssh\" (cell " + std::to_string(cell.index) +
               ") starts ranks on the hosts of a hostfile: set hostfile (Open MPI's format, \"HOST slots=N\" "
               "a line)");
      return;
    }
  }

  // Where each cell trains (device_check.h): the first problem, at its key.
  // The GPUs are counted only when a cell wants one (CUDA is never
  // initialised otherwise).
  void checkDevices(const std::vector<Cell>& cells) {
    std::optional<LocalGpus> gpus;
    bool warnedOfThisMachine = false;
    for (const Cell& cell : cells) {
      if (cell.text("device") == "cuda" && !gpus) {
        const CudaProbe probe = probeCuda();
        gpus = LocalGpus{static_cast<int>(probe.devices.size()),
                         probe.problem.empty() ? describe(probe) : probe.problem};
      }
      const auto found = plugins_.find("backend/" + cell.text("backend"));
      const dtb_backend_plugin_v1_t* backend =
          found == plugins_.end() ? nullptr : &found->second->descriptor<dtb_backend_plugin_v1_t>();
      const auto problem = deviceProblem(cell, backend, gpus.value_or(LocalGpus{}));
      if (!problem) continue;
      const Column* at = findColumn(problem->key);
      const SourceLocation where = at ? at->where : SourceLocation{m_.path, 1, 1};
      if (problem->aboutThisMachine && scope_ == PlanScope::kCheckOnly) {
        // Once: every GPU cell would say the same of this machine.
        if (!warnedOfThisMachine)
          warn(where, problem->message + " (`dtbench run` refuses it on this machine)");
        warnedOfThisMachine = true;
        continue;
      }
      fail(where, problem->message);
      return;
    }
  }

  // recovery = "restart" brings a run back from checkpoints, which need the
  // strategy to save its state (state_save).
  void checkRestartableStrategies(const std::vector<Cell>& cells) {
    for (const Cell& cell : cells) {
      if (cell.text("recovery") != "restart") continue;
      const auto found = plugins_.find("strategy/" + cell.text("strategy"));
      if (found == plugins_.end()) continue;
      const auto& api = found->second->descriptor<dtb_strategy_plugin_v1_t>();
      if (api.state_save) continue;  // the loader took the three state members all or none
      const Column* recovery = findColumn("recovery");
      fail(recovery ? recovery->where : SourceLocation{m_.path, 1, 1},
           "recovery = \"restart\" needs a strategy that saves its state (state_save) for its checkpoints; "
           "strategy '" +
               cell.text("strategy") + "' of cell " + std::to_string(cell.index) +
               " does not (allreduce, bucketed and fusion do): exclude the combination");
      return;
    }
  }

  // recovery = "elastic" (Horovod Elastic's way) needs what it rebuilds in
  // the same processes: a backend that can make a new communicator after a
  // peer failed (CAP_REBUILD: gloo; MPI cannot change its world), a strategy
  // that saves its state (each commit), and workers this coordinator starts
  // and watches (the local launcher). [fault] add is elastic's alone.
  void checkElasticCells(const std::vector<Cell>& cells) {
    warnLossWithoutRoom(cells);
    for (const Cell& cell : cells) {
      const std::string error = elasticProblem(cell);
      if (error.empty()) continue;
      const bool addFault = error.starts_with("[fault] kind = \"add\"");
      const Column* at = findColumn(addFault ? "fault.kind" : "recovery");
      fail(at ? at->where : SourceLocation{m_.path, 1, 1}, error);
      return;
    }
  }

  // min_np defaults to world_size, as horovodrun's --min-np to -np: a cell
  // that loses a worker then waits elastic_timeout_s for one that no local
  // run brings, and fails. Allowed (it measures that), but said once.
  void warnLossWithoutRoom(const std::vector<Cell>& cells) {
    for (const Cell& cell : cells) {
      const std::string fault = cell.text("fault.kind");
      if (cell.text("recovery") != "elastic" || (fault != "kill" && fault != "stop")) continue;
      const int64_t minNp = cell.integer("min_np") > 0 ? cell.integer("min_np") : cell.integer("world_size");
      if (minNp < cell.integer("world_size")) continue;
      const Column* recovery = findColumn("recovery");
      warn(recovery ? recovery->where : SourceLocation{m_.path, 1, 1},
           "cell " + std::to_string(cell.index) + " loses a worker ([fault] " + fault +
               ") with min_np = world_size (min_np's default, as horovodrun's): it will wait "
               "elastic_timeout_s = " +
               formatParamValue(cell.values.at("elastic_timeout_s")) +
               " s for a worker and fail; set min_np below world_size to let the survivors go on");
      return;
    }
  }

  std::string elasticProblem(const Cell& cell) const {
    const std::string which = " (cell " + std::to_string(cell.index) + ")";
    if (cell.text("recovery") != "elastic") {
      if (cell.text("fault.kind") != "add") return "";
      return "[fault] kind = \"add\" needs recovery = \"elastic\"" + which +
             ": only an elastic run lets a worker join while it trains";
    }
    const std::string backend = cell.text("backend"), strategy = cell.text("strategy");
    const auto b = plugins_.find("backend/" + backend);
    if (b != plugins_.end() &&
        !(b->second->descriptor<dtb_backend_plugin_v1_t>().capabilities & DTB_BACKEND_CAP_REBUILD)) {
      return "recovery = \"elastic\" needs a backend that can make a new communicator in the same process "
             "after a peer failed; backend '" +
             backend + "'" + which +
             " cannot (MPI cannot change its world): use gloo, or recovery = \"restart\"";
    }
    const auto st = plugins_.find("strategy/" + strategy);
    if (st != plugins_.end() && !st->second->descriptor<dtb_strategy_plugin_v1_t>().state_save) {
      return "recovery = \"elastic\" needs a strategy that saves its state (state_save) for its commits; "
             "strategy '" +
             strategy + "'" + which +
             " does not (allreduce, bucketed and fusion do; ZeRO's shards are cut for one world size, "
             "and re-cutting them for the next is not built): exclude the combination, or give the plugin "
             "state_size, state_save and state_load (docs/writing-a-strategy.md: what elastic copies from "
             "rank 0 to every rank, and what must stay out)";
    }
    const std::string launcher = cell.text("launcher");
    if (launcher != "auto" && launcher != "local" && launcher != "ssh" && !launcher.empty()) {
      return "recovery = \"elastic\" runs with the local or the ssh launcher, which start, watch and replace "
             "the workers themselves; launcher '" +
             launcher + "'" + which + " cannot change its job's world";
    }
    const int64_t world = cell.integer("world_size"), minNp = cell.integer("min_np"),
                  maxNp = cell.integer("max_np");
    if (minNp > world) {
      return "min_np = " + std::to_string(minNp) + " is above world_size = " + std::to_string(world) + which +
             ": the run would stop at its first failure";
    }
    if (maxNp > 0 && maxNp < world) {
      return "max_np = " + std::to_string(maxNp) + " is below world_size = " + std::to_string(world) + which;
    }
    if (cell.text("fault.kind") == "add" && maxNp > 0 && world >= maxNp) {
      return "[fault] kind = \"add\" would grow world_size = " + std::to_string(world) +
             " past max_np = " + std::to_string(maxNp) + which + ": raise max_np, or leave it 0 (no bound)";
    }
    return "";
  }

  // A fault must strike one of the cell's ranks.
  void checkFaultRanks(const std::vector<Cell>& cells) {
    for (const Cell& cell : cells) {
      if (cell.text("fault.kind") == "none" || cell.integer("fault.rank") < cell.integer("world_size"))
        continue;
      const Column* rank = findColumn("fault.rank");
      fail(rank ? rank->where : SourceLocation{m_.path, 1, 1},
           "[fault] rank = " + std::to_string(cell.integer("fault.rank")) + " is not a rank of cell " +
               std::to_string(cell.index) + " (world_size " + std::to_string(cell.integer("world_size")) +
               "): give a rank below world_size, or exclude the combination");
      return;
    }
  }

  const MatrixFile& m_;
  const PluginLoader& loader_;
  bool pastCap_ = false;  // expand() made more than kMaxCells cells: stop crossing
  std::vector<Problem> problems_;
  std::vector<Problem> warnings_;
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
