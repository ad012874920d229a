#include "ring_reduce_scatter.h"

#include <gloo/common/error.h>
#include <gloo/types.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace dtb::backend::gloo {
namespace {
constexpr uint8_t kSlotPrefix = 0x7d;  // distinct from Gloo's own collectives' prefixes
constexpr size_t kChunkBytes = size_t{4} << 20;
}  // namespace

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
  // Working memory of two chunks, never a copy of the input (for ZeRO a
  // reduce bucket can be the whole model): the ring runs chunk by chunk, as
  // NCCL's does through its fixed buffers. The partial sum received from the
  // left is completed with this rank's own part of the same block and sent on
  // right at the next step, while the next partial sum arrives in the other
  // chunk.
  const size_t chunkCount = std::min(count, std::max<size_t>(1, kChunkBytes / elementSize));
  auto* in = static_cast<char*>(const_cast<void*>(input));  // only sent from, never written
  std::vector<char> chunks(2 * chunkCount * elementSize);
  auto inputBuffer = context->createUnboundBuffer(in, static_cast<size_t>(n) * blockBytes);
  auto chunkBuffer = context->createUnboundBuffer(chunks.data(), chunks.size());
  const int right = (r + 1) % n;
  const int left = (r - 1 + n) % n;
  const uint64_t slot = ::gloo::Slot::build(kSlotPrefix, tag);  // in order: one slot serves every step
  for (size_t first = 0; first < count; first += chunkCount) {
    const size_t bytes = std::min(chunkCount, count - first) * elementSize;
    const size_t at = first * elementSize;  // the chunk's place within each block
    // At step s, send block (r - s - 1) and receive block (r - s - 2): after
    // n - 1 steps the last block received and completed is block r.
    for (int s = 0; s < n - 1; ++s) {
      const size_t sendBlock = static_cast<size_t>((r - s - 1 + 2 * n) % n);
      const size_t recvBlock = static_cast<size_t>((r - s - 2 + 2 * n) % n);
      const size_t recvAt = static_cast<size_t>(s % 2) * bytes;  // the other half holds what is sent
      if (s == 0) {
        inputBuffer->send(right, slot, sendBlock * blockBytes + at, bytes);
      } else {
        chunkBuffer->send(right, slot, bytes - recvAt, bytes);
      }
      chunkBuffer->recv(left, slot, recvAt, bytes);
      if (!chunkBuffer->waitRecv(nullptr, timeout))
        GLOO_THROW_IO_EXCEPTION("Timed out in reduce-scatter receive");
      auto& sender = s == 0 ? inputBuffer : chunkBuffer;
      if (!sender->waitSend(nullptr, timeout)) GLOO_THROW_IO_EXCEPTION("Timed out in reduce-scatter send");
      char* received = chunks.data() + recvAt;
      char* target = s == n - 2 ? static_cast<char*>(output) + at : received;
      reduce(target, in + recvBlock * blockBytes + at, received, bytes / elementSize);
    }
  }
}

}  // namespace dtb::backend::gloo
