/*
 * dtbench.h — the common part of dtbench's stable plugin ABI (C11, also valid C++).
 *
 * Every plugin kind (strategy.h, backend.h, model.h, dataset.h) builds on the
 * types declared here: status codes, dtypes, devices, tensor views, parameter
 * declarations, the common descriptor header and the host services table.
 *
 * Rules that hold for every struct in this ABI (see docs/plugin-abi.md):
 *  - A versioned struct starts with `uint32_t struct_size` (the size the writer
 *    compiled with). Within one ABI major version structs only grow at the end;
 *    a reader reads a member only when `struct_size` covers it
 *    (DTB_HAS_MEMBER). Members added after 1.0 say "since 1.N". An optional
 *    function member is absent when `struct_size` does not cover it or when
 *    it is NULL: check both (DTB_HAS_SERVICE for the host's table).
 *  - Value types embedded by value in other structs (dtb_device_t,
 *    dtb_tensor_t, dtb_plugin_header_t) are frozen for the whole major version.
 *  - Status codes, never exceptions, cross the boundary. A call that returns a
 *    status other than DTB_STATUS_OK first reports why with host->set_error();
 *    a failure without a message is treated by the host as a plugin bug.
 *  - Whoever allocates frees. Pointers passed into a call are borrowed for
 *    that call only, unless the member says otherwise. Strings a plugin
 *    returns stay valid until the plugin instance is destroyed (strings in a
 *    descriptor: as long as the library is loaded).
 */
#ifndef DTBENCH_DTBENCH_H
#define DTBENCH_DTBENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions ---------------------------------------------------------- */

/* The ABI major version changes only on a break; the entry symbols carry it
 * (dtb_strategy_plugin_v1). The minor version grows when members are added. */
#define DTB_ABI_MAJOR 1
#define DTB_ABI_MINOR 13
#define DTB_ABI_MAKE_VERSION(major, minor) ((uint32_t)(((major) << 16) | (minor)))
#define DTB_ABI_VERSION DTB_ABI_MAKE_VERSION(DTB_ABI_MAJOR, DTB_ABI_MINOR)
#define DTB_ABI_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)
#define DTB_ABI_VERSION_MINOR(v) ((uint32_t)(v)&0xffffu)

/* True when a struct written with `struct_size` bytes contains `member`. */
#define DTB_HAS_MEMBER(ptr, type, member) \
  ((ptr) != NULL && (ptr)->struct_size >= offsetof(type, member) + sizeof(((type*)0)->member))

/* True when the host services table `host` (a const dtb_host_t*) offers the
 * optional service `member` (one added after 1.0): struct_size covers it AND
 * it is not NULL. Either alone is absent; call an optional service only
 * after this check. Since 1.6 (the rule held before; the macro is new). */
#define DTB_HAS_SERVICE(host, member) (DTB_HAS_MEMBER(host, dtb_host_t, member) && (host)->member != NULL)

/* Marks a plugin's entry symbol; plugins are built with hidden visibility and
 * export nothing else. */
#if defined(_WIN32)
#define DTB_EXPORT __declspec(dllexport)
#else
#define DTB_EXPORT __attribute__((visibility("default")))
#endif

/* ---- Status ------------------------------------------------------------ */

/* A small closed set: the message given to host->set_error() says the rest. */
typedef enum dtb_status {
  DTB_STATUS_OK = 0,
  DTB_STATUS_INVALID_ARGUMENT = 1, /* caller passed something this plugin cannot use */
  DTB_STATUS_NOT_FOUND = 2,        /* a named thing (key, file, split) does not exist */
  DTB_STATUS_UNSUPPORTED = 3,      /* valid request this plugin or build does not do */
  DTB_STATUS_OUT_OF_MEMORY = 4,
  DTB_STATUS_TIMEOUT = 5,      /* a wait or collective did not complete in time */
  DTB_STATUS_COMM_FAILURE = 6, /* a peer died or a connection broke */
  DTB_STATUS_IO_ERROR = 7,     /* a file is missing, truncated or corrupt */
  DTB_STATUS_INTERNAL = 8      /* a bug: an invariant did not hold */
} dtb_status_t;

