#include "data/distributed_sampler.h"

#include <numeric>
#include <random>
#include <stdexcept>

namespace dtb::core {
namespace {

uint64_t endOf(const SamplerConfig& c) { return c.end > 0 ? c.end : c.datasetSize * c.scale; }

}  // namespace

DistributedSampler::DistributedSampler(SamplerConfig config) : config_(config) {
  if (config_.world < 1 || config_.rank < 0 || config_.rank >= config_.world) {
    throw std::invalid_argument("sampler: rank must be in [0, world)");
  }
  if (config_.scale < 1) throw std::invalid_argument("sampler: dataset_scale must be at least 1");
  if (config_.end > config_.datasetSize * config_.scale)
    throw std::invalid_argument("sampler: end is past the dataset's end");
  if (config_.offset > endOf(config_))
    throw std::invalid_argument("sampler: offset is past the end of the epoch");
  const uint64_t left = endOf(config_) - config_.offset;
  const uint64_t world = static_cast<uint64_t>(config_.world);
  const uint64_t rank = static_cast<uint64_t>(config_.rank);
  if (config_.dropLast) {
    perRank_ = left / world;
  } else if (config_.pad) {
    perRank_ = (left + world - 1) / world;
  } else {
    perRank_ = left > rank ? (left - rank + world - 1) / world : 0;
  }
}

std::vector<uint64_t> DistributedSampler::indices(uint64_t epoch) const {
  const uint64_t total = config_.datasetSize * config_.scale;
  std::vector<uint64_t> order(total);
  std::iota(order.begin(), order.end(), uint64_t{0});
  if (config_.shuffle) {
    std::mt19937_64 generator(config_.seed + epoch);
    // Fisher-Yates by hand: std::shuffle's algorithm is not fixed by the
    // standard, and every rank (and every run) must get the same order.
    for (uint64_t i = total; i > 1; --i) {
      const uint64_t j = generator() % i;
      std::swap(order[i - 1], order[j]);
    }
  }
  const uint64_t world = static_cast<uint64_t>(config_.world);
  // Past `used` nothing is taken: the padded or cut length, or N unpadded
  // (all counted from the offset).
  const uint64_t left = endOf(config_) - config_.offset;
  const uint64_t used = config_.dropLast || config_.pad ? perRank_ * world : left;
  std::vector<uint64_t> mine;
  mine.reserve(perRank_);
  for (uint64_t k = static_cast<uint64_t>(config_.rank); k < used; k += world) {
    // Padding repeats the head of what is left (k >= left only without drop_last).
    const uint64_t position = config_.offset + (left == 0 ? 0 : k % left);
    mine.push_back(order[position] % config_.datasetSize);
  }
  return mine;
}

}  // namespace dtb::core
