/* pool.h — internal: run fn(ctx, i) for i in [0, n) on a pool of threads.
 * Work is handed out by an atomic counter; results go wherever fn puts them
 * (by index), so the outcome does not depend on the thread count. */
#ifndef WEFT_SEARCH_POOL_H
#define WEFT_SEARCH_POOL_H

#include <stddef.h>

#include "weft.h"

/* threads <= 0: every online core. Only indices i with i % nranks == rank
 * are run. progress (may be NULL) is called from one thread at most every
 * ~100 ms and once at the end with done == total (total = the rank's share). */
int weft_pool_run(size_t n, int threads, size_t rank, size_t nranks,
                  void (*fn)(void *ctx, size_t i), void *ctx,
                  void (*progress)(void *pctx, size_t done, size_t total), void *pctx);

#endif
