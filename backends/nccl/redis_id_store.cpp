// RedisIdStore is header-only; this unit makes the plugin compile (and so
// check) it in builds with hiredis, and nowhere else.
#include "redis_id_store.h"
