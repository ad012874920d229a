#include "ring_reduce_scatter.h"

#include <gloo/common/error.h>
#include <gloo/types.h>

#include <cstring>
#include <vector>

namespace dtb::backend::gloo {
namespace {
constexpr uint8_t kSlotPrefix = 0x7d;  // distinct from Gloo's own collectives' prefixes
}

void ringReduceScatter(const std::shared_ptr<::gloo::Context>& context, const void* input, void* output,
                       size_t count, size_t elementSize, const ReduceFn& reduce, uint32_t tag,
                       std::chrono::milliseconds timeout) {
  const int n = context->size;
  const int r = context->rank;
  const size_t blockBytes = count * elementSize;
  if (n == 1 || count == 0) {
    if (count > 0) std::memmove(output, input, blockBytes);
    return;
  }
  // Reduce into a private copy: the caller's input stays as it was.
  std::vector<char> work(static_cast<const char*>(input), static_cast<const char*>(input) + n * blockBytes);
  std::vector<char> incoming(blockBytes);
  auto workBuffer = context->createUnboundBuffer(work.data(), work.size());
  auto inBuffer = context->createUnboundBuffer(incoming.data(), incoming.size());
  const int right = (r + 1) % n;
  const int left = (r - 1 + n) % n;
  const uint64_t slot = ::gloo::Slot::build(kSlotPrefix, tag);
  // At step s, send block (r - s - 1) and receive block (r - s - 2): after
  // n - 1 steps the last block received and reduced is block r, complete.
  for (int s = 0; s < n - 1; ++s) {
    const size_t sendBlock = static_cast<size_t>((r - s - 1 + 2 * n) % n);
    const size_t recvBlock = static_cast<size_t>((r - s - 2 + 2 * n) % n);
    workBuffer->send(right, slot, sendBlock * blockBytes, blockBytes);
    inBuffer->recv(left, slot, 0, blockBytes);
    if (!inBuffer->waitRecv(nullptr, timeout)) GLOO_THROW_IO_EXCEPTION("Timed out in reduce-scatter receive");
    if (!workBuffer->waitSend(nullptr, timeout)) GLOO_THROW_IO_EXCEPTION("Timed out in reduce-scatter send");
    char* target = work.data() + recvBlock * blockBytes;
    reduce(target, target, incoming.data(), count);
  }
  std::memcpy(output, work.data() + static_cast<size_t>(r) * blockBytes, blockBytes);
}

}  // namespace dtb::backend::gloo
