/* abi_surface.c — makes every public type of the C ABI reachable from an
 * exported function, so that `abidw` (libabigail) records it from the debug
 * information of a shared object built from this file alone. The baseline
 * dtbench-abi-v1.xml is this object as built from the released v1 headers;
 * abi_check.sh rebuilds it from the current headers and compares the two.
 *
 * Types are passed by pointer (structs) or by value (enums, handles, function
 * pointer typedefs): abidiff then reports a change to any member of any of
 * them, however deep. A new public type belongs here too. */
#include "dtbench/backend.h"
#include "dtbench/dataset.h"
#include "dtbench/dtbench.h"
#include "dtbench/model.h"
#include "dtbench/strategy.h"

#define DTB_ABI_PROBE(name, type) \
  DTB_EXPORT void dtb_abi_probe_##name(type value) { (void)value; }

/* dtbench.h */
DTB_ABI_PROBE(status, dtb_status_t)
DTB_ABI_PROBE(dtype, dtb_dtype_t)
DTB_ABI_PROBE(device_type, dtb_device_type_t)
DTB_ABI_PROBE(device, const dtb_device_t*)
DTB_ABI_PROBE(tensor, const dtb_tensor_t*)
DTB_ABI_PROBE(param_type, dtb_param_type_t)
DTB_ABI_PROBE(param_spec, const dtb_param_spec_t*)
DTB_ABI_PROBE(plugin_kind, dtb_plugin_kind_t)
DTB_ABI_PROBE(plugin_header, const dtb_plugin_header_t*)
DTB_ABI_PROBE(log_level, dtb_log_level_t)
DTB_ABI_PROBE(mem_category, dtb_mem_category_t)
DTB_ABI_PROBE(reduce_op, dtb_reduce_op_t)
DTB_ABI_PROBE(request, dtb_request_t)
DTB_ABI_PROBE(host_ctx, dtb_host_ctx_t)
DTB_ABI_PROBE(param_part, dtb_param_part_t)
DTB_ABI_PROBE(host, const dtb_host_t*)

/* model.h */
DTB_ABI_PROBE(param, const dtb_param_t*)
DTB_ABI_PROBE(pass, dtb_pass_t)
DTB_ABI_PROBE(mode, dtb_mode_t)
DTB_ABI_PROBE(step_hooks, const dtb_step_hooks_t*)
DTB_ABI_PROBE(model_setup, const dtb_model_setup_t*)
DTB_ABI_PROBE(batch, const dtb_batch_t*)
DTB_ABI_PROBE(forward_result, const dtb_forward_result_t*)
DTB_ABI_PROBE(model_plugin_v1, const dtb_model_plugin_v1_t*)
DTB_ABI_PROBE(model_entry_v1, dtb_model_entry_v1_fn)

/* strategy.h */
DTB_ABI_PROBE(strategy_setup, const dtb_strategy_setup_t*)
DTB_ABI_PROBE(step_info, const dtb_step_info_t*)
DTB_ABI_PROBE(memory_report, const dtb_memory_report_t*)
DTB_ABI_PROBE(strategy_plugin_v1, const dtb_strategy_plugin_v1_t*)
DTB_ABI_PROBE(strategy_entry_v1, dtb_strategy_entry_v1_fn)

/* backend.h */
DTB_ABI_PROBE(rendezvous, const dtb_rendezvous_t*)
DTB_ABI_PROBE(comm_counters, const dtb_comm_counters_t*)
DTB_ABI_PROBE(backend_plugin_v1, const dtb_backend_plugin_v1_t*)
DTB_ABI_PROBE(backend_entry_v1, dtb_backend_entry_v1_fn)

/* dataset.h */
DTB_ABI_PROBE(dataset_info, const dtb_dataset_info_t*)
DTB_ABI_PROBE(split_info, const dtb_split_info_t*)
DTB_ABI_PROBE(dataset_plugin_v1, const dtb_dataset_plugin_v1_t*)
DTB_ABI_PROBE(dataset_entry_v1, dtb_dataset_entry_v1_fn)
