// Modules applied one after another (torch.nn.Sequential).
#pragma once

#include <memory>
#include <vector>

#include "module.h"

namespace dtb::nn {

class Sequential : public Module {
 public:
  Sequential& add(std::unique_ptr<Module> module) {
    children_.push_back(std::move(module));
    return *this;
  }
  template <typename M, typename... Args>
  M& emplace(Args&&... args) {
    auto module = std::make_unique<M>(std::forward<Args>(args)...);
    M& ref = *module;
    children_.push_back(std::move(module));
    return ref;
  }
  bool empty() const { return children_.empty(); }

  Shape outputShape(const Shape& in) const override;
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  std::vector<std::unique_ptr<Module>> children_;
};

}  // namespace dtb::nn
