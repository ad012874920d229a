#include "projection/system_model.h"

#include <toml++/toml.h>

#include <cmath>
#include <cstdio>
#include <set>

#include "matrix/problem.h"
#include "matrix/toml_depth.h"
#include "matrix/toml_source.h"

namespace dtb::core {
namespace {

// Formatted as a matrix file's problems are: "FILE:LINE:COLUMN: error: what".
[[noreturn]] void fail(const std::string& source, int line, int column, const std::string& what) {
  throw SystemFileError(Problem{{source, line, column}, what}.format());
}

[[noreturn]] void fail(const std::string& source, const toml::source_region& where, const std::string& what) {
  fail(source, static_cast<int>(where.begin.line), static_cast<int>(where.begin.column), what);
}

// Every key of `table` is one of `known`; the first that is not is named.
void onlyKnownKeys(const std::string& source, const toml::table& table, const std::string& where,
                   const std::set<std::string>& known) {
  for (const auto& [key, node] : table) {
    if (!known.contains(std::string(key.str()))) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      fail(source, key.source(),
           "unknown key '" + std::string(key.str()) + "' in " + where + " (known: " + list + ")");
    }
  }
}

std::string shortNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

const toml::table& table(const std::string& source, const toml::table& parent, const std::string& key,
                         const std::string& where) {
  const toml::node* node = parent.get(key);
  if (!node) fail(source, parent.source(), where + " needs [" + key + "]");
  if (!node->is_table()) fail(source, node->source(), "'" + key + "' must be a table");
  return *node->as_table();
}

double number(const std::string& source, const toml::table& t, const std::string& key,
              const std::string& where, double low, double high) {
  const toml::node* node = t.get(key);
  if (!node) fail(source, t.source(), where + " needs '" + key + "'");
  const std::optional<double> value = node->value<double>();
  if (!value) fail(source, node->source(), "'" + key + "' must be a number");
  if (!std::isfinite(*value) || *value <= low || *value > high) {
    fail(source, node->source(),
         "'" + key + "' is " + shortNumber(*value) + ": it must be above " + shortNumber(low) +
             " and at most " + shortNumber(high));
  }
  return *value;
}

int count(const std::string& source, const toml::table& t, const std::string& key) {
  const toml::node* node = t.get(key);
  if (!node) fail(source, t.source(), "[system] needs '" + key + "'");
  const std::optional<int64_t> value = node->value_exact<int64_t>();
  if (!value) fail(source, node->source(), "'" + key + "' must be a whole number");
  if (*value < 1 || *value > kMaxGpusPerNode)
    fail(source, node->source(), "'" + key + "' is " + std::to_string(*value) + ": it must be 1 to 64");
  return static_cast<int>(*value);
}

Link link(const std::string& source, const toml::table& system, const std::string& key) {
  const std::string where = "[system." + key + "]";
  const toml::table& t = table(source, system, key, "[system]");
  onlyKnownKeys(source, t, where, {"latency_us", "bandwidth_gbps"});
  return {number(source, t, "latency_us", where, 0, kMaxLatencyUs) * 1e-6,
          number(source, t, "bandwidth_gbps", where, 0, kMaxBandwidthGbps) * 1e9};
}

// [system.fabric]: every key optional, as is the table.
Fabric fabric(const std::string& source, const toml::table& system) {
  Fabric f;
  if (!system.contains("fabric")) return f;
  const std::string where = "[system.fabric]";
  const toml::table& t = table(source, system, "fabric", "[system]");
  onlyKnownKeys(source, t, where, {"nodes_per_switch", "oversubscription", "placement"});
  if (const toml::node* n = t.get("nodes_per_switch")) {
    const std::optional<int64_t> value = n->value_exact<int64_t>();
    if (!value || *value < 1 || *value > kMaxNodesPerSwitch)
      fail(source, n->source(), "'nodes_per_switch' must be a whole number from 1 to 100000");
    f.nodesPerSwitch = static_cast<int>(*value);
  }
  if (t.contains("oversubscription")) {
    f.oversubscription = number(source, t, "oversubscription", where, 0, kMaxOversubscription);
    if (f.oversubscription < 1) {
      fail(source, t.get("oversubscription")->source(),
           "'oversubscription' is " + shortNumber(f.oversubscription) +
               ": it must be at least 1 (1: uplinks as fast as the leaf's NICs)");
    }
  }
  if (const toml::node* n = t.get("placement")) {
    const std::optional<std::string> value = n->value<std::string>();
    if (!value || (*value != "packed" && *value != "spread"))
      fail(source, n->source(), "'placement' must be \"packed\" or \"spread\"");
    f.spread = *value == "spread";
  }
  return f;
}

}  // namespace

SystemModel parseSystem(std::string_view text, const std::string& source) {
  if (auto deep = tooDeep(text)) fail(source, deep->line, deep->column, deep->message);
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    fail(source, e.source(), std::string(e.description()));
  }
  onlyKnownKeys(source, root, "the system file", {"system"});
  const toml::table& system = table(source, root, "system", "a system file");
  onlyKnownKeys(source, system, "[system]",
                {"name", "gpus_per_node", "nics_per_node", "sources", "intra_node", "inter_node",
                 "throughput", "fabric"});
  SystemModel model;
  const toml::node* name = system.get("name");
  if (!name || !name->is_string())
    fail(source, name ? name->source() : system.source(), "[system] needs a 'name' string");
  model.name = *name->value<std::string>();
  model.gpusPerNode = count(source, system, "gpus_per_node");
  model.nicsPerNode = count(source, system, "nics_per_node");
  if (const toml::node* sources = system.get("sources")) {
    const toml::array* list = sources->as_array();
    if (!list) fail(source, sources->source(), "'sources' must be an array of strings");
    for (const toml::node& s : *list) {
      if (!s.is_string()) fail(source, s.source(), "'sources' must hold strings");
      model.sources.push_back(*s.value<std::string>());
    }
  }
  model.intraNode = link(source, system, "intra_node");
  model.interNode = link(source, system, "inter_node");
  if (system.contains("throughput")) {
    const toml::table& t = table(source, system, "throughput", "[system]");
    for (const auto& [key, node] : t)
      model.samplesPerS[std::string(key.str())] =
          number(source, t, std::string(key.str()), "[system.throughput]", 0, kMaxSamplesPerS);
  }
  model.fabric = fabric(source, system);
  return model;
}

SystemModel readSystemFile(const std::filesystem::path& path) {
  return parseSystem(readTomlFile(path, "system file"), path.string());
}

}  // namespace dtb::core
