/* totient.c — TotientPerms (TopoOpt): ring strides that are Hamiltonian
 * cycles of an AllReduce group, chosen for a small circulant diameter, and
 * coin-change routing (fewest hops) over those strides. */
#include "topo/totient.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Local search budget per sweep, in BFS steps (neighbour evaluations x g x
 * 2m): the radius (candidates tried either side of a chosen one) is what
 * fits, at least 1, so a large group narrows the neighbourhood instead of
 * the run time exploding. 1e7 is ~10 ms: n = 1024 with 4 strides searches
 * ~150 candidates each side (diameter 7 where radius 16 stops at 8). */
#define TOTIENT_SEARCH_WORK 1e7
#define TOTIENT_SEARCH_SWEEPS 16  /* passes over the positions at most */

static int gcd(int a, int b) {
  while (b) {
    int r = a % b;
    a = b;
    b = r;
  }
  return a;
}

int totient_circulant(int g, const int *k, int m, int *dist, int *queue, long long *sum_dist) {
  for (int r = 0; r < g; r++) dist[r] = -1;
  int head = 0, tail = 0, diam = 0;
  long long sum = 0;
  dist[0] = 0;
  queue[tail++] = 0;
  while (head < tail) {
    int r = queue[head++], dr = dist[r];
    diam = dr;
    sum += dr;
    for (int s = 0; s < m; s++) {
      int up = r + k[s] >= g ? r + k[s] - g : r + k[s];
      int dn = r - k[s] < 0 ? r - k[s] + g : r - k[s];
      if (dist[up] < 0) {
        dist[up] = dr + 1;
        queue[tail++] = up;
      }
      if (dist[dn] < 0) {
        dist[dn] = dr + 1;
        queue[tail++] = dn;
      }
    }
  }
  if (sum_dist) *sum_dist = sum;
  return tail == g ? diam : -1;
}

/* A candidate set's quality: smaller diameter, then smaller total distance,
 * then lexicographically smaller strides. */
typedef struct {
  int diam;
  long long sum;
} Score;

typedef struct {
  int g, nc, m;
  const int *cand;   /* candidate strides in units of n / g, ascending */
  int *k;            /* scratch: strides of the set being scored */
  int *dist, *queue; /* BFS scratch, g each */
} Search;

static Score score_of(Search *S, const int *idx) {
  for (int i = 0; i < S->m; i++) S->k[i] = S->cand[idx[i]];
  Score sc;
  sc.diam = totient_circulant(S->g, S->k, S->m, S->dist, S->queue, &sc.sum);
  if (sc.diam < 0) sc.diam = S->g;  /* cannot happen: each stride alone is a cycle */
  return sc;
}

/* a better than b (idx arrays ascending, so lexicographic = by index). */
static int better(Score a, const int *ia, Score b, const int *ib, int m) {
  if (a.diam != b.diam) return a.diam < b.diam;
  if (a.sum != b.sum) return a.sum < b.sum;
  for (int i = 0; i < m; i++)
    if (ia[i] != ib[i]) return ia[i] < ib[i];
  return 0;
}

/* idx with position i replaced by j, kept ascending, into out. */
static void replaced(const int *idx, int m, int i, int j, int *out) {
  int o = 0, placed = 0;
  for (int t = 0; t < m; t++) {
    if (t == i) continue;
    if (!placed && j < idx[t]) {
      out[o++] = j;
      placed = 1;
    }
    out[o++] = idx[t];
  }
  if (!placed) out[o++] = j;
}

/* Geometric spread from the smallest to the largest candidate: position t
 * aims at c0 (c_last / c0)^(t / (m - 1)), takes the nearest candidate, kept
 * strictly increasing with room left for the positions after it. */
static void spread(const int *cand, int nc, int m, int *idx) {
  double lo = cand[0], hi = cand[nc - 1];
  int prev = -1, j = 0;
  for (int t = 0; t < m; t++) {
    double target = m == 1 ? lo : lo * pow(hi / lo, (double)t / (double)(m - 1));
    while (j + 1 < nc && (double)cand[j + 1] <= target) j++;
    int pick = j;
    if (j + 1 < nc && (double)cand[j + 1] - target < target - (double)cand[j]) pick = j + 1;
    if (pick <= prev) pick = prev + 1;
    if (pick > nc - (m - t)) pick = nc - (m - t);
    idx[t] = prev = pick;
  }
}

/* Coordinate descent: each position tries the unused candidates within a
 * radius and takes the best; repeat while anything improves. */
static void local_search(Search *S, int *idx, Score *best) {
  int m = S->m, nc = S->nc;
  double per_eval = (double)S->g * 2.0 * (double)m;
  int radius = (int)(TOTIENT_SEARCH_WORK / (per_eval * 2.0 * (double)m));
  if (radius > nc) radius = nc;
  if (radius < 1) radius = 1;
  int trial[WEFT_TOPO_MAX_DEGREE], keep[WEFT_TOPO_MAX_DEGREE];
  for (int sweep = 0; sweep < TOTIENT_SEARCH_SWEEPS; sweep++) {
    int improved = 0;
    for (int i = 0; i < m; i++) {
      int centre = idx[i], found = 0;
      Score bs = *best;
      for (int j = centre - radius; j <= centre + radius; j++) {
        if (j < 0 || j >= nc || j == centre) continue;
        int used = 0;
        for (int t = 0; t < m && !used; t++) used = idx[t] == j;
        if (used) continue;
        replaced(idx, m, i, j, trial);
        Score sc = score_of(S, trial);
        if (better(sc, trial, bs, found ? keep : idx, m)) {
          bs = sc;
          memcpy(keep, trial, (size_t)m * sizeof *keep);
          found = 1;
        }
      }
      if (found) {
        memcpy(idx, keep, (size_t)m * sizeof *idx);
        *best = bs;
        improved = 1;
      }
    }
    if (!improved) break;
  }
}

