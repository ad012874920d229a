#include "point_to_point.h"

#include <gloo/common/error.h>
#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include <string>

#include "common/wiring.h"
#include "dtbench/plugin.hpp"

namespace dtb::backend::gloo {
namespace {

// Slots of Gloo's own collectives use prefixes 0x01-0x08 (gloo/types.h);
// this one keeps point-to-point messages apart from them.
constexpr uint8_t kPointToPointSlotPrefix = 0x70;
constexpr uint32_t kTagLimit = 1u << 24;

}  // namespace

PointToPoint::PointToPoint(std::shared_ptr<::gloo::Context> context, int rank,
                           std::chrono::milliseconds timeout, Traffic& traffic)
    : context_(std::move(context)), rank_(rank), timeout_(timeout), traffic_(traffic) {}

PointToPoint::~PointToPoint() {
  std::lock_guard lock(mutex_);
  for (auto& m : messages_) {
    if (!m->request->done()) m->sending ? m->buffer->abortWaitSend() : m->buffer->abortWaitRecv();
  }
  for (auto& m : messages_) m->waiter.join();
}

std::shared_ptr<Request> PointToPoint::send(const dtb_tensor_t& buffer, int peer, uint32_t tag) {
  return post(buffer, peer, tag, true);
}

std::shared_ptr<Request> PointToPoint::recv(const dtb_tensor_t& buffer, int peer, uint32_t tag) {
  return post(buffer, peer, tag, false);
}

void PointToPoint::reapFinished() {
  for (auto it = messages_.begin(); it != messages_.end();) {
    if (!(*it)->request->done()) {
      ++it;
      continue;
    }
    (*it)->waiter.join();  // finishing the request is its thread's last act
    it = messages_.erase(it);
  }
}

std::shared_ptr<Request> PointToPoint::post(const dtb_tensor_t& tensor, int peer, uint32_t tag,
                                            bool sending) {
  checkHostTensor(tensor, sending ? "send buffer" : "recv buffer", "gloo");
  if (tag >= kTagLimit) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT,
                "gloo: point-to-point tag " + std::to_string(tag) + " is not below 2^24");
  }
  auto request = std::make_shared<Request>();
  const size_t bytes = tensor.count * dtypeSize(tensor.dtype);
  sending ? traffic_.sent(bytes) : traffic_.received(bytes);
  if (bytes == 0) {  // nothing crosses the wire; Gloo does not take empty buffers
    request->finish(DTB_STATUS_OK, "");
    return request;
  }
  auto message = std::make_unique<Message>();
  message->buffer = context_->createUnboundBuffer(tensor.data, bytes);
  message->request = request;
  message->sending = sending;
  const uint64_t slot = ::gloo::Slot::build(kPointToPointSlotPrefix, tag);
  sending ? message->buffer->send(peer, slot) : message->buffer->recv(peer, slot);
  Message* m = message.get();
  m->waiter = std::thread([this, m, peer] {
    const std::string what =
        std::string(m->sending ? "send to" : "recv from") + " rank " + std::to_string(peer);
    try {
      const bool completed =
          m->sending ? m->buffer->waitSend(nullptr, timeout_) : m->buffer->waitRecv(nullptr, timeout_);
      if (completed) {
        m->request->finish(DTB_STATUS_OK, "");
      } else {
        m->request->finish(DTB_STATUS_COMM_FAILURE,
                           "gloo: rank " + std::to_string(rank_) + ": " + what + " abandoned");
      }
    } catch (const std::exception& e) {
      const std::string text = e.what();
      const bool timedOut = text.find("imed out") != std::string::npos;
      m->request->finish(timedOut ? DTB_STATUS_TIMEOUT : DTB_STATUS_COMM_FAILURE,
                         "gloo: rank " + std::to_string(rank_) + ": " + what + ": " + text);
    }
  });
  std::lock_guard lock(mutex_);
  reapFinished();
  messages_.push_back(std::move(message));
  return request;
}

}  // namespace dtb::backend::gloo
