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
  WeftFlowSim *fs;
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
    int rc = weft_flowsim_start(r->fs, r->links + off, r->len[p], bytes / np, tag);
    if (rc) return rc;
    off += r->len[p];
    r->flows++;
  }
  return WEFT_OK;
}

static int start_allreduce(Run *r, const WeftFabric *f, const WeftAllReduce *ar) {
  int g = ar->size, nr = 1, rc = WEFT_OK;
  int *succ = malloc((size_t)g * MAX_RINGS * sizeof *succ);
  if (!succ) return WEFT_ENOMEM;
  if (f->rings) nr = f->rings(f, ar, succ, MAX_RINGS);
  else
    for (int i = 0; i < g; i++) succ[i] = (i + 1) % g;
  if (nr < 1) rc = nr < 0 ? nr : WEFT_EINVAL;
  /* ring all-reduce: every member sends 2 (g-1)/g of its share to its successor */
  double per = 2.0 * (g - 1) / g * ar->size_bytes / (nr > 0 ? nr : 1);
  for (int ring = 0; !rc && ring < nr; ring++)
    for (int i = 0; !rc && i < g; i++)
      rc = send(r, f, ar->members[i], ar->members[succ[ring * g + i]], per, 1, 0);
  free(succ);
  return rc;
}

int weft_fabric_simulate(const WeftFabric *f, const WeftTraffic *t, WeftTopoTime *out,
                         WeftError *err) {
  weft_error_clear(err);
  memset(out, 0, sizeof *out);
  if (!f || !t || t->nservers != f->nservers)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "the traffic's servers (%d) are not the fabric's (%d)",
                          t ? t->nservers : 0, f ? f->nservers : 0);
  Run r;
  memset(&r, 0, sizeof r);
  r.err = err;
  int rc = weft_flowsim_create(f->g, WEFT_SHARE_MAXMIN, &r.fs);
  for (int a = 0; !rc && a < t->nallreduce; a++) rc = start_allreduce(&r, f, &t->ar[a]);
  for (int i = 0; !rc && i < t->ndemand; i++)
    rc = send(&r, f, t->demand[i].src, t->demand[i].dst, t->demand[i].bytes, f->kpaths, TAG_MP);
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
