/* topo_sim.c — a job's iteration on a fabric: compute, then every ring
 * all-reduce and model-parallel transfer as fluid flows on the fabric's
 * graph (max-min fair, multi-hop paths forwarded by the hosts), in groups:
 * a ring's hops move together, and so do a demand's paths (topo_flow.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/pool.h"
#include "topo/fabric.h"
#include "topo/topo_flow.h"

#define MAX_RINGS WEFT_TOPO_MAX_DEGREE
#define MAX_PATHS 16
#define MAX_PATH_LINKS 4096
#define TAG_MP 1ull  /* low bit of a tag: 0 AllReduce, 1 model-parallel */

typedef struct {
  TopoFlow *fs;           /* groups go here, or when NULL ... */
  double *load_class[2];  /* ... their bytes onto each link, AllReduce and model-parallel */
  int links[MAX_PATH_LINKS], len[MAX_PATHS];
  FabricRoutes *routes;   /* the fabric's route memo, or NULL: route each time */
  unsigned long long flows;
  WeftError *err;
} Run;

/* bytes src -> dst split evenly over up to k of the fabric's paths. */
static int send(Run *r, const WeftFabric *f, int src, int dst, double bytes, int k,
                unsigned long long tag) {
  if (!(bytes > 0)) return WEFT_OK;
  const int *links = r->links, *len = r->len;
  int np = r->routes && k == f->kpaths /* the memo holds kpaths paths a pair */
               ? fabric_routes_get(r->routes, src, dst, &links, &len)
               : weft_fabric_paths(f, src, dst, r->links, MAX_PATH_LINKS, r->len,
                                   k < MAX_PATHS ? k : MAX_PATHS);
  if (np == WEFT_ENOMEM) return np;
  if (np <= 0)
    return weft_error_set(r->err, WEFT_EINPUT, "", 0, 0, NULL,
                          "no route from server %d to server %d on the fabric", src, dst);
  int off = 0;
  for (int p = 0; p < np; p++) {
    if (r->fs) { /* one transfer of the open group: each path carries 1/np of it */
      for (int h = 0; h < len[p]; h++) {
        int rc = topo_flow_use(r->fs, links[off + h], 1.0 / np);
        if (rc) return rc;
      }
    } else {
      for (int h = 0; h < len[p]; h++) r->load_class[tag & TAG_MP][links[off + h]] += bytes / np;
    }
    off += len[p];
    r->flows++;
  }
  return WEFT_OK;
}

static int start_allreduce(Run *r, const WeftFabric *f, const WeftAllReduce *ar) {
  int g = ar->size, nr = 1, rc = WEFT_OK;
  int *succ = malloc((size_t)g * MAX_RINGS * sizeof *succ);
  if (!succ) return WEFT_ENOMEM;
  if (f->rings) {
    nr = f->rings(f, ar, succ, MAX_RINGS);
  } else { /* a bidirectional ring in member order: half each way round */
    nr = 2;
    for (int i = 0; i < g; i++) {
      succ[i] = (i + 1) % g;
      succ[g + i] = (i + g - 1) % g;
    }
  }
  if (nr < 1) rc = nr < 0 ? nr : WEFT_EINVAL;
  /* ring all-reduce: every member sends 2 (g-1)/g of its share to its
   * successor, over the fabric's equal-cost paths to it */
  double per = 2.0 * (g - 1) / g * ar->size_bytes / (nr > 0 ? nr : 1);
  for (int ring = 0; !rc && ring < nr && per > 0; ring++) {
    /* a ring moves together: every step of a ring all-reduce waits for its
     * slowest hop, so one group of g transfers at one rate */
    if (r->fs) rc = topo_flow_group(r->fs, per, 0);
    for (int i = 0; !rc && i < g; i++)
      rc = send(r, f, ar->members[i], ar->members[succ[ring * g + i]], per, f->kpaths, 0);
  }
  free(succ);
  return rc;
}

/* The traffic matches the fabric? Clears *out either way. */
static int check(const WeftFabric *f, const WeftTraffic *t, WeftTopoTime *out, WeftError *err) {
  weft_error_clear(err);
  memset(out, 0, sizeof *out);
  if (!f || !t || t->nservers != f->nservers)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "the traffic's servers (%d) are not the fabric's (%d)",
                          t ? t->nservers : 0, f ? f->nservers : 0);
  return WEFT_OK;
}

/* Every AllReduce and every demand, routed into r (flows or link loads). */
static int route_all(Run *r, const WeftFabric *f, const WeftTraffic *t) {
  int rc = WEFT_OK;
  for (int a = 0; !rc && a < t->nallreduce; a++) rc = start_allreduce(r, f, &t->ar[a]);
  for (int i = 0; !rc && i < t->ndemand; i++) {
    const WeftDemand *dm = &t->demand[i];
    if (r->fs && dm->bytes > 0) rc = topo_flow_group(r->fs, dm->bytes, (unsigned)TAG_MP);
    if (!rc) rc = send(r, f, dm->src, dm->dst, dm->bytes, f->kpaths, TAG_MP);
  }
  return rc;
}

