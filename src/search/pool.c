/* pool.c — a tiny thread pool for independent design points: an atomic
 * counter hands out indices, so which thread runs a point never matters. */
#include "search/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  size_t n, rank, nranks, share;
  atomic_size_t next, done;
  void (*fn)(void *, size_t);
  void *ctx;
  void (*progress)(void *, size_t, size_t);
  void *pctx;
  double last_report;
} Pool;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  Pool *pool;
  int reporter;  /* the calling thread reports progress; the others do not */
} Worker;

static void *worker(void *arg) {
  Worker *w = arg;
  Pool *p = w->pool;
  for (;;) {
    size_t k = atomic_fetch_add(&p->next, 1);  /* k-th point of this rank */
    if (k >= p->share) break;
    p->fn(p->ctx, p->rank + k * p->nranks);
    size_t d = atomic_fetch_add(&p->done, 1) + 1;
    if (w->reporter && p->progress && d < p->share) {
      double t = now_s();
      if (t - p->last_report >= 0.1) {  /* a bar, not a log: ~10 updates/s */
        p->last_report = t;
        p->progress(p->pctx, d, p->share);
      }
    }
  }
  return NULL;
}

int weft_pool_run(size_t n, int threads, size_t rank, size_t nranks,
                  void (*fn)(void *ctx, size_t i), void *ctx,
                  void (*progress)(void *pctx, size_t done, size_t total), void *pctx) {
  if (!fn || nranks == 0 || rank >= nranks) return WEFT_EINVAL;
  Pool p = {.n = n, .rank = rank, .nranks = nranks, .fn = fn, .ctx = ctx,
            .progress = progress, .pctx = pctx};
  p.share = n > rank ? (n - rank + nranks - 1) / nranks : 0;
  atomic_init(&p.next, 0);
  atomic_init(&p.done, 0);
  p.last_report = now_s();
  if (threads <= 0) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    threads = c > 0 ? (int)c : 1;
  }
  if ((size_t)threads > p.share) threads = p.share > 0 ? (int)p.share : 1;
  int extra = threads - 1;
  pthread_t *tid = extra > 0 ? malloc((size_t)extra * sizeof *tid) : NULL;
  Worker others = {&p, 0}, self = {&p, 1};
  int started = 0;
  if (extra > 0 && tid)
    for (; started < extra; started++)
      if (pthread_create(&tid[started], NULL, worker, &others) != 0) break;
  worker(&self);  /* this thread works too, and reports */
  for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
  free(tid);
  if (progress) progress(pctx, p.share, p.share);
  return WEFT_OK;
}
