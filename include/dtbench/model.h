/*
 * model.h — the model plugin ABI: parameters, forward, backward with hooks.
 *
 * A model owns its parameters and exposes them as dtb_param_t records. The
 * host and the strategy may re-point a parameter's `value.data` or
 * `grad.data` (ZeRO-3 gathers a parameter into a temporary buffer; DDP's
 * gradient_as_bucket_view makes a gradient live inside a bucket), so a model
 * reads those pointers afresh at each use, after the layer's layer_begin hook
 * returned, and never caches them across calls.
 *
 * Entry symbol: `const dtb_model_plugin_v1_t* dtb_model_plugin_v1(void);`
 */
#ifndef DTBENCH_MODEL_H
#define DTBENCH_MODEL_H

#include "dtbench/dtbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One trainable tensor. Owned by the model; valid until destroy. */
typedef struct dtb_param {
  uint32_t struct_size;
  uint32_t index;     /* registration order: 0 .. count-1 */
  const char* name;   /* e.g. "conv1.weight" */
  uint32_t layer;     /* the layer that uses it (index into the model's layers) */
  uint32_t flags;     /* DTB_PARAM_FLAG_* */
  dtb_tensor_t value; /* data may be re-pointed by host/strategy (see above) */
  dtb_tensor_t grad;  /* same shape/dtype/device as value; may be re-pointed */
} dtb_param_t;

#define DTB_PARAM_FLAG_NO_WEIGHT_DECAY 0x1u /* biases and norm scales, by convention */

typedef enum dtb_pass { DTB_PASS_FORWARD = 0, DTB_PASS_BACKWARD = 1 } dtb_pass_t;
typedef enum dtb_mode { DTB_MODE_TRAIN = 0, DTB_MODE_EVAL = 1 } dtb_mode_t;

/* Callbacks into the host for one forward or backward call. Owned by the host,
 * borrowed for the call. A hook returning other than DTB_STATUS_OK makes the
 * model stop and return that status (the host already holds the message). */
typedef struct dtb_step_hooks {
  uint32_t struct_size;
  void* user;
  /* Before layer `layer` computes, in the forward pass and again in the
   * backward pass (ZeRO-3 gathers its parameters here). NULL: no hook. */
  dtb_status_t (*layer_begin)(void* user, uint32_t layer, dtb_pass_t pass);
  /* As soon as `param`'s gradient is final for this backward, in the order
   * gradients really become final. Called once per parameter that received
   * a gradient. NULL: no hook. */
  dtb_status_t (*grad_ready)(void* user, dtb_param_t* param);
} dtb_step_hooks_t;

/* What the model is built for. Owned by the host, borrowed for create. */
typedef struct dtb_model_setup {
  uint32_t struct_size;
  dtb_device_t device;
  int32_t input_ndim; /* sample shape without the batch dimension, e.g. 1x28x28 */
  int64_t input_shape[DTB_MAX_DIMS];
  uint32_t num_classes;
  uint32_t max_batch;    /* largest batch forward() will see (for buffer sizing) */
  uint64_t seed;         /* weight initialisation; equal seeds give equal weights */
  float label_smoothing; /* 0 = plain cross-entropy */
  int32_t threads;       /* compute threads this rank may use (>= 1) */
} dtb_model_setup_t;

/* One batch: inputs are f32 [size, input_shape...] (normalised by the host),
 * labels i32 [size]. Borrowed for the call. */
typedef struct dtb_batch {
  uint32_t struct_size;
  uint32_t size;
  dtb_tensor_t inputs;
  dtb_tensor_t labels;
} dtb_batch_t;

typedef struct dtb_forward_result {
  uint32_t struct_size; /* set by the host; write only covered members */
  double loss;          /* mean over the batch */
  uint32_t correct;     /* samples whose arg-max equals the label */
} dtb_forward_result_t;

