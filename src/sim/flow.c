/* flow.c — the fluid flow engine (WeftFlowSim): flows along explicit paths,
 * rates constant between events, recomputed lazily (max-min or FIFO). */
#include "sim/flow_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A flow finishing within this fraction of its time to finish (as last
 * set, at its last rate change) of t completes at t: symmetric flows then
 * end in one advance instead of leaving 1e-12-byte remnants that would each
 * cost an event. Relative to the flow, never to the clock: a share of the
 * clock would end short flows late in a long run at once. */
#define FLOW_DONE_TOL 1e-9
/* ... as does one finishing within this many units in the last place of t:
 * the clock's own rounding: two finishes of now + left / rate a rounding apart
 * (at 1e18 ns a unit is 128 ns). */
#define FLOW_CLOCK_ULPS 2
/* A recompute that changes at most 1 in this many active flows is local:
 * the finish heap is kept up to date (log time per flow). Past that, scans
 * of the finishes are cheaper, until this many local recomputes in a row
 * pay for rebuilding the heap (about two scans). */
#define FLOW_LOCAL_RATIO 4
#define FLOW_LOCAL_RUN 3

static double clock_tol(double t) { return FLOW_CLOCK_ULPS * (nextafter(fabs(t), HUGE_VAL) - fabs(t)); }

int weft_flowsim_create(const WeftGraph *g, WeftSharing sharing, WeftFlowSim **out) {
  if (out) *out = NULL;
  if (!g || !out || (sharing != WEFT_SHARE_MAXMIN && sharing != WEFT_SHARE_FIFO))
    return WEFT_EINVAL;
  WeftFlowSim *fs = calloc(1, sizeof *fs);
  if (!fs) return WEFT_ENOMEM;
  int nl = weft_graph_nlinks(g);
  size_t m = (size_t)(nl ? nl : 1);
  fs->sharing = sharing;
  fs->nlinks = nl;
  fs->link = calloc(m, sizeof *fs->link);
  fs->mark = malloc(m * sizeof *fs->mark);
  fs->work = malloc(m * sizeof *fs->work);
  fs->lheap = malloc(m * sizeof *fs->lheap);
  fs->touch = malloc(m * sizeof *fs->touch);
  if (!fs->link || !fs->mark || !fs->work || !fs->lheap || !fs->touch) {
    weft_flowsim_free(fs);
    return WEFT_ENOMEM;
  }
  for (int l = 0; l < nl; l++) {
    Link *L = &fs->link[l];
    weft_graph_link(g, l, &L->from, &L->to, &L->cap);  /* GB/s = bytes/ns */
    L->hpos = -1;
  }
  fs->heap_ok = 1;
  *out = fs;
  return WEFT_OK;
}

void weft_flowsim_free(WeftFlowSim *fs) {
  if (!fs) return;
  if (fs->link)
    for (int l = 0; l < fs->nlinks; l++) free(fs->link[l].e);
  free(fs->link);
  free(fs->mark);
  free(fs->work);
  free(fs->lheap);
  free(fs->touch);
  free(fs->flow);
  free(fs->fin);
  free(fs->comp);
  free(fs->tmp);
  free(fs->fh);
  free(fs->hop);
  free(fs->done);
  free(fs);
}

/* ------------------------------------------------------------ finish heap */

static int fh_less(const FEnt *a, const FEnt *b) {
  return a->finish < b->finish || (a->finish == b->finish && a->slot < b->slot);
}

static void fh_down(WeftFlowSim *fs, size_t i) {
  FEnt e = fs->fh[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= fs->nfh) break;
    if (c + 1 < fs->nfh && fh_less(&fs->fh[c + 1], &fs->fh[c])) c++;
    if (!fh_less(&fs->fh[c], &e)) break;
    fs->fh[i] = fs->fh[c];
    i = c;
  }
  fs->fh[i] = e;
}