int weft_totient_strides(int n, int g, int nstrides, int *strides, int *diameter_hops) {
  if (n < 2 || g < 2 || g > n || n % g || nstrides < 1 || !strides) return WEFT_EINVAL;
  int q = n / g;
  int *cand = malloc(((size_t)g / 2 + 1) * sizeof *cand);
  int *dist = malloc((size_t)g * sizeof *dist), *queue = malloc((size_t)g * sizeof *queue);
  if (!cand || !dist || !queue) {
    free(cand);
    free(dist);
    free(queue);
    return WEFT_ENOMEM;
  }
  int nc = 0;
  for (int k = 1; k <= g / 2; k++)  /* k ~ g - k: the same ring run backwards */
    if (gcd(k, g) == 1) cand[nc++] = k;
  int m = nstrides < nc ? nstrides : nc;
  if (m > WEFT_TOPO_MAX_DEGREE) m = WEFT_TOPO_MAX_DEGREE;  /* beyond any port count */
  int idx[WEFT_TOPO_MAX_DEGREE] = {0}, kbuf[WEFT_TOPO_MAX_DEGREE];
  Search S = {g, nc, m, cand, kbuf, dist, queue};
  if (m == nc) {
    for (int i = 0; i < m; i++) idx[i] = i;
  } else {
    spread(cand, nc, m, idx);
  }
  Score best = score_of(&S, idx);
  if (m < nc) local_search(&S, idx, &best);
  for (int i = 0; i < m; i++) strides[i] = q * cand[idx[i]];
  if (diameter_hops) *diameter_hops = best.diam;
  free(cand);
  free(dist);
  free(queue);
  return m;
}

/* ------------------------------------------------------------ coin-change routes */

int totient_route_init(TotientRoute *tr, int n, int g, const int *strides, int nstrides) {
  memset(tr, 0, sizeof *tr);
  if (n < 2 || g < 2 || n % g || nstrides < 1 || nstrides > WEFT_TOPO_MAX_DEGREE)
    return WEFT_EINVAL;
  int q = n / g, k[WEFT_TOPO_MAX_DEGREE];
  for (int s = 0; s < nstrides; s++) {
    if (strides[s] <= 0 || strides[s] >= n || strides[s] % q) return WEFT_EINVAL;
    k[s] = strides[s] / q;
  }
  tr->n = n;
  tr->g = g;
  tr->q = q;
  tr->nstrides = nstrides;
  memcpy(tr->stride, strides, (size_t)nstrides * sizeof *strides);
  tr->dist = malloc((size_t)g * sizeof *tr->dist);
  tr->last = malloc((size_t)g * sizeof *tr->last);
  int *queue = malloc((size_t)g * sizeof *queue);
  if (!tr->dist || !tr->last || !queue) {
    free(queue);
    totient_route_free(tr);
    return WEFT_ENOMEM;
  }
  /* BFS from offset 0; the first hop to reach an offset is kept, trying
   * +stride[0], -stride[0], +stride[1], ... in order (deterministic). */
  for (int r = 0; r < g; r++) tr->dist[r] = -1;
  int head = 0, tail = 0;
  tr->dist[0] = 0;
  tr->last[0] = 0;
  queue[tail++] = 0;
  while (head < tail) {
    int r = queue[head++];
    for (int s = 0; s < nstrides; s++)
      for (int sign = 1; sign >= -1; sign -= 2) {
        int v = ((r + sign * k[s]) % g + g) % g;
        if (tr->dist[v] >= 0) continue;
        tr->dist[v] = tr->dist[r] + 1;
        tr->last[v] = sign * (s + 1);
        queue[tail++] = v;
      }
  }
  free(queue);
  return WEFT_OK;
}

void totient_route_free(TotientRoute *tr) {
  free(tr->dist);
  free(tr->last);
  tr->dist = tr->last = NULL;
}

int totient_route(const TotientRoute *tr, int a, int b, int *hops, int max) {
  int n = tr->n;
  if (!tr->dist || a < 0 || b < 0 || a >= n || b >= n) return -1;
  int delta = ((b - a) % n + n) % n;
  if (delta % tr->q) return -1;  /* another class: no stride reaches */
  int r = delta / tr->q, h = tr->dist[r];
  if (h < 0 || h > max) return -1;
  for (int t = h - 1; t >= 0; t--) { /* walk the last hops back to offset 0 */
    int hop = tr->last[r], s = abs(hop) - 1, k = tr->stride[s] / tr->q;
    hops[t] = hop;
    r = hop > 0 ? (r - k + tr->g) % tr->g : (r + k) % tr->g;
  }
  return h;
}
