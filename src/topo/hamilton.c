/* hamilton.c — a random regular graph as edge-disjoint random Hamiltonian
 * cycles (hamilton.h): for even d the union of d/2 random Hamiltonian cycles
 * is contiguous to the uniform random d-regular graph (Kim and Wormald, J.
 * Combin. Theory B 81, 2001): the same expansion, and every ring an
 * AllReduce needs is in the wiring by construction. */
#include "topo/hamilton.h"

#include <stdlib.h>
#include <string.h>

#include "topo/rng.h"

#define REPAIR_TRIES 64   /* random partners tried for one repeated edge */
#define RESTARTS 1000     /* whole constructions tried before giving up (dense graphs) */

static int below(uint64_t *st, int bound) {
  uint64_t b = (uint64_t)bound, floor_ = (0 - b) % b, x;
  do x = topo_rng_next(st);
  while (x < floor_);
  return (int)(x % b);
}

/* The graph so far: deg[v] neighbours of v in adj[v*d ..]. */
typedef struct {
  int n, d, *adj, *deg;
} Partial;

static int has(const Partial *p, int v, int w) {
  for (int k = 0; k < p->deg[v]; k++)
    if (p->adj[v * p->d + k] == w) return 1;
  return 0;
}

static void add(Partial *p, int v, int w) {
  p->adj[v * p->d + p->deg[v]++] = w;
  p->adj[w * p->d + p->deg[w]++] = v;
}

/* Reverse seq's positions i+1 .. j (cyclically, j after i): edges
 * (seq[i], seq[i+1]) and (seq[j], seq[j+1]) become (seq[i], seq[j]) and
 * (seq[i+1], seq[j+1]). */
static void reverse(int *seq, int n, int i, int j) {
  int a = (i + 1) % n, b = j, len = (j - i + n) % n;
  for (int k = 0; k < len / 2; k++) {
    int t = seq[a];
    seq[a] = seq[b];
    seq[b] = t;
    a = (a + 1) % n;
    b = (b - 1 + n) % n;
  }
}

/* A random Hamiltonian cycle in seq[0..n) none of whose edges is in p yet;
 * 0 or 1 (not found). */
static int cycle(const Partial *p, int *seq, uint64_t *st) {
  int n = p->n;
  for (int i = 0; i < n; i++) seq[i] = i;
  for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
    int j = below(st, i + 1), t = seq[i];
    seq[i] = seq[j];
    seq[j] = t;
  }
  for (int pass = 0; pass < 4 * p->d + 8; pass++) {
    int bad = 0;
    for (int i = 0; i < n; i++) {
      int a = seq[i], b = seq[(i + 1) % n];
      if (!has(p, a, b)) continue;
      bad = 1;
      for (int t = 0; t < REPAIR_TRIES && n > 3; t++) { /* 2-opt with a random second edge */
        int j = (i + 2 + below(st, n - 3)) % n;       /* not i - 1, i, i + 1 */
        int c = seq[j], x = seq[(j + 1) % n];
        if (has(p, a, c) || has(p, b, x)) continue;
        reverse(seq, n, i, j);
        break;
      }
    }
    if (!bad) return 0;
  }
  for (int i = 0; i < n; i++)
    if (has(p, seq[i], seq[(i + 1) % n])) return 1;
  return 0;
}

/* A random perfect matching (n even) none of whose pairs is in p: pairs
 * (m[2k], m[2k+1]); 0 or 1. */
static int matching(const Partial *p, int *m, uint64_t *st) {
  int n = p->n;
  for (int i = 0; i < n; i++) m[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = below(st, i + 1), t = m[i];
    m[i] = m[j];
    m[j] = t;
  }
  for (int pass = 0; pass < 4 * p->d + 8; pass++) {
    int bad = 0;
    for (int k = 0; k < n / 2; k++) {
      int a = m[2 * k], b = m[2 * k + 1];
      if (!has(p, a, b)) continue;
      bad = 1;
      for (int t = 0; t < REPAIR_TRIES && n > 2; t++) { /* swap partners with another pair */
        int o = (k + 1 + below(st, n / 2 - 1)) % (n / 2), c = m[2 * o], x = m[2 * o + 1];
        if (has(p, a, c) || has(p, b, x)) continue;
        m[2 * k + 1] = c;
        m[2 * o] = b;
        break;
      }
    }
    if (!bad) return 0;
  }
  for (int k = 0; k < n / 2; k++)
    if (has(p, m[2 * k], m[2 * k + 1])) return 1;
  return 0;
}

int topo_hamilton_regular(int n, int d, uint64_t seed, int *adj, int *cyc) {
  int nc = d / 2, *deg = malloc((size_t)n * sizeof *deg), *m = malloc((size_t)n * sizeof *m);
  if (!deg || !m) {
    free(deg);
    free(m);
    return WEFT_ENOMEM;
  }
  Partial p = {n, d, adj, deg};
  uint64_t st = seed;
  int rc = 1;
  for (int tries = 0; rc && tries < RESTARTS; tries++) {
    memset(deg, 0, (size_t)n * sizeof *deg);
    rc = 0;
    for (int c = 0; !rc && c < nc; c++) {
      int *seq = cyc + (size_t)c * (size_t)n;
      if ((rc = cycle(&p, seq, &st))) break;
      for (int i = 0; i < n; i++) add(&p, seq[i], seq[(i + 1) % n]);
    }
    if (!rc && d % 2 && !(rc = matching(&p, m, &st)))
      for (int k = 0; k < n / 2; k++) add(&p, m[2 * k], m[2 * k + 1]);
  }
  free(deg);
  free(m);
  return rc;
}

/* Sort members by their position on one cycle. */
typedef struct {
  int pos, idx;
} ByPos;

static int by_pos(const void *a, const void *b) {
  const ByPos *x = a, *y = b;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

int topo_cycle_rings(const int *pos, int ncycles, int n, const WeftAllReduce *ar, int *succ,
                     int max_rings) {
  int g = ar->size, nr = 2 * ncycles < max_rings ? 2 * ncycles : max_rings - max_rings % 2;
  ByPos *o = malloc((size_t)(g > 0 ? g : 1) * sizeof *o);
  if (!o) return WEFT_ENOMEM;
  for (int r = 0; r < nr; r += 2) {
    const int *p = pos + (size_t)(r / 2) * (size_t)n;
    for (int i = 0; i < g; i++) o[i] = (ByPos){p[ar->members[i]], i};
    qsort(o, (size_t)g, sizeof *o, by_pos);
    for (int k = 0; k < g; k++) {
      succ[r * g + o[k].idx] = o[(k + 1) % g].idx;          /* forward round the cycle */
      succ[(r + 1) * g + o[k].idx] = o[(k + g - 1) % g].idx; /* and back */
    }
  }
  free(o);
  return nr;
}
