/*
 * backend.h — the communication backend plugin ABI (Gloo, MPI, NCCL, ...).
 *
 * A backend turns rendezvous data into a communicator and runs asynchronous
 * collectives on it. Strategies never call a backend directly: the host wraps
 * it (dtb_host_t.comm_*), counting bytes and collectives and applying
 * timeouts, so every backend is measured the same way.
 *
 * Entry symbol: `const dtb_backend_plugin_v1_t* dtb_backend_plugin_v1(void);`
 */
#ifndef DTBENCH_BACKEND_H
#define DTBENCH_BACKEND_H

#include "dtbench/dtbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Capability bits (dtb_backend_plugin_v1_t.capabilities). */
#define DTB_BACKEND_CAP_HOST_MEMORY 0x1u /* accepts tensors on DTB_DEVICE_HOST */
#define DTB_BACKEND_CAP_CUDA_MEMORY 0x2u /* accepts tensors on DTB_DEVICE_CUDA */
#define DTB_BACKEND_CAP_ALLREDUCE 0x10u
#define DTB_BACKEND_CAP_REDUCE_SCATTER 0x20u
#define DTB_BACKEND_CAP_ALLGATHER 0x40u
#define DTB_BACKEND_CAP_BROADCAST 0x80u
#define DTB_BACKEND_CAP_BARRIER 0x100u
#define DTB_BACKEND_CAP_SEND_RECV 0x200u /* point-to-point send and recv (since 1.9) */
#define DTB_BACKEND_CAP_REBUILD                        \
  0x1000u /* a new communicator can be made in-process \
             after a peer failed (elastic) */

/* How the ranks of one communicator find each other. Owned by the host,
 * borrowed for create. Exactly one of store_path / store_address is set. */
typedef struct dtb_rendezvous {
  uint32_t struct_size;
  int32_t rank;
  int32_t world_size;
  int32_t local_rank; /* rank among the processes of this host */
  int32_t local_size;
  /* A directory shared by all ranks holding a file key-value store (local
   * runs: a temporary directory). NULL when store_address is used. */
  const char* store_path;
  /* "host:port" of a TCP key-value store (e.g. Redis), possibly with
   * credentials first ("user:password@host:port", ":password@host:port"):
   * never print or store those. NULL if unused. */
  const char* store_address;
  /* Key prefix separating communicators that share a store (each matrix cell
   * and each elastic re-rendezvous gets a fresh one). */
  const char* prefix;
  /* Address or interface this rank's transport binds, e.g. "127.0.0.1". */
  const char* bind_address;
  int64_t timeout_ms; /* bound on rendezvous and on each collective */
  /* Since 1.4: for a backend declaring DTB_BACKEND_CAP_CUDA_MEMORY, the GPU
   * this rank works on, chosen by the host from the local rank (local_rank
   * modulo the GPUs visible to the process), or DTB_DEVICE_HOST when no GPU
   * is usable; DTB_DEVICE_HOST for every other backend (the host does not
   * touch CUDA for them). Read it with DTB_HAS_MEMBER; a GPU backend given
   * an older rendezvous uses GPU local_rank. */
  dtb_device_t device;
  /* Since 1.5 (read it with DTB_HAS_MEMBER; absent means 0): nonzero when
   * the host guards every wait(): a wait() still inside the backend this
   * many milliseconds after the later of its own timeout and timeout_ms
   * ends the process, with an error naming the rank and the backend. A
   * backend may then run a collective in the waiting thread inside a call
   * it cannot interrupt (a blocking MPI collective) when the wait's timeout
   * is at least timeout_ms. 0: every wait() returns by its timeout. */
  int64_t wait_guard_ms;
} dtb_rendezvous_t;

/* Traffic this rank has put on the wire since create. */
typedef struct dtb_comm_counters {
  uint32_t struct_size; /* set by the host */
  uint64_t bytes_sent;
  uint64_t bytes_received;
  uint64_t collectives;
  /* Nanoseconds this rank's backend spent executing collectives (on the wire
   * or reducing), whether or not anyone was waiting for them: the total
   * communication time that overlap hides part of. Since 1.1: check with
   * DTB_HAS_MEMBER. A backend that does not measure it (since 1.4) sets
   * struct_size to offsetof(dtb_comm_counters_t, busy_ns), and the host
   * reports no busy time rather than none spent. */
  uint64_t busy_ns;
} dtb_comm_counters_t;

/*
 * All collective calls start the operation and return at once with a request
 * the backend owns; the host passes it to wait() (or polls test()) and then,
 * exactly once, to request_free(). Calls on one communicator come from one
 * thread at a time, in the same order on every rank; different communicators
 * are independent. Buffers must stay valid until the request completes.
 * An operation on a dtype, op or memory the backend does not support fails
 * at once with DTB_STATUS_UNSUPPORTED.
 */
