/* evaluate.c — TopoOpt's evaluation as the paper runs it (docs/topo.md,
 * "Evaluation"): each fabric swept over its bandwidth (and degree), a
 * strategy searched for every point, cost and iteration time per point;
 * curves read at equal cost. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/pool.h"
#include "topo/eval.h"

static const char *const FABRIC_NAME[WEFT_EVAL_NFABRICS] = {
    "topoopt", "switch", "fattree", "fattree-oversub", "expander", "ocs"};

const char *weft_eval_fabric_name(WeftEvalFabric f) {
  return f >= 0 && f < WEFT_EVAL_NFABRICS ? FABRIC_NAME[f] : "?";
}

void weft_topo_eval_default(WeftTopoEval *e) {
  static const double port_gbit[] = {10, 25, 40, 100, 200};
  static const double nic_gbit[] = {10, 25, 40, 80, 100, 160, 200, 320, 400, 800, 1600};
  static const double reconf_ns[] = {1e4, 1e5, 1e6, 1e7, 1e8};
  memset(e, 0, sizeof *e);
  e->nservers = 128;
  e->gpus_per_server = 4;
  e->ndegrees = 2;
  e->degrees[0] = 4;
  e->degrees[1] = 8;
  e->nports = 5;
  for (int i = 0; i < 5; i++) e->port_gbps[i] = port_gbit[i] / 8;
  e->nnics = 11;
  for (int i = 0; i < 11; i++) e->nic_gbps[i] = nic_gbit[i] / 8;
  e->nreconf = 5;
  memcpy(e->reconf_ns, reconf_ns, sizeof reconf_ns);
  e->oversub = 3;
  e->radix = 64;
  e->tiers = 2;
  weft_topo_prices_default(&e->prices);
  e->iterations = 200;
  e->seed = 1;
  e->simulate = 1;
}

/* One task of the sweep (TopoOpt at one (d, B) with its OCS and expander,
 * or one switched fabric at one NIC): its points and its error. */
typedef struct {
  const WeftTopoEval *e;
  WeftDevice server;  /* gpus_per_server GPUs as one device */
  WeftEvalPoint *pts;
  int n, cap;
  WeftError *err;
} Run;

static WeftEvalPoint *add_point(Run *r, WeftEvalFabric f, int d, double gbps) {
  if (r->n == r->cap) {
    int cap = r->cap ? 2 * r->cap : 64;
    WeftEvalPoint *p = realloc(r->pts, (size_t)cap * sizeof *p);
    if (!p) return NULL;
    r->pts = p;
    r->cap = cap;
  }
  WeftEvalPoint *p = &r->pts[r->n++];
  memset(p, 0, sizeof *p);
  p->fabric = f;
  p->degree = d;
  p->gbps = gbps;
  return p;
}

/* Search a strategy (on `fixed`, or alternating with TopoOpt's topology),
 * then time it; *traffic and *fabric (TopoOpt's) are kept when asked. */
