#include "launch/tagged_lines.h"

namespace dtb::core {
namespace {

constexpr char kStdoutTag[] = "]<stdout>:";
constexpr size_t kStdoutTagSize = sizeof(kStdoutTag) - 1;

// The number written in decimal at `at` (at most 9 digits) and where it
// ends, or nullopt where no digit is.
std::optional<std::pair<int, size_t>> numberAt(const std::string& text, size_t at) {
  size_t end = at;
  while (end < text.size() && end - at < 9 && text[end] >= '0' && text[end] <= '9') ++end;
  if (end == at) return std::nullopt;
  return std::make_pair(std::stoi(text.substr(at, end - at)), end);
}

// An mpirun tag "[job,rank]<stdout>:" at `at`: the rank and where the text
// after it begins.
std::optional<std::pair<int, size_t>> mpirunTagAt(const std::string& line, size_t at) {
  if (at >= line.size() || line[at] != '[') return std::nullopt;
  const auto job = numberAt(line, at + 1);
  if (!job || job->second >= line.size() || line[job->second] != ',') return std::nullopt;
  const auto rank = numberAt(line, job->second + 1);
  if (!rank || line.compare(rank->second, kStdoutTagSize, kStdoutTag) != 0) return std::nullopt;
  return std::make_pair(rank->first, rank->second + kStdoutTagSize);
}

}  // namespace

std::optional<std::pair<int, std::string>> splitTaggedLine(const std::string& line) {
  if (line.rfind('[', 0) == 0) {  // mpirun: "[job,rank]<stdout>:text"
    const auto tag = mpirunTagAt(line, 0);
    if (!tag) return std::nullopt;
    return std::make_pair(tag->first, line.substr(tag->second));
  }
  size_t at = 0;
  while (at < line.size() && line[at] == ' ') ++at;  // srun: "  3: text"
  const auto rank = numberAt(line, at);
  if (!rank || line.compare(rank->second, 2, ": ") != 0) return std::nullopt;
  return std::make_pair(rank->first, line.substr(rank->second + 2));
}

std::vector<std::pair<int, std::string>> TaggedLines::take(const std::string& line) {
  std::vector<std::pair<int, std::string>> lines;
  const auto first = mpirunTagAt(line, 0);
  if (!first) {  // srun's whole lines (or a stray line, dropped)
    auto whole = splitTaggedLine(line);
    if (whole && whole->first >= 0 && whole->first < static_cast<int>(partial_.size()))
      lines.push_back(std::move(*whole));
    return lines;
  }
  // Chunks: each from its tag to the next; all but the last end inside a
  // line, the last at this line's newline.
  int rank = first->first;
  size_t begin = first->second;
  for (;;) {
    std::optional<std::pair<int, size_t>> next;
    size_t at = begin;
    for (; at < line.size(); ++at) {
      if (line[at] == '[' && (next = mpirunTagAt(line, at))) break;
    }
    const bool known = rank >= 0 && rank < static_cast<int>(partial_.size());
    if (known) {
      std::string& text = partial_[static_cast<size_t>(rank)];
      text.append(line, begin, at - begin);
      if (text.size() > kMaxLineBytes) text.clear();  // no record: a rank printing without newlines
    }
    if (!next) {
      if (known) {
        lines.emplace_back(rank, std::move(partial_[static_cast<size_t>(rank)]));
        partial_[static_cast<size_t>(rank)].clear();
      }
      return lines;
    }
    rank = next->first;
    begin = next->second;
  }
}

std::vector<std::pair<int, std::string>> TaggedLines::unfinished() const {
  std::vector<std::pair<int, std::string>> left;
  for (size_t rank = 0; rank < partial_.size(); ++rank) {
    if (!partial_[rank].empty()) left.emplace_back(static_cast<int>(rank), partial_[rank]);
  }
  return left;
}

}  // namespace dtb::core