/* ---- Data types and devices -------------------------------------------- */

typedef enum dtb_dtype {
  DTB_DTYPE_F32 = 1,
  DTB_DTYPE_F16 = 2,
  DTB_DTYPE_BF16 = 3,
  DTB_DTYPE_F64 = 4,
  DTB_DTYPE_I32 = 5,
  DTB_DTYPE_I64 = 6,
  DTB_DTYPE_U8 = 7,
  DTB_DTYPE_I8 = 8
} dtb_dtype_t;

/* DTB_DEVICE_CUDA_HOST (since 1.4) is for alloc() only: host memory pinned
 * (page-locked) for GPU `index`, whose copies to and from the GPU run at full
 * speed and asynchronously — the staging buffers of a strategy that moves GPU
 * tensors through host memory. It is host memory: tensors over it say
 * DTB_DEVICE_HOST, and it counts as host memory. */
typedef enum dtb_device_type {
  DTB_DEVICE_HOST = 0,
  DTB_DEVICE_CUDA = 1,
  DTB_DEVICE_CUDA_HOST = 2
} dtb_device_type_t;

/* Where memory lives. Frozen value type. `index` is the CUDA ordinal; 0 for host. */
typedef struct dtb_device {
  dtb_device_type_t type;
  int32_t index;
} dtb_device_t;

#define DTB_MAX_DIMS 8

/* A borrowed view of dense, contiguous memory. Frozen value type.
 * `data` may be NULL only when `count` is 0. Collectives treat a tensor as a
 * flat array of `count` elements; `ndim`/`shape` describe it for models. */
typedef struct dtb_tensor {
  void* data;
  uint64_t count; /* number of elements (product of shape; 1 for ndim 0) */
  dtb_dtype_t dtype;
  dtb_device_t device;
  int32_t ndim;
  int64_t shape[DTB_MAX_DIMS];
} dtb_tensor_t;

/* ---- Plugin parameters --------------------------------------------------- */

/* Each descriptor declares the parameters its plugin accepts. The host
 * documents them (`dtbench plugins`), checks a matrix against them before
 * anything runs (unknown key, wrong type, out of range) and fills in
 * defaults, so a plugin's config lookups never miss a declared key. */
typedef enum dtb_param_type {
  DTB_PARAM_BOOL = 1,
  DTB_PARAM_INT = 2,     /* int64 */
  DTB_PARAM_FLOAT = 3,   /* double */
  DTB_PARAM_STRING = 4,  /* UTF-8 */
  DTB_PARAM_INT_LIST = 5 /* array of int64, e.g. layer widths */
} dtb_param_type_t;

#define DTB_PARAM_HAS_MIN 0x1u /* min_value applies (INT, FLOAT, INT_LIST elements) */
#define DTB_PARAM_HAS_MAX 0x2u /* max_value applies */

typedef struct dtb_param_spec {
  uint32_t struct_size; /* sizeof(dtb_param_spec_t); the host strides arrays by params[0].struct_size */
  const char* name;     /* lower_snake_case, unique within the plugin; required */
  dtb_param_type_t type;
  /* Default in TOML syntax ("25", "true", "\"ring\"" or "ring", "[512, 256]").
   * NULL: the parameter is required and a matrix must set it. */
  const char* default_value;
  const char* doc; /* one sentence with units; required */
  uint32_t flags;  /* DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX */
  double min_value;
  double max_value;
  /* STRING only: allowed values separated by '|' ("ring|halving_doubling").
   * NULL: any string. */
  const char* choices;
} dtb_param_spec_t;

/* ---- Descriptor header ----------------------------------------------------- */

