/*
 * example_c — a complete strategy plugin in plain C11, and the template to
 * copy for a new strategy (see docs/writing-a-strategy.md).
 *
 * It is the naive data-parallel baseline: after backward, one all-reduce per
 * gradient tensor, all issued at once and then waited for; then the host's
 * optimizer updates every parameter. It uses only the ABI headers and the
 * host services table, like every strategy.
 */
#include <stdio.h>
#include <string.h>

#include "dtbench/strategy.h"

typedef struct example_c {
  const dtb_host_t* host;
  dtb_param_t* const* params;
  uint32_t param_count;
  dtb_reduce_op_t op;
  int64_t wait_timeout_ms;
  dtb_request_t* requests; /* one per parameter, reused every step */
  float** states;          /* optimizer state per parameter (NULL if stateless) */
} example_c;

/* Reports `message` through the host and returns `status`: every failing
 * call of the ABI gives a reason. */
static dtb_status_t fail(const dtb_host_t* host, dtb_status_t status, const char* message) {
  host->set_error(host->ctx, message);
  return status;
}

static void example_destroy(void* self) {
  example_c* s = (example_c*)self;
  if (s == NULL) return;
  const dtb_host_t* host = s->host;
  if (s->states != NULL) {
    for (uint32_t i = 0; i < s->param_count; ++i) host->free(host->ctx, s->states[i]);
  }
  host->free(host->ctx, s->states);
  host->free(host->ctx, s->requests);
  host->free(host->ctx, s);
}

static dtb_status_t example_create(const dtb_host_t* host, const dtb_strategy_setup_t* setup, void** out) {
  if (setup->param_count > 0 && setup->params == NULL) {
    return fail(host, DTB_STATUS_INVALID_ARGUMENT, "example_c: param_count > 0 but params is NULL");
  }
  if (setup->accumulation_steps > 1) {
    /* Models write, not add, gradients: accumulating them is a strategy's job. */
    return fail(host, DTB_STATUS_UNSUPPORTED,
                "example_c does not accumulate gradients over micro-batches: set accumulation_steps = 1");
  }
  const dtb_device_t cpu = {DTB_DEVICE_HOST, 0};
  example_c* s = NULL;
  dtb_status_t status = host->alloc(host->ctx, sizeof(example_c), cpu, DTB_MEM_OTHER, (void**)&s);
  if (status != DTB_STATUS_OK) return status;
  memset(s, 0, sizeof(*s));
  s->host = host;
  s->params = setup->params;
  s->param_count = setup->param_count;

  const char* op = NULL;
  if ((status = host->config_get_string(host->ctx, "op", &op)) != DTB_STATUS_OK ||
      (status = host->config_get_int(host->ctx, "wait_timeout_ms", &s->wait_timeout_ms)) != DTB_STATUS_OK) {
    example_destroy(s);
    return status;
  }
  s->op = strcmp(op, "sum") == 0 ? DTB_REDUCE_SUM : DTB_REDUCE_AVG;

  /* Requests and optimizer state are allocated through the host, so they
   * show up in the run's memory figures. */
  const uint64_t n = s->param_count;
  status = host->alloc(host->ctx, n * sizeof(dtb_request_t), cpu, DTB_MEM_BUFFERS, (void**)&s->requests);
  if (status == DTB_STATUS_OK) {
    status = host->alloc(host->ctx, n * sizeof(float*), cpu, DTB_MEM_OTHER, (void**)&s->states);
    if (s->states != NULL) memset(s->states, 0, n * sizeof(float*));
  }
  const uint32_t floats = host->optim_state_floats(host->ctx);
  for (uint32_t i = 0; status == DTB_STATUS_OK && i < s->param_count && floats > 0; ++i) {
    const uint64_t bytes = s->params[i]->value.count * floats * sizeof(float);
    status = host->alloc(host->ctx, bytes, cpu, DTB_MEM_OPTIMIZER, (void**)&s->states[i]);
    if (status == DTB_STATUS_OK && s->states[i] != NULL) memset(s->states[i], 0, bytes);
  }
  if (status != DTB_STATUS_OK) {
    example_destroy(s);
    return status;
  }
  *out = s;
  return DTB_STATUS_OK;
}

static dtb_status_t example_finish_backward(void* self) {
  example_c* s = (example_c*)self;
  const dtb_host_t* host = s->host;
  /* Issue every all-reduce first, then wait: the backend may overlap them. */
  uint32_t issued = 0;
  dtb_status_t status = DTB_STATUS_OK;
  for (; issued < s->param_count; ++issued) {
    status = host->comm_allreduce(host->ctx, &s->params[issued]->grad, s->op, &s->requests[issued]);
    if (status != DTB_STATUS_OK) break;
  }
  /* Every issued request is waited exactly once, even after a failure. */
  for (uint32_t i = 0; i < issued; ++i) {
    dtb_status_t waited = host->comm_wait(host->ctx, s->requests[i], s->wait_timeout_ms);
    if (status == DTB_STATUS_OK) status = waited;
  }
  return status;
}

static dtb_status_t example_step(void* self) {
  example_c* s = (example_c*)self;
  for (uint32_t i = 0; i < s->param_count; ++i) {
    dtb_param_t* p = s->params[i];
    dtb_status_t status = s->host->optim_update(s->host->ctx, &p->value, &p->grad, s->states[i], p->index);
    if (status != DTB_STATUS_OK) return status;
  }
  return DTB_STATUS_OK;
}

static dtb_status_t example_memory_report(void* self, dtb_memory_report_t* out) {
  example_c* s = (example_c*)self;
  uint64_t elements = 0;
  for (uint32_t i = 0; i < s->param_count; ++i) elements += s->params[i]->value.count;
  const uint64_t floats = s->host->optim_state_floats(s->host->ctx);
  out->param_bytes = elements * sizeof(float);
  out->grad_bytes = elements * sizeof(float);
  out->optimizer_bytes = elements * floats * sizeof(float);
  out->buffer_bytes = 0;
  return DTB_STATUS_OK;
}

static const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "op", DTB_PARAM_STRING, "avg",
     "How gradients are combined: avg divides the sum by the world size", 0, 0, 0, "avg|sum"},
    {sizeof(dtb_param_spec_t), "wait_timeout_ms", DTB_PARAM_INT, "-1",
     "Bound on each all-reduce wait in ms; -1 uses the run's collective timeout", DTB_PARAM_HAS_MIN, -1, 0,
     NULL},
};

static const dtb_strategy_plugin_v1_t kDescriptor = {
    .header = {.struct_size = sizeof(dtb_strategy_plugin_v1_t),
               .abi_version = DTB_ABI_VERSION,
               .kind = DTB_PLUGIN_STRATEGY,
               .name = "example_c",
               .version = "1.0.0",
               .description = "Example in plain C: one all-reduce per gradient after backward",
               .params = kParams,
               .param_count = sizeof(kParams) / sizeof(kParams[0])},
    .create = example_create,
    .destroy = example_destroy,
    .finish_backward = example_finish_backward,
    .step = example_step,
    .memory_report = example_memory_report,
};

const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void) { return &kDescriptor; }
