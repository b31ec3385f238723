/* finder.c — TopologyFinder (TopoOpt): split each server's d ports between
 * AllReduce rings (TotientPerms) and model-parallel links (rounds of
 * maximum-weight matching), wire them, and route over the result. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topo/fabric.h"
#include "topo/finder.h"
#include "topo/totient.h"

/* The heaviest pair's integer weight in a matching round: 2^30 keeps
 * 1e-9 relative resolution, and n/2 such weights stay far below the
 * matcher's exact range of 2^52. */
#define MATCH_SCALE 1073741824.0

void weft_topo_settings_default(WeftTopoSettings *s) {
  s->degree = 4;
  s->port_gbps = 12.5; /* 100 Gbit/s */
  s->ar_degree = WEFT_AR_DEGREE_PROPORTIONAL;
  s->kpaths = 4;
}

/* Routing state kept with the fabric. */
typedef struct {
  TotientRoute tr;   /* the strides' coin-change table; nstrides 0 = no rings */
  long long *key;    /* pairs with model-parallel demand, lo * n + hi, ascending */
  int nkey;
} Finder;

static void finder_free(void *p) {
  Finder *fd = p;
  if (!fd) return;
  totient_route_free(&fd->tr);
  free(fd->key);
  free(fd);
}

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

static long long pair_key(int n, int a, int b) {
  return a < b ? (long long)a * n + b : (long long)b * n + a;
}

/* The group is the class members[0] mod q, all g of it, in order: it has
 * rings of its own (one per stride). */
static int own_class(const WeftAllReduce *ar, int g, int q) {
  if (ar->size != g || ar->members[0] >= q) return 0;
  for (int i = 1; i < g; i++)
    if (ar->members[i] != ar->members[0] + i * q) return 0;
  return 1;
}

/* Every member in one class mod q: the strides reach between any two. */
static int one_class(const WeftAllReduce *ar, int q) {
  for (int i = 1; i < ar->size; i++)
    if ((ar->members[i] - ar->members[0]) % q) return 0;
  return 1;
}

/* ------------------------------------------------------------ routing callbacks */

static int has_demand(const Finder *fd, int n, int a, int b) {
  long long k = pair_key(n, a, b);
  return fd->nkey && bsearch(&k, fd->key, (size_t)fd->nkey, sizeof k, cmp_ll) != NULL;
}

/* Ring links come first, in a closed form: stride s, server i has the
 * physical link i -- i + stride[s] as ids 2 (s n + i) (forward) and + 1. */
static int ring_link(const TotientRoute *tr, int s, int v, int up, int *next) {
  int n = tr->n, p = tr->stride[s];
  if (up) {
    *next = (v + p) % n;
    return 2 * (s * n + v);
  }
  int u = (v - p + n) % n;
  *next = u;
  return 2 * (s * n + u) + 1;
}

/* Pairs with model-parallel demand: up to kpaths equal-cost shortest paths.
 * Anything else (AllReduce ring hops) the strides reach: the coin-change
 * route, one path. Otherwise shortest paths. */
static int finder_paths(const WeftFabric *f, int src, int dst, int *links, int max_links,
                        int *len, int max_paths) {
  const Finder *fd = f->impl;
  const TotientRoute *tr = &fd->tr;
  int n = f->nservers, k = max_paths < f->kpaths ? max_paths : f->kpaths;
  if (tr->nstrides > 0 && (dst - src) % tr->q == 0 && !has_demand(fd, n, src, dst)) {
    int h = totient_route(tr, src, dst, links, max_links);
    if (h < 0) return 0;  /* does not fit in max_links */
    for (int i = 0, v = src; i < h; i++)
      links[i] = ring_link(tr, abs(links[i]) - 1, v, links[i] > 0, &v);
    len[0] = h;
    return 1;
  }
  return fabric_paths_ecmp(f, src, dst, links, max_links, len, k);
}

