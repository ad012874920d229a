#include "worker/batch_view.h"

#include "dtbench/plugin.hpp"

namespace dtb::core {

dtb_batch_t batchView(Batch& batch, const dtb_dataset_info_t& info) {
  dtb_batch_t view{};
  view.struct_size = sizeof(view);
  view.size = batch.size;
  view.inputs = dtb::hostTensor(batch.inputs.data(), batch.inputs.size(), DTB_DTYPE_F32);
  if (batch.deviceInputs) {  // copied to the model's GPU ahead of time
    view.inputs.data = const_cast<float*>(batch.deviceInputs);
    view.inputs.device = batch.inputDevice;
  }
  view.inputs.ndim = info.sample_ndim + 1;
  view.inputs.shape[0] = batch.size;
  for (int d = 0; d < info.sample_ndim; ++d) view.inputs.shape[d + 1] = info.sample_shape[d];
  view.labels = dtb::hostTensor(batch.labels.data(), batch.labels.size(), DTB_DTYPE_I32);
  return view;
}

}  // namespace dtb::core
