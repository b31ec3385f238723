/* flow_share.c — the flow engine's rates: max-min fair filling over the
 * connected components a change touched, and FIFO by a local update. */
#include <math.h>
#include <string.h>

#include "sim/flow_impl.h"

/* A water-filling round fills together the links whose fair share is within
 * this of the smallest (ties in real arithmetic that rounding split). */
#define FLOW_TIE_TOL 1e-12
/* A round of the filling scans every unfilled link; once a round fills
 * fewer than 1 in this many, a heap (log time per link) is cheaper. */
#define FLOW_HEAP_RATIO 16

/* The connected components of the marked links: links into fs->work, flows
 * into fs->comp (counts returned), stamped (the stamp returned) and brought
 * up to now. */
unsigned long long flow_collect(WeftFlowSim *fs, int *nlinks, int *nflows) {
  unsigned long long st = ++fs->stamp;
  int nw = 0, nc = 0;
  for (int i = 0; i < fs->nmark; i++) {
    Link *L = &fs->link[fs->mark[i]];
    L->marked = 0;
    if (L->n > 0 && L->seen != st) {
      L->seen = st;
      fs->work[nw++] = fs->mark[i];
    }
  }
  fs->nmark = 0;
  for (int w = 0; w < nw; w++) {  /* fs->work is the search's queue */
    Link *L = &fs->link[fs->work[w]];
    flow_link_sync(fs, L);
    for (int j = 0; j < L->n; j++) {
      int s = L->e[j].flow;
      Flow *f = &fs->flow[s];
      if (f->stamp == st) continue;
      f->stamp = st;
      fs->comp[nc++] = s;
      f->left -= f->rate * (fs->now - f->t0);
      if (f->left < 0.0) f->left = 0.0;  /* rounding; it completes at once */
      f->t0 = fs->now;
      const Hop *h = fs->hop + f->off;
      for (int i = 0; i < f->nhops; i++) {
        Link *M = &fs->link[h[i].link];
        if (M->seen != st) {
          M->seen = st;
          fs->work[nw++] = h[i].link;
        }
      }
    }
  }
  *nlinks = nw;
  *nflows = nc;
  return st;
}

/* Binary min-heap of links by (key, id); hpos tracks each link's place. */
static int lless(const WeftFlowSim *fs, int a, int b) {
  double ka = fs->link[a].key, kb = fs->link[b].key;
  return ka < kb || (ka == kb && a < b);
}

static void lheap_set(WeftFlowSim *fs, int i, int l) {
  fs->lheap[i] = l;
  fs->link[l].hpos = i;
}

static void lheap_down(WeftFlowSim *fs, int i) {
  int l = fs->lheap[i];
  for (;;) {
    int c = 2 * i + 1;
    if (c >= fs->nheap) break;
    if (c + 1 < fs->nheap && lless(fs, fs->lheap[c + 1], fs->lheap[c])) c++;
    if (!lless(fs, fs->lheap[c], l)) break;
    lheap_set(fs, i, fs->lheap[c]);
    i = c;
  }
  lheap_set(fs, i, l);
}

