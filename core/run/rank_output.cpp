#include "run/rank_output.h"

namespace dtb::core {

RankOutput::RankOutput(int world, OnRecord onRecord)
    : onRecord_(std::move(onRecord)),
      pending_(static_cast<size_t>(world)),
      errors_(static_cast<size_t>(world)),
      lastRecord_(std::chrono::steady_clock::now()) {}

void RankOutput::feed(int rank, const char* data, size_t size) {
  std::string& pending = pending_[rank];
  pending.append(data, size);
  size_t end;
  while ((end = pending.find('\n')) != std::string::npos) {
    const std::string text = pending.substr(0, end);
    pending.erase(0, end + 1);
    line(rank, text);
  }
}

void RankOutput::line(int rank, const std::string& text) {
  lastRecord_ = std::chrono::steady_clock::now();
  std::optional<Record> record = parseRecord(text);
  if (!record) return;  // a worker's stray output
  if (record->kind == Record::Kind::kError) {
    errors_[rank] = record->message;
    std::string& first = record->peerFailure ? firstPeerError_ : firstOwnError_;
    if (first.empty()) first = "rank " + std::to_string(rank) + ": " + record->message;
  }
  onRecord_(rank, *record);
}

double RankOutput::secondsSilent() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - lastRecord_).count();
}

}  // namespace dtb::core