typedef enum dtb_plugin_kind {
  DTB_PLUGIN_STRATEGY = 1,
  DTB_PLUGIN_BACKEND = 2,
  DTB_PLUGIN_MODEL = 3,
  DTB_PLUGIN_DATASET = 4
} dtb_plugin_kind_t;

/* First member of every plugin descriptor. Frozen value type. The strings and
 * the params array live as long as the library stays loaded. */
typedef struct dtb_plugin_header {
  uint32_t struct_size; /* sizeof the WHOLE descriptor the plugin was built with */
  uint32_t abi_version; /* DTB_ABI_VERSION the plugin was built with */
  dtb_plugin_kind_t kind;
  const char* name;               /* e.g. "zero": matches dtbench-<kind>-<name>.so */
  const char* version;            /* the plugin's own version, e.g. "1.2.0" */
  const char* description;        /* one line */
  const dtb_param_spec_t* params; /* NULL when param_count is 0 */
  uint32_t param_count;
} dtb_plugin_header_t;

/* ---- Host services ---------------------------------------------------------- */

typedef enum dtb_log_level {
  DTB_LOG_DEBUG = 0,
  DTB_LOG_INFO = 1,
  DTB_LOG_WARN = 2,
  DTB_LOG_ERROR = 3
} dtb_log_level_t;

/* What an allocation is for; the host sums bytes per category per rank
 * (the memory figures of a run, e.g. ZeRO's sharded optimizer state). */
typedef enum dtb_mem_category {
  DTB_MEM_PARAMS = 0,
  DTB_MEM_GRADS = 1,
  DTB_MEM_OPTIMIZER = 2,
  DTB_MEM_BUFFERS = 3, /* communication buffers: fusion buffer, buckets */
  DTB_MEM_ACTIVATIONS = 4,
  DTB_MEM_OTHER = 5
} dtb_mem_category_t;

typedef enum dtb_reduce_op {
  DTB_REDUCE_SUM = 0,
  DTB_REDUCE_AVG = 1, /* sum, then scale by 1/world (postscale, as Horovod) */
  DTB_REDUCE_MAX = 2,
  DTB_REDUCE_MIN = 3,
  DTB_REDUCE_BAND = 4 /* bitwise AND of integer dtypes (Horovod's cache bits) */
} dtb_reduce_op_t;

/* An in-flight collective. Owned by whoever started it (see backend.h and the
 * comm_* services below); opaque. */
typedef struct dtb_request* dtb_request_t;

/* Opaque identity of one plugin instance inside the host. */
typedef struct dtb_host_ctx* dtb_host_ctx_t;

/* A part of a model parameter (dtb_param_t in model.h). Since 1.2. */
typedef enum dtb_param_part { DTB_PARAM_PART_VALUE = 0, DTB_PARAM_PART_GRAD = 1 } dtb_param_part_t;

struct dtb_param;

/* Timeout argument meaning "the run's collective timeout" (matrix key
 * `collective_timeout_s`, 1 ms to 24 h; any negative value means the same).
 * Nothing in dtbench waits forever. */
#define DTB_TIMEOUT_DEFAULT (-1)

/*
 * The services the host gives one plugin instance. Every function takes
 * `ctx` (the member below) first; it identifies the instance, so messages and
 * metrics are attributed to it. The table is owned by the host and valid
 * until the instance is destroyed (after the plugin's destroy returns).
 * Plugins call nothing else of the host: they link no host library.
 *
 * Optional services: the members after optim_update came in later minor
 * versions ("since 1.N"). One is absent when the table's struct_size does not
 * cover it (an older host) or when it is NULL (a host, or a test harness,
 * that does not offer it); check both with DTB_HAS_SERVICE(host, member)
 * before every call. The members up to optim_update are always set.
 *
 * Threads: every function may be called from any thread of the plugin,
 * several at once, except param_release (below). set_error's message belongs
 * to the calling thread. The comm_* calls of one instance reach the backend
 * one at a time (see Communicator below).
 *
 * No exception ever leaves these functions. A NULL where a pointer is
 * required is DTB_STATUS_INVALID_ARGUMENT (a void function ignores the
 * call); a failure inside the host is DTB_STATUS_OUT_OF_MEMORY or
 * DTB_STATUS_INTERNAL, with a message (a void function logs it).
 */
