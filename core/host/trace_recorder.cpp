#include "host/trace_recorder.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>

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
  uint32_t row = 0;
  if (category.starts_with(kGpuCategory)) {
    const std::string rowName = category.substr(std::char_traits<char>::length(kGpuCategory));
    auto it = std::find(gpuRows_.begin(), gpuRows_.end(), rowName);
    if (it == gpuRows_.end()) it = gpuRows_.insert(gpuRows_.end(), rowName);
    row = kFirstGpuRow + static_cast<uint32_t>(it - gpuRows_.begin());
  } else {
    const auto id = std::this_thread::get_id();
    auto it = std::find(threads_.begin(), threads_.end(), id);
    if (it == threads_.end()) it = threads_.insert(threads_.end(), id);
    row = static_cast<uint32_t>(it - threads_.begin());
  }
  spans_.push_back({std::move(name), std::move(category), beginNs, std::max(beginNs, endNs), row});
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
  for (size_t k = 0; k < gpuRows_.size(); ++k) {
    out << ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " << rank_
        << ", \"tid\": " << kFirstGpuRow + k << ", \"args\": {\"name\": " << jsonString("GPU: " + gpuRows_[k])
        << "}}";
  }
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