static void fh_push(WeftFlowSim *fs, int slot) {
  FEnt e = {fs->fin[slot], slot};
  size_t i = fs->nfh++;
  while (i > 0 && fh_less(&e, &fs->fh[(i - 1) / 2])) {
    fs->fh[i] = fs->fh[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  fs->fh[i] = e;
}

static FEnt fh_pop(WeftFlowSim *fs) {
  FEnt top = fs->fh[0];
  fs->fh[0] = fs->fh[--fs->nfh];
  if (fs->nfh > 0) fh_down(fs, 0);
  return top;
}

static int fh_valid(const WeftFlowSim *fs, const FEnt *e) { return fs->fin[e->slot] == e->finish; }

static void fh_heapify(WeftFlowSim *fs) {
  for (size_t i = fs->nfh / 2; i-- > 0;) fh_down(fs, i);
}

/* One entry per sending flow, from scratch. */
static void fh_rebuild(WeftFlowSim *fs) {
  fs->nfh = 0;
  for (int i = 0; i < fs->flen; i++)
    if (fs->fin[i] < HUGE_VAL) fs->fh[fs->nfh++] = (FEnt){fs->fin[i], i};
  fh_heapify(fs);
}

/* The next completion time, or HUGE_VAL: the heap's top (stale entries
 * dropped), or without the heap a scan (kept until finishes change). */
static double next_finish(WeftFlowSim *fs) {
  if (fs->heap_ok) {
    while (fs->nfh > 0 && !fh_valid(fs, &fs->fh[0])) fh_pop(fs);
    return fs->nfh > 0 ? fs->fh[0].finish : HUGE_VAL;
  }
  if (!fs->scan_ok) {
    double t = HUGE_VAL;
    for (int i = 0; i < fs->flen; i++) t = fs->fin[i] < t ? fs->fin[i] : t;
    fs->scan_next = t;
    fs->scan_ok = 1;
  }
  return fs->scan_next;
}

/* ------------------------------------------------------------ storage */

/* Slide the live flows and their paths down over the completed ones (both
 * are in start order, so nothing is overwritten before it moves), telling
 * each link where its flows went; the heap's slots are renumbered too. */
static void compact(WeftFlowSim *fs) {
  int k = 0;
  size_t off = 0;
  for (int i = 0; i < fs->flen; i++) {
    Flow *f = &fs->flow[i];
    if (f->nhops == 0) continue;
    if ((size_t)f->off != off)
      memmove(fs->hop + off, fs->hop + f->off, (size_t)f->nhops * sizeof *fs->hop);
    f->off = (int)off;
    off += (size_t)f->nhops;
    if (i != k) {
      fs->flow[k] = *f;
      fs->fin[k] = fs->fin[i];
      const Hop *h = fs->hop + fs->flow[k].off;
      for (int j = 0; j < fs->flow[k].nhops; j++) fs->link[h[j].link].e[h[j].pos].flow = k;
    }
    k++;
  }
  fs->flen = k;
  fs->hop_len = off;
  if (fs->heap_ok) fh_rebuild(fs);
}

/* Grow the slot arrays to cap (and the scratch that goes with them), so
 * recomputes and completions never allocate. */
static int grow_slots(WeftFlowSim *fs, int cap) {
  Flow *f = realloc(fs->flow, (size_t)cap * sizeof *f);
  if (!f) return WEFT_ENOMEM;
  fs->flow = f;
  double *fin = realloc(fs->fin, (size_t)cap * sizeof *fin);
  if (!fin) return WEFT_ENOMEM;
  fs->fin = fin;
  int *c = realloc(fs->comp, (size_t)cap * sizeof *c);
  if (!c) return WEFT_ENOMEM;
  fs->comp = c;
  int *t = realloc(fs->tmp, (size_t)cap * sizeof *t);
  if (!t) return WEFT_ENOMEM;
  fs->tmp = t;
  FEnt *h = realloc(fs->fh, (2 * (size_t)cap + 64) * sizeof *h);
  if (!h) return WEFT_ENOMEM;
  fs->fh = h;
  fs->fcap = cap;
  return WEFT_OK;
}

/* Room for one more flow of n hops at the ends of the slots and paths:
 * compact when half is garbage, else grow (doubling). */
static int reserve(WeftFlowSim *fs, int n) {
  int slot_full = fs->flen == fs->fcap, hop_full = fs->hop_len + (size_t)n > fs->hop_cap;
  if (!slot_full && !hop_full) return WEFT_OK;
  if ((slot_full && 2 * fs->nflows < (size_t)fs->fcap) ||
      (hop_full && 2 * (fs->hop_live + (size_t)n) <= fs->hop_cap)) {
    compact(fs);
    slot_full = fs->flen == fs->fcap;
    hop_full = fs->hop_len + (size_t)n > fs->hop_cap;
  }
  if (slot_full) {
    if (fs->fcap > (1 << 28)) return WEFT_ENOMEM;
    int rc = grow_slots(fs, fs->fcap ? 2 * fs->fcap : 64);
    if (rc) return rc;
  }
  if (hop_full) {
    size_t cap = fs->hop_cap ? 2 * fs->hop_cap : 256;
    while (cap < fs->hop_len + (size_t)n) cap *= 2;
    if (cap > (size_t)1 << 30) return WEFT_ENOMEM;  /* offsets are ints */
    Hop *h = realloc(fs->hop, cap * sizeof *h);
    if (!h) return WEFT_ENOMEM;
    fs->hop = h;
    fs->hop_cap = cap;
  }
  return WEFT_OK;
}

/* Room for n more flows in link L's list (doubling). */
static int link_reserve(Link *L, int n) {
  if (L->n + n <= L->ecap) return WEFT_OK;
  if (L->n > (1 << 28) - n) return WEFT_ENOMEM;
  int cap = L->ecap ? L->ecap : 4;
  while (cap < L->n + n) cap *= 2;
  Ent *e = realloc(L->e, (size_t)cap * sizeof *e);
  if (!e) return WEFT_ENOMEM;
  L->e = e;
  L->ecap = cap;
  return WEFT_OK;
}

static void mark_link(WeftFlowSim *fs, int l) {
  if (fs->link[l].marked) return;
  fs->link[l].marked = 1;
  fs->mark[fs->nmark++] = l;
}

/* ------------------------------------------------------------ start, complete */

int weft_flowsim_start(WeftFlowSim *fs, const int *path, int nlinks, double size_bytes,
                       unsigned long long tag) {
  if (!fs || !path || nlinks < 1 || !(size_bytes > 0.0) || size_bytes >= HUGE_VAL)
    return WEFT_EINVAL;
  for (int i = 0; i < nlinks; i++) {
    if (path[i] < 0 || path[i] >= fs->nlinks) return WEFT_EINVAL;
    if (i > 0 && fs->link[path[i - 1]].to != fs->link[path[i]].from) return WEFT_EINVAL;
  }
  /* Reserve everything first so a failure leaves no half-added flow; room
   * for nlinks more entries covers a path that uses a link more than once. */
  for (int i = 0; i < nlinks; i++)
    if (link_reserve(&fs->link[path[i]], nlinks)) return WEFT_ENOMEM;
  if (reserve(fs, nlinks)) return WEFT_ENOMEM;
  int s = fs->flen++;
  Flow *f = &fs->flow[s];
  f->left = size_bytes;
  f->t0 = fs->now;
  f->rate = 0.0;
  f->tag = tag;
  f->stamp = 0;
  f->off = (int)fs->hop_len;
  f->nhops = nlinks;
  fs->fin[s] = HUGE_VAL;
  for (int i = 0; i < nlinks; i++) {
    Link *L = &fs->link[path[i]];
    L->e[L->n] = (Ent){s, i};
    fs->hop[fs->hop_len + (size_t)i] = (Hop){path[i], L->n};
    L->n++;
    mark_link(fs, path[i]);
  }
  fs->hop_len += (size_t)nlinks;
  fs->hop_live += (size_t)nlinks;
  fs->nflows++;
  return WEFT_OK;
}

/* Remove flow s (done at fs->now) from its links. Its last bytes, left -
 * rate x (now - t0) (the remnant the tolerance forgives, of either sign),
 * go to each link, so the carried bytes sum to the sizes. */
static void flow_complete(WeftFlowSim *fs, int s) {
  Flow *f = &fs->flow[s];
  double rest = f->left - f->rate * (fs->now - f->t0);
  const Hop *hp = fs->hop + f->off;
  for (int i = 0; i < f->nhops; i++) {
    Hop h = hp[i];
    Link *L = &fs->link[h.link];
    flow_link_sync(fs, L);
    L->bytes += rest;
    L->rate -= f->rate;
    Ent last = L->e[--L->n];
    if (h.pos != L->n) {
      L->e[h.pos] = last;
      fs->hop[(size_t)fs->flow[last.flow].off + (size_t)last.hop].pos = h.pos;
    }
    if (L->n == 0) L->rate = 0.0;  /* no rounding residue on an idle link */
    mark_link(fs, h.link);
  }
  fs->hop_live -= (size_t)f->nhops;
  f->nhops = 0;
  fs->fin[s] = HUGE_VAL;  /* its heap entries go stale */
  if (--fs->nflows == 0) fs->flen = 0, fs->hop_len = 0, fs->nfh = 0, fs->max_slack = 0.0;  /* all gone: start over */
}

/* ------------------------------------------------------------ rates */

/* Refill the components of the marked links and update the finishes: into
 * the heap when the recompute is local, else the heap is dropped (scans
 * until recomputes have been local FLOW_LOCAL_RUN times in a row). */
static void recompute(WeftFlowSim *fs) {
  if (fs->nmark == 0) return;
  int nw, nc;
  if (fs->sharing == WEFT_SHARE_FIFO) {
    nc = flow_fifo_update(fs);
  } else {
    flow_collect(fs, &nw, &nc);
    flow_fill_maxmin(fs, nw);
  }
  int local = (size_t)nc * FLOW_LOCAL_RATIO <= fs->nflows;
  int push = fs->heap_ok && local && fs->nfh + (size_t)nc <= 2 * (size_t)fs->flen + 64;
  if (!push) fs->heap_ok = 0;
  fs->local_run = local ? fs->local_run + 1 : 0;
  for (int c = 0; c < nc; c++) {
    int s = fs->comp[c];
    const Flow *f = &fs->flow[s];
    double fin = f->rate > 0.0 ? fs->now + f->left / f->rate : HUGE_VAL;
    fs->flow[s].slack = f->rate > 0.0 ? FLOW_DONE_TOL * (f->left / f->rate) : 0.0;
    if (fs->flow[s].slack > fs->max_slack) fs->max_slack = fs->flow[s].slack;
    if (fin == fs->fin[s]) continue;  /* its entry still holds */
    fs->fin[s] = fin;
    if (push && fin < HUGE_VAL) fh_push(fs, s);
  }
  if (!fs->heap_ok && fs->local_run >= FLOW_LOCAL_RUN) {
    fh_rebuild(fs);
    fs->heap_ok = 1;
  }
  fs->scan_ok = 0;
}

/* ------------------------------------------------------------ time */

double weft_flowsim_now(const WeftFlowSim *fs) { return fs ? fs->now : 0.0; }
size_t weft_flowsim_active(const WeftFlowSim *fs) { return fs ? fs->nflows : 0; }

double weft_flowsim_next(WeftFlowSim *fs) {
  if (!fs) return HUGE_VAL;
  if (fs->done_head < fs->done_len) return fs->now;  /* completed, not yet handed out */
  recompute(fs);
  return next_finish(fs);
}

static int pop_done(WeftFlowSim *fs, unsigned long long *done, int max) {
  int n = 0;
  while (n < max && fs->done_head < fs->done_len) done[n++] = fs->done[fs->done_head++];
  if (fs->done_head == fs->done_len) fs->done_head = fs->done_len = 0;
  return n;
}

static void take(WeftFlowSim *fs, int s, unsigned long long st, int *nd) {
  fs->flow[s].stamp = st;
  fs->fin[s] = HUGE_VAL;  /* taken: other entries of it go stale */
  fs->comp[(*nd)++] = s;
}

/* Is slot s done at t: its finish within the clock's rounding of t, or
 * within its own slack? */
static int done_at(const WeftFlowSim *fs, int s, double t, double lim_clock) {
  return fs->fin[s] <= lim_clock || fs->fin[s] - t <= fs->flow[s].slack;
}

/* Take the flows done at t into fs->comp (start order); returns how many.
 * Candidates finish by t + the largest slack. Without the heap, one scan.
 * With it, one by one while few and done; past a sixteenth of it, or at a
 * candidate that is not done, one pass over it takes the rest and it is
 * rebuilt. */
static int take_done(WeftFlowSim *fs, double t) {
  unsigned long long st = ++fs->stamp;
  int nd = 0;
  double lim_clock = t + clock_tol(t), lim = fmax(lim_clock, t + fs->max_slack);
  if (!fs->heap_ok) {
    for (int i = 0; i < fs->flen; i++)
      if (fs->fin[i] <= lim && done_at(fs, i, t, lim_clock)) take(fs, i, st, &nd);
    return nd;
  }
  size_t limit = fs->nfh / 16 + 8;
  for (size_t popped = 0; fs->nfh > 0 && fs->fh[0].finish <= lim; popped++) {
    FEnt e = fs->fh[0];
    if (popped == limit || (fh_valid(fs, &e) && !done_at(fs, e.slot, t, lim_clock))) {
      size_t k = 0;
      for (size_t i = 0; i < fs->nfh; i++) {
        e = fs->fh[i];
        if (!fh_valid(fs, &e)) continue;  /* stale: dropped while here */
        if (e.finish <= lim && done_at(fs, e.slot, t, lim_clock)) take(fs, e.slot, st, &nd);
        else fs->fh[k++] = e;
      }
      fs->nfh = k;
      fh_heapify(fs);
      break;
    }
    fh_pop(fs);
    if (fh_valid(fs, &e)) take(fs, e.slot, st, &nd);
  }
  flow_start_order(fs, fs->comp, nd, st);
  return nd;
}

int weft_flowsim_advance(WeftFlowSim *fs, double t_ns, unsigned long long *done, int max) {
  if (!fs || max < 0 || (max > 0 && !done) || !(t_ns >= fs->now) || t_ns >= HUGE_VAL)
    return WEFT_EINVAL;
  int n = 0;
  if (t_ns == fs->now && fs->done_head < fs->done_len) {  /* the call-again contract */
    n = pop_done(fs, done, max);
    if (fs->done_head < fs->done_len) return n;
  }
  recompute(fs);
  double next = next_finish(fs), lim = t_ns + fmax(clock_tol(t_ns), fs->max_slack);
  if (t_ns > next + clock_tol(t_ns)) return WEFT_EINVAL;  /* would skip a completion */
  if (next <= lim) {
    if (fs->done_cap < fs->done_len + fs->nflows) {  /* room for every completion */
      size_t cap = fs->done_cap ? fs->done_cap : 256;
      while (cap < fs->done_len + fs->nflows) cap *= 2;
      unsigned long long *d = realloc(fs->done, cap * sizeof *d);
      if (!d) return WEFT_ENOMEM;
      fs->done = d;
      fs->done_cap = cap;
    }
    fs->now = t_ns;
    int nd = take_done(fs, t_ns);
    for (int i = 0; i < nd; i++) fs->done[fs->done_len++] = fs->flow[fs->comp[i]].tag;
    for (int i = 0; i < nd; i++) flow_complete(fs, fs->comp[i]);
    fs->scan_ok = 0;
  }
  fs->now = t_ns;
  return n + pop_done(fs, done ? done + n : NULL, max - n);
}

double weft_flowsim_link_bytes(const WeftFlowSim *fs, int link) {
  if (!fs || link < 0 || link >= fs->nlinks) return 0.0;
  const Link *L = &fs->link[link];
  return L->bytes + L->rate * (fs->now - L->t0);
}

int weft_flowsim_run(WeftFlowSim *fs, double *end_ns) {
  if (!fs) return WEFT_EINVAL;
  unsigned long long buf[256];
  for (;;) {
    double t = weft_flowsim_next(fs);
    if (t >= HUGE_VAL) break;
    int n;
    do {
      n = weft_flowsim_advance(fs, t, buf, 256);
      if (n < 0) return n;
    } while (n == 256);
  }
  if (end_ns) *end_ns = fs->now;
  return WEFT_OK;
}

size_t weft_flowsim_rates(WeftFlowSim *fs, unsigned long long *tags, double *rates_gbps,
                          size_t max) {
  if (!fs) return 0;
  recompute(fs);
  size_t k = 0;
  for (int i = 0; i < fs->flen && k < max; i++) {
    if (fs->flow[i].nhops == 0) continue;
    if (tags) tags[k] = fs->flow[i].tag;
    if (rates_gbps) rates_gbps[k] = fs->flow[i].rate;
    k++;
  }
  return fs->nflows;
}
