/*
 * strategy.h — the strategy plugin ABI: how gradients are synchronised and
 * the optimizer applied.
 *
 * One training step, as the host drives it:
 *
 *   before_forward(step)          once per micro-batch
 *   forward:   layer_begin(l, FORWARD) before each layer
 *   backward:  layer_begin(l, BACKWARD) before each layer,
 *              grad_ready(p) as each gradient becomes final
 *   finish_backward()             waits for the last reductions (exposed
 *                                 communication) and computes (optimizer)
 *   step()                        on the last micro-batch of a step only
 *
 * and around one epoch (since 1.3), outside any step:
 *
 *   the epoch's steps, as above
 *   before_evaluation(epoch)      after the last step's step(), before the
 *                                 host's forward passes over the test split
 *   (evaluation: forward only, through layer_begin; no grad_ready, no step)
 *   end_epoch(epoch)              after evaluation; the next epoch's first
 *                                 before_forward comes after it
 *
 * The phases of a step (forward, backward, exposed communication, optimizer)
 * are timed around the calls above. Exposed communication is the time the
 * training thread is blocked waiting for communication, in any hook: each
 * comm_wait and comm_test poll loop it makes, and each wait the strategy
 * declares with comm_waited (for collectives running on a thread of its
 * own, since 1.6); each is taken out of the phase it happened in. The
 * optimizer phase is the strategy's step and its own computation after
 * backward: step() and what is left of finish_backward (top-k selection,
 * compression, error feedback, copies out of buckets), less their waits. So
 * a finish_backward that only computes is no exposed communication, at any
 * world size. create, before_evaluation and end_epoch belong to no step and
 * to no phase: their time and anything they add with metric_add are not
 * counted (events are kept).
 *
 * A strategy sees only parameter views, the host's communicator and its
 * optimizer kernels (dtb_host_t): never a model or backend directly. That is
 * what makes strategies comparable, and new ones cheap to write.
 * All hooks of one instance are called from one thread (the rank's training
 * thread); a strategy may run its own threads (Horovod's cycle thread) and
 * call the host's comm_* from them: the host hands one communicator's calls
 * to the backend one at a time (dtbench.h, Communicator).
 *
 * Entry symbol: `const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void);`
 */
#ifndef DTBENCH_STRATEGY_H
#define DTBENCH_STRATEGY_H

#include "dtbench/dtbench.h"
#include "dtbench/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the strategy works on. Owned by the host, borrowed for create; the
 * params array and records stay valid until destroy. */
typedef struct dtb_strategy_setup {
  uint32_t struct_size;
  dtb_param_t* const* params; /* registration order */
  uint32_t param_count;
  uint32_t layer_count;
  dtb_device_t device;
  /* Micro-batches per optimizer step (gradient accumulation); >= 1. */
  uint32_t accumulation_steps;
} dtb_strategy_setup_t;

typedef struct dtb_step_info {
  uint32_t struct_size;
  uint64_t step; /* optimizer steps completed so far in the run */
  uint32_t epoch;
  uint32_t micro_step; /* 0 .. accumulation_steps-1 */
  uint32_t accumulation_steps;
} dtb_step_info_t;

/* Bytes this rank holds, per category, as the strategy lays them out. */
typedef struct dtb_memory_report {
  uint32_t struct_size; /* set by the host */
  uint64_t param_bytes;
  uint64_t grad_bytes;
  uint64_t optimizer_bytes;
  uint64_t buffer_bytes; /* fusion buffers, buckets, gather buffers */
} dtb_memory_report_t;

typedef struct dtb_strategy_plugin_v1_s {
  dtb_plugin_header_t header; /* kind = DTB_PLUGIN_STRATEGY */

  /* Builds the strategy for these parameters. The communicator and optimizer
   * are reached through `host`. */
  dtb_status_t (*create)(const dtb_host_t* host, const dtb_strategy_setup_t* setup, void** out_strategy);
  /* Frees everything; any pending communication is abandoned. */
  void (*destroy)(void* strategy);

  /* (optional) Start of a micro-batch. NULL: nothing to do. */
  dtb_status_t (*before_forward)(void* strategy, const dtb_step_info_t* step);
  /* (optional) Before a layer computes. NULL: nothing to do. */
  dtb_status_t (*layer_begin)(void* strategy, uint32_t layer, dtb_pass_t pass);
  /* (optional) A gradient became final. NULL: nothing to do (all work then
   * happens in finish_backward). */
  dtb_status_t (*grad_ready)(void* strategy, dtb_param_t* param);
  /* After backward: complete gradient synchronisation for this micro-batch.
   * Its waits are exposed communication, the rest of its time the optimizer
   * phase (above); a wait for a thread of the strategy's own is one only
   * when declared with comm_waited. */
  dtb_status_t (*finish_backward)(void* strategy);
  /* Applies the optimizer (host->optim_update) and leaves every rank's
   * parameters ready for the next forward. */
  dtb_status_t (*step)(void* strategy);

  /* (optional) Memory held per rank. NULL: the host assumes a full replica of
   * params, grads and optimizer state and no buffers. */
  dtb_status_t (*memory_report)(void* strategy, dtb_memory_report_t* out);

  /* (optional, for elastic training) Size, save and restore of the state the
   * strategy owns (optimizer state, error feedback, ...), in a format of its
   * own. NULL: the strategy holds no state beyond the parameters. */
  dtb_status_t (*state_size)(void* strategy, uint64_t* out_bytes);
  dtb_status_t (*state_save)(void* strategy, void* buffer, uint64_t bytes);
  dtb_status_t (*state_load)(void* strategy, const void* buffer, uint64_t bytes);

  /* Epoch hooks (since 1.3: the host calls them only when header.struct_size
   * covers them, so a plugin built for 1.2 or older runs as if both were
   * NULL). Both are called on the training thread of every rank, at the same
   * point of the run on every rank, once per epoch, with `epoch` counted
   * from 0 as in dtb_step_info_t; the strategy may issue collectives in
   * them (in the same order on every rank) and must have waited for all of
   * them before it returns. A failure is reported against this plugin
   * ("before_evaluation failed ...") and ends the run. */

  /* (optional, since 1.3) After the epoch's last step() has returned and
   * before the host evaluates the test split: the moment to leave on every
   * rank the model it should evaluate, e.g. ZeRO-3 gathering what forward
   * needs, or local SGD averaging the parameters its ranks let drift apart.
   * Called every epoch, also when the dataset has no test split (then
   * nothing is evaluated), and (since 1.9 hosts) before the host's own
   * end-of-epoch collectives, so a rank that finished its steps can still
   * serve ranks that have not (an asynchronous parameter server). NULL: the
   * parameters as step() left them are evaluated. */
  dtb_status_t (*before_evaluation)(void* strategy, uint32_t epoch);
  /* (optional, since 1.3) After evaluation, which is the epoch's last use of
   * the model, so what before_evaluation set up (gathered parameters) may be
   * undone here, and before the next epoch's first before_forward (none
   * after the last epoch; destroy follows). NULL: nothing to do. */
  dtb_status_t (*end_epoch)(void* strategy, uint32_t epoch);
} dtb_strategy_plugin_v1_t;

typedef dtb_strategy_plugin_v1_t dtb_strategy_plugin_t;
#define DTB_STRATEGY_ENTRY dtb_strategy_plugin_v1
typedef const dtb_strategy_plugin_v1_t* (*dtb_strategy_entry_v1_fn)(void);

/* The entry symbol a strategy plugin defines (and the only symbol it exports).
 * Returns a descriptor that stays valid while the library is loaded. */
DTB_EXPORT const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* DTBENCH_STRATEGY_H */
