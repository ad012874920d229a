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

}  // namespace

std::string planSummary(const std::string& file, const core::Plan& plan) {
  const size_t cells = plan.cells.size();
  const auto repeats = static_cast<size_t>(plan.repeats);
  return file + ": experiment \"" + plan.name + "\": " + count(cells, "cell") + " x " +
         count(repeats, "repeat") + " = " + count(cells * repeats, "run");
}

void printCellTable(std::FILE* out, const core::Plan& plan, size_t limit) {
  // Columns: the keys that vary, in a stable order, then the derived ones.
  std::vector<std::string> keys;
  for (const auto& [key, value] : plan.cells.front().values) {
    if (key == core::kGlobalBatchKey || key == core::kEffectiveLrKey || key == "world_size") continue;
    for (const core::Cell& cell : plan.cells) {
      const core::ParamValue* v = cell.find(key);
      if (!v || *v != value) {
        keys.push_back(key);
        break;
      }
    }
  }
  // Plugin keys appear only in the cells using that plugin: include them too.
  std::set<std::string> seen(keys.begin(), keys.end());
  for (const core::Cell& cell : plan.cells) {
    for (const auto& [key, value] : cell.values) {
      if (seen.contains(key) || plan.cells.front().find(key)) continue;
      keys.push_back(key);
      seen.insert(key);
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
