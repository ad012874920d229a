// A batch from the data loader as the model plugin reads it: borrowed views
// of its inputs, shaped [batch, sample shape...], and of its labels.
#pragma once

#include "data/data_loader.h"
#include "dtbench/model.h"

namespace dtb::core {

// The views point into `batch`, which must outlive them.
dtb_batch_t batchView(Batch& batch, const dtb_dataset_info_t& info);

}  // namespace dtb::core