/* A group that is a whole class runs two rings per stride, one each way
 * round (ring 2r successor i + k_r, ring 2r+1 i - k_r: both directions of
 * the bidirectional ring's links carry half); any other group two rings in
 * member order, forward and back (its hops routed by finder_paths). */
static int finder_rings(const WeftFabric *f, const WeftAllReduce *ar, int *succ, int max_rings) {
  const TotientRoute *tr = &((const Finder *)f->impl)->tr;
  int size = ar->size, own = tr->nstrides > 0 && own_class(ar, tr->g, tr->q);
  int nr = own ? 2 * tr->nstrides : 2;
  if (nr > max_rings) nr = max_rings;
  for (int r = 0; r < nr; r++) {
    int k = own ? tr->stride[r / 2] / tr->q : 1;
    int step = r % 2 ? size - k % size : k;
    for (int i = 0; i < size; i++) succ[r * size + i] = (i + step) % size;
  }
  return nr;
}

/* ------------------------------------------------------------ checks */

static int check_input(const WeftTraffic *t, const WeftTopoSettings *s, WeftError *err) {
  int n = t->nservers, d = s->degree;
  if (n < 2 || n > TOPO_MAX_SERVERS)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "nservers",
                          "a topology needs 2 to %d servers, not %d (the routing index holds "
                          "n^2 hop counts)",
                          TOPO_MAX_SERVERS, n);
  if (d < 1 || d > WEFT_TOPO_MAX_DEGREE)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "degree",
                          "degree %d out of range (1 to %d ports per server)", d,
                          WEFT_TOPO_MAX_DEGREE);
  if (!(s->port_gbps > 0) || s->port_gbps >= HUGE_VAL)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "port_gbps",
                          "port bandwidth %g gbps must be positive and finite", s->port_gbps);
  if (s->ar_degree < WEFT_AR_DEGREE_BEST || s->ar_degree > d ||
      (s->ar_degree > 0 && s->ar_degree % 2))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "ar_degree",
                          "ar_degree %d must be -1 (proportional), -2 (the fastest split) or "
                          "even, 0 to degree %d (a bidirectional ring takes two ports)",
                          s->ar_degree, d);
  if (s->kpaths < 1)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "kpaths", "kpaths %d must be >= 1",
                          s->kpaths);
  for (int a = 0; a < t->nallreduce; a++) {
    const WeftAllReduce *ar = &t->ar[a];
    if (ar->size < 2 || ar->size > n || !ar->members || !(ar->size_bytes >= 0) ||
        ar->size_bytes >= HUGE_VAL)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "allreduce",
                            "allreduce group %d: %d members of %g bytes (needs 2 to %d members, "
                            "finite bytes >= 0)",
                            a, ar->size, ar->size_bytes, n);
    for (int i = 0; i < ar->size; i++)
      if (ar->members[i] < 0 || ar->members[i] >= n || (i && ar->members[i] <= ar->members[i - 1]))
        return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "allreduce",
                              "allreduce group %d: member %d (server %d) is out of range or "
                              "out of ascending order",
                              a, i, ar->members[i]);
  }
  for (int i = 0; i < t->ndemand; i++) {
    const WeftDemand *dm = &t->demand[i];
    if (dm->src < 0 || dm->src >= n || dm->dst < 0 || dm->dst >= n || dm->src == dm->dst ||
        !(dm->bytes >= 0) || dm->bytes >= HUGE_VAL)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "demand",
                            "demand %d: %d -> %d of %g bytes (needs two distinct servers of "
                            "%d, finite bytes >= 0)",
                            i, dm->src, dm->dst, dm->bytes, n);
  }
  return WEFT_OK;
}

/* Ports for AllReduce rings: ar_degree, or d in proportion to the
 * AllReduce share of the bytes (port bandwidth divides both sides), even,
 * and at least one ring (2 ports) whenever d allows: it keeps a full ring
 * (connectivity), and the AllReduce traffic gets rings at all. */
