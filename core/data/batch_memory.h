// Where a batch's inputs live on the host: ordinary heap memory, or pinned
// (page-locked) memory from a pool, for a run on a GPU, so the copy to the
// GPU can run on a stream of its own while the CPU and the GPU do other
// work (PyTorch's DataLoader(pin_memory=True)). Pinned memory is costly to
// allocate (milliseconds, and it locks pages), so the pool keeps the
// blocks that batches give back and hands them out again: in the steady
// state a run allocates none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace dtb::core {

class BlockPool : public std::enable_shared_from_this<BlockPool> {
 public:
  using Allocate = std::function<void*(size_t bytes)>;
  using Release = std::function<void(void*)>;
  BlockPool(Allocate allocate, Release release)
      : allocate_(std::move(allocate)), release_(std::move(release)) {}
  ~BlockPool();
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  // A block of at least `bytes`, back in the pool when the last owner lets
  // it go (the pool lives as long as a block it gave out does).
  std::shared_ptr<float> take(size_t bytes);
  // Blocks allocated so far, and blocks idle in the pool now.
  size_t allocated() const;
  size_t idle() const;

 private:
  struct Block {
    void* data;
    size_t bytes;
  };
  void giveBack(Block block);

  Allocate allocate_;
  Release release_;
  mutable std::mutex mutex_;
  std::vector<Block> idle_;
  size_t allocated_ = 0;
};

// A batch's f32 inputs: from the pool when the loader has one, else heap.
class BatchInputs {
 public:
  BatchInputs() = default;
  explicit BatchInputs(std::shared_ptr<BlockPool> pool) : pool_(std::move(pool)) {}

  // Room for `count` values (their values unspecified).
  void resize(size_t count);
  float* data() { return storage_.get(); }
  const float* data() const { return storage_.get(); }
  size_t size() const { return size_; }
  float& operator[](size_t i) { return storage_.get()[i]; }
  const float* begin() const { return data(); }
  const float* end() const { return data() + size_; }
  bool pinned() const { return pool_ != nullptr; }

 private:
  std::shared_ptr<BlockPool> pool_;
  std::shared_ptr<float> storage_;
  size_t size_ = 0;
};

}  // namespace dtb::core
