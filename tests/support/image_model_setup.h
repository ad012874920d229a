// What the model tests create an image classifier with: `channels` x size x
// size samples in `classes` classes, batches of up to `batch`, on `device`.
#pragma once

#include <cstdint>

#include "dtbench/model.h"

namespace dtb::testing {

inline dtb_model_setup_t imageModelSetup(dtb_device_t device, int64_t channels, int64_t size, uint32_t batch,
                                         uint32_t classes, uint64_t seed, int32_t threads) {
  dtb_model_setup_t setup{};
  setup.struct_size = sizeof(setup);
  setup.device = device;
  setup.input_ndim = 3;
  setup.input_shape[0] = channels;
  setup.input_shape[1] = size;
  setup.input_shape[2] = size;
  setup.num_classes = classes;
  setup.max_batch = batch;
  setup.seed = seed;
  setup.threads = threads;
  return setup;
}

}  // namespace dtb::testing