static int solve(Run *r, const WeftTopoSettings *ts, const WeftFabric *fixed, WeftEvalPoint *p,
                 WeftTraffic **traffic, WeftFabric **fabric) {
  const WeftTopoEval *e = r->e;
  WeftTopoSearch s;
  weft_topo_search_default(&s);
  s.model = e->model;
  s.dev = &r->server;
  s.nservers = e->nservers;
  s.topo = *ts;
  s.iterations = e->iterations;
  s.seed = e->seed;
  s.layer_choice = 1;
  s.fixed = fixed;
  WeftTopoSearchResult *sr = malloc(sizeof *sr);
  if (!sr) return weft_error_set(r->err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  int rc = weft_topo_search(&s, sr, r->err);
  WeftStrategy st = {sr->tp, sr->ntables ? sr->placement : NULL, sr->layer_mp};
  WeftTraffic *t = NULL;
  if (!rc) rc = weft_traffic_from_strategy(e->model, &r->server, e->nservers, &st, &t, r->err);
  const WeftFabric *on = fixed ? fixed : sr->fabric;
  WeftTopoTime tt;
  if (!rc)
    rc = e->simulate ? weft_fabric_simulate(on, t, &tt, r->err) : weft_fabric_estimate(on, t, &tt, r->err);
  if (!rc) {
    p->time_ns = tt.time_ns;
    p->comm_ns = tt.comm_ns;
    p->tp = sr->tp;
    for (int k = 0; k < sr->ntables; k++) p->replicated += sr->placement[k] == WEFT_TABLE_REPLICATED;
    for (int l = 0; l < WEFT_MAX_MODEL_LAYERS; l++) p->mp_layers += sr->layer_mp[l];
    p->cost_usd = weft_fabric_cost(on, &e->prices);
    weft_fabric_price_qty(on, e->prices.use_ocs, p->qty);
  }
  if (!rc && traffic) *traffic = t;
  else weft_traffic_free(t);
  if (!rc && fabric) *fabric = sr->fabric;
  else weft_fabric_free(sr->fabric);
  free(sr);
  return rc;
}

/* TopoOpt at (d, B), and beside it the expander and the OCS of the same ports. */
static int direct(Run *r, int d, double b) {
  const WeftTopoEval *e = r->e;
  WeftTopoSettings ts;
  weft_topo_settings_default(&ts);
  ts.degree = d;
  ts.port_gbps = b;
  ts.ar_degree = WEFT_AR_DEGREE_BEST; /* TopoOpt's port split: the fastest */
  WeftEvalPoint *p = add_point(r, WEFT_EVAL_TOPOOPT, d, b);
  if (!p) return weft_error_set(r->err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  WeftTraffic *t = NULL;
  WeftFabric *f = NULL;
  int rc = solve(r, &ts, NULL, p, &t, &f);
  WeftPrices ocs = e->prices;
  ocs.use_ocs = 1;
  double ocs_usd = rc ? 0 : weft_fabric_cost(f, &ocs), ar_ns = 0, mp_ns = 0, compute = rc ? 0 : t->compute_ns;
  double ocs_qty[WEFT_NPRICES] = {0};
  if (!rc) weft_fabric_price_qty(f, 1, ocs_qty);
  weft_fabric_free(f);
  if (!rc) rc = topo_eval_ocs(t, &ts, e->simulate, &ar_ns, &mp_ns, r->err);
  weft_traffic_free(t);
  int tp = rc ? 1 : p->tp, rep = rc ? 0 : p->replicated, mpl = rc ? 0 : p->mp_layers;
  for (int k = 0; !rc && k < e->nreconf; k++) {
    WeftEvalPoint *q = add_point(r, WEFT_EVAL_OCS, d, b);
    if (!q) return weft_error_set(r->err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
    q->reconf_ns = e->reconf_ns[k];
    q->cost_usd = ocs_usd;
    memcpy(q->qty, ocs_qty, sizeof q->qty);
    q->time_ns = topo_eval_ocs_time(compute, ar_ns, mp_ns, q->reconf_ns);
    q->comm_ns = q->time_ns - compute;
    q->tp = tp;
    q->replicated = rep;
    q->mp_layers = mpl;
  }
  WeftFabric *x = NULL;
  if (!rc) rc = weft_fabric_expander(e->nservers, d, b, e->seed, &x, r->err);
  WeftEvalPoint *q = rc ? NULL : add_point(r, WEFT_EVAL_EXPANDER, d, b);
  if (!rc && !q) rc = weft_error_set(r->err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  if (!rc) rc = solve(r, &ts, x, q, NULL, NULL);
  weft_fabric_free(x);
  return rc;
}

/* A switched fabric of NIC nic: the ideal switch or a Fat-tree. */
static int switched(Run *r, WeftEvalFabric kind, double nic) {
  const WeftTopoEval *e = r->e;
  WeftFabric *f = NULL;
  int rc = kind == WEFT_EVAL_SWITCH
               ? weft_fabric_switch(e->nservers, nic, &f, r->err)
               : weft_fabric_fattree(e->nservers, nic, e->radix, e->tiers,
                                     kind == WEFT_EVAL_FATTREE ? 1 : e->oversub, &f, r->err);
  WeftEvalPoint *p = rc ? NULL : add_point(r, kind, 1, nic);
  if (!rc && !p) rc = weft_error_set(r->err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  WeftTopoSettings ts;
  weft_topo_settings_default(&ts);
  if (!rc) rc = solve(r, &ts, f, p, NULL, NULL);
  weft_fabric_free(f);
  return rc;
}

typedef struct {
  const WeftTopoEval *e;
  Run *run;
  WeftError *err;
  int *rc;
  size_t ndirect, nsw;
} Tasks;

/* Task i: TopoOpt at (degree i / nports, port i % nports), then the switch,
 * the Fat-tree and the oversubscribed one at each NIC: the sweep's order. */
static void run_task(void *ctx, size_t i) {
  Tasks *T = ctx;
  const WeftTopoEval *e = T->e;
  Run *r = &T->run[i];
  if (i < T->ndirect) {
    T->rc[i] = direct(r, e->degrees[i / (size_t)e->nports], e->port_gbps[i % (size_t)e->nports]);
    return;
  }
  size_t j = i - T->ndirect;
  WeftEvalFabric kind = j / T->nsw == 0   ? WEFT_EVAL_SWITCH
                        : j / T->nsw == 1 ? WEFT_EVAL_FATTREE
                                          : WEFT_EVAL_FATTREE_OVERSUB;
  T->rc[i] = switched(r, kind, e->nic_gbps[j % T->nsw]);
}

int weft_topo_eval(const WeftTopoEval *e, WeftEvalPoint **pts, int *npts, WeftError *err) {
  weft_error_clear(err);
  *pts = NULL;
  *npts = 0;
  if (!e || !e->model || !e->dev || e->nservers < 2 || e->gpus_per_server < 1 ||
      e->ndegrees < 0 || e->ndegrees > WEFT_EVAL_MAX_SWEEP || e->nports < 0 ||
      e->nports > WEFT_EVAL_MAX_SWEEP || e->nnics < 0 || e->nnics > WEFT_EVAL_MAX_SWEEP ||
      e->nreconf < 0 || e->nreconf > WEFT_EVAL_MAX_SWEEP || !(e->oversub >= 1))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "bad evaluation settings");
  size_t ndirect = (size_t)e->ndegrees * (size_t)e->nports, nsw = (size_t)e->nnics;
  size_t ntask = ndirect + (e->oversub > 1 ? 3 : 2) * nsw;
  Tasks T = {e, calloc(ntask ? ntask : 1, sizeof(Run)), calloc(ntask ? ntask : 1, sizeof(WeftError)),
             calloc(ntask ? ntask : 1, sizeof(int)), ndirect, nsw};
  int rc = T.run && T.err && T.rc ? WEFT_OK : WEFT_ENOMEM;
  for (size_t i = 0; !rc && i < ntask; i++) {
    Run *r = &T.run[i];
    r->e = e;
    r->err = &T.err[i];
    r->server = *e->dev;
    r->server.peak_flops *= e->gpus_per_server;
    r->server.hbm_bytes *= e->gpus_per_server;
    r->server.hbm_bytes_per_s *= e->gpus_per_server;
  }
  /* the tasks on threads (each point's search is seeded, so any thread
   * count gives the same points), then their points in the sweep's order */
  if (!rc) rc = weft_pool_run(ntask, e->threads, 0, 1, run_task, &T, e->progress, e->progress_ctx);
  int total = 0;
  for (size_t i = 0; !rc && i < ntask; i++) {
    if (T.rc[i]) { /* the first task that failed, as the sweep in order would have said */
      rc = T.rc[i];
      if (err) *err = T.err[i];
    }
    total += T.run[i].n;
  }
  WeftEvalPoint *all = rc ? NULL : malloc((size_t)(total ? total : 1) * sizeof *all);
  if (!rc && !all) rc = weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  for (size_t i = 0, at = 0; !rc && i < ntask; at += (size_t)T.run[i++].n)
    if (T.run[i].n) memcpy(all + at, T.run[i].pts, (size_t)T.run[i].n * sizeof *all);
  for (size_t i = 0; T.run && i < ntask; i++) free(T.run[i].pts);
  free(T.run), free(T.err), free(T.rc);
  if (rc) {
    if (rc == WEFT_ENOMEM && err && !err->msg[0])
      weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
    return rc;
  }
  *pts = all;
  *npts = total;
  return WEFT_OK;
}

double weft_eval_time_at_cost(const WeftEvalPoint *pts, int npts, WeftEvalFabric f,
                              double cost_usd) {
  /* the curve's lower envelope: for the nearest cost at or below and at or
   * above, the fastest point of that cost */
  int lo = -1, hi = -1;
  for (int i = 0; i < npts; i++) {
    const WeftEvalPoint *p = &pts[i];
    if (p->fabric != f || !(p->cost_usd > 0)) continue;
    if (p->cost_usd <= cost_usd &&
        (lo < 0 || p->cost_usd > pts[lo].cost_usd ||
         (p->cost_usd == pts[lo].cost_usd && p->time_ns < pts[lo].time_ns)))
      lo = i;
    if (p->cost_usd >= cost_usd &&
        (hi < 0 || p->cost_usd < pts[hi].cost_usd ||
         (p->cost_usd == pts[hi].cost_usd && p->time_ns < pts[hi].time_ns)))
      hi = i;
  }
  if (lo < 0 || hi < 0) return (double)NAN;
  double c0 = pts[lo].cost_usd, c1 = pts[hi].cost_usd;
  if (c1 == c0) return fmin(pts[lo].time_ns, pts[hi].time_ns);
  double w = log(cost_usd / c0) / log(c1 / c0);
  return pts[lo].time_ns + w * (pts[hi].time_ns - pts[lo].time_ns);
}
