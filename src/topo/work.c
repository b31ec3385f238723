/* work.c — what a TopoOpt run costs before it runs (weft_topo_work): each
 * stage's steps from the job's size alone, so that `weft topo` can refuse a
 * run of hours up front (as weft_sim_estimate does for simulate). */
#include <math.h>
#include <string.h>

#include "topo/finder.h"
#include "weft.h"

#define MATCH_STEP 30.0 /* a blossom step against a routing step: a matching round on 4,096
                           pairs over 4,096 servers takes 0.5 s (docs/topo.md) */
#define SEARCH_ROUNDS 8 /* weft_topo_search_default's rebuilds, at most */

int weft_topo_work(const WeftTraffic *t, const WeftTopoSettings *s, WeftPortSplit split,
                   int search_iterations, WeftTopoWork *w) {
  if (!t || !s || !w || s->degree < 1 || t->nservers < 2) return WEFT_EINVAL;
  memset(w, 0, sizeof *w);
  if (t->nservers > TOPO_MAX_SERVERS) return WEFT_EINPUT; /* no topology: the build says why */
  double n = t->nservers, d = s->degree, k = s->kpaths > 0 ? s->kpaths : 1;
  double cand = split == WEFT_PORT_SPLIT_BEST ? floor(d / 2) + 1 : 1; /* fabrics wired */
  double rounds = split == WEFT_PORT_SPLIT_BEST ? 2 * d                /* matching rounds: */
                  : split == WEFT_PORT_SPLIT_RINGS ? 0 : d;            /* the splits share them */
  double hops = 1 + log(n) / log(d > 2 ? d : 2);                       /* a path's links */
  double groups = t->ndemand, ring_usage = 0;
  for (int a = 0; a < t->nallreduce; a++) { /* up to d rings a group, each of its size */
    groups += d;
    ring_usage += d * t->ar[a].size;
  }
  double usage = t->ndemand * k * hops + ring_usage * hops; /* routed link usages */
  /* BFS from every server over n d links: the candidates, the expander, the
   * switch and the Fat-tree (their own few links a server) */
  w->index = (cand + 1) * n * (n + n * d) + 2 * n * 4 * n;
  w->bytes = (cand + 3) * n * n * sizeof(int);
  /* each round: a maximum-weight matching over the demand pairs, and the
   * servers it leaves over paired far apart by one BFS each */
  w->matching = rounds * (MATCH_STEP * n * fmax(t->ndemand, n) + n * (n + n * d));
  /* a simulation: one event per group, each refilling up to every group and
   * ring usage and stepping every link; the best split's one or two, the
   * three baselines; and a link-load bound per candidate */
  double sim = groups * (groups + ring_usage + n * d) + usage;
  w->simulation = (split == WEFT_PORT_SPLIT_BEST ? 2 : 1) * sim + 3 * sim + cand * usage;
  if (search_iterations > 0) /* a bound a move, and each rebuild wires and simulates again */
    w->search = search_iterations * usage +
                SEARCH_ROUNDS * (w->index + w->matching + (split == WEFT_PORT_SPLIT_BEST ? 2 : 1) * sim);
  w->work = w->index + w->matching + w->simulation + w->search;
  return WEFT_OK;
}