int weft_fabric_simulate(const WeftFabric *f, const WeftTraffic *t, WeftTopoTime *out,
                         WeftError *err) {
  int rc = check(f, t, out, err);
  if (rc) return rc;
  Run r;
  memset(&r, 0, sizeof r);
  r.err = err;
  int nl = weft_graph_nlinks(f->g);
  double *cap = malloc(((size_t)nl + 1) * sizeof *cap), end[2];
  for (int l = 0; cap && l < nl; l++) weft_graph_link(f->g, l, NULL, NULL, &cap[l]);
  r.fs = cap ? topo_flow_create(nl, cap) : NULL;
  free(cap);
  rc = r.fs ? route_all(&r, f, t) : WEFT_ENOMEM;
  if (!rc) rc = topo_flow_run(r.fs, end, 2);
  if (rc == WEFT_EINVAL)
    rc = weft_error_set(err, WEFT_EINPUT, "", 0, 0, NULL, "a transfer crosses a link of no bandwidth");
  if (!rc) {
    double now = fmax(end[0], end[1]);
    out->ar_ns = end[0];
    out->mp_ns = end[1];
    out->comm_ns = now;
    out->compute_ns = t->compute_ns;
    out->time_ns = t->compute_ns + now;
    out->flows = r.flows;
    for (int l = 0; l < nl && now > 0; l++) {
      double bw;
      weft_graph_link(f->g, l, NULL, NULL, &bw);
      out->max_link_util = fmax(out->max_link_util, topo_flow_link_bytes(r.fs, l) / (bw * now));
    }
  }
  topo_flow_free(r.fs);
  return rc;
}

/* The same flows, not simulated: their bytes summed per link. The busiest
 * link's bytes / bandwidth bound the communication time from below (the
 * flows could not finish sooner even if they shared perfectly); the bound is
 * the simulated time when one bottleneck carries everything to the end. */
int weft_fabric_estimate(const WeftFabric *f, const WeftTraffic *t, WeftTopoTime *out,
                         WeftError *err) {
  return fabric_estimate_memo(f, t, NULL, out, err);
}

FabricRoutes *fabric_routes_for(const WeftFabric *f) {
  int k = f->kpaths < MAX_PATHS ? f->kpaths : MAX_PATHS;
  return f->kpaths >= 1 ? fabric_routes_create(f, MAX_PATH_LINKS, k) : NULL;
}

int fabric_estimate_memo(const WeftFabric *f, const WeftTraffic *t, FabricRoutes *routes,
                         WeftTopoTime *out, WeftError *err) {
  int rc = check(f, t, out, err);
  if (rc) return rc;
  Run r;
  memset(&r, 0, sizeof r);
  r.err = err;
  r.routes = routes;
  int nl = weft_graph_nlinks(f->g);
  r.load_class[0] = calloc((size_t)nl + 1, sizeof(double));
  r.load_class[1] = calloc((size_t)nl + 1, sizeof(double));
  rc = r.load_class[0] && r.load_class[1] ? route_all(&r, f, t) : WEFT_ENOMEM;
  for (int l = 0; !rc && l < nl; l++) {
    double bw;
    weft_graph_link(f->g, l, NULL, NULL, &bw);
    out->ar_ns = fmax(out->ar_ns, r.load_class[0][l] / bw);
    out->mp_ns = fmax(out->mp_ns, r.load_class[1][l] / bw);
    out->comm_ns = fmax(out->comm_ns, (r.load_class[0][l] + r.load_class[1][l]) / bw);
  }
  if (!rc) {
    out->compute_ns = t->compute_ns;
    out->time_ns = t->compute_ns + out->comm_ns;
    out->max_link_util = out->comm_ns > 0 ? 1.0 : 0.0;
    out->flows = r.flows;
  }
  free(r.load_class[0]);
  free(r.load_class[1]);
  return rc;
}

/* ------------------------------------------------------------ several fabrics */

typedef struct {
  const WeftFabric *const *f;
  const WeftTraffic *t;
  WeftTopoTime *out;
  const int *order;
  int *rc;
  WeftError *err;  /* one per fabric */
} Many;

static void simulate_one(void *ctx, size_t i) {
  Many *m = ctx;
  int k = m->order[i];
  m->rc[k] = weft_fabric_simulate(m->f[k], m->t, &m->out[k], &m->err[k]);
}

int weft_fabric_simulate_many(const WeftFabric *const *f, int nf, const WeftTraffic *t,
                              int threads, WeftTopoTime *out, WeftError *err) {
  weft_error_clear(err);
  if (nf < 0 || (nf > 0 && (!f || !out)))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no fabrics or output");
  for (int k = 0; k < nf; k++)
    if (!f[k]) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "fabric %d is missing", k);
  if (nf == 0) return WEFT_OK;
  int *order = malloc((size_t)nf * sizeof *order), *rc = calloc((size_t)nf, sizeof *rc);
  WeftError *e = calloc((size_t)nf, sizeof *e);
  if (!order || !rc || !e) {
    free(order), free(rc), free(e);
    return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  }
  /* the biggest first (by links), so the threads end together; the order
   * changes nothing else */
  for (int k = 0; k < nf; k++) {
    int j = k;
    for (; j > 0 && weft_graph_nlinks(f[order[j - 1]]->g) < weft_graph_nlinks(f[k]->g); j--)
      order[j] = order[j - 1];
    order[j] = k;
  }
  Many m = {f, t, out, order, rc, e};
  int r = weft_pool_run((size_t)nf, threads, 0, 1, simulate_one, &m, NULL, NULL);
  for (int k = 0; !r && k < nf; k++)
    if (rc[k]) { /* the first fabric that failed, as a loop would have said */
      r = rc[k];
      if (err) *err = e[k];
    }
  free(order), free(rc), free(e);
  return r;
}
