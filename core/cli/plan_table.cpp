#include "cli/plan_table.h"

#include <algorithm>
#include <set>
#include <vector>

#include "log/redact.h"
#include "matrix/run_schema.h"

namespace dtb::cli {

namespace {

// "1 run", "2 runs".
std::string count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// Whether the cells that have `key` do not all give it one value.
bool variesAmongItsCells(const core::Plan& plan, const std::string& key) {
  const core::ParamValue* first = nullptr;
  for (const core::Cell& cell : plan.cells) {
    const core::ParamValue* v = cell.find(key);
    if (!v) continue;
    if (first && *v != *first) return true;
    if (!first) first = v;
  }
  return false;
}

// Whether every cell has `key` (a plugin's keys are only in the cells using it).
bool inEveryCell(const core::Plan& plan, const std::string& key) {
  return std::all_of(plan.cells.begin(), plan.cells.end(),
                     [&](const core::Cell& cell) { return cell.find(key) != nullptr; });
}

// Whether `value` of plugin key "KIND.NAME.PARAM" is the parameter's default.
bool isPluginDefault(const core::Plan& plan, const std::string& key, const core::ParamValue& value) {
  const size_t first = key.find('.');
  const size_t second = first == std::string::npos ? first : key.find('.', first + 1);
  if (second == std::string::npos) return false;
  const auto plugin =
      plan.plugins.find(key.substr(0, first) + "/" + key.substr(first + 1, second - first - 1));
  if (plugin == plan.plugins.end()) return false;
  const core::ParamSpec* spec = plugin->second->findParam(key.substr(second + 1));
  return spec && spec->defaultValue && *spec->defaultValue == value;
}

}  // namespace

std::string planSummary(const std::string& file, const core::Plan& plan) {
  const size_t cells = plan.cells.size();
  const auto repeats = static_cast<size_t>(plan.repeats);
  return file + ": experiment \"" + plan.name + "\": " + count(cells, "cell") + " x " +
         count(repeats, "repeat") + " = " + count(cells * repeats, "run");
}

void printCellTable(std::FILE* out, const core::Plan& plan, size_t limit) {
  // Columns: world size, then the keys whose value varies between the cells
  // that have them, and a plugin's keys (only in the cells using it) set
  // away from their default, in the first cell's order and then as the
  // others bring them; the derived keys last. (Every default of every
  // parameter made rows ~450 characters wide.)
  std::vector<std::string> keys;
  std::set<std::string> seen = {"world_size", core::kGlobalBatchKey, core::kEffectiveLrKey};
  for (const core::Cell& cell : plan.cells) {
    for (const auto& [key, value] : cell.values) {
      if (!seen.insert(key).second) continue;
      if (variesAmongItsCells(plan, key) || (!inEveryCell(plan, key) && !isPluginDefault(plan, key, value)))
        keys.push_back(key);
    }
  }
  keys.insert(keys.begin(), "world_size");
  keys.push_back(core::kGlobalBatchKey);
  keys.push_back(core::kEffectiveLrKey);

  const size_t rows = limit == 0 ? plan.cells.size() : std::min(limit, plan.cells.size());
  std::vector<size_t> width;
  for (const std::string& key : keys) {
    size_t w = key.size();
    for (size_t r = 0; r < rows; ++r) w = std::max(w, core::redactSecrets(plan.cells[r].text(key)).size());
    width.push_back(w);
  }
  // The last column is not padded: no trailing blanks.
  auto printRow = [&](const std::string& first, const std::vector<std::string>& texts) {
    std::fprintf(out, "%-5s", first.c_str());
    for (size_t k = 0; k < texts.size(); ++k) {
      std::fprintf(out, "  %-*s", k + 1 < texts.size() ? int(width[k]) : 0, texts[k].c_str());
    }
    std::fprintf(out, "\n");
  };
  printRow("cell", keys);
  for (size_t r = 0; r < rows; ++r) {
    std::vector<std::string> texts;
    for (const std::string& key : keys) {
      texts.push_back(plan.cells[r].find(key) ? core::redactSecrets(plan.cells[r].text(key)) : "-");
    }
    printRow(std::to_string(plan.cells[r].index), texts);
  }
  if (rows < plan.cells.size()) {
    std::fprintf(out, "... %s (--all shows every cell)\n",
                 count(plan.cells.size() - rows, "more cell").c_str());
  }
}

}  // namespace dtb::cli
