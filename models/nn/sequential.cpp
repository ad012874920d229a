#include "sequential.h"

namespace dtb::nn {

Shape Sequential::outputShape(const Shape& in) const {
  Shape shape = in;
  for (const auto& child : children_) shape = child->outputShape(shape);
  return shape;
}

const float* Sequential::forward(const float* x, const Shape& in, const Pass& pass) {
  Shape shape = in;
  for (auto& child : children_) {
    x = child->forward(x, shape, pass);
    shape = child->outputShape(shape);
  }
  return x;
}

const float* Sequential::backward(const float* dy, const Pass& pass, bool inputGrad) {
  for (size_t i = children_.size(); i-- > 0;) dy = children_[i]->backward(dy, pass, i > 0 || inputGrad);
  return dy;
}

}  // namespace dtb::nn
