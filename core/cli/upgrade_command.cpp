#include "cli/upgrade_command.h"

#include <cstdio>
#include <filesystem>
#include <memory>

#include "store/database.h"
#include "store/result_store.h"

namespace dtb::cli {

void addUpgradeCommand(CLI::App& app, GlobalOptions& global) {
  auto db = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "upgrade",
      "Bring a result store written by an older dtbench to this version's schema (adds, never drops)");
  cmd->add_option("db", *db, "The result store (SQLite file)")->required();
  cmd->allow_extras(false);
  cmd->callback([&global, db] {
    if (!std::filesystem::exists(*db)) {
      std::fprintf(stderr, "dtbench upgrade: %s: no such result store\n", db->c_str());
      global.exitCode = 1;
      return;
    }
    int before = 0;
    try {
      before = core::Database(*db, core::Database::Mode::kReadOnly).userVersion();
      core::ResultStore store(*db);  // migrates, in one transaction
    } catch (const core::StoreError& e) {
      std::fprintf(stderr, "dtbench upgrade: %s\n", e.what());
      global.exitCode = 1;
      return;
    }
    const int now = core::ResultStore::schemaVersion();
    if (before == now) {
      std::printf("%s: schema version %d, already this dtbench's\n", db->c_str(), now);
    } else {
      std::printf("%s: schema version %d -> %d\n", db->c_str(), before, now);
    }
  });
}

}  // namespace dtb::cli
