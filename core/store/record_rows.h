// Records as rows of the store: each record type's columns and values in one
// list (so an INSERT's column names and its binds cannot drift apart), the
// step's phases from train/step_phases.h.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/database.h"
#include "store/records.h"

namespace dtb::core {

class Row {
 public:
  Row& add(const char* column, const SqlValue& value) {
    cells_.emplace_back(column, value);
    return *this;
  }
  // Exact overloads: an int64_t never narrows through int, nor a number
  // through a conversion to SqlValue.
  Row& add(const char* column, int64_t value) { return add(column, SqlValue(value)); }
  Row& add(const char* column, int value) { return add(column, SqlValue(int64_t{value})); }
  Row& add(const char* column, double value) { return add(column, SqlValue(value)); }
  Row& add(const char* column, const std::string& value) { return add(column, SqlValue(value)); }
  template <typename T>
  Row& add(const char* column, const std::optional<T>& value) {
    return value ? add(column, *value) : add(column, SqlValue());
  }
  const std::vector<std::pair<const char*, SqlValue>>& cells() const { return cells_; }

 private:
  std::vector<std::pair<const char*, SqlValue>> cells_;
};

Row epochRow(const EpochRecord& e);
Row stepRow(const StepRecord& s);
Row metricRow(const MetricRecord& m);
Row collectiveRow(const CollectiveRecord& c);
Row referenceRow(const BandwidthReferenceRecord& b);
Row eventRow(const EventRecord& e);
Row memoryRow(const MemoryRecord& m);
Row hostRow(const RankHostRecord& h);
Row gradientRow(const GradientReadyRecord& g);
Row projectionRow(const ProjectionRecord& p);
Row recoveryRow(const RecoveryRecord& r);
Row worldChangeRow(const WorldChangeRecord& w);
Row networkRow(const RunNetworkRecord& n);

// `insert` ("INSERT", "INSERT OR REPLACE") INTO `table` each row, all with
// the first row's columns; `tail` follows the VALUES (an ON CONFLICT clause).
void insertRows(Database& db, const char* insert, const char* table, const std::vector<Row>& rows,
                const char* tail = "");

// insertRows over records turned into rows by `toRow`.
template <typename Record, typename ToRow>
void insertRecords(Database& db, const char* insert, const char* table, const std::vector<Record>& records,
                   ToRow toRow, const char* tail = "") {
  if (records.empty()) return;
  std::vector<Row> rows;
  rows.reserve(records.size());
  for (const Record& r : records) rows.push_back(toRow(r));
  insertRows(db, insert, table, rows, tail);
}

}  // namespace dtb::core
