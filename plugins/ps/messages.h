// What workers and servers send each other: a push (a worker's gradient for
// one shard, or a request to be brought level at an epoch's end) and a
// reply (the shard's current values). Each is one host buffer of floats, a
// 16-byte header then the shard's elements, so one message carries both
// (Gloo's receiver must know the size: every message of a shard is alike).
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "dtbench/plugin.hpp"

namespace dtb::strategy::ps {

inline constexpr uint32_t kPushTag = 1;   // worker -> server
inline constexpr uint32_t kReplyTag = 2;  // server -> worker
inline constexpr uint64_t kHeaderFloats = 4;

enum class PushKind : uint32_t {
  kGradient = 0,  // the worker's gradient of step `step`
  kLevel = 1,     // no gradient: reply once every worker has pushed `step` gradients
};

struct Header {
  uint32_t kind;      // push: PushKind
  uint32_t step;      // push: the worker's gradients pushed before this one
  uint32_t version;   // reply: the shard's updates applied so far
  uint32_t minClock;  // reply: the fewest gradients any worker had pushed then
};
static_assert(sizeof(Header) == kHeaderFloats * sizeof(float));

inline Header readHeader(const float* message) {
  Header h{};
  std::memcpy(&h, message, sizeof h);
  return h;
}

inline void writeHeader(float* message, const Header& h) { std::memcpy(message, &h, sizeof h); }

// A message's wait at teardown: bounded, since a peer that failed never
// completes it, and the communicator is going anyway.
inline constexpr int64_t kTeardownWaitMs = 2000;

// True once `request` completed, which it then releases (comm_wait, at
// once) and clears; throws its failure. False while it is in flight.
inline bool arrived(const dtb_host_t* host, dtb_request_t& request, const char* what) {
  int32_t done = 0;
  check(host->comm_test(host->ctx, request, &done), what);
  if (!done) return false;
  check(host->comm_wait(host->ctx, std::exchange(request, nullptr), DTB_TIMEOUT_DEFAULT), what);
  return true;
}

// Releases a message still in flight at teardown (kTeardownWaitMs), if any.
inline void releaseAtTeardown(const dtb_host_t* host, dtb_request_t& request) {
  if (request) host->comm_wait(host->ctx, std::exchange(request, nullptr), kTeardownWaitMs);
}

}  // namespace dtb::strategy::ps
