#include "powersgd.h"

#include <algorithm>
#include <cmath>

namespace dtb::strategy::bucketed {
namespace {

// A row-major matrix read through its strides: swapping them reads its transpose.
struct Strided {
  const float* data;
  uint64_t row, col;
  float at(uint64_t i, uint64_t k) const { return data[i * row + k * col]; }
};

// out (rows x cols, row-major) = A (rows x inner) B (inner x cols), each sum
// in double over the inner index in order: P = M Q, Q = M^T P and M = P Q^T.
void multiply(Strided a, Strided b, float* out, uint64_t rows, uint64_t cols, uint64_t inner) {
  for (uint64_t i = 0; i < rows; ++i) {
    for (uint64_t j = 0; j < cols; ++j) {
      double sum = 0;
      for (uint64_t k = 0; k < inner; ++k) sum += double(a.at(i, k)) * b.at(k, j);
      out[i * cols + j] = static_cast<float>(sum);
    }
  }
}

}  // namespace

PowerSgdBucket::PowerSgdBucket(const PowerSgdOptions& options, std::vector<BucketTensor> tensors,
                               uint64_t count, uint64_t bucketIndex)
    : options_(options), count_(count), rng_(options.seed * 1000003 + bucketIndex) {
  uint64_t p = 0, q = 0;
  for (const BucketTensor& t : tensors) {
    const uint64_t rank = std::min<uint64_t>({t.rows, t.cols, options.rank});
    const bool worth = static_cast<double>((t.rows + t.cols) * rank) * options.minCompressionRate <
                       static_cast<double>(t.rows * t.cols);
    if (!worth) {
      plain_.push_back(t);
      continue;
    }
    compressed_.push_back({t, rank, p, q});
    p += t.rows * rank;
    q += t.cols * rank;
  }
  ps_.resize(p);
  qs_.resize(q);
  error_.assign(options.errorFeedback ? count : 0, 0.0f);
}

void PowerSgdBucket::orthogonalise(float* m, uint64_t rows, uint64_t rank) {
  for (uint64_t i = 0; i < rank; ++i) {
    double norm = 0;
    for (uint64_t r = 0; r < rows; ++r) norm += double(m[r * rank + i]) * m[r * rank + i];
    norm = std::sqrt(norm);
    // A zero column would be 0/0 (PyTorch then recovers it as zeros).
    for (uint64_t r = 0; r < rows; ++r)
      m[r * rank + i] = norm > 0 ? static_cast<float>(m[r * rank + i] / norm) : 0.0f;
    for (uint64_t j = i + 1; j < rank; ++j) {  // remove its projection from the later columns
      double dot = 0;
      for (uint64_t r = 0; r < rows; ++r) dot += double(m[r * rank + i]) * m[r * rank + j];
      for (uint64_t r = 0; r < rows; ++r) m[r * rank + j] -= static_cast<float>(dot) * m[r * rank + i];
    }
  }
}

void PowerSgdBucket::compress(const float* bucket) {
  input_.assign(bucket, bucket + count_);
  if (options_.errorFeedback) {
    for (uint64_t k = 0; k < count_; ++k) input_[k] += error_[k];
  }
  uncompressed_.clear();
  for (const BucketTensor& t : plain_) {
    uncompressed_.insert(uncompressed_.end(), input_.begin() + t.offset,
                         input_.begin() + t.offset + t.rows * t.cols);
  }
  const bool fresh = !options_.warmStart || !haveQs_;
  std::normal_distribution<float> gaussian(0.0f, 1.0f);
  for (const Compressed& c : compressed_) {
    float* q = qs_.data() + c.q;
    if (fresh) {
      for (uint64_t k = 0; k < c.tensor.cols * c.rank; ++k) q[k] = gaussian(rng_);
    }
    orthogonalise(q, c.tensor.cols, c.rank);
    // P (n x r) = M (n x m) Q (m x r)
    const Strided m{input_.data() + c.tensor.offset, c.tensor.cols, 1};
    multiply(m, {q, c.rank, 1}, ps_.data() + c.p, c.tensor.rows, c.rank, c.tensor.cols);
  }
  haveQs_ = true;
}

void PowerSgdBucket::computeQs(int) {
  for (const Compressed& c : compressed_) {
    float* p = ps_.data() + c.p;
    orthogonalise(p, c.tensor.rows, c.rank);
    // Q (m x r) = M^T (m x n) P (n x r)
    const Strided mTransposed{input_.data() + c.tensor.offset, 1, c.tensor.cols};
    multiply(mTransposed, {p, c.rank, 1}, qs_.data() + c.q, c.tensor.cols, c.rank, c.tensor.rows);
  }
}

void PowerSgdBucket::decompress(float* bucket, int world) {
  const float inverse = 1.0f / static_cast<float>(world);
  uint64_t at = 0;
  for (const BucketTensor& t : plain_) {
    for (uint64_t k = 0; k < t.rows * t.cols; ++k) bucket[t.offset + k] = uncompressed_[at + k] * inverse;
    at += t.rows * t.cols;
  }
  for (float& v : qs_) v *= inverse;  // the average Q, kept for the warm start
  for (const Compressed& c : compressed_) {
    // M (n x m) = P (n x r) Q^T (r x m)
    const Strided qTransposed{qs_.data() + c.q, 1, c.rank};
    multiply({ps_.data() + c.p, c.rank, 1}, qTransposed, bucket + c.tensor.offset, c.tensor.rows,
             c.tensor.cols, c.rank);
  }
  if (options_.errorFeedback) {
    for (uint64_t k = 0; k < count_; ++k) error_[k] = input_[k] - bucket[k];
  }
}

}  // namespace dtb::strategy::bucketed
