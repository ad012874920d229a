#include "cli/report_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <utility>

#include "report/report_data.h"
#include "report/report_format.h"
#include "store/read_only_query.h"

namespace dtb::cli {
namespace {

struct ReportOptions {
  std::string db, output, format, sqlDir;
  std::vector<std::string> experiments;
  std::vector<std::string> compare;
};

// Experiment ids for names or ids as given; all experiments when none is.
std::vector<int64_t> resolveExperiments(const std::string& db, const std::vector<std::string>& wanted) {
  const core::QueryResult all = core::runReadOnlyQuery(db, "SELECT id, name FROM experiment ORDER BY id");
  std::vector<int64_t> ids;
  if (wanted.empty()) {
    for (const auto& row : all.rows) ids.push_back(std::get<int64_t>(row[0]));
    if (ids.empty()) throw std::invalid_argument(db + " holds no experiment yet");
    return ids;
  }
  for (const std::string& w : wanted) {
    bool found = false;
    for (const auto& row : all.rows) {
      const int64_t id = std::get<int64_t>(row[0]);
      const std::string& name = std::get<std::string>(row[1]);
      if (name == w || std::to_string(id) == w) {
        ids.push_back(id);
        found = true;
      }
    }
    if (!found) {
      std::string known;
      for (const auto& row : all.rows)
        known += (known.empty() ? "" : ", ") + std::to_string(std::get<int64_t>(row[0])) + " " +
                 std::get<std::string>(row[1]);
      throw std::invalid_argument("no experiment '" + w + "' in " + db + " (it has: " + known + ")");
    }
  }
  return ids;
}

// The two experiments --compare names, A then B. A name several experiments
// share is ambiguous — except when both sides give it and it names exactly
// two: then A is the older, B the newer (a matrix run twice, before and
// after a change). Never one experiment against itself.
std::pair<int64_t, int64_t> comparedPair(const std::string& db, const std::string& a, const std::string& b) {
  const std::vector<int64_t> as = resolveExperiments(db, {a}), bs = resolveExperiments(db, {b});
  if (a == b && as.size() == 2) return {as[0], as[1]};
  for (const auto& [name, ids] : {std::pair{a, as}, std::pair{b, bs}}) {
    if (ids.size() == 1) continue;
    std::string list;
    for (int64_t id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
    throw std::invalid_argument("--compare: " + std::to_string(ids.size()) + " experiments in " + db +
                                " are named '" + name + "' (ids " + list + "); name them by id");
  }
  if (as[0] == bs[0])
    throw std::invalid_argument("--compare: '" + a + "' and '" + b + "' are the same experiment (id " +
                                std::to_string(as[0]) + "); name two");
  return {as[0], bs[0]};
}

// --format, else what -o's extension says; Markdown on stdout. An extension
// that says neither is an error, not an HTML file under a misleading name.
std::string reportFormat(const std::string& format, const std::string& output) {
  if (!format.empty()) return format;
  if (output.empty() || output == "-") return "markdown";
  const std::string ext = std::filesystem::path(output).extension().string();
  if (ext == ".html" || ext == ".htm") return "html";
  if (ext == ".md" || ext == ".markdown") return "markdown";
  throw std::invalid_argument("-o " + output + ": cannot tell the format from '" + ext +
                              "'; name the file .html or .md, or say --format html|markdown");
}

int report(const ReportOptions& o) {
  if (!std::filesystem::exists(o.db)) throw std::invalid_argument(o.db + ": no such result store");
  // Read-only: an older store is refused with the command that upgrades it.
  std::vector<int64_t> ids = resolveExperiments(o.db, o.experiments);
  std::optional<std::pair<int64_t, int64_t>> compared;
  if (!o.compare.empty()) {
    if (o.compare.size() != 2)
      throw std::invalid_argument("--compare takes two experiments: A (before) and B (after)");
    compared = comparedPair(o.db, o.compare[0], o.compare[1]);
    const auto [a, b] = *compared;
    if (o.experiments.empty()) ids = {a, b};
  }
  const core::ReportQueries queries(o.db, o.sqlDir);
  const core::ReportData data = core::loadReport(queries, ids);
  std::vector<core::ComparisonRow> comparison;
  if (compared) comparison = core::loadComparison(queries, compared->first, compared->second, data);
  const core::ReportInput input{o.db, &data, compared, &comparison};
  const std::string format = reportFormat(o.format, o.output);
  const std::string text = format == "html" ? core::renderHtml(input) : core::renderMarkdown(input);
  if (o.output.empty() || o.output == "-") {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  std::ofstream out(o.output);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(o.output + ": cannot write the report");
  std::fprintf(stderr, "dtbench report: %s (%s, %zu experiment%s)\n", o.output.c_str(), format.c_str(),
               data.experiments.size(), data.experiments.size() == 1 ? "" : "s");
  return 0;
}

}  // namespace

void addReportCommand(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Charts and tables of a result store: one self-contained HTML page (-o report.html) or Markdown.\n"
      "Examples:\n"
      "  dtbench report results/strategies.db -o report.html\n"
      "  dtbench report results.db --experiment strategies --format markdown\n"
      "  dtbench report results.db --compare before after -o compare.html");
  cmd->add_option("db", o->db, "The result store (SQLite file)")->required();
  cmd->add_option("--experiment", o->experiments, "Experiments by name or id (default: all)");
  cmd->add_option("-o,--output", o->output, "Where to write it (default: Markdown on stdout)");
  cmd->add_option("--format", o->format, "html or markdown (default: from the -o extension, html)")
      ->check(CLI::IsMember({"html", "markdown"}));
  cmd->add_option("--compare", o->compare,
                  "Two experiments, A then B: what got faster or slower beyond the noise")
      ->expected(2);
  cmd->add_option("--sql-dir", o->sqlDir,
                  "A folder of your own copies of reports/queries/*.sql (same file names) to use instead");
  cmd->allow_extras(false);
  cmd->callback([&global, o] {
    try {
      global.exitCode = report(*o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dtbench report: %s\n", e.what());
      global.exitCode = 1;
    }
  });
}

}  // namespace dtb::cli
