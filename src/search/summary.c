/* summary.c — what a co-design report keeps of a stream of evaluated points:
 * counts and a first example per status, the best designs (points that are
 * one design merged), the Pareto front; memory in the designs kept, not in
 * the number of points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/pareto.h"

/* Objectives this close are one optimum (the solver certifies each to a
 * relative gap of 1e-9): the cheaper design ranks first among them. */
#define RANK_TIE_TOL 1e-9
#define TOP_MIN_CAP 64  /* candidates held before the first pruning */

struct WeftCodesignSummary {
  size_t top;                     /* designs ranked */
  size_t npoints, last;           /* points added; index of the last one */
  size_t count[WEFT_POINT_NSTATUS];
  int has_example[WEFT_POINT_NSTATUS];
  WeftIndexedPoint example[WEFT_POINT_NSTATUS];
  /* Ranking candidates: every OK point with objective <= cut, where cut is
   * the top-th smallest objective seen times (1 + RANK_TIE_TOL); unordered
   * until weft_codesign_summary_top sorts them. */
  WeftIndexedPoint *cand;
  size_t ncand, cand_cap, prune_at;
  /* The designs, filled by _top (room for every candidate): design k is
   * members[first[k] .. first[k+1]), its shown (simplest) point first;
   * shown[k] is that point again, contiguous for _top's caller. */
  WeftIndexedPoint *members, *shown;
  size_t *first, *owner;
  size_t ndesigns, aux_cap;
  double cut;                     /* HUGE_VAL until the first pruning */
  /* The staircase: OK points each faster than every point before it in the
   * order (cost, time, index), by that order. */
  WeftIndexedPoint *stair;
  size_t nstair, stair_cap;
  WeftIndexedPoint *front;        /* the front, filled by _front (room for the staircase) */
  size_t nfront, front_cap;
};

WeftCodesignSummary *weft_codesign_summary_create(size_t top) {
  WeftCodesignSummary *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->top = top;
  s->cut = HUGE_VAL;
  s->prune_at = 2 * top > TOP_MIN_CAP ? 2 * top : TOP_MIN_CAP;
  return s;
}

void weft_codesign_summary_free(WeftCodesignSummary *s) {
  if (!s) return;
  free(s->cand);
  free(s->members);
  free(s->shown);
  free(s->first);
  free(s->owner);
  free(s->stair);
  free(s->front);
  free(s);
}

static int grow(WeftIndexedPoint **a, size_t *cap, size_t need) {
  if (need <= *cap) return 0;
  size_t c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  WeftIndexedPoint *p = realloc(*a, c * sizeof *p);
  if (!p) return -1;
  *a = p;
  *cap = c;
  return 0;
}

/* Two figures equal up to the solver's certified 1e-9 (scale: the
 * magnitude below which differences do not count). */
static int near(double x, double y, double scale) {
  return fabs(x - y) <= RANK_TIE_TOL * fmax(scale, fmax(fabs(x), fabs(y)));
}

/* OK points that are one design: the same model, network and degrees (tp, cp, pp,
 * dp, ep, micro-batch) and the same figures in every respect (time, cost,
 * objective, memory, bandwidths, EqualBW), so the knobs they differ in (the
 * order of the groups, ZeRO, SP, recomputation, interleaving) change nothing
 * here: orders that place the groups alike, recomputation that costs the
 * same (selective under flash attention), ZeRO with one data-parallel rank. */
static int same_design(const WeftDesignPoint *a, const WeftDesignPoint *b) {
  const WeftParallel *p = &a->par, *q = &b->par;
  if (a->net != b->net || a->model != b->model || p->tp != q->tp || p->cp != q->cp ||
      p->pp != q->pp || p->dp != q->dp || p->ep != q->ep || p->micro_batch != q->micro_batch)
    return 0;
  if (!near(a->time_ns, b->time_ns, 0) || !near(a->cost_usd, b->cost_usd, 0) ||
      !near(a->objective, b->objective, 0) || !near(a->mem_bytes, b->mem_bytes, 0) ||
      !near(a->equal_time_ns, b->equal_time_ns, 0) || !near(a->equal_bw_gbps, b->equal_bw_gbps, 0))
    return 0;
  double big = 0;  /* a dim's bandwidth against the largest: unused dims sit near 0 */
  for (int d = 0; d < WEFT_MAX_DIMS; d++) big = fmax(big, fmax(fabs(a->bw_gbps[d]), fabs(b->bw_gbps[d])));
  for (int d = 0; d < WEFT_MAX_DIMS; d++)
    if (!near(a->bw_gbps[d], b->bw_gbps[d], big)) return 0;
  return 1;
}

