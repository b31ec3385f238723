/* summary.c — what a co-design report keeps of a stream of evaluated points:
 * counts and a first example per status, the best designs, the Pareto front;
 * memory in the designs kept, not in the number of points. */
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

static int by_key(const void *a, const void *b) {
  const WeftIndexedPoint *x = a, *y = b;
  if (x->pt.objective != y->pt.objective) return x->pt.objective < y->pt.objective ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;  /* ties: enumeration order */
}

static int by_cost(const void *a, const void *b) {
  const WeftIndexedPoint *x = a, *y = b;
  if (x->pt.cost_usd != y->pt.cost_usd) return x->pt.cost_usd < y->pt.cost_usd ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
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
  if (s->ncand >= s->top) {
    s->cut = s->cand[s->top - 1].pt.objective * (1.0 + RANK_TIE_TOL);
    size_t k = s->top;
    while (k < s->ncand && s->cand[k].pt.objective <= s->cut) k++;
    s->ncand = k;
  }
  /* many ties past the cut: wait for twice as many before sorting again */
  if (2 * s->ncand > s->prune_at) s->prune_at = 2 * s->ncand;
}

static int add_candidate(WeftCodesignSummary *s, const WeftIndexedPoint *ip) {
  if (!(ip->pt.objective <= s->cut)) return 0;
  if (grow(&s->cand, &s->cand_cap, s->ncand + 1)) return WEFT_ENOMEM;
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
  if (s->ncand > 0) qsort(s->cand, s->ncand, sizeof *s->cand, by_key);
  /* Runs of objectives within RANK_TIE_TOL of the run's first: by cost. */
  for (size_t a = 0, b; a < s->ncand; a = b) {
    for (b = a + 1; b < s->ncand && s->cand[b].pt.objective <= s->cand[a].pt.objective *
                                                                   (1.0 + RANK_TIE_TOL); b++) {}
    qsort(s->cand + a, b - a, sizeof *s->cand, by_cost);
  }
  if (out) *out = s->cand;
  return s->ncand < s->top ? s->ncand : s->top;
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