typedef struct dtb_model_plugin_v1_s {
  dtb_plugin_header_t header; /* kind = DTB_PLUGIN_MODEL */

  /* Builds the model and initialises its weights from setup->seed. */
  dtb_status_t (*create)(const dtb_host_t* host, const dtb_model_setup_t* setup, void** out_model);
  void (*destroy)(void* model);

  /* The parameters in registration order. The array and records live until
   * destroy. */
  dtb_status_t (*params)(void* model, dtb_param_t* const** out_params, uint32_t* out_count);
  /* The layers' names in forward order (the indices dtb_param_t.layer and
   * layer_begin use). Lives until destroy. */
  dtb_status_t (*layers)(void* model, const char* const** out_names, uint32_t* out_count);

  dtb_status_t (*set_mode)(void* model, dtb_mode_t mode);
  /* Computes loss and correct count, keeping what backward needs. */
  dtb_status_t (*forward)(void* model, const dtb_batch_t* batch, const dtb_step_hooks_t* hooks,
                          dtb_forward_result_t* out);
  /* Back-propagates the mean loss of the last forward, writing (not adding
   * to) every parameter's grad and calling hooks->grad_ready as each one
   * becomes final. */
  dtb_status_t (*backward)(void* model, const dtb_step_hooks_t* hooks);

  /* Since 1.2, optional (NULL: the model always keeps its storage). Frees the
   * model's own storage of parameter `index`'s value or gradient for good
   * (the host's param_release, on a strategy's behalf); if the part's `data`
   * pointed at it, sets `data` to NULL. From then on the model reads that
   * part only through `data` after the layer's layer_begin hook, in forward
   * and in backward (which every model does anyway, see above), and never
   * touches it outside forward and backward. */
  dtb_status_t (*release_param)(void* model, uint32_t index, dtb_param_part_t part);

  /* Since 1.11, optional (0: inputs in host memory only). DTB_MODEL_INPUTS_*
   * flags: where forward() takes batch->inputs besides host memory. With
   * DTB_MODEL_INPUTS_ON_DEVICE a model created for a GPU takes them in that
   * GPU's memory (inputs.device says so), already copied when forward is
   * called: the host then copies each batch there ahead of time, on a
   * stream of its own, while the step before computes. Labels stay in host
   * memory. The inputs stay valid until backward returns. */
  uint32_t input_devices;

  /* Since 1.13, optional (NULL, or NULL returned: the model waits for its
   * GPU before each hook, as every model before 1.13). The CUDA stream (a
   * cudaStream_t) that a model created for a GPU computes on, the same for
   * the model's life. A model that gives one calls the hooks without
   * waiting for its GPU: grad_ready as soon as the gradient's work is queued
   * on that stream, layer_begin with the earlier layers' work still queued.
   * The host orders the GPU work itself, with CUDA events, not host waits:
   * what it and the strategy queue on the gradient (or in layer_begin)
   * through the host's services runs after the model's work queued before
   * the hook, and the model's work queued after layer_begin returns runs
   * after what the hook queued. So the GPU goes on computing backward while
   * the strategy launches its collectives. (Where it cannot order every
   * stream involved, the host waits for this one before the hook instead:
   * docs/plugin-abi.md.) A model may give its stream only to a host of 1.13
   * or later (host->abi_version); an older host does not order, so the model
   * must wait as before. backward still returns with every gradient
   * computed. */
  void* (*gpu_stream)(void* model);
} dtb_model_plugin_v1_t;

#define DTB_MODEL_INPUTS_ON_DEVICE 0x1u

typedef dtb_model_plugin_v1_t dtb_model_plugin_t;
#define DTB_MODEL_ENTRY dtb_model_plugin_v1
typedef const dtb_model_plugin_v1_t* (*dtb_model_entry_v1_fn)(void);

/* The entry symbol a model plugin defines (and the only symbol it exports).
 * Returns a descriptor that stays valid while the library is loaded. */
DTB_EXPORT const dtb_model_plugin_v1_t* dtb_model_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* DTBENCH_MODEL_H */