static int ar_ports(const WeftTopoSettings *s, double t_ar, double t_mp) {
  int d = s->degree, even = d - d % 2;
  if (s->ar_degree >= 0) return s->ar_degree;
  if (even < 2) return 0;
  double share = t_ar + t_mp > 0 ? t_ar / (t_ar + t_mp) : 0.0;
  int da = 2 * (int)floor((double)d * share / 2.0 + 0.5);
  if (da < 2) da = 2;
  return da > even ? even : da;
}

/* ------------------------------------------------------------ model-parallel rounds */

typedef FinderPair Pair;

static int cmp_pair(const void *a, const void *b) {
  return cmp_ll(&((const Pair *)a)->key, &((const Pair *)b)->key);
}

/* Symmetrised demand, merged by pair: the traffic's demand plus the ring
 * hops of groups the strides cannot carry (ring_able[a] == 0). */
static int gather_pairs(const WeftTraffic *t, const char *ring_able, Pair **out, int *npairs) {
  int n = t->nservers;
  size_t cap = (size_t)t->ndemand;
  for (int a = 0; a < t->nallreduce; a++)
    if (!ring_able[a]) cap += (size_t)t->ar[a].size;
  Pair *p = malloc((cap ? cap : 1) * sizeof *p);
  if (!p) return WEFT_ENOMEM;
  size_t np = 0;
  for (int i = 0; i < t->ndemand; i++)
    if (t->demand[i].bytes > 0)
      p[np++] = (Pair){pair_key(n, t->demand[i].src, t->demand[i].dst), t->demand[i].bytes, 0};
  for (int a = 0; a < t->nallreduce; a++) {
    const WeftAllReduce *ar = &t->ar[a];
    if (ring_able[a] || !(ar->size_bytes > 0)) continue;
    double hop = 2.0 * (ar->size - 1) / ar->size * ar->size_bytes;  /* ring all-reduce */
    for (int i = 0; i < ar->size; i++)
      p[np++] = (Pair){pair_key(n, ar->members[i], ar->members[(i + 1) % ar->size]), hop, 0};
  }
  qsort(p, np, sizeof *p, cmp_pair);
  size_t m = 0;
  for (size_t i = 0; i < np; i++) {
    if (m && p[m - 1].key == p[i].key) p[m - 1].bytes += p[i].bytes;
    else p[m++] = p[i];
  }
  *out = p;
  *npairs = (int)m;
  return WEFT_OK;
}

/* Link i - j for a model-parallel round. */
static int mp_link(WeftGraph *G, int n, double bw, Pair *p, int np, int i, int j, int *mp,
                   int *nmp) {
  Pair key = {pair_key(n, i, j), 0, 0};
  Pair *hit = np ? bsearch(&key, p, (size_t)np, sizeof *p, cmp_pair) : NULL;
  if (hit) hit->links++;
  int l = weft_graph_add_link(G, i, j, bw);
  if (l >= 0) l = weft_graph_add_link(G, j, i, bw);
  if (l < 0) return l;
  mp[2 * *nmp] = i;
  mp[2 * *nmp + 1] = j;
  ++*nmp;
  return WEFT_OK;
}

/* Pair the spare servers, each (in order) with the unpaired spare farthest
 * from it on the links so far (BFS; ties: the lower id): long links that
 * shorten the paths every flow takes. The BFS runs on a copy of the
 * adjacency with room for the one link each spare gets here. */
