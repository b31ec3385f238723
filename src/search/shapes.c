/* shapes.c — every network shape over fixed building blocks: the ordered
 * factorizations of the NPU count into ndims factors, each within its
 * bounds; the default bound of a block (the sizes real systems have); and
 * a given network's variants with part of a dim idle (its actives). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "search/shapes.h"

#define SHAPES_MAX 10000000  /* refuse more shapes than this: a search that large is a typo */

/* Does name hold word (lowercase), in any case? */
static int names(const char *name, const char *word) {
  size_t n = strlen(name), m = strlen(word);
  for (size_t i = 0; i + m <= n; i++) {
    size_t k = 0;
    while (k < m && tolower((unsigned char)name[i + k]) == word[k]) k++;
    if (k == m) return 1;
  }
  return 0;
}

int weft_block_default_max(WeftTopology topo, const char *cost_class, const char **why) {
  static const struct {
    const char *word, *why;
    int max;
  } tier[] = {{"chiplet", "chiplets per package", WEFT_MAX_CHIPLETS},
              {"package", "packages per node", WEFT_MAX_PACKAGES},
              {"node", "nodes per scale-up pod", WEFT_MAX_NODES},
              {"pod", "pods on a scale-out fabric", WEFT_MAX_PODS}};
  const char *w;
  int max;
  switch (topo) { /* what the topology allows anywhere */
    case WEFT_RING: w = "a ring or torus dimension", max = WEFT_MAX_RING; break;
    case WEFT_FULLY_CONNECTED: w = "a full mesh", max = WEFT_MAX_FULLY_CONNECTED; break;
    default: w = "a switched fabric", max = WEFT_MAX_SWITCH; break;
  }
  for (size_t k = 0; k < sizeof tier / sizeof tier[0]; k++)
    if (cost_class && names(cost_class, tier[k].word)) { /* the first tier named */
      if (tier[k].max <= max) w = tier[k].why, max = tier[k].max;
      break;
    }
  if (why) *why = w;
  return max;
}

int weft_divisors(int n, int *div, int max) {
  int lo = 0, nhi = 0, hi[WEFT_SHAPES_MAX_DIVISORS];
  for (long f = 1; f * f <= n; f++)
    if (n % f == 0) {
      if (lo < max) div[lo++] = (int)f;
      if (f * f != n && nhi < WEFT_SHAPES_MAX_DIVISORS) hi[nhi++] = (int)(n / f);
    }
  for (int k = nhi - 1; k >= 0 && lo < max; k--) div[lo++] = hi[k];
  return lo;
}

typedef struct {
  int ndims;
  const int *hi;          /* upper bound per dim (>= 2) */
  int cur[WEFT_MAX_DIMS];
  size_t count;
  WeftNetwork *out;       /* NULL: count only */
  const WeftNetwork *proto;
  const int *div;         /* divisors of the NPU count, ascending */
  int ndiv;
} Walk;

/* Dims d.. must multiply to rest. Smallest factor first, so shapes come out
 * in lexicographic order of (npus[0], npus[1], ...). */
static void walk(Walk *w, int d, long rest) {
  if (w->count > SHAPES_MAX) return;
  if (d == w->ndims - 1) {
    if (rest < 2 || rest > w->hi[d]) return;
    w->cur[d] = (int)rest;
    if (w->out) {
      WeftNetwork *net = &w->out[w->count];
      *net = *w->proto;
      memcpy(net->npus, w->cur, (size_t)w->ndims * sizeof w->cur[0]);
    }
    w->count++;
    return;
  }
  /* Each later dim needs at least 2: f <= rest / 2^(ndims-1-d). */
  long cap = rest >> (w->ndims - 1 - d);
  if (cap > w->hi[d]) cap = w->hi[d];
  for (int k = 0; k < w->ndiv && w->div[k] <= cap; k++)
    if (w->div[k] >= 2 && rest % w->div[k] == 0) {
      w->cur[d] = w->div[k];
      walk(w, d + 1, rest / w->div[k]);
    }
}