static void lheap_up(WeftFlowSim *fs, int i) {
  int l = fs->lheap[i];
  while (i > 0 && lless(fs, l, fs->lheap[(i - 1) / 2])) {
    lheap_set(fs, i, fs->lheap[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  lheap_set(fs, i, l);
}

static void lheap_remove(WeftFlowSim *fs, int l) {
  int i = fs->link[l].hpos;
  fs->link[l].hpos = -1;
  int last = fs->lheap[--fs->nheap];
  if (i == fs->nheap) return;
  lheap_set(fs, i, last);
  lheap_up(fs, i);
  lheap_down(fs, fs->link[last].hpos);
}

/* Freeze every unfrozen flow on link l at share s (stamp st). With track,
 * collect the other links whose residual changed in fs->touch; returns how
 * many. */
static int freeze_link(WeftFlowSim *fs, int l, double s, unsigned long long st, int track) {
  Link *L = &fs->link[l];
  int nt = 0;
  for (int j = 0; j < L->n; j++) {
    Flow *f = &fs->flow[L->e[j].flow];
    if (f->stamp == st) continue;
    f->stamp = st;
    f->rate = s;
    const Hop *h = fs->hop + f->off;
    for (int i = 0; i < f->nhops; i++) {
      Link *M = &fs->link[h[i].link];
      M->res -= s;
      M->nu--;
      M->rate += s;
      if (track && !M->touched) {
        M->touched = 1;
        fs->touch[nt++] = h[i].link;
      }
    }
  }
  return nt;
}

/* The rest of the filling one saturated link at a time, smallest share
 * first, through the heap: for when shares are spread out. */
static void fill_by_heap(WeftFlowSim *fs, int nw, unsigned long long st) {
  fs->nheap = 0;
  for (int i = 0; i < nw; i++) {
    int l = fs->work[i];
    Link *L = &fs->link[l];
    if (L->nu > 0) {
      L->key = (L->res > 0.0 ? L->res : 0.0) / L->nu;
      lheap_set(fs, fs->nheap++, l);
    }
  }
  for (int i = fs->nheap / 2 - 1; i >= 0; i--) lheap_down(fs, i);
  while (fs->nheap > 0) {
    int l = fs->lheap[0];
    lheap_remove(fs, l);
    int nt = freeze_link(fs, l, fs->link[l].key, st, 1);
    for (int t = 0; t < nt; t++) {
      Link *M = &fs->link[fs->touch[t]];
      M->touched = 0;
      if (M->hpos < 0) continue;  /* l itself, or already filled */
      if (M->nu == 0) {
        lheap_remove(fs, fs->touch[t]);
      } else {
        M->key = (M->res > 0.0 ? M->res : 0.0) / M->nu;  /* rises (falls only by rounding) */
        lheap_up(fs, M->hpos);
        lheap_down(fs, M->hpos);
      }
    }
  }
}

/* Max-min fair rates by progressive filling over the links fs->work[nw]:
 * the links with the smallest share res/nu saturate, their flows freeze at
 * that share, the other links' shares rise (r/n > s gives (r - ks)/(n - k)
 * > s); repeat. A round is a scan that fills every link tied at the
 * minimum, so the symmetric case takes one or two; once a round fills few
 * links, the heap takes over. */
void flow_fill_maxmin(WeftFlowSim *fs, int nw) {
  unsigned long long st = ++fs->stamp;
  for (int i = 0; i < nw; i++) {
    Link *L = &fs->link[fs->work[i]];
    L->res = L->cap;
    L->nu = L->n;
    L->rate = 0.0;
  }
  while (nw > 0) {
    double smin = HUGE_VAL;
    int k = 0;
    for (int i = 0; i < nw; i++) {  /* drop filled links, find the smallest share */
      Link *L = &fs->link[fs->work[i]];
      if (L->nu == 0) continue;
      L->key = (L->res > 0.0 ? L->res : 0.0) / L->nu;
      if (L->key < smin) smin = L->key;
      fs->work[k++] = fs->work[i];
    }
    nw = k;
    if (nw == 0) break;
    double tie = smin * (1.0 + FLOW_TIE_TOL);
    int filled = 0;
    for (int i = 0; i < nw; i++) {
      int l = fs->work[i];
      if (fs->link[l].nu > 0 && fs->link[l].key <= tie) {
        freeze_link(fs, l, smin, st, 0);
        filled++;
      }
    }
    if (filled * FLOW_HEAP_RATIO < nw) {
      fill_by_heap(fs, nw, st);
      break;
    }
  }
}

/* Slots v[n], all stamped st, into increasing (start) order: nothing when
 * sorted already; a pass over the slots picking them out when they are
 * many; else a bottom-up merge sort through fs->tmp. */
void flow_start_order(WeftFlowSim *fs, int *v, int n, unsigned long long st) {
  int sorted = 1;
  for (int i = 1; i < n && sorted; i++) sorted = v[i - 1] < v[i];
  if (sorted) return;
  if ((size_t)n * 8 > (size_t)fs->flen) {
    int k = 0;
    for (int i = 0; i < fs->flen && k < n; i++)
      if (fs->flow[i].stamp == st) v[k++] = i;
    return;
  }
  int *a = v, *b = fs->tmp;
  for (int w = 1; w < n; w *= 2) {
    for (int lo = 0; lo < n; lo += 2 * w) {
      int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int x = lo, y = mid, o = lo;
      while (x < mid && y < hi) b[o++] = a[y] < a[x] ? a[y++] : a[x++];
      while (x < mid) b[o++] = a[x++];
      while (y < hi) b[o++] = a[y++];
    }
    int *t = a;
    a = b;
    b = t;
  }
  if (a != v) memcpy(v, a, (size_t)n * sizeof *v);
}

/* The oldest flow (smallest slot: slots are in start order) on link L. */
static int oldest_on(const Link *L) {
  int o = L->e[0].flow;
  for (int j = 1; j < L->n; j++)
    if (L->e[j].flow < o) o = L->e[j].flow;
  return o;
}

/* FIFO: a flow sends, at its path's smallest capacity, exactly when it is
 * the oldest flow on every link of its path. That depends on its own links
 * only, so a change is local: a new flow is the youngest (it sends only on
 * empty links, and stops nobody), and a completion can only start the new
 * oldest flow of each link it left. So the candidates are the oldest flows
 * of the marked links; those whose rate changes are brought up to now, set,
 * and listed in fs->comp (the count returned), their links' rates with
 * them. Each costs a scan of its links' lists, not of a component. */
int flow_fifo_update(WeftFlowSim *fs) {
  unsigned long long st = ++fs->stamp;
  int nc = 0;
  for (int i = 0; i < fs->nmark; i++) {
    Link *L = &fs->link[fs->mark[i]];
    L->marked = 0;
    if (L->n == 0) continue;
    int s = oldest_on(L);
    Flow *f = &fs->flow[s];
    if (f->stamp == st) continue;
    f->stamp = st;
    const Hop *h = fs->hop + f->off;
    double cap = HUGE_VAL;
    int sends = 1;
    for (int k = 0; k < f->nhops && sends; k++) {
      const Link *M = &fs->link[h[k].link];
      sends = oldest_on(M) == s;
      if (M->cap < cap) cap = M->cap;
    }
    double rate = sends ? cap : 0.0;
    if (rate == f->rate) continue;
    f->left -= f->rate * (fs->now - f->t0);
    if (f->left < 0.0) f->left = 0.0; /* rounding; it completes at once */
    f->t0 = fs->now;
    for (int k = 0; k < f->nhops; k++) {
      Link *M = &fs->link[h[k].link];
      flow_link_sync(fs, M);
      M->rate += rate - f->rate;
    }
    f->rate = rate;
    fs->comp[nc++] = s;
  }
  fs->nmark = 0;
  return nc;
}
