// Runs every part of a step's end, even after one failed, and keeps the
// first failure as it came (a host call's keeps the host's status and
// message: which rank, a timeout or a broken peer): every rank must finish
// what it started, and the peers wait for the collectives issued.
#pragma once

#include <exception>

namespace dtb::strategy::zero {

class FirstFailure {
 public:
  template <typename Part>
  void run(Part&& part) {
    try {
      part();
    } catch (...) {
      if (!failure_) failure_ = std::current_exception();
    }
  }
  // Throws the first failure, if any.
  void rethrow() const {
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  std::exception_ptr failure_;
};

}  // namespace dtb::strategy::zero
