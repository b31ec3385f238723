/* heap.h — the simulator's event queue: a binary min-heap ordered by
 * (time, insertion counter), so equal-time events pop in the order pushed
 * and every run is reproducible. */
#ifndef WEFT_SIM_HEAP_H
#define WEFT_SIM_HEAP_H

#include <stddef.h>

typedef struct {
  double t_ns;
  unsigned long long seq;  /* insertion counter: the tie-break */
  int kind, id;            /* what happens, and to whom (the owner's meaning) */
} SimEvent;

typedef struct {
  SimEvent *a;
  size_t n, cap, peak;
  unsigned long long seq;
} SimHeap;

void sim_heap_init(SimHeap *h);
void sim_heap_free(SimHeap *h);
int sim_heap_push(SimHeap *h, double t_ns, int kind, int id);  /* 0 or WEFT_ENOMEM */
/* The earliest event's time, HUGE_VAL when empty. */
double sim_heap_top(const SimHeap *h);
/* Remove the earliest event into *ev; 0 when empty. */
int sim_heap_pop(SimHeap *h, SimEvent *ev);

#endif
