// Opening a result store to read it, and nothing else. Readers (query,
// runs, report, the run summary) never change the file: the connection is
// read-only (SQLite's mode=ro), and `immutable` where the store cannot
// change — a write-protected file, or one on a read-only mount or in a
// directory we cannot write — so SQLite creates no -wal or -shm file beside
// it. The views are this dtbench's own, made as TEMP views on the
// connection (they shadow those stored in the file by whichever dtbench
// wrote it last), so an older writer's views never answer for this one.
#pragma once

#include <filesystem>

#include "store/database.h"

namespace dtb::core {

// Throws StoreError naming the file: missing, not a dtbench store, or of
// another schema version than this dtbench's (older: `dtbench upgrade`
// brings it up; newer: a newer dtbench reads it).
Database openStoreForReading(const std::filesystem::path& path);

}  // namespace dtb::core
