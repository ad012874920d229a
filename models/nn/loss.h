// Log-softmax followed by the negative log-likelihood, averaged over the
// batch (F.log_softmax + F.nll_loss, or F.cross_entropy with
// label_smoothing), with its gradient with respect to the logits.
#pragma once

#include <cstdint>
#include <vector>

namespace dtb::nn {

struct LossResult {
  double loss = 0;       // mean over the batch
  uint32_t correct = 0;  // arg-max equals the label
};

// `probabilities` receives softmax(logits) for the backward pass.
LossResult crossEntropyForward(const float* logits, const int32_t* labels, int64_t n, int64_t classes,
                               double labelSmoothing, std::vector<float>& probabilities);
// d(mean loss)/d(logits).
void crossEntropyBackward(const std::vector<float>& probabilities, const int32_t* labels, int64_t n,
                          int64_t classes, double labelSmoothing, float* dlogits);

}  // namespace dtb::nn