static int pair_far(WeftGraph *G, int n, double bw, Pair *p, int np, int *spare, int ns, int *mp,
                    int *nmp) {
  if (ns < 2) return WEFT_OK;
  int L = weft_graph_nlinks(G);
  int *dist = malloc((size_t)n * sizeof *dist), *queue = malloc((size_t)n * sizeof *queue);
  int *off = calloc((size_t)n + 1, sizeof *off), *deg = calloc((size_t)n, sizeof *deg);
  int *adj = malloc(((size_t)L + (size_t)n + 1) * sizeof *adj);
  char *taken = calloc((size_t)n, 1);
  int rc = dist && queue && off && deg && adj && taken ? WEFT_OK : WEFT_ENOMEM;
  for (int l = 0; !rc && l < L; l++) {
    int u;
    weft_graph_link(G, l, &u, NULL, NULL);
    off[u + 1]++;
  }
  for (int v = 0; !rc && v < n; v++) off[v + 1] += off[v] + 1; /* + 1: this round's link */
  for (int l = 0; !rc && l < L; l++) {
    int u, v;
    weft_graph_link(G, l, &u, &v, NULL);
    adj[off[u] + deg[u]++] = v;
  }
  for (int k = 0; !rc && k < ns; k++) {
    int a = spare[k];
    if (taken[a]) continue;
    for (int v = 0; v < n; v++) dist[v] = -1;
    int head = 0, tail = 0;
    dist[a] = 0;
    queue[tail++] = a;
    while (head < tail) {
      int v = queue[head++];
      for (int i = off[v]; i < off[v] + deg[v]; i++) {
        int to = adj[i];
        if (dist[to] < 0) {
          dist[to] = dist[v] + 1;
          queue[tail++] = to;
        }
      }
    }
    int best = -1, bd = -2;
    for (int j = k + 1; j < ns; j++) {
      int b = spare[j], d = dist[b] < 0 ? n : dist[b]; /* unreachable: farthest of all */
      if (!taken[b] && d > bd) {
        best = b;
        bd = d;
      }
    }
    if (best < 0) continue;
    taken[a] = taken[best] = 1;
    adj[off[a] + deg[a]++] = best;
    adj[off[best] + deg[best]++] = a;
    rc = mp_link(G, n, bw, p, np, a, best, mp, nmp);
  }
  free(dist);
  free(queue);
  free(off);
  free(deg);
  free(adj);
  free(taken);
  return rc;
}

/* rounds of maximum-weight matching on what is left of the demand, each
 * matched pair one more link; a pair's weight is its demand over (links it
 * has + 1): the share each of its links would carry with one more. The
 * servers the matching leaves alone this round (no demand left for them)
 * are then paired far apart (pair_far), so every port is used and the spare
 * ones become long links that keep paths short (a perfect matching overall,
 * at the cost of a matching on the demand). A round whose input memo has
 * seen (another port split of the same job) takes its matching from there. */
static int mp_rounds(WeftGraph *G, int n, double bw, Pair *p, int np, int rounds, int *mp,
                     int *nmp, FinderMemo *memo) {
  *nmp = 0;
  if (rounds < 1) return WEFT_OK;
  int *local = malloc((size_t)n * sizeof *local), *server = malloc((size_t)n * sizeof *server);
  int *mate = malloc((size_t)n * sizeof *mate), *spare = malloc((size_t)n * sizeof *spare);
  long long *w = NULL; /* the weights, allocated at the first round to match */
  int rc = local && server && mate && spare ? WEFT_OK : WEFT_ENOMEM;
  int m = 0;
  if (!rc) { /* the matching runs on the servers that have demand */
    for (int v = 0; v < n; v++) local[v] = -1;
    for (int i = 0; i < np; i++) local[p[i].key / n] = local[p[i].key % n] = 0;
    for (int v = 0; v < n; v++)
      if (local[v] == 0) server[local[v] = m++] = v;
  }
  for (int r = 0; !rc && r < rounds; r++) {
    double top = 0;
    for (int i = 0; i < np; i++) top = fmax(top, p[i].bytes / (p[i].links + 1));
    for (int v = 0; v < n; v++) mate[v] = -1;
    int known = finder_memo_find(memo, p, np, n, mate);
    if (!known && !w && m > 1 && top > 0) {
      w = malloc(((size_t)m * (size_t)m + 1) * sizeof *w);
      if (!w) rc = WEFT_ENOMEM;
    }
    if (!rc && !known && m > 1 && top > 0) {
      memset(w, 0, (size_t)m * (size_t)m * sizeof *w);
      for (int i = 0; i < np; i++) {
        int a = local[p[i].key / n], b = local[p[i].key % n];
        long long wi = llround(p[i].bytes / (p[i].links + 1) / top * MATCH_SCALE);
        w[(size_t)a * m + b] = w[(size_t)b * m + a] = wi > 0 ? wi : 1;
      }
      int *lm = spare; /* the local mates, before spare is needed */
      rc = weft_max_weight_matching(m, w, 0, lm);
      for (int a = 0; !rc && a < m; a++)
        if (lm[a] >= 0) mate[server[a]] = server[lm[a]];
    }
    if (!rc && !known && memo) rc = finder_memo_add(memo, p, np, n, mate);
    int ns = 0;
    for (int i = 0; !rc && i < n; i++) {
      if (mate[i] < 0) spare[ns++] = i;
      else if (mate[i] > i) rc = mp_link(G, n, bw, p, np, i, mate[i], mp, nmp);
    }
    rc = rc ? rc : pair_far(G, n, bw, p, np, spare, ns, mp, nmp);
  }
  free(local);
  free(server);
  free(mate);
  free(spare);
  free(w);
  return rc;
}