typedef struct dtb_host {
  uint32_t struct_size; /* check newer members with DTB_HAS_SERVICE(host, m) */
  uint32_t abi_version; /* the host's DTB_ABI_VERSION */
  dtb_host_ctx_t ctx;

  /* Logging and errors ------------------------------------------------------ */
  /* Writes a line to the process's log (stderr), prefixed with the plugin's
   * kind and name ("strategy/zero"); lines below the log level are dropped.
   * NULL: "(null)". */
  void (*log)(dtb_host_ctx_t ctx, dtb_log_level_t level, const char* message);
  /* Records why the call in progress on this thread is about to fail. Call it
   * before returning a status other than DTB_STATUS_OK; the message is copied
   * (NULL: an empty message). A later set_error on the thread replaces it. */
  void (*set_error)(dtb_host_ctx_t ctx, const char* message);

  /* Clock: monotonic nanoseconds, comparable across plugins of one process. */
  int64_t (*now_ns)(dtb_host_ctx_t ctx);

  /* Memory ------------------------------------------------------------------ */
  /* Allocates `bytes` on `device`, aligned to at least 64 bytes, and counts
   * them under `category`. Returns DTB_STATUS_OUT_OF_MEMORY (any size the
   * system cannot give, however absurd), DTB_STATUS_UNSUPPORTED (device not
   * available: no such GPU, or a dtbench built without CUDA) or
   * DTB_STATUS_INVALID_ARGUMENT (unknown category, NULL `out`). `*out` is set
   * to NULL for zero bytes and on failure. Since 1.4, DTB_DEVICE_CUDA gives
   * device memory on GPU `device.index` (cudaMalloc: 256-byte aligned), counted
   * apart from host memory under the same categories, and
   * DTB_DEVICE_CUDA_HOST pinned host memory (cudaMallocHost), counted as host
   * memory. GPU memory comes zeroed, the zeroing finished before alloc
   * returns (since dtbench's GPU training, ABI 1.6 hosts; earlier hosts did
   * not zero it). */
  dtb_status_t (*alloc)(dtb_host_ctx_t ctx, uint64_t bytes, dtb_device_t device, dtb_mem_category_t category,
                        void** out);
  /* Frees memory from alloc(); NULL is ignored, and so (with an error in the
   * log) is a pointer alloc() did not return. */
  void (*free)(dtb_host_ctx_t ctx, void* ptr);

  /* Configuration: this instance's parameters, already validated against its
   * dtb_param_spec_t list and completed with defaults. DTB_STATUS_NOT_FOUND
   * for an undeclared key, DTB_STATUS_INVALID_ARGUMENT for a type mismatch
   * (an INT parameter is not read as a float) or a NULL key or `out`.
   * config_get_string's result lives until the instance is destroyed. */
  dtb_status_t (*config_get_bool)(dtb_host_ctx_t ctx, const char* key, int32_t* out);
  dtb_status_t (*config_get_int)(dtb_host_ctx_t ctx, const char* key, int64_t* out);
  dtb_status_t (*config_get_float)(dtb_host_ctx_t ctx, const char* key, double* out);
  dtb_status_t (*config_get_string)(dtb_host_ctx_t ctx, const char* key, const char** out);
  /* Copies up to `capacity` elements to `out`; `*out_count` gets the full
   * length. `out` may be NULL when `capacity` is 0 (to ask the length). */
  dtb_status_t (*config_get_int_list)(dtb_host_ctx_t ctx, const char* key, int64_t* out, uint64_t capacity,
                                      uint64_t* out_count);

  /* Metrics and events --------------------------------------------------------- */
  /* Adds `value` to the named per-step metric of this rank (e.g.
   * "fusion.cycles"); stored with the step's record. Dropped, each on its
   * own: a value that is not finite (the step's finite values of the metric
   * still add up), what is added outside a training step (evaluation), a
   * NULL name. */
  void (*metric_add)(dtb_host_ctx_t ctx, const char* name, double value);
  /* Records a discrete event (kind e.g. "rebucket", "overflow", "membership").
   * NULL reads as "". */
  void (*event)(dtb_host_ctx_t ctx, const char* kind, const char* detail);
  /* Records a timed span (now_ns() clock) for the rank's Chrome trace, on
   * the calling thread's row, when the run writes one (matrix key `trace`);
   * otherwise ignored. A category "gpu:ROW" (since 1.12) is work timed on a
   * GPU, not on the calling thread: the span goes on a row of its own named
   * "GPU: ROW". Strategies and (since 1.12) backends: other kinds' spans are
   * ignored. */
  void (*trace_span)(dtb_host_ctx_t ctx, const char* name, const char* category, int64_t begin_ns,
                     int64_t end_ns);

  /* Communicator --------------------------------------------------------------- */
  /* The run's communicator, wrapped by the host (which counts bytes and
   * collectives, applies timeouts and traces). Available to strategies; other
   * kinds get DTB_STATUS_UNSUPPORTED and rank 0 of world 1.
   * Every request returned must be passed to comm_wait exactly once, which
   * releases it whatever the outcome; a call that fails leaves
   * *out_request NULL, with nothing to wait for. comm_test or comm_wait of a
   * request not in flight (never returned, or already waited for) is
   * DTB_STATUS_INVALID_ARGUMENT. Collectives are issued in the same order on
   * every rank.
   * Threads: calls on one instance's communicator may come from several
   * threads (a strategy's own). The host hands them to the backend one at a
   * time, a wait included: while one thread is in comm_wait, another
   * thread's comm_* call waits for it (its time counts as waiting). The
   * order of collectives issued from several threads is the strategy's to
   * keep the same on every rank. Counts: reduce_scatter's input holds world x the
   * output's count; allgather's output holds world x the input's count, and
   * its input may be this rank's own block of the output (in place; any
   * other overlap is an error). */
  int32_t (*comm_rank)(dtb_host_ctx_t ctx);
  int32_t (*comm_size)(dtb_host_ctx_t ctx);
  dtb_status_t (*comm_allreduce)(dtb_host_ctx_t ctx, dtb_tensor_t* buffer, dtb_reduce_op_t op,
                                 dtb_request_t* out_request);
  dtb_status_t (*comm_reduce_scatter)(dtb_host_ctx_t ctx, const dtb_tensor_t* input, dtb_tensor_t* output,
                                      dtb_reduce_op_t op, dtb_request_t* out_request);
  dtb_status_t (*comm_allgather)(dtb_host_ctx_t ctx, const dtb_tensor_t* input, dtb_tensor_t* output,
                                 dtb_request_t* out_request);
  dtb_status_t (*comm_broadcast)(dtb_host_ctx_t ctx, dtb_tensor_t* buffer, int32_t root,
                                 dtb_request_t* out_request);
  dtb_status_t (*comm_barrier)(dtb_host_ctx_t ctx, dtb_request_t* out_request);
  /* Sets *out_done to 1 when finished; does not release the request. */
  dtb_status_t (*comm_test)(dtb_host_ctx_t ctx, dtb_request_t request, int32_t* out_done);
  /* Waits up to timeout_ms (DTB_TIMEOUT_DEFAULT: the run's collective
   * timeout), then releases the request, whatever the outcome. Returns the
   * collective's status: DTB_STATUS_TIMEOUT (a peer is stuck or gone) or
   * DTB_STATUS_COMM_FAILURE (a peer died, a connection broke) leave the
   * communicator unusable for the step; the host does not fail the step by
   * itself, the strategy returns the status from its hook and the step fails
   * with its message. */
  dtb_status_t (*comm_wait)(dtb_host_ctx_t ctx, dtb_request_t request, int64_t timeout_ms);

  /* Optimizer kernels --------------------------------------------------------------
   * The run's optimizer (SGD, Adam, AdamW; its learning rate schedule and step
   * count are the host's). A strategy owns the optimizer state memory, so it
   * can shard it: optim_state_floats() f32 values per parameter element. */
  uint32_t (*optim_state_floats)(dtb_host_ctx_t ctx);
  /* Updates `param` in place from `grad` (f32 tensors of the same count, both
   * on the host or both on one GPU; else DTB_STATUS_INVALID_ARGUMENT) using
   * `state` (count x optim_state_floats() floats, zeroed before the first
   * step, where the tensors are; may be NULL when optim_state_floats() is 0).
   * On a GPU the update is queued there and has run before the host's next
   * forward (since dtbench's GPU training, ABI 1.6 hosts; earlier hosts took
   * host tensors only).
   * `param_index` is the model parameter (dtb_param_t.index) the slice
   * belongs to, for per-parameter options: a parameter flagged
   * DTB_PARAM_FLAG_NO_WEIGHT_DECAY is updated with weight decay 0 (SGD and
   * Adam: no L2 term; AdamW: no decoupled decay), as in a PyTorch param group
   * with weight_decay=0. UINT32_MAX for a flat mix of parameters, which gets
   * the run's weight decay throughout; any other index past the parameters
   * is DTB_STATUS_INVALID_ARGUMENT. (Earlier dtbench hosts ignored the index
   * and decayed every parameter.)
   * Mixed precision (since 1.8): in a run with precision = "bf16" or "fp16"
   * the parameters a strategy is created over are bf16 (or f16) host tensors,
   * values and gradients alike, and optim_update takes them as they are:
   * the state then holds 1 + the optimizer's floats per element, the first
   * being the f32 master copy of the parameter, which the host updates and
   * rounds `param` from (an fp16 gradient is first divided by the scale it
   * was multiplied by; a step the loss scaler skips leaves all of it be).
   * In such a run a strategy calls optim_check and optim_update from `step`
   * only, updates every slice it holds on every applied step (the first
   * applied step sets the masters from the parameters), and does not write
   * `value` otherwise: the master would overwrite it at the next update. A
   * strategy built before 1.8 is not given such a run: it may take the
   * tensors for f32. */
  dtb_status_t (*optim_update)(dtb_host_ctx_t ctx, dtb_tensor_t* param, const dtb_tensor_t* grad,
                               float* state, uint32_t param_index);

  /* Model parameter storage (since 1.2: check with DTB_HAS_SERVICE) -----------
   * For a strategy that keeps a parameter's values or gradient in memory of
   * its own (ZeRO's shards, flat buffers): gives the model's own storage of
   * that part back to the system, so a partitioned model is not also resident
   * in full. The model's pointer to it is gone for good; if the part's `data`
   * still pointed there it is set to NULL, and it is the strategy's to point
   * at memory it owns before the model next reads it (for a value: by the
   * layer's layer_begin hook; for a gradient: in backward's layer_begin), and
   * to set to NULL before the strategy is destroyed. Strategies only; the
   * model must implement release_param (model.h), else
   * DTB_STATUS_UNSUPPORTED and the model keeps its storage. In a
   * mixed-precision run (1.8) the parameters are the host's bf16 / fp16
   * copies: theirs is the storage given back, and the model keeps its f32
   * arrays, from which it computes. Not thread-safe:
   * call it on the training thread (in create or a hook), as the model's
   * release_param runs on the caller's thread. */
  dtb_status_t (*param_release)(dtb_host_ctx_t ctx, struct dtb_param* param, dtb_param_part_t part);

  /* GPU ordering (since 1.4: check with DTB_HAS_SERVICE) -----------------------
   * The communicator's later collectives run on `stream` (a cudaStream_t of
   * the communicator's GPU), as the backend's set_stream (backend.h) says:
   * each starts after the kernels enqueued there before it was issued, and
   * kernels enqueued there after it was issued start after it ends. NULL:
   * the backend's own stream, ordered with nothing (the strategy orders with
   * comm_wait). A backend without GPU streams (Gloo, MPI) gives
   * DTB_STATUS_UNSUPPORTED for a non-NULL stream. Strategies only. */
  dtb_status_t (*comm_set_stream)(dtb_host_ctx_t ctx, void* stream);

  /* Waits for communication elsewhere (since 1.6: check with DTB_HAS_SERVICE)
   * The calling thread was blocked from begin_ns to end_ns (now_ns() clock)
   * waiting for communication that runs elsewhere: on a thread of the
   * strategy's own (Horovod's cycle thread), which the host cannot see.
   * Called on the training thread inside a step, the span counts as exposed
   * communication and is taken out of the phase it fell in (as the host does
   * for the training thread's own comm_wait and comm_test poll loops: do not
   * declare those again); anywhere else (another thread, create, the epoch
   * hooks) it is ignored, as is a span with end_ns < begin_ns. Only the wait
   * belongs in the span, not the strategy's own work around it: what it
   * computes in finish_backward is its optimizer phase. Strategies only
   * (other kinds' calls are ignored); C++: dtb::WaitMark (wait_mark.hpp). */
  void (*comm_waited)(dtb_host_ctx_t ctx, int64_t begin_ns, int64_t end_ns);

  /* Tensor copies on any device (since 1.7: check with DTB_HAS_SERVICE) ------
   * dst[dst_offset + i] = scale * src[src_offset + i], plus dst[dst_offset + i]
   * when `accumulate` is non-zero, for i < count; with `src` NULL, zeros
   * (scale, src_offset and accumulate unused). f32 tensors (since 1.10 also
   * f16 and bf16, and conversions between the three: computed in f32,
   * rounded to nearest even into dst's dtype), both in host memory or both
   * on one GPU, the ranges inside them (else DTB_STATUS_INVALID_ARGUMENT);
   * overlapping ranges only as the same range of one dtype (in place). What a strategy needs to fill buckets
   * and fusion buffers and copy results back, wherever the model's tensors live. Between host memory and a
   * GPU only a plain copy (scale 1, accumulate 0), done when it returns, after the GPU work queued before it.
   * In host memory it is done when it returns. On a GPU it is queued on the host's stream for that GPU, and
   * runs in order with the run's collectives there (a GPU backend's, unless the strategy set its own stream
   * with comm_set_stream; one staged through host memory waits for it) and with optim_update; the host's next
   * forward waits for all of it. What it queues on a gradient in grad_ready runs after the model computed the
   * gradient (model.h's gpu_stream: the host orders its streams after the model's).
   * Strategies only (others get DTB_STATUS_UNSUPPORTED). */
  dtb_status_t (*tensor_copy)(dtb_host_ctx_t ctx, const dtb_tensor_t* dst, uint64_t dst_offset,
                              const dtb_tensor_t* src, uint64_t src_offset, uint64_t count, float scale,
                              int32_t accumulate);

  /* Mixed precision's overflow check (since 1.8: check with DTB_HAS_SERVICE)
   * Once per optimizer step, on every rank, before its first optim_update:
   * `grads` are the `count` gradient tensors (or slices) this rank will
   * update from, after their reduction. In an fp16 run the host looks for an
   * inf or NaN in them and in this rank's gradients before the reduction,
   * agrees with every other rank (one all-reduce of a flag, as DeepSpeed),
   * updates the loss scale, and sets *apply to 0 when the step is skipped
   * on every rank: the strategy then leaves its optim_update calls out (the
   * host would leave parameters, masters and moments be anyway). With
   * gradient_clipping set, the host measures the L2 norm of `grads` (a
   * rank handing fewer elements than the parameters hold has a shard, and
   * the shards' squares are summed over the ranks) and the step's updates
   * are clipped by it. In other runs *apply is 1 at once, without
   * communicating. A strategy that takes fp16 parameters, or may be run
   * with gradient_clipping, must call it with every gradient it updates
   * from (C++: dtb::OptimizerState::update and dtb::stepApplies do); else
   * the host refuses its optim_update in such a run. Called again in the same step (several
   * parameter groups), it gives the same answer without communicating.
   * Strategies only. */
  dtb_status_t (*optim_check)(dtb_host_ctx_t ctx, const dtb_tensor_t* grads, uint32_t count, int32_t* apply);

  /* Point-to-point messages (since 1.9: check with DTB_HAS_SERVICE) --------
   * For a strategy whose ranks do not all take part in every exchange: a
   * parameter server's pushes and pulls. comm_send sends `buffer` to rank
   * `peer`; comm_recv receives into `buffer` the message `peer` sent with the
   * same `tag` (below 2^24), which must hold exactly as many bytes. Between
   * two ranks, the messages of one tag arrive in the order they were sent.
   * Unlike collectives they need not be issued in the same order on every
   * rank, nor by every rank, and they never match a collective. Both return
   * a request at once, waited for and tested as a collective's (comm_wait,
   * comm_test); `buffer` stays untouched (send) or unread (recv) until it
   * completes. A message not completed within the run's collective timeout
   * of being posted fails, waited for or not, and leaves the communicator
   * unusable: post a receive only for a message that will come. Host memory only. A backend without them
   * (backend.h's DTB_BACKEND_CAP_SEND_RECV: Gloo has them; MPI and NCCL not yet) gives DTB_STATUS_UNSUPPORTED
   * with a message naming it; so does a peer equal to this rank or outside the world
   * (DTB_STATUS_INVALID_ARGUMENT). Counted as operations; a send's bytes are its data size and bus bytes, a
   * receive's are the sender's. Strategies only. */
  dtb_status_t (*comm_send)(dtb_host_ctx_t ctx, const dtb_tensor_t* buffer, int32_t peer, uint32_t tag,
                            dtb_request_t* out_request);
  dtb_status_t (*comm_recv)(dtb_host_ctx_t ctx, dtb_tensor_t* buffer, int32_t peer, uint32_t tag,
                            dtb_request_t* out_request);

  /* Several optimizer updates at once (since 1.12: check with DTB_HAS_SERVICE)
   * optim_update(ctx, &params[i], &grads[i], states[i], param_indices[i])
   * for each i < count (the arrays hold `count` elements each; states[i] may
   * be NULL where optim_update's may), as if called in that order,
   * except that every slice is checked before any is updated: a bad one
   * (DTB_STATUS_INVALID_ARGUMENT, its message naming the slice's index)
   * leaves every parameter and state as it was. Slices on a GPU are queued
   * as a few multi-tensor kernels (up to 64 slices each, as PyTorch's fused
   * optimizers) instead of a kernel per slice, unless the run sets
   * fused_optimizer = false; slices in host memory are updated one after
   * the other, as by optim_update. What a strategy updating many parameters
   * a step (a replica's every parameter, ZeRO's slices) should call where
   * the host has it: ResNet-50 has 161 parameters, and their updates
   * launched one by one cost a GPU more in launches than in arithmetic.
   * The slices must not overlap. C++: dtb::OptimizerUpdates
   * (optimizer_updates.hpp) calls it, or optim_update under an older host. */
  dtb_status_t (*optim_update_many)(dtb_host_ctx_t ctx, dtb_tensor_t* params, const dtb_tensor_t* grads,
                                    float* const* states, const uint32_t* param_indices, uint32_t count);
} dtb_host_t;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DTBENCH_DTBENCH_H */
