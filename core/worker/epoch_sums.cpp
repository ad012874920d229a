#include "worker/epoch_sums.h"

#include "host/blocking_collective.h"

namespace dtb::core {

void EpochSums::add(const StepRecord& step) {
  lossSum += *step.loss * static_cast<double>(*step.samples);
  correct += step.correct;
  samples += static_cast<double>(*step.samples);
  collectives += static_cast<double>(step.collectives.value_or(0));
  bytes += static_cast<double>(step.bytesSent.value_or(0));
  for (const PhaseInfo& p : kPhases) phases[p.id] += step.phases[p.id].value_or(0);
  busBytes += step.busBytes.value_or(0);
}

EpochFigures& EpochFigures::operator+=(const EpochFigures& o) {
  phases += o.phases;
  busBytes += o.busBytes;
  lossSum += o.lossSum;
  correct += o.correct;
  samples += o.samples;
  collectives += o.collectives;
  bytes += o.bytes;
  return *this;
}

std::vector<double> EpochFigures::pack() const {
  std::vector<double> v(phases.values.begin(), phases.values.end());
  v.insert(v.end(), {busBytes, lossSum, correct, samples, collectives, bytes});
  return v;
}

EpochFigures EpochFigures::unpack(const double* v) {
  EpochFigures f;
  for (size_t i = 0; i < kPhaseCount; ++i) f.phases.values[i] = v[i];
  const double* rest = v + kPhaseCount;
  f.busBytes = rest[0];
  f.lossSum = rest[1];
  f.correct = rest[2];
  f.samples = rest[3];
  f.collectives = rest[4];
  f.bytes = rest[5];
  return f;
}

EpochFigures reduceEpochSums(Communicator& comm, const EpochSums& mine, double* flag) {
  std::vector<double> v = mine.pack();
  v.push_back(flag ? *flag : 0);
  allreduceDoubles(comm, v, DTB_REDUCE_SUM);
  if (flag) *flag = v.back();
  EpochFigures all = EpochFigures::unpack(v.data());
  // Times, bus bytes and the collectives are per rank: the mean of the
  // ranks'; loss, correct answers and samples are the world's.
  const double ranks = comm.size();
  for (double& seconds : all.phases.values) seconds /= ranks;
  all.busBytes /= ranks;
  all.collectives /= ranks;
  all.bytes /= ranks;
  return all;
}

}  // namespace dtb::core