/* ------------------------------------------------------------ build */

/* Every pair that must talk has a route: demand pairs and ring hops. */
static int check_reach(const WeftFabric *f, const WeftTraffic *t, WeftError *err) {
  for (int i = 0; i < t->ndemand; i++) {
    const WeftDemand *dm = &t->demand[i];
    if (dm->bytes > 0 && fabric_hops(f, dm->src, dm->dst) < 0)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "degree",
                            "server %d cannot reach server %d (model-parallel demand %d) on "
                            "the wiring: too few ports for rings and matchings",
                            dm->src, dm->dst, i);
  }
  int cap = 0, *succ = NULL;
  for (int a = 0; a < t->nallreduce; a++) {
    const WeftAllReduce *ar = &t->ar[a];
    if (ar->size > cap) {
      free(succ);
      cap = ar->size;
      succ = malloc((size_t)cap * WEFT_TOPO_MAX_DEGREE * sizeof *succ);
      if (!succ) return WEFT_ENOMEM;
    }
    int nr = f->rings(f, ar, succ, WEFT_TOPO_MAX_DEGREE);
    for (int r = 0; r < nr; r++)
      for (int i = 0; i < ar->size; i++) {
        int u = ar->members[i], v = ar->members[succ[r * ar->size + i]];
        if (fabric_hops(f, u, v) < 0) {
          free(succ);
          return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "degree",
                                "server %d cannot reach server %d (allreduce group %d) on the "
                                "wiring: too few ports for rings and matchings",
                                u, v, a);
        }
      }
  }
  free(succ);
  return WEFT_OK;
}

