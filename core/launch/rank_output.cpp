#include "launch/rank_output.h"

#include <map>

namespace dtb::core {

RankOutput::RankOutput(int world, OnRecord onRecord)
    : onRecord_(std::move(onRecord)),
      pending_(static_cast<size_t>(world)),
      errors_(static_cast<size_t>(world)),
      hosts_(static_cast<size_t>(world)),
      done_(static_cast<size_t>(world), false),
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
  if (record->kind == Record::Kind::kHost) hosts_[rank] = record->hostRecord.host;
  if (record->kind == Record::Kind::kDone) done_[rank] = true;
  if (record->kind == Record::Kind::kError) {
    errors_[rank] = record->message;
    std::string& first = record->peerFailure ? firstPeerError_ : firstOwnError_;
    if (first.empty()) first = "rank " + std::to_string(rank) + ": " + record->message;
  }
  onRecord_(rank, *record);
}

std::string RankOutput::silentRanks() const {
  std::map<std::string, std::vector<int>> byHost;  // in the order of their first rank below
  std::vector<std::string> order;
  for (size_t rank = 0; rank < errors_.size(); ++rank) {
    if (!errors_[rank].empty() || done_[rank]) continue;
    const std::string& host = hosts_[rank];
    if (byHost.find(host) == byHost.end()) order.push_back(host);
    byHost[host].push_back(static_cast<int>(rank));
  }
  std::string text;
  for (const std::string& host : order) text += (text.empty() ? "" : "; ") + namedRanks(byHost[host], host);
  return text;
}

int RankOutput::ranksHeardFrom() const {
  int heard = 0;
  for (size_t rank = 0; rank < errors_.size(); ++rank) heard += !errors_[rank].empty() || done_[rank] ? 1 : 0;
  return heard;
}

std::string namedRanks(const std::vector<int>& ranks, const std::string& host) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  return host.empty() ? text : text + " on " + host;
}

double RankOutput::secondsSilent() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - lastRecord_).count();
}

}  // namespace dtb::core