typedef struct dtb_backend_plugin_v1_s {
  dtb_plugin_header_t header; /* kind = DTB_PLUGIN_BACKEND */
  uint32_t capabilities;      /* DTB_BACKEND_CAP_* */

  /* Joins the rendezvous and connects all ranks, within rdv->timeout_ms. */
  dtb_status_t (*create)(const dtb_host_t* host, const dtb_rendezvous_t* rdv, void** out_comm);
  /* Tears down; pending requests are abandoned. */
  void (*destroy)(void* comm);

  /* In place over `buffer`. */
  dtb_status_t (*allreduce)(void* comm, dtb_tensor_t* buffer, dtb_reduce_op_t op, dtb_request_t* out_request);
  /* input.count = world x output.count; rank r gets the reduced r-th block. */
  dtb_status_t (*reduce_scatter)(void* comm, const dtb_tensor_t* input, dtb_tensor_t* output,
                                 dtb_reduce_op_t op, dtb_request_t* out_request);
  /* output.count = world x input.count; block r holds rank r's input.
   * Since 1.2 input may be this rank's own block of output (in place, as
   * NCCL allows; MPI spells it MPI_IN_PLACE); any other overlap fails. */
  dtb_status_t (*allgather)(void* comm, const dtb_tensor_t* input, dtb_tensor_t* output,
                            dtb_request_t* out_request);
  dtb_status_t (*broadcast)(void* comm, dtb_tensor_t* buffer, int32_t root, dtb_request_t* out_request);
  dtb_status_t (*barrier)(void* comm, dtb_request_t* out_request);

  /* *out_done = 1 when the request finished (successfully or not; wait()
   * then returns its status at once). */
  dtb_status_t (*test)(void* comm, dtb_request_t request, int32_t* out_done);
  /* Blocks until done or timeout_ms elapsed (DTB_STATUS_TIMEOUT); a failed
   * peer gives DTB_STATUS_COMM_FAILURE. Never blocks forever: past its
   * timeout only where the rendezvous' wait_guard_ms allows it (1.5). */
  dtb_status_t (*wait)(void* comm, dtb_request_t request, int64_t timeout_ms);
  void (*request_free)(void* comm, dtb_request_t request);

  /* (optional) Wire traffic counters. NULL: the host counts the logical
   * bytes of each collective itself. */
  dtb_status_t (*counters)(void* comm, dtb_comm_counters_t* out);

  /* (optional, since 1.4: read it only when header.struct_size covers it)
   * GPU backends: the collectives issued after this call run on `stream` (a
   * cudaStream_t of the communicator's device), as NCCL's own calls take a
   * stream: each starts after the kernels enqueued on `stream` before it was
   * issued, and kernels enqueued there after it was issued start after it
   * ends. A strategy that wants communication to overlap its compute gives
   * a stream of its own for communication and orders the two with events.
   * wait() still blocks the calling thread until the collective ends,
   * watched against its timeout. NULL: the backend's own stream again,
   * ordered with nothing (the caller orders with wait()). NULL member: the
   * backend has no streams; the host refuses a non-NULL stream for it. */
  dtb_status_t (*set_stream)(void* comm, void* stream);

  /* (optional, since 1.9: read them only when header.struct_size covers
   * them and the capabilities have DTB_BACKEND_CAP_SEND_RECV) Point-to-point
   * messages: `buffer` to rank `peer`, or from it, matched by `tag` (below
   * 2^24); between two ranks the messages of one tag arrive in the order
   * sent, and the receiver's buffer holds exactly the bytes sent. They are
   * not collectives: they may be issued from any thread at any point,
   * between and during collectives, and neither waits for nor matches a
   * collective. The request is tested, waited for and freed as a
   * collective's. A message not completed within the rendezvous'
   * timeout_ms of being posted fails with DTB_STATUS_TIMEOUT whether or not
   * anyone waits for it, and (as a collective's timeout) leaves the
   * communicator unusable: post a receive only for a message that will come. */
  dtb_status_t (*send)(void* comm, const dtb_tensor_t* buffer, int32_t peer, uint32_t tag,
                       dtb_request_t* out_request);
  dtb_status_t (*recv)(void* comm, dtb_tensor_t* buffer, int32_t peer, uint32_t tag,
                       dtb_request_t* out_request);
} dtb_backend_plugin_v1_t;

typedef dtb_backend_plugin_v1_t dtb_backend_plugin_t;
#define DTB_BACKEND_ENTRY dtb_backend_plugin_v1
typedef const dtb_backend_plugin_v1_t* (*dtb_backend_entry_v1_fn)(void);

/* The entry symbol a backend plugin defines (and the only symbol it exports).
 * Returns a descriptor that stays valid while the library is loaded. */
DTB_EXPORT const dtb_backend_plugin_v1_t* dtb_backend_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* DTBENCH_BACKEND_H */
