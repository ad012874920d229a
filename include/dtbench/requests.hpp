// requests.hpp — collectives in flight, each waited for exactly once (the
// host's rule: comm_wait releases a request), also when one of them fails.
// Optional C++ helper; header-only.
//
//   dtb::Requests requests(host);
//   for (dtb_param_t* p : params)
//     requests.issue("allreduce", [&](dtb_request_t* r) {
//       return host->comm_allreduce(host->ctx, &p->grad, DTB_REDUCE_AVG, r);
//     });
//   requests.waitAll();  // throws the first failure, after waiting for all
//
//   dtb::allreduceEach(host, params, &dtb_param_t::grad, DTB_REDUCE_AVG);  // the same, in one call
#ifndef DTBENCH_REQUESTS_HPP
#define DTBENCH_REQUESTS_HPP

#include <cstddef>
#include <vector>

#include "dtbench/model.h"
#include "dtbench/plugin.hpp"

namespace dtb {

class Requests {
 public:
  explicit Requests(const dtb_host_t* host) : host_(host) {}
  // Abandoned requests (an exception between issue and waitAll) are still
  // waited for: the host's bookkeeping, and the peers, expect it.
  ~Requests() {
    for (dtb_request_t request : pending_) host_->comm_wait(host_->ctx, request, DTB_TIMEOUT_DEFAULT);
  }
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;

  // Starts a collective: `start(dtb_request_t*)` calls a host->comm_* and
  // returns its status. After a failure nothing more is started (every rank
  // must issue the same collectives in the same order); the failure is
  // thrown by waitAll().
  template <typename Start>
  void issue(const char* what, Start&& start) {
    if (failed_ != DTB_STATUS_OK) return;
    dtb_request_t request = nullptr;
    const dtb_status_t status = start(&request);
    if (status != DTB_STATUS_OK) {
      failed_ = status;
      failedWhat_ = what;
      return;
    }
    pending_.push_back(request);
  }

  size_t size() const { return pending_.size(); }
  // The first failure of a start or a wait since the last waitAll(); OK
  // when none. A strategy that must stop at once (rather than at waitAll)
  // passes it to check().
  dtb_status_t failure() const { return failed_; }

  // Waits for the oldest request still in flight and returns its status (OK
  // when none is): for a strategy that recycles a buffer as soon as the
  // collective reading it is done. A failure is kept: nothing more is
  // started, and waitAll throws it.
  dtb_status_t waitOldest() {
    if (pending_.empty()) return DTB_STATUS_OK;
    const dtb_request_t oldest = pending_.front();
    pending_.erase(pending_.begin());
    const dtb_status_t status = host_->comm_wait(host_->ctx, oldest, DTB_TIMEOUT_DEFAULT);
    if (failed_ == DTB_STATUS_OK && status != DTB_STATUS_OK) {
      failed_ = status;
      failedWhat_ = "wait";
    }
    return status;
  }

  // Waits for each request in the order issued, calling `after(index,
  // status)` after each, then throws the first failure of issue or wait.
  template <typename After>
  void waitAll(After&& after) {
    dtb_status_t first = failed_;
    const char* what = failedWhat_;
    std::vector<dtb_request_t> waiting;
    waiting.swap(pending_);
    for (size_t i = 0; i < waiting.size(); ++i) {
      const dtb_status_t status = host_->comm_wait(host_->ctx, waiting[i], DTB_TIMEOUT_DEFAULT);
      if (first == DTB_STATUS_OK && status != DTB_STATUS_OK) {
        first = status;
        what = "wait";
      }
      after(i, status);
    }
    failed_ = DTB_STATUS_OK;
    failedWhat_ = "";
    check(first, what);
  }
  void waitAll() {
    waitAll([](size_t, dtb_status_t) {});
  }

 private:
  const dtb_host_t* host_;
  std::vector<dtb_request_t> pending_;
  dtb_status_t failed_ = DTB_STATUS_OK;
  const char* failedWhat_ = "";
};

// Starts one collective and waits for it: for the rare blocking exchange
// (a broadcast of a bucket order, a barrier).
template <typename Start>
void issueAndWait(const dtb_host_t* host, const char* what, Start&& start) {
  Requests one(host);
  one.issue(what, std::forward<Start>(start));
  one.waitAll();
}

// One all-reduce (`op`) of `part` (&dtb_param_t::grad, or ::value) of every
// parameter of `params` (a range of dtb_param_t*), all in flight at once, then
// each waited for: plain data parallelism's exchange, with Requests' rules.
template <typename Params>
void allreduceEach(const dtb_host_t* host, const Params& params, dtb_tensor_t dtb_param_t::*part,
                   dtb_reduce_op_t op) {
  Requests requests(host);
  for (dtb_param_t* p : params) {
    requests.issue("allreduce",
                   [&](dtb_request_t* r) { return host->comm_allreduce(host->ctx, &(p->*part), op, r); });
  }
  requests.waitAll();
}

}  // namespace dtb

#endif  // DTBENCH_REQUESTS_HPP
