#include "host/trace_recorder.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>

namespace dtb::core {
namespace {

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

int64_t TraceRecorder::nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void TraceRecorder::span(std::string name, std::string category, int64_t beginNs, int64_t endNs) {
  std::lock_guard lock(mutex_);
  const auto id = std::this_thread::get_id();
  auto it = std::find(threads_.begin(), threads_.end(), id);
  if (it == threads_.end()) it = threads_.insert(threads_.end(), id);
  spans_.push_back({std::move(name), std::move(category), beginNs, std::max(beginNs, endNs),
                    static_cast<uint32_t>(it - threads_.begin())});
}

size_t TraceRecorder::size() const {
  std::lock_guard lock(mutex_);
  return spans_.size();
}

void TraceRecorder::write(const std::filesystem::path& file) const {
  std::lock_guard lock(mutex_);
  std::ofstream out(file);
  const int64_t origin =
      spans_.empty() ? 0 : std::min_element(spans_.begin(), spans_.end(), [](auto& a, auto& b) {
                             return a.beginNs < b.beginNs;
                           })->beginNs;
  out << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  out << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " << rank_ << ", \"args\": {\"name\": \"rank "
      << rank_ << "\"}}";
  for (const Span& s : spans_) {
    out << ",\n{\"name\": " << jsonString(s.name) << ", \"cat\": " << jsonString(s.category)
        << ", \"ph\": \"X\", \"ts\": " << (s.beginNs - origin) / 1000.0
        << ", \"dur\": " << (s.endNs - s.beginNs) / 1000.0 << ", \"pid\": " << rank_
        << ", \"tid\": " << s.thread << "}";
  }
  out << "\n]}\n";
  if (!out) throw std::runtime_error(file.string() + ": cannot write the trace");
}

}  // namespace dtb::core
