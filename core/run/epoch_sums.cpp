#include "run/epoch_sums.h"

#include <vector>

#include "run/blocking_collective.h"
#include "run/step_measures.h"

namespace dtb::core {

void EpochSums::add(const StepRecord& step) {
  lossSum += *step.loss * static_cast<double>(*step.samples);
  correct += step.correct;
  samples += static_cast<double>(*step.samples);
  collectives += static_cast<double>(step.collectives.value_or(0));
  bytes += static_cast<double>(step.bytesSent.value_or(0));
  addPhases(phases, step);
}

EpochFigures& EpochFigures::operator+=(const EpochFigures& o) {
  dataS += o.dataS;
  forwardS += o.forwardS;
  backwardS += o.backwardS;
  commExposedS += o.commExposedS;
  optimizerS += o.optimizerS;
  commTotalS += o.commTotalS;
  busBytes += o.busBytes;
  lossSum += o.lossSum;
  correct += o.correct;
  samples += o.samples;
  collectives += o.collectives;
  bytes += o.bytes;
  return *this;
}

EpochFigures reduceEpochSums(Communicator& comm, const EpochSums& mine, double* flag) {
  const StepRecord& p = mine.phases;
  std::vector<double> v = {p.dataS.value_or(0),
                           p.forwardS.value_or(0),
                           p.backwardS.value_or(0),
                           p.commExposedS.value_or(0),
                           p.optimizerS.value_or(0),
                           p.commTotalS.value_or(0),
                           p.busBytes.value_or(0),
                           mine.lossSum,
                           mine.correct,
                           mine.samples,
                           mine.collectives,
                           mine.bytes,
                           flag ? *flag : 0};
  allreduceDoubles(comm, v, DTB_REDUCE_SUM);
  const double ranks = comm.size();
  if (flag) *flag = v[12];
  return {v[0] / ranks, v[1] / ranks, v[2] / ranks, v[3] / ranks, v[4] / ranks,  v[5] / ranks,
          v[6] / ranks, v[7],         v[8],         v[9],         v[10] / ranks, v[11] / ranks};
}

}  // namespace dtb::core