int finder_build(const WeftTraffic *t, const WeftTopoSettings *s, FinderMemo *memo,
                 WeftFabric **out, WeftError *err) {
  weft_error_clear(err);
  if (!out) return WEFT_EINVAL;
  *out = NULL;
  if (!t || !s) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no traffic or settings");
  int rc = check_input(t, s, err);
  if (rc) return rc;
  int n = t->nservers, d = s->degree;
  double B = s->port_gbps;

  /* The rings' group size g: the largest group that is a whole residue
   * class (i, i + n/g, ...), so it gets rings of its own; none: g = n. */
  int g = 0;
  for (int a = 0; a < t->nallreduce; a++) {
    const WeftAllReduce *ar = &t->ar[a];
    if (ar->size > g && n % ar->size == 0 && own_class(ar, ar->size, n / ar->size)) g = ar->size;
  }
  if (!g) g = n;
  int q = n / g;
  char *ring_able = calloc((size_t)t->nallreduce + 1, 1);
  if (!ring_able) return WEFT_ENOMEM;
  double t_ar = 0, t_mp = 0;  /* bytes; over the port bandwidth both are times */
  for (int a = 0; a < t->nallreduce; a++) {
    const WeftAllReduce *ar = &t->ar[a];
    ring_able[a] = (char)one_class(ar, q);
    double bytes = 2.0 * (ar->size - 1) * ar->size_bytes;  /* 2 (g-1)/g S per member */
    if (ring_able[a]) t_ar += bytes;
    else t_mp += bytes;  /* hops between classes: links of their own, by matching */
  }
  for (int i = 0; i < t->ndemand; i++) t_mp += t->demand[i].bytes;

  int strides[WEFT_TOPO_MAX_DEGREE], nstr = 0, da = ar_ports(s, t_ar, t_mp);
  if (da >= 2) nstr = weft_totient_strides(n, g, da / 2, strides, NULL);
  if (nstr < 0) {
    free(ring_able);
    return nstr;
  }
  if (nstr == 0) memset(ring_able, 0, (size_t)t->nallreduce + 1);  /* no rings: all by matching */
  int dmp = d - 2 * nstr;  /* ports the strides did not take (fewer candidates) go here too */

  WeftGraph *G = weft_graph_create(n);
  Finder *fd = calloc(1, sizeof *fd);
  Pair *pairs = NULL;
  int npairs = 0, nmp = 0;
  int *mp = malloc(((size_t)dmp * (size_t)n + 1) * sizeof *mp);  /* <= n/2 pairs a round */
  if (!G || !fd || !mp) rc = WEFT_ENOMEM;
  for (int r = 0; !rc && r < nstr; r++)
    for (int i = 0; !rc && i < n; i++) {
      int j = (i + strides[r]) % n, l = weft_graph_add_link(G, i, j, B);
      if (l >= 0) l = weft_graph_add_link(G, j, i, B);
      if (l < 0) rc = l;
    }
  if (!rc) rc = gather_pairs(t, ring_able, &pairs, &npairs);
  if (!rc) rc = mp_rounds(G, n, B, pairs, npairs, dmp, mp, &nmp, memo);
  free(pairs);
  free(ring_able);
  if (!rc && nstr > 0) rc = totient_route_init(&fd->tr, n, g, strides, nstr);
  if (!rc) { /* pairs with model-parallel demand, for finder_paths */
    fd->key = malloc(((size_t)t->ndemand + 1) * sizeof *fd->key);
    if (!fd->key) rc = WEFT_ENOMEM;
    for (int i = 0; !rc && i < t->ndemand; i++)
      if (t->demand[i].bytes > 0)
        fd->key[fd->nkey++] = pair_key(n, t->demand[i].src, t->demand[i].dst);
    if (!rc) qsort(fd->key, (size_t)fd->nkey, sizeof *fd->key, cmp_ll);
  }
  WeftFabric *f = rc ? NULL : fabric_new(WEFT_FABRIC_TOPOOPT, n, G);
  if (!f) {
    finder_free(fd);
    free(mp);
    weft_graph_free(G);
    return rc ? rc : WEFT_ENOMEM;
  }
  f->impl = fd;
  f->impl_free = finder_free;
  f->paths = finder_paths;
  f->rings = finder_rings;
  f->kpaths = s->kpaths;
  f->nstrides = nstr;
  memcpy(f->strides, strides, (size_t)nstr * sizeof *strides);
  f->mp = mp;
  f->nmp = nmp;
  f->bom.nic_gbps = f->bom.transceiver_gbps = (double)n * d * B;  /* every port, used or not */
  f->bom.panel_ports = f->bom.fibers = (double)n * d;
  rc = fabric_index(f);
  if (!rc) rc = check_reach(f, t, err);
  if (rc) {
    weft_fabric_free(f);
    return rc;
  }
  *out = f;
  return WEFT_OK;
}
