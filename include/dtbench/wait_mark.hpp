// wait_mark.hpp — optional C++ helper: tells the host how long the calling
// thread waited for communication it cannot see (dtb_host_t.comm_waited,
// ABI 1.6). Header-only; links nothing from the host.
//
// A strategy whose collectives run on a thread of its own (Horovod's cycle
// thread) and whose training thread waits for that thread in finish_backward
// marks the wait, and only the wait:
//
//   {
//     dtb::WaitMark waiting(host);  // from here ...
//     done_.wait(lock, [&] { return !active_; });
//   }                               // ... to here is exposed communication
//
// The rest of finish_backward (copies, compression, error feedback) is the
// strategy's computation, which the host books in the optimizer phase. With
// a host older than 1.6 (no comm_waited) a mark does nothing, and the wait
// counts as that computation.
#ifndef DTBENCH_WAIT_MARK_HPP
#define DTBENCH_WAIT_MARK_HPP

#include <cstdint>

#include "dtbench/dtbench.h"

namespace dtb {

class WaitMark {
 public:
  explicit WaitMark(const dtb_host_t* host) noexcept
      : host_(DTB_HAS_SERVICE(host, comm_waited) ? host : nullptr),
        begin_(host_ ? host_->now_ns(host_->ctx) : 0) {}
  ~WaitMark() {
    if (host_) host_->comm_waited(host_->ctx, begin_, host_->now_ns(host_->ctx));
  }
  WaitMark(const WaitMark&) = delete;
  WaitMark& operator=(const WaitMark&) = delete;

 private:
  const dtb_host_t* host_;
  int64_t begin_;
};

}  // namespace dtb

#endif  // DTBENCH_WAIT_MARK_HPP
