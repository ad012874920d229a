#include "powersgd.h"

#include <algorithm>
#include <cmath>

namespace dtb::strategy::bucketed {

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
    const float* m = input_.data() + c.tensor.offset;
    float* p = ps_.data() + c.p;
    for (uint64_t r = 0; r < c.tensor.rows; ++r) {
      for (uint64_t j = 0; j < c.rank; ++j) {
        double sum = 0;
        for (uint64_t k = 0; k < c.tensor.cols; ++k)
          sum += double(m[r * c.tensor.cols + k]) * q[k * c.rank + j];
        p[r * c.rank + j] = static_cast<float>(sum);
      }
    }
  }
  haveQs_ = true;
}

void PowerSgdBucket::computeQs(int) {
  for (const Compressed& c : compressed_) {
    float* p = ps_.data() + c.p;
    orthogonalise(p, c.tensor.rows, c.rank);
    // Q (m x r) = M^T (m x n) P (n x r)
    const float* m = input_.data() + c.tensor.offset;
    float* q = qs_.data() + c.q;
    for (uint64_t k = 0; k < c.tensor.cols; ++k) {
      for (uint64_t j = 0; j < c.rank; ++j) {
        double sum = 0;
        for (uint64_t r = 0; r < c.tensor.rows; ++r)
          sum += double(m[r * c.tensor.cols + k]) * p[r * c.rank + j];
        q[k * c.rank + j] = static_cast<float>(sum);
      }
    }
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
    const float* p = ps_.data() + c.p;
    const float* q = qs_.data() + c.q;
    float* m = bucket + c.tensor.offset;
    for (uint64_t r = 0; r < c.tensor.rows; ++r) {
      for (uint64_t k = 0; k < c.tensor.cols; ++k) {
        double sum = 0;
        for (uint64_t j = 0; j < c.rank; ++j) sum += double(p[r * c.rank + j]) * q[k * c.rank + j];
        m[r * c.tensor.cols + k] = static_cast<float>(sum);
      }
    }
  }
  if (options_.errorFeedback) {
    for (uint64_t k = 0; k < count_; ++k) error_[k] = input_[k] - bucket[k];
  }
}

}  // namespace dtb::strategy::bucketed
