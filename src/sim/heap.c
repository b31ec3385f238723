/* heap.c — binary min-heap of events keyed by (time, insertion counter).
 * Memory is the most events pending at once, never the total pushed. */
#include "sim/heap.h"

#include <math.h>
#include <stdlib.h>

#include "weft.h"

void sim_heap_init(SimHeap *h) {
  h->a = NULL;
  h->n = h->cap = h->peak = 0;
  h->seq = 0;
}

void sim_heap_free(SimHeap *h) {
  free(h->a);
  sim_heap_init(h);
}

static int before(const SimEvent *x, const SimEvent *y) {
  return x->t_ns < y->t_ns || (x->t_ns == y->t_ns && x->seq < y->seq);
}

int sim_heap_push(SimHeap *h, double t_ns, int kind, int id) {
  if (h->n == h->cap) {
    size_t nc = h->cap ? 2 * h->cap : 64;
    SimEvent *na = realloc(h->a, nc * sizeof *na);
    if (!na) return WEFT_ENOMEM;
    h->a = na;
    h->cap = nc;
  }
  SimEvent ev = {t_ns, h->seq++, kind, id};
  size_t i = h->n++;
  while (i > 0) { /* sift up */
    size_t parent = (i - 1) / 2;
    if (!before(&ev, &h->a[parent])) break;
    h->a[i] = h->a[parent];
    i = parent;
  }
  h->a[i] = ev;
  if (h->n > h->peak) h->peak = h->n;
  return WEFT_OK;
}

double sim_heap_top(const SimHeap *h) { return h->n ? h->a[0].t_ns : HUGE_VAL; }

int sim_heap_pop(SimHeap *h, SimEvent *ev) {
  if (!h->n) return 0;
  *ev = h->a[0];
  SimEvent last = h->a[--h->n];
  size_t i = 0, n = h->n;
  for (;;) { /* sift the last element down from the root */
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && before(&h->a[c + 1], &h->a[c])) c++;
    if (!before(&h->a[c], &last)) break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (n) h->a[i] = last;
  return 1;
}
