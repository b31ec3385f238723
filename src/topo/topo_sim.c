/* topo_sim.c — a job's iteration on a fabric: compute, then every ring
 * all-reduce and model-parallel transfer as fluid flows on the fabric's
 * graph (max-min fair, multi-hop paths forwarded by the hosts). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topo/fabric.h"

#define MAX_RINGS WEFT_TOPO_MAX_DEGREE
#define MAX_PATHS 16
#define MAX_PATH_LINKS 4096
#define TAG_MP 1ull  /* low bit of a tag: 0 AllReduce, 1 model-parallel */

typedef struct {
  WeftFlowSim *fs;        /* flows go here, or when NULL ... */
  double *load_class[2];  /* ... their bytes onto each link, AllReduce and model-parallel */
  int links[MAX_PATH_LINKS], len[MAX_PATHS];
  unsigned long long flows;
  WeftError *err;
} Run;

/* bytes src -> dst split evenly over up to k of the fabric's paths. */
static int send(Run *r, const WeftFabric *f, int src, int dst, double bytes, int k,
                unsigned long long tag) {
  if (!(bytes > 0)) return WEFT_OK;
  int np = weft_fabric_paths(f, src, dst, r->links, MAX_PATH_LINKS, r->len, k < MAX_PATHS ? k : MAX_PATHS);
  if (np <= 0)
    return weft_error_set(r->err, WEFT_EINPUT, "", 0, 0, NULL,
                          "no route from server %d to server %d on the fabric", src, dst);
  int off = 0;
  for (int p = 0; p < np; p++) {
    if (r->fs) {
      int rc = weft_flowsim_start(r->fs, r->links + off, r->len[p], bytes / np, tag);
      if (rc) return rc;
    } else {
      for (int h = 0; h < r->len[p]; h++) r->load_class[tag & TAG_MP][r->links[off + h]] += bytes / np;
    }
    off += r->len[p];
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
  for (int ring = 0; !rc && ring < nr; ring++)
    for (int i = 0; !rc && i < g; i++)
      rc = send(r, f, ar->members[i], ar->members[succ[ring * g + i]], per, f->kpaths, 0);
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
  for (int i = 0; !rc && i < t->ndemand; i++)
    rc = send(r, f, t->demand[i].src, t->demand[i].dst, t->demand[i].bytes, f->kpaths, TAG_MP);
  return rc;
}

int weft_fabric_simulate(const WeftFabric *f, const WeftTraffic *t, WeftTopoTime *out,
                         WeftError *err) {
  int rc = check(f, t, out, err);
  if (rc) return rc;
  Run r;
  memset(&r, 0, sizeof r);
  r.err = err;
  rc = weft_flowsim_create(f->g, WEFT_SHARE_MAXMIN, &r.fs);
  if (!rc) rc = route_all(&r, f, t);
  double now = 0.0;
  while (!rc && weft_flowsim_active(r.fs)) {
    unsigned long long done[256];
    now = weft_flowsim_next(r.fs);
    int k;
    do {
      k = weft_flowsim_advance(r.fs, now, done, 256);
      if (k < 0) {
        rc = k;
        break;
      }
      for (int i = 0; i < k; i++) {
        if (done[i] & TAG_MP) out->mp_ns = now;
        else out->ar_ns = now;
      }
    } while (k == 256);
  }
  if (!rc) {
    out->comm_ns = now;
    out->compute_ns = t->compute_ns;
    out->time_ns = t->compute_ns + now;
    out->flows = r.flows;
    int nl = weft_graph_nlinks(f->g);
    for (int l = 0; l < nl && now > 0; l++) {
      double bw;
      weft_graph_link(f->g, l, NULL, NULL, &bw);
      out->max_link_util = fmax(out->max_link_util, weft_flowsim_link_bytes(r.fs, l) / (bw * now));
    }
  }
  weft_flowsim_free(r.fs);
  return rc;
}

/* The same flows, not simulated: their bytes summed per link. The busiest
 * link's bytes / bandwidth bound the communication time from below (the
 * flows could not finish sooner even if they shared perfectly); the bound is
 * the simulated time when one bottleneck carries everything to the end. */
int weft_fabric_estimate(const WeftFabric *f, const WeftTraffic *t, WeftTopoTime *out,
                         WeftError *err) {
  int rc = check(f, t, out, err);
  if (rc) return rc;
  Run r;
  memset(&r, 0, sizeof r);
  r.err = err;
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
