// PowerSGD (Vogels et al. 2019) as PyTorch's DDP communication hook does it
// (torch 1.13, ddp_comm_hooks/powerSGD_hook.py), for one bucket: every
// gradient viewed as a matrix n x m (n = its first dimension) is sent as two
// rank-r factors when (n + m) r x min_compression_rate < n m; the rest (biases,
// small matrices) are all-reduced as they are. Per step and bucket:
//   1. add the error the last compression left (error feedback), keep a copy;
//   2. P = M Q for each compressed M (Q: last step's, orthogonalised — warm
//      start — or fresh Gaussian the first time), all-reduce the Ps and the
//      uncompressed tensors (sum);
//   3. orthogonalise P (Gram-Schmidt), Q = M^T P, all-reduce the Qs;
//   4. M = P (Q / world)^T; the uncompressed / world; error = copy - result.
// Three collectives per bucket; PyTorch chains them with futures, here the
// strategy issues them in the same order on every rank.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace dtb::strategy::bucketed {

struct PowerSgdOptions {
  uint32_t rank = 1;               // matrix_approximation_rank
  uint64_t startIteration = 1000;  // start_powerSGD_iter: plain all-reduce before
  double minCompressionRate = 2;   // min_compression_rate
  bool errorFeedback = true;       // use_error_feedback
  bool warmStart = true;           // warm_start
  uint64_t seed = 0;               // random_seed
};

// One gradient inside a bucket.
struct BucketTensor {
  uint64_t offset;  // in elements, within the bucket
  uint64_t rows;    // first dimension
  uint64_t cols;    // the others, multiplied
};

class PowerSgdBucket {
 public:
  PowerSgdBucket(const PowerSgdOptions& options, std::vector<BucketTensor> tensors, uint64_t count,
                 uint64_t bucketIndex);

  // Step 2's compression of `bucket` (count floats, the raw local gradients);
  // afterwards uncompressed() and ps() hold what to all-reduce (sum).
  void compress(const float* bucket);
  std::vector<float>& uncompressed() { return uncompressed_; }
  std::vector<float>& ps() { return ps_; }
  // Step 3, once both are all-reduced: afterwards qs() holds what to all-reduce.
  void computeQs(int world);
  std::vector<float>& qs() { return qs_; }
  // Step 4, once the Qs are all-reduced: writes the averaged approximation
  // into `bucket` and keeps the error.
  void decompress(float* bucket, int world);

  uint64_t compressedTensors() const { return compressed_.size(); }
  // What it holds between steps and collectives (error feedback, factors).
  uint64_t bytes() const {
    return (input_.size() + error_.size() + uncompressed_.size() + ps_.size() + qs_.size()) * sizeof(float);
  }

 private:
  struct Compressed {
    BucketTensor tensor;
    uint64_t rank, p, q;  // rank used; offsets into ps_ and qs_
  };
  // Gram-Schmidt on the columns of the rows x rank matrix at m (row-major).
  static void orthogonalise(float* m, uint64_t rows, uint64_t rank);

  PowerSgdOptions options_;
  uint64_t count_;
  std::vector<Compressed> compressed_;
  std::vector<BucketTensor> plain_;
  std::vector<float> input_, error_, uncompressed_, ps_, qs_;
  bool haveQs_ = false;
  std::mt19937_64 rng_;
};

}  // namespace dtb::strategy::bucketed
