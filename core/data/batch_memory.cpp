#include "data/batch_memory.h"

#include <new>

namespace dtb::core {

BlockPool::~BlockPool() {
  for (const Block& b : idle_) release_(b.data);
}

std::shared_ptr<float> BlockPool::take(size_t bytes) {
  Block block{nullptr, 0};
  {
    std::lock_guard lock(mutex_);
    // The smallest that fits: an epoch's short last batch does not take a
    // full batch's block that the next full batch would then have to make.
    size_t best = idle_.size();
    for (size_t i = 0; i < idle_.size(); ++i) {
      if (idle_[i].bytes >= bytes && (best == idle_.size() || idle_[i].bytes < idle_[best].bytes)) best = i;
    }
    if (best < idle_.size()) {
      block = idle_[best];
      idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(best));
    }
  }
  if (block.data == nullptr) {
    block = {allocate_(bytes > 0 ? bytes : 1), bytes};
    if (block.data == nullptr) throw std::bad_alloc();
    std::lock_guard lock(mutex_);
    ++allocated_;
  }
  // The block holds the pool, so a batch outliving its loader still has
  // somewhere to go back to.
  return {static_cast<float*>(block.data),
          [pool = shared_from_this(), block](float*) { pool->giveBack(block); }};
}

void BlockPool::giveBack(Block block) {
  std::lock_guard lock(mutex_);
  idle_.push_back(block);
}

size_t BlockPool::allocated() const {
  std::lock_guard lock(mutex_);
  return allocated_;
}

size_t BlockPool::idle() const {
  std::lock_guard lock(mutex_);
  return idle_.size();
}

void BatchInputs::resize(size_t count) {
  if (count == size_ && storage_) return;
  const size_t bytes = count * sizeof(float);
  if (pool_) {
    storage_ = pool_->take(bytes);
  } else {
    storage_ = std::shared_ptr<float>(new float[count > 0 ? count : 1], std::default_delete<float[]>());
  }
  size_ = count;
}

}  // namespace dtb::core