int weft_network_shapes(const WeftTopology *topo, const char (*cost_dim)[WEFT_NAME_LEN],
                        int ndims, int npus, const int *max_per_dim, WeftNetwork **out,
                        size_t *n, WeftError *err) {
  if (out) *out = NULL;
  if (n) *n = 0;
  if (!topo || !out || !n)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "null argument");
  if (ndims < 1 || ndims > WEFT_MAX_DIMS)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "dims",
                          "the number of dims must be in 1..%d, got %d", WEFT_MAX_DIMS, ndims);
  if (npus < 2)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "npus",
                          "the NPU count must be at least 2, got %d", npus);
  WeftNetwork proto;
  memset(&proto, 0, sizeof proto);
  proto.ndims = ndims;
  int hi[WEFT_MAX_DIMS];
  for (int d = 0; d < ndims; d++) {
    if (topo[d] != WEFT_RING && topo[d] != WEFT_FULLY_CONNECTED && topo[d] != WEFT_SWITCH)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "blocks", "dim %d: unknown topology %d",
                            d + 1, (int)topo[d]);
    int m = max_per_dim ? max_per_dim[d] : 0;
    if (m < 0 || m == 1)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "max_per_dim",
                            "dim %d: the largest size must be 0 (no limit) or at least 2, got %d",
                            d + 1, m);
    hi[d] = m == 0 || m > npus ? npus : m;
    proto.topology[d] = topo[d];
    if (cost_dim) {
      size_t len = strnlen(cost_dim[d], WEFT_NAME_LEN - 1);
      memcpy(proto.cost_dim[d], cost_dim[d], len);
      proto.cost_dim[d][len] = '\0';
    }
  }
  int div[WEFT_SHAPES_MAX_DIVISORS], ndiv = weft_divisors(npus, div, WEFT_SHAPES_MAX_DIVISORS);
  Walk w = {.ndims = ndims, .hi = hi, .count = 0, .out = NULL, .proto = &proto,
            .div = div, .ndiv = ndiv};
  walk(&w, 0, npus);
  if (w.count > SHAPES_MAX)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "npus",
                          "more than %d network shapes: bound the dims", SHAPES_MAX);
  size_t total = w.count;
  if (total == 0) return WEFT_OK;  /* none: the caller says why (npus < 2^ndims, bounds) */
  w.out = malloc(total * sizeof *w.out);
  if (!w.out) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  w.count = 0;
  walk(&w, 0, npus);
  *out = w.out;
  *n = total;
  return WEFT_OK;
}

/* Dim d's candidate active counts into cand[] (largest first), how many
 * (search.h): for each power of two 2^k <= n that does not divide n, the
 * largest multiple of 2^k below n, when at most a quarter of n idles. */
static int active_candidates(const WeftNetwork *net, int d, int *cand) {
  int n = net->npus[d], nc = 0;
  if (net->spares[d] > 0 || n < 2) return 0;
  for (long p = 2; p <= n; p *= 2) {
    if (n % p == 0) continue;
    int a = (int)(n / p * p);
    if (4LL * a < 3LL * n || a < 2) break;  /* larger p only idle more */
    if (nc == 0 || cand[nc - 1] != a) cand[nc++] = a;
  }
  return nc;
}

int weft_network_actives(const WeftNetwork *in, size_t nin, WeftNetwork **out, size_t *nout,
                         WeftError *err) {
  if (out) *out = NULL;
  if (nout) *nout = 0;
  if ((!in && nin) || !out || !nout)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "null argument");
  size_t total = 0;
  int cand[WEFT_MAX_DIMS][WEFT_ACTIVE_MAX_CANDIDATES];
  for (size_t k = 0; k < nin; k++) {
    size_t here = 1;
    for (int d = 0; d < in[k].ndims && d < WEFT_MAX_DIMS; d++)
      here *= (size_t)active_candidates(&in[k], d, cand[d]) + 1;
    total += here;
  }
  WeftNetwork *o = malloc((total ? total : 1) * sizeof *o);
  if (!o) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL,
                                "out of memory");
  size_t i = 0;
  for (size_t k = 0; k < nin; k++) {
    int nc[WEFT_MAX_DIMS], D = in[k].ndims < WEFT_MAX_DIMS ? in[k].ndims : WEFT_MAX_DIMS;
    size_t here = 1;
    for (int d = 0; d < D; d++) here *= (size_t)(nc[d] = active_candidates(&in[k], d, cand[d])) + 1;
    for (size_t m = 0; m < here; m++) {  /* mixed radix, dim 1 fastest: 0 all, j cand[j-1] */
      WeftNetwork *v = &o[i++];
      *v = in[k];
      size_t r = m;
      for (int d = 0; d < D; d++) {
        size_t j = r % (size_t)(nc[d] + 1);
        r /= (size_t)(nc[d] + 1);
        if (j == 0) continue;
        v->spares[d] = v->npus[d] - cand[d][j - 1];
        v->npus[d] = cand[d][j - 1];
      }
    }
  }
  *out = o;
  *nout = total;
  return WEFT_OK;
}
