// Gloo's point-to-point messages (backend.h's send and recv, ABI 1.9) over
// the communicator's first mesh of pairs: each message is an unbound buffer
// posted at once (Gloo's pairs move it), and a thread of its own waits for
// it, because Gloo offers no test: its only way to learn that a message
// arrived is a wait, and a wait that times out breaks every pair of the
// context. So a message's thread waits with the run's timeout, and the
// caller's test() reads the request it finishes. A parameter server moves a
// few messages per rank and step (plugins/ps), so a thread each is cheap
// next to the step; reaped when the next message is posted.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/request.h"
#include "common/traffic.h"
#include "dtbench/backend.h"

namespace gloo {
class Context;
namespace transport {
class UnboundBuffer;
}
}  // namespace gloo

namespace dtb::backend::gloo {

class PointToPoint {
 public:
  PointToPoint(std::shared_ptr<::gloo::Context> context, int rank, std::chrono::milliseconds timeout,
               Traffic& traffic);
  // Aborts the waits still running and joins their threads.
  ~PointToPoint();
  PointToPoint(const PointToPoint&) = delete;
  PointToPoint& operator=(const PointToPoint&) = delete;

  // Throw dtb::Error for a tag of 2^24 or more or a tensor not in host memory.
  std::shared_ptr<Request> send(const dtb_tensor_t& buffer, int peer, uint32_t tag);
  std::shared_ptr<Request> recv(const dtb_tensor_t& buffer, int peer, uint32_t tag);

 private:
  struct Message {
    std::unique_ptr<::gloo::transport::UnboundBuffer> buffer;
    std::shared_ptr<Request> request;
    bool sending = false;
    std::thread waiter;
  };
  std::shared_ptr<Request> post(const dtb_tensor_t& tensor, int peer, uint32_t tag, bool sending);
  void reapFinished();  // under mutex_

  std::shared_ptr<::gloo::Context> context_;
  const int rank_;
  const std::chrono::milliseconds timeout_;
  Traffic& traffic_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Message>> messages_;
};

}  // namespace dtb::backend::gloo