/* Simpler knobs first: no recomputation, then selective, then full; lower
 * ZeRO; no SP; fewer model chunks; the order nearest TP, PP, DP (its
 * permutation's lexicographic rank). */
static int order_rank(const WeftParDim o[3]) {
  int r = 0;
  for (int i = 0; i < 3; i++) {
    int smaller = 0;
    for (int j = i + 1; j < 3; j++) smaller += o[j] < o[i];
    r = r * (3 - i) + smaller;
  }
  return r;
}

static int simpler(const WeftParallel *p, const WeftParallel *q) {
  static const int rc_rank[3] = {0, 2, 1};  /* none, full, selective */
  int a[5] = {p->recompute >= 0 && p->recompute < 3 ? rc_rank[p->recompute] : 3, p->zero_stage,
              p->sequence_parallel, p->virtual_stages, order_rank(p->order)};
  int b[5] = {q->recompute >= 0 && q->recompute < 3 ? rc_rank[q->recompute] : 3, q->zero_stage,
              q->sequence_parallel, q->virtual_stages, order_rank(q->order)};
  for (int i = 0; i < 5; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

static int by_key(const void *a, const void *b) {
  const WeftIndexedPoint *x = a, *y = b;
  if (x->pt.objective != y->pt.objective) return x->pt.objective < y->pt.objective ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;  /* ties: enumeration order */
}

/* One optimum's designs: cheaper, then less memory, then simpler knobs. */
static int by_tie(const void *a, const void *b) {
  const WeftIndexedPoint *x = a, *y = b;
  if (x->pt.cost_usd != y->pt.cost_usd) return x->pt.cost_usd < y->pt.cost_usd ? -1 : 1;
  if (x->pt.mem_bytes != y->pt.mem_bytes) return x->pt.mem_bytes < y->pt.mem_bytes ? -1 : 1;
  int c = simpler(&x->pt.par, &y->pt.par);
  if (c) return c;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The candidate (sorted by objective) up to which the first `top` designs
 * reach, points that are one design counted once; ncand when fewer. Each
 * point is compared with the designs started within the tie tolerance
 * before it (heads: indices into c, in scratch), newest first: a copy of
 * a design usually finds it at once. */
static size_t top_end(const WeftIndexedPoint *c, size_t n, size_t top, size_t *heads) {
  size_t nh = 0, from = 0;
  for (size_t k = 0; k < n; k++) {
    double lo = c[k].pt.objective * (1.0 - 4.0 * RANK_TIE_TOL);
    while (from < nh && c[heads[from]].pt.objective < lo) from++;
    int dup = 0;
    for (size_t j = nh; j-- > from && !dup;) dup = same_design(&c[heads[j]].pt, &c[k].pt);
    if (!dup && (heads[nh++] = k, nh == top)) return k;
  }
  return n;
}

/* Keep the candidates with objective <= the top-th smallest x (1 + tol):
 * every design ranked in the top is among them (its tie run starts at or
 * before the top-th objective), and the cut only falls as points arrive. */
static void prune(WeftCodesignSummary *s) {  /* called with ncand >= 1 */
  qsort(s->cand, s->ncand, sizeof *s->cand, by_key);
  if (s->top == 0) {
    s->ncand = 0;
    s->cut = -HUGE_VAL;
    return;
  }
  size_t k = top_end(s->cand, s->ncand, s->top, s->owner);  /* owner: scratch here */
  if (k < s->ncand) {
    s->cut = s->cand[k].pt.objective * (1.0 + RANK_TIE_TOL);
    while (k < s->ncand && s->cand[k].pt.objective <= s->cut) k++;
    s->ncand = k;
  }
  /* many ties past the cut: wait for twice as many before sorting again */
  if (2 * s->ncand > s->prune_at) s->prune_at = 2 * s->ncand;
}

/* The designs' arrays as large as the candidates' (so _top allocates nothing). */
static int grow_aux(WeftCodesignSummary *s) {
  size_t c = s->cand_cap;
  if (c <= s->aux_cap) return 0;
  WeftIndexedPoint *m = realloc(s->members, c * sizeof *m);
  if (m) s->members = m;
  WeftIndexedPoint *w = m ? realloc(s->shown, c * sizeof *w) : NULL;
  if (w) s->shown = w;
  size_t *f = w ? realloc(s->first, (c + 1) * sizeof *f) : NULL;
  if (f) s->first = f;
  size_t *o = f ? realloc(s->owner, c * sizeof *o) : NULL;
  if (!o) return -1;
  s->owner = o;
  s->aux_cap = c;
  return 0;
}

static int add_candidate(WeftCodesignSummary *s, const WeftIndexedPoint *ip) {
  if (!(ip->pt.objective <= s->cut)) return 0;
  if (grow(&s->cand, &s->cand_cap, s->ncand + 1) || grow_aux(s)) return WEFT_ENOMEM;
  s->cand[s->ncand++] = *ip;
  if (s->ncand >= s->prune_at) prune(s);
  return 0;
}

/* (cost, time) of a before b's? Equal pairs: a, added first, comes first. */
static int before_ct(const WeftDesignPoint *a, const WeftDesignPoint *b) {
  if (a->cost_usd != b->cost_usd) return a->cost_usd < b->cost_usd;
  return a->time_ns <= b->time_ns;
}

/* A point no earlier point (in cost, time, index) is at least as fast as can
 * never be on the front whatever comes later (see weft_pareto); the others
 * form a staircase with times falling. */
static int add_stair(WeftCodesignSummary *s, const WeftIndexedPoint *ip) {
  size_t lo = 0, hi = s->nstair;  /* first entry after the new point */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (before_ct(&s->stair[mid].pt, &ip->pt)) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && s->stair[lo - 1].pt.time_ns <= ip->pt.time_ns) return 0;
  size_t end = lo;  /* entries the new point now shadows: slower or as slow */
  while (end < s->nstair && s->stair[end].pt.time_ns >= ip->pt.time_ns) end++;
  if (end == lo && (grow(&s->stair, &s->stair_cap, s->nstair + 1) ||
                    grow(&s->front, &s->front_cap, s->nstair + 1)))
    return WEFT_ENOMEM;
  memmove(&s->stair[lo + 1], &s->stair[end], (s->nstair - end) * sizeof *s->stair);
  s->stair[lo] = *ip;
  s->nstair = s->nstair - (end - lo) + 1;
  return 0;
}

int weft_codesign_summary_add(WeftCodesignSummary *s, size_t index, const WeftDesignPoint *pt) {
  if (!s || !pt || (s->npoints > 0 && index <= s->last)) return WEFT_EINVAL;
  int st = (int)pt->status;
  if (st < 0 || st >= WEFT_POINT_NSTATUS) st = WEFT_POINT_FAILED;
  WeftIndexedPoint ip = {index, *pt};
  int rc = 0;
  if (st == WEFT_POINT_OK) {
    rc = add_candidate(s, &ip);
    if (!rc && isfinite(pt->cost_usd) && isfinite(pt->time_ns)) rc = add_stair(s, &ip);
  }
  if (rc) return rc;
  if (!s->has_example[st]) {
    s->example[st] = ip;
    s->has_example[st] = 1;
  }
  s->count[st]++;
  s->npoints++;
  s->last = index;
  return WEFT_OK;
}

size_t weft_codesign_summary_points(const WeftCodesignSummary *s) { return s ? s->npoints : 0; }

size_t weft_codesign_summary_count(const WeftCodesignSummary *s, WeftPointStatus st) {
  return s && (int)st >= 0 && (int)st < WEFT_POINT_NSTATUS ? s->count[st] : 0;
}

const WeftIndexedPoint *weft_codesign_summary_example(const WeftCodesignSummary *s,
                                                      WeftPointStatus st) {
  if (!s || (int)st < 0 || (int)st >= WEFT_POINT_NSTATUS || !s->has_example[st]) return NULL;
  return &s->example[st];
}

size_t weft_codesign_summary_top(WeftCodesignSummary *s, const WeftIndexedPoint **out) {
  if (out) *out = NULL;
  if (!s) return 0;
  size_t n = s->ncand;
  s->ndesigns = 0;
  if (n == 0) return 0;  /* (the designs' arrays come with the first candidate) */
  qsort(s->cand, n, sizeof *s->cand, by_key);
  /* Runs of objectives within RANK_TIE_TOL of the run's first: cheaper,
   * less memory, simpler first. */
  for (size_t a = 0, b; a < n; a = b) {
    for (b = a + 1; b < n && s->cand[b].pt.objective <= s->cand[a].pt.objective *
                                                          (1.0 + RANK_TIE_TOL); b++) {}
    qsort(s->cand + a, b - a, sizeof *s->cand, by_tie);
  }
  /* Each candidate joins the first design it is one with (searched back
   * over the designs within the tolerance), else starts a design. */
  s->ndesigns = 0;
  for (size_t i = 0; i < n; i++) {
    size_t d = s->ndesigns;
    double lo = s->cand[i].pt.objective * (1.0 - 4.0 * RANK_TIE_TOL);
    for (size_t j = s->ndesigns; j-- > 0 && s->shown[j].pt.objective >= lo;)
      if (same_design(&s->shown[j].pt, &s->cand[i].pt)) d = j;
    if (d == s->ndesigns) s->shown[s->ndesigns++] = s->cand[i];
    s->owner[i] = d;
  }
  /* Members by design (counting sort), each design's simplest point first
   * (the rank order puts it first unless the figures differ by ulps), then
   * the rest by index. */
  for (size_t d = 0; d <= s->ndesigns; d++) s->first[d] = 0;
  for (size_t i = 0; i < n; i++) s->first[s->owner[i] + 1]++;
  for (size_t d = 0; d < s->ndesigns; d++) s->first[d + 1] += s->first[d];
  for (size_t i = 0; i < n; i++) s->members[s->first[s->owner[i]]++] = s->cand[i];
  for (size_t d = s->ndesigns; d > 0; d--) s->first[d] = s->first[d - 1];
  s->first[0] = 0;
  for (size_t d = 0; d < s->ndesigns; d++) {
    WeftIndexedPoint *m = s->members + s->first[d];
    size_t cnt = s->first[d + 1] - s->first[d], best = 0;
    for (size_t j = 1; j < cnt; j++) {
      int c = simpler(&m[j].pt.par, &m[best].pt.par);
      if (c < 0 || (c == 0 && m[j].index < m[best].index)) best = j;
    }
    WeftIndexedPoint t = m[best];
    memmove(m + 1, m, best * sizeof *m);
    m[0] = t;
    for (size_t j = 2; j < cnt; j++)  /* insertion sort by index: few members */
      for (size_t q = j; q > 1 && m[q - 1].index > m[q].index; q--) {
        WeftIndexedPoint u = m[q];
        m[q] = m[q - 1];
        m[q - 1] = u;
      }
    s->shown[d] = m[0];
  }
  if (out) *out = s->shown;
  return s->ndesigns < s->top ? s->ndesigns : s->top;
}

size_t weft_codesign_summary_same(const WeftCodesignSummary *s, size_t k,
                                  const WeftIndexedPoint **out) {
  if (out) *out = NULL;
  if (!s || k >= s->ndesigns) return 0;
  if (out) *out = s->members + s->first[k];
  return s->first[k + 1] - s->first[k];
}

size_t weft_codesign_summary_front(WeftCodesignSummary *s, const WeftIndexedPoint **out) {
  if (out) *out = NULL;
  if (!s) return 0;
  s->nfront = 0;
  double best = HUGE_VAL;  /* as weft_pareto: faster than the last kept by the tolerance */
  for (size_t k = 0; k < s->nstair; k++)
    if (s->stair[k].pt.time_ns < best * (1.0 - WEFT_PARETO_TIME_TOL)) {
      best = s->stair[k].pt.time_ns;
      s->front[s->nfront++] = s->stair[k];
    }
  if (out) *out = s->front;
  return s->nfront;
}
