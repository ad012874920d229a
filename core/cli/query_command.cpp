#include "cli/query_command.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "store/read_only_query.h"
#include "store/result_format.h"
#include "store/store_reader.h"

namespace dtb::cli {
namespace {

// Streams the rows to stdout as they come (a result of millions of rows
// needs no memory for them), stopping the query after `timeoutS`.
int printQuery(const std::string& db, const std::string& sql, core::ResultFormat format, double timeoutS) {
  core::ResultWriter writer(format,
                            [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); });
  bool started = false;  // columns are out: a stopped query still ends its table, CSV or JSON
  try {
    core::Database store = core::openStoreForReading(db);
    const auto limit = std::chrono::milliseconds(static_cast<int64_t>(timeoutS * 1000));
    core::streamReadOnlyQuery(store, sql, limit,
                              {[&](std::vector<std::string> columns) {
                                 writer.columns(std::move(columns));
                                 started = true;
                               },
                               [&](std::vector<core::SqlValue> row) { writer.row(std::move(row)); },
                               [&] {
                                 // SQLite cannot be stopped inside one SQL function: the process
                                 // ends. The rows a table or JSON held back for its layout are
                                 // lost with it; those already written stay.
                                 std::fflush(stdout);
                                 std::fprintf(stderr,
                                              "dtbench query: %s: the query was stopped after %g s, "
                                              "%d s past its limit inside an SQL function that SQLite "
                                              "cannot interrupt (--timeout SECONDS allows longer)\n",
                                              db.c_str(), timeoutS + core::kQueryOverrunGraceS,
                                              core::kQueryOverrunGraceS);
                                 std::_Exit(1);
                               }});
    writer.finish();
    return 0;
  } catch (const core::StoreError& e) {
    if (started) writer.finish();  // the rows printed so far, well-formed; the error says they are not all
    std::fflush(stdout);
    std::fprintf(stderr, "dtbench query: %s\n", e.what());
    return 1;
  }
}

// A week: any longer is "no limit" (0), and would overflow the clock.
constexpr double kLongestTimeoutS = 7 * 24 * 3600;

// `runs` reads a row per run: generous, yet never a hang.
constexpr double kRunsTimeoutS = 60;

// Experiments, then their runs with status and headline figures, what sets
// each configuration apart, and the noise flags: "loaded" for a run that
// competed for the CPU, "noisy" for a cell whose repeats disagree (the
// cell_figure table that repeat_stats reads: joining the view itself, for
// one column, cost a third of the command at 10,000 runs).
constexpr const char* kRunsSql = R"sql(
SELECT s.experiment_id AS exp, s.experiment, s.run_id AS run, s.cell, s.repeat, s.label,
       s.backend, s.model, s.world_size AS ranks, s.global_batch_size AS global_batch, s.status,
       ROUND(s.samples_per_s, 1) AS samples_per_s, ROUND(s.ms_per_step, 2) AS ms_per_step,
       ROUND(s.final_test_accuracy, 4) AS test_acc,
       TRIM(CASE WHEN s.loaded THEN 'loaded(' || ROUND(s.competing_cpus, 2) || ' cpus)' ELSE '' END ||
            CASE WHEN q.noisy THEN ' noisy' ELSE '' END) AS noise,
       SUBSTR(s.error, 1, 60) AS error
FROM run_summary s
LEFT JOIN cell_figure q ON q.experiment_id = s.experiment_id AND q.cell = s.cell
ORDER BY s.experiment_id, s.cell, s.repeat
)sql";

}  // namespace

void addQueryCommand(CLI::App& app, GlobalOptions& global) {
  struct Options {
    std::string db, sql, format = "table";
    double timeoutS = 10;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "query",
      "Run one read-only SQL statement on a result store.\n"
      "Views: run_summary, repeat_stats, scaling, step_breakdown, accuracy, loss_per_step,\n"
      "time_to_accuracy, plugin_metrics, collective_bandwidth, memory_vs_theory, traffic_vs_theory,\n"
      "verdict (which configuration to use per model and world size, and why)\n"
      "(docs/sql-cookbook.md has recipes). Example:\n"
      "  dtbench query results.db \"SELECT strategy, world_size, speedup, efficiency FROM scaling\"");
  cmd->add_option("db", o->db, "The result store (SQLite file)")->required();
  cmd->add_option("sql", o->sql, "One SQL statement; writes are refused")->required();
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json", "markdown"}));
  cmd->add_option("--timeout", o->timeoutS,
                  "Stop the query after this many seconds inside SQLite (writing its rows does not count); "
                  "0: no limit")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            // CLI::Range lets nan through (no comparison with it is true); nan meant no limit.
            // Below a millisecond, the limit would round to 0: no limit.
            const double seconds = std::strtod(text.c_str(), nullptr);
            if (seconds == 0 || (std::isfinite(seconds) && seconds >= 0.001 && seconds <= kLongestTimeoutS))
              return {};
            return text + ": give 0 (no limit) or seconds within 0.001 and " +
                   std::to_string(static_cast<int>(kLongestTimeoutS)) + " (a week)";
          },
          "SECONDS"))
      ->capture_default_str();
  cmd->allow_extras(false);
  cmd->callback([&global, o] {
    global.exitCode = printQuery(o->db, o->sql, *core::parseResultFormat(o->format), o->timeoutS);
  });
}

void addRunsCommand(CLI::App& app, GlobalOptions& global) {
  struct Options {
    std::string db = "results.db", format = "table";
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("runs", "List the experiments and runs of a result store");
  cmd->add_option("db", o->db, "The result store (SQLite file): dtbench run's --db, which it defaults to")
      ->capture_default_str();
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json", "markdown"}));
  cmd->allow_extras(false);
  cmd->callback([&global, o, cmd] {
    std::error_code ec;
    if (cmd->get_option("db")->count() == 0 && !std::filesystem::exists(o->db, ec)) {
      std::fprintf(stderr,
                   "dtbench runs: no store at %s (dtbench run's default --db) in this directory; name one: "
                   "dtbench runs DB\n",
                   o->db.c_str());
      global.exitCode = 1;
      return;
    }
    global.exitCode = printQuery(o->db, kRunsSql, *core::parseResultFormat(o->format), kRunsTimeoutS);
  });
}

}  // namespace dtb::cli
