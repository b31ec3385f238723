/* flow_impl.h — internal to the flow engine (flow.c: storage, events, time;
 * flow_share.c: the components to refill, max-min and FIFO rates). */
#ifndef WEFT_SIM_FLOW_IMPL_H
#define WEFT_SIM_FLOW_IMPL_H

#include "sim/flow.h"

/* Rates depend only on the flows that share links, transitively: a start
 * or a completion marks its links, and a max-min recompute refills just the
 * connected components of the marked links (FIFO, whose rates depend on a
 * flow's own links only, looks at the oldest flow of each marked link);
 * everything else keeps its rate and finish. Bytes are brought up to date per flow and per link (left at
 * t0, carried until t0), so an untouched flow costs nothing per event.
 * Flows live in slots in start order (append only; compacted when half are
 * gone), so slot order is start order and scans are sequential. */

typedef struct { int flow, hop; } Ent;  /* a flow on a link: its slot, its hop index */
typedef struct { int link, pos; } Hop;  /* a path hop: link, place in the link's list */

typedef struct {
  /* first cache line: what searches, fills and completions touch */
  double rate;      /* carried: the sum of its flows' rates, since t0 */
  double bytes;     /* carried until t0 (completed flows' last bytes included) */
  double t0;
  double res;       /* water-filling: residual capacity */
  double cap;       /* bytes/ns */
  Ent *e;           /* active flows on the link, unordered (swap-remove) */
  int n;
  int nu;           /* water-filling: flows not yet frozen */
  unsigned long long seen;  /* stamp of the last component search that reached it */
  /* the rest */
  double key;       /* water-filling: fair share res / nu */
  int ecap;
  int hpos;         /* index in fs->lheap, -1 when not in it */
  int from, to;
  int marked;       /* in fs->mark: to recompute */
  int touched;      /* water-filling: in fs->touch */
} Link;

typedef struct {
  double left, t0;  /* bytes left at t0 */
  double rate;      /* bytes/ns since t0 */
  double slack;     /* done when its finish is this close: FLOW_DONE_TOL of its
                       time to finish at its last rate change (flow.c) */
  unsigned long long tag;
  unsigned long long stamp;  /* search, fill and take stamps */
  int off, nhops;   /* path in fs->hop; nhops 0 = a completed flow's slot */
} Flow;

/* A finish-heap entry, its key inline so sifting touches no flow. Entries
 * are not removed when a finish changes: a new one is pushed, and an entry
 * whose finish no longer matches its slot's is stale, skipped. (An old entry
 * may match again, a duplicate: the first one taken completes the flow,
 * whose finish becomes HUGE_VAL.) Ties by slot, i.e. start order. */
typedef struct {
  double finish;
  int slot;
} FEnt;

struct WeftFlowSim {
  WeftSharing sharing;
  int nlinks;
  Link *link;
  int *mark, nmark;        /* links whose flows changed since the last recompute */
  int *work;               /* the links of the components being refilled */
  int *lheap, nheap;       /* water-filling: links by (key, id) */
  int *touch;              /* water-filling: links changed by one freeze */
  Flow *flow;              /* slots [0, flen), start order */
  double *fin;             /* finish per slot (ns); HUGE_VAL: not sending or done */
  int flen, fcap;
  size_t nflows;           /* active */
  int *comp, *tmp;         /* flows being refilled or completed; sort scratch */
  FEnt *fh;                /* min-heap of finishes, stale entries included */
  size_t nfh;              /* at most 2 x flen + 64, then rebuilt */
  int heap_ok;             /* fh has an entry for every sending flow; else scans */
  int local_run;           /* local recomputes in a row */
  int scan_ok;             /* scan_next is the smallest finish */
  double scan_next;
  Hop *hop;                /* paths in start order, with gaps */
  size_t hop_len, hop_cap, hop_live;
  unsigned long long *done;  /* completed tags not yet handed out */
  size_t done_head, done_len, done_cap;
  double now;
  double max_slack;        /* at least every active flow's slack: where to look */
  unsigned long long stamp;
};

/* Bring link L's carried bytes up to now. */
static inline void flow_link_sync(WeftFlowSim *fs, Link *L) {
  L->bytes += L->rate * (fs->now - L->t0);
  L->t0 = fs->now;
}

/* The connected components of the marked links: links into fs->work, flows
 * into fs->comp (counts into *nlinks, *nflows), stamped (the stamp is
 * returned) and their bytes brought up to now. */
unsigned long long flow_collect(WeftFlowSim *fs, int *nlinks, int *nflows);
/* Max-min fair rates of the flows on the links fs->work[nw] (whole components). */
void flow_fill_maxmin(WeftFlowSim *fs, int nw);
/* FIFO rates after the marked links changed: the flows whose rate changed
 * into fs->comp (brought up to now), their count returned. */
int flow_fifo_update(WeftFlowSim *fs);
/* Slots v[n], all stamped st, into increasing (start) order. */
void flow_start_order(WeftFlowSim *fs, int *v, int n, unsigned long long st);

#endif
