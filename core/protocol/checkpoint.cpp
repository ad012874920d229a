#include "protocol/checkpoint.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace dtb::core {
namespace {

// 2: the loss scaler's figures follow the strategy's state.
constexpr char kMagic[8] = {'D', 'T', 'B', 'C', 'K', 'P', 'T', '2'};
// No checkpoint holds more than this in one block: a corrupt length is
// refused instead of allocated.
constexpr uint64_t kMaxBlock = uint64_t{1} << 40;

std::filesystem::path fileOf(const std::filesystem::path& dir, int rank, uint64_t steps) {
  return dir / ("rank" + std::to_string(rank) + "-step" + std::to_string(steps) + ".ckpt");
}

// The digits of `text` from `at` up to the first other character: their
// value, and `at` moved past them; nullopt when there is no digit.
std::optional<uint64_t> digits(const std::string& text, size_t& at) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data() + at, text.data() + text.size(), value);
  if (error != std::errc()) return std::nullopt;
  at = static_cast<size_t>(end - text.data());
  return value;
}

// Each rank's checkpointed steps, from the file names: rank<r>-step<s>.ckpt.
std::map<int, std::set<uint64_t>> stepsByRank(const std::filesystem::path& dir) {
  std::map<int, std::set<uint64_t>> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind("rank", 0) != 0) continue;
    size_t at = 4;
    const std::optional<uint64_t> rank = digits(file, at);
    if (!rank || file.compare(at, 5, "-step") != 0) continue;
    at += 5;
    const std::optional<uint64_t> step = digits(file, at);
    if (step && file.substr(at) == ".ckpt") found[static_cast<int>(*rank)].insert(*step);
  }
  return found;
}

class Writer {
 public:
  explicit Writer(std::ofstream& out) : out_(out) {}
  void u64(uint64_t v) { out_.write(reinterpret_cast<const char*>(&v), sizeof(v)); }
  void f64(double v) { out_.write(reinterpret_cast<const char*>(&v), sizeof(v)); }
  void block(const std::vector<uint8_t>& bytes) {
    u64(bytes.size());
    out_.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }

 private:
  std::ofstream& out_;
};

class Reader {
 public:
  Reader(std::ifstream& in, const std::filesystem::path& file, uint64_t size)
      : in_(in), file_(file), left_(size) {}
  uint64_t u64() {
    uint64_t v = 0;
    read(&v, sizeof(v));
    return v;
  }
  double f64() {
    double v = 0;
    read(&v, sizeof(v));
    return v;
  }
  std::vector<uint8_t> block() {
    const uint64_t size = u64();
    // A corrupt length is refused before anything is allocated for it.
    if (size > kMaxBlock || size > left_) fail("a block of " + std::to_string(size) + " bytes");
    std::vector<uint8_t> bytes(size);
    read(bytes.data(), size);
    return bytes;
  }
  void read(void* to, uint64_t bytes) {
    if (bytes > left_) fail("truncated");
    in_.read(static_cast<char*>(to), static_cast<std::streamsize>(bytes));
    if (!in_) fail("truncated");
    left_ -= bytes;
  }
  uint64_t left() const { return left_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(file_.string() + ": not a dtbench checkpoint (" + what + ")");
  }

 private:
  std::ifstream& in_;
  const std::filesystem::path& file_;
  uint64_t left_;  // bytes of the file not read yet
};

}  // namespace

void writeCheckpoint(const std::filesystem::path& dir, int rank, const Checkpoint& c) {
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = fileOf(dir, rank, c.steps);
  const std::filesystem::path partial = file.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    Writer w(out);
    out.write(kMagic, sizeof(kMagic));
    w.u64(c.steps);
    w.u64(static_cast<uint64_t>(c.epoch));
    w.u64(static_cast<uint64_t>(c.stepInEpoch));
    w.u64(static_cast<uint64_t>(c.optimizerStep));
    w.u64(c.params.size());
    for (const std::vector<uint8_t>& p : c.params) w.block(p);
    w.block(c.strategyState);
    w.u64(c.lossScaler.size());
    for (double v : c.lossScaler) w.f64(v);
    out.flush();
    if (!out) throw std::runtime_error(partial.string() + ": cannot write the checkpoint (disk full?)");
  }
  std::filesystem::rename(partial, file);
  // Keep this one and the one before: the ranks resume from the newest step
  // every one of them has, at most one checkpoint behind this rank's.
  const std::set<uint64_t> mine = stepsByRank(dir)[rank];
  std::error_code ignored;
  for (auto it = mine.begin(); it != mine.end() && std::distance(it, mine.end()) > 2; ++it) {
    std::filesystem::remove(fileOf(dir, rank, *it), ignored);
  }
}

std::optional<uint64_t> latestCompleteCheckpoint(const std::filesystem::path& dir, int world) {
  const std::map<int, std::set<uint64_t>> found = stepsByRank(dir);
  const auto first = found.find(0);
  if (first == found.end()) return std::nullopt;
  for (auto step = first->second.rbegin(); step != first->second.rend(); ++step) {
    bool everyRank = true;
    for (int r = 1; r < world && everyRank; ++r) {
      const auto theirs = found.find(r);
      everyRank = theirs != found.end() && theirs->second.contains(*step);
    }
    if (everyRank) return *step;
  }
  return std::nullopt;
}

void dropCheckpointsAfter(const std::filesystem::path& dir, uint64_t steps) {
  std::error_code ignored;
  for (const auto& [rank, mine] : stepsByRank(dir)) {
    for (uint64_t s : mine) {
      if (s > steps) std::filesystem::remove(fileOf(dir, rank, s), ignored);
    }
  }
}

Checkpoint readCheckpoint(const std::filesystem::path& dir, int rank, uint64_t steps) {
  const std::filesystem::path file = fileOf(dir, rank, steps);
  std::ifstream in(file, std::ios::binary);
  std::error_code sizeError;
  const uintmax_t size = std::filesystem::file_size(file, sizeError);
  if (!in || sizeError) throw std::runtime_error(file.string() + ": cannot read the checkpoint");
  Reader r(in, file, size);
  char magic[sizeof(kMagic)];
  r.read(magic, sizeof(magic));
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) r.fail("wrong magic");
  Checkpoint c;
  c.steps = r.u64();
  if (c.steps != steps) r.fail("holds step " + std::to_string(c.steps));
  c.epoch = static_cast<int64_t>(r.u64());
  c.stepInEpoch = static_cast<int64_t>(r.u64());
  c.optimizerStep = static_cast<int64_t>(r.u64());
  const uint64_t params = r.u64();
  if (params > (uint64_t{1} << 24)) r.fail(std::to_string(params) + " parameters");
  for (uint64_t i = 0; i < params; ++i) c.params.push_back(r.block());
  c.strategyState = r.block();
  const uint64_t figures = r.u64();
  if (figures != 0 && figures != 4) r.fail(std::to_string(figures) + " loss scaler figures");
  for (uint64_t i = 0; i < figures; ++i) c.lossScaler.push_back(r.f64());
  if (r.left() != 0) r.fail(std::to_string(r.left()) + " bytes after its end");
  return c;
}

}  // namespace dtb::core
