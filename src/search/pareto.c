/* pareto.c — the Pareto front of (network cost, iteration time) over the
 * feasible design points: sort by cost, keep each point faster than all cheaper. */
#include <math.h>

#include "search/pareto.h"

/* A total order: cost, then time, then index (so the result never depends
 * on the sort algorithm). */
static int before(const WeftDesignPoint *pts, size_t a, size_t b) {
  if (pts[a].cost_usd != pts[b].cost_usd) return pts[a].cost_usd < pts[b].cost_usd;
  if (pts[a].time_ns != pts[b].time_ns) return pts[a].time_ns < pts[b].time_ns;
  return a < b;
}

static void sift_down(const WeftDesignPoint *pts, size_t *h, size_t root, size_t n) {
  for (;;) {
    size_t c = 2 * root + 1;
    if (c >= n) return;
    if (c + 1 < n && before(pts, h[c], h[c + 1])) c++;
    if (!before(pts, h[root], h[c])) return;
    size_t t = h[root];
    h[root] = h[c];
    h[c] = t;
    root = c;
  }
}

/* In-place heapsort of idx[0..n) by before(): no allocation, O(n log n). */
static void sort_points(const WeftDesignPoint *pts, size_t *idx, size_t n) {
  for (size_t i = n / 2; i-- > 0;) sift_down(pts, idx, i, n);
  for (size_t end = n; end-- > 1;) {
    size_t t = idx[0];
    idx[0] = idx[end];
    idx[end] = t;
    sift_down(pts, idx, 0, end);
  }
}

/* A point is on the front when no other OK point is at most as costly and at
 * most as slow with one of the two strictly less. Points tied on both keep
 * only the first in enumeration order (one design per front position), and
 * a point must be faster than the cheaper front point before it by more than
 * WEFT_PARETO_TIME_TOL to count as faster. */
size_t weft_pareto(const WeftDesignPoint *pts, size_t n, size_t *idx) {
  if (!pts || !idx) return 0;
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (pts[i].status == WEFT_POINT_OK && isfinite(pts[i].cost_usd) &&
        isfinite(pts[i].time_ns))
      idx[m++] = i;
  sort_points(pts, idx, m);
  size_t k = 0;
  double best = HUGE_VAL;  /* time of the last point kept (the fastest so far) */
  for (size_t r = 0; r < m; r++) {
    const WeftDesignPoint *p = &pts[idx[r]];
    if (p->time_ns < best * (1.0 - WEFT_PARETO_TIME_TOL)) {  /* faster than every cheaper point */
      best = p->time_ns;
      idx[k++] = idx[r];
    }
  }
  return k;
}
