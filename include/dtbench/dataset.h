/*
 * dataset.h — the dataset plugin ABI: describe samples, read them by index.
 *
 * The host does sharding, shuffling, batching, prefetching and normalisation;
 * a dataset only answers "what are you" and "give me these samples".
 *
 * Entry symbol: `const dtb_dataset_plugin_v1_t* dtb_dataset_plugin_v1(void);`
 */
#ifndef DTBENCH_DATASET_H
#define DTBENCH_DATASET_H

#include "dtbench/dtbench.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dtb_dataset_info {
  uint32_t struct_size;     /* set by the host; write only covered members */
  dtb_dtype_t sample_dtype; /* dtype of the samples read() writes (U8 or F32) */
  int32_t sample_ndim;
  int64_t sample_shape[DTB_MAX_DIMS]; /* e.g. 1x28x28 for MNIST (C, H, W) */
  uint32_t num_classes;
  uint32_t split_count; /* e.g. 2: "train", "test" */
  /* Per-channel normalisation the host applies after scaling U8 to [0, 1]:
   * x = (x - mean[c]) / std[c]. NULL: none. Live until close. */
  const float* mean;
  const float* std;
} dtb_dataset_info_t;

typedef struct dtb_split_info {
  uint32_t struct_size; /* set by the host */
  const char* name;     /* "train", "test", ...; lives until close */
  uint64_t samples;
} dtb_split_info_t;

typedef struct dtb_dataset_plugin_v1_s {
  dtb_plugin_header_t header; /* kind = DTB_PLUGIN_DATASET */

  /* Opens the data named by the instance's parameters (e.g. `path`). A
   * missing, truncated or corrupt file fails with DTB_STATUS_IO_ERROR and a
   * message naming the file and the byte offset. */
  dtb_status_t (*open)(const dtb_host_t* host, void** out_dataset);
  void (*close)(void* dataset);

  dtb_status_t (*info)(void* dataset, dtb_dataset_info_t* out);
  dtb_status_t (*split_info)(void* dataset, uint32_t split, dtb_split_info_t* out);

  /* Copies samples `indices[0..count)` of `split` into `out_samples` (count x
   * sample size, dense, sample_dtype) and their labels into `out_labels`.
   * Thread-safe: the host's prefetch threads call it concurrently. */
  dtb_status_t (*read)(void* dataset, uint32_t split, const uint64_t* indices, uint32_t count,
                       void* out_samples, int32_t* out_labels);
} dtb_dataset_plugin_v1_t;

typedef dtb_dataset_plugin_v1_t dtb_dataset_plugin_t;
#define DTB_DATASET_ENTRY dtb_dataset_plugin_v1
typedef const dtb_dataset_plugin_v1_t* (*dtb_dataset_entry_v1_fn)(void);

/* The entry symbol a dataset plugin defines (and the only symbol it exports).
 * Returns a descriptor that stays valid while the library is loaded. */
DTB_EXPORT const dtb_dataset_plugin_v1_t* dtb_dataset_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* DTBENCH_DATASET_H */
