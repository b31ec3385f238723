/* codesign.c — co-design search: enumerate (network shape, parallelization)
 * points in a fixed order, evaluate each exactly (generate, solve), in parallel. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/par_check.h"
#include "opt/problem.h"
#include "search/pool.h"
#include "search/shapes.h"

#define CODESIGN_MAX_POINTS 20000000  /* hours of solving: beyond, the search is a typo */

static const char *const point_status_names[] = {
#define WEFT_POINT_NAME_(name, msg) msg,
    WEFT_POINT_STATUS_MAP(WEFT_POINT_NAME_)
#undef WEFT_POINT_NAME_
};

const char *weft_point_status_name(WeftPointStatus s) {
  size_t n = sizeof point_status_names / sizeof point_status_names[0];
  return (size_t)s < n ? point_status_names[s] : "unknown status";
}

void weft_run_settings_default(WeftRunSettings *rs) {
  if (!rs) return;
  memset(rs, 0, sizeof *rs);
  rs->threads = 0;
  rs->rank = 0;
  rs->nranks = 1;
}

/* Copy src into a reason buffer, cut to fit. */
static void set_reason(WeftDesignPoint *pt, const char *src) {
  size_t len = strnlen(src, sizeof pt->reason - 1);
  memcpy(pt->reason, src, len);
  pt->reason[len] = '\0';
}

static int check_list(const char *name, int n, const int *v, int lo, WeftError *err) {
  if (n < 0 || n > WEFT_MAX_CHOICES)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, name, "%s: %d choices, at most %d allowed",
                          name, n, WEFT_MAX_CHOICES);
  for (int k = 0; k < n; k++)
    if (v[k] < lo)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, name, "%s: %d is below %d", name, v[k],
                            lo);
  return WEFT_OK;
}

/* A knob list: at most max values, each in lo..hi. */
static int check_knob(const char *name, int n, const int *v, int max, int lo, int hi,
                      WeftError *err) {
  if (n < 0 || n > max)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, name, "%s: %d choices, at most %d allowed",
                          name, n, max);
  for (int k = 0; k < n; k++)
    if (v[k] < lo || v[k] > hi)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, name, "%s: %d is not in %d..%d", name,
                            v[k], lo, hi);
  return WEFT_OK;
}

/* The model of point pt (its index into models, or the one model). */
static const WeftModel *model_of(const WeftCodesignSpec *spec, const WeftDesignPoint *pt) {
  return spec->nmodels > 0 ? &spec->models[pt->model] : spec->model;
}

/* Every expert-parallel degree above 1 must divide some model's experts:
 * one that divides none (7 for DeepSeek-V3's 256, or any for a dense model)
 * would only make invalid points, reported by an unrelated first reason. */
static int check_ep(const WeftCodesignSpec *spec, WeftError *err) {
  int n = spec->nmodels > 0 ? spec->nmodels : 1;
  for (int k = 0; k < spec->nep; k++) {
    int v = spec->ep[k], any = v == 1;
    for (int m = 0; m < n && !any; m++) {
      int e = (spec->nmodels > 0 ? &spec->models[m] : spec->model)->experts;
      any = e > 1 && e % v == 0;
    }
    if (any) continue;
    const WeftModel *m0 = spec->nmodels > 0 ? &spec->models[0] : spec->model;
    if (n == 1 && m0->experts <= 1)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "ep",
                            "ep list (--ep-list, ep_list=) entry %d is %d, but %s has no "
                            "experts (only ep 1)", k + 1, v, m0->name);
    if (n == 1)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "ep",
                            "ep list (--ep-list, ep_list=) entry %d is %d, which does not "
                            "divide %s's %d experts", k + 1, v, m0->name, m0->experts);
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "ep",
                          "ep list (--ep-list, ep_list=) entry %d is %d, which divides the "
                          "experts of none of the %d models", k + 1, v, n);
  }
  return WEFT_OK;
}

static int check_spec(const WeftCodesignSpec *spec, WeftError *err) {
  if (spec && spec->nmodels < 0)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "models", "negative model count");
  if (spec && spec->nmodels > 0 && !spec->models)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "models", "%d models but no array",
                          spec->nmodels);
  if (spec && spec->workloads && (!spec->comms || spec->nmodels > 1 || spec->ntp || spec->npp ||
                                  spec->nmb || spec->all_orders || spec->nzero || spec->nsp ||
                                  spec->nrc || spec->nvp || spec->ncp || spec->nep))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "workloads",
                          "codesign spec: a fixed workload per network (a trace) takes no "
                          "comms-less networks, models, degree or knob lists, nor all orders");
  if (!spec || (!spec->model && spec->nmodels == 0 && !spec->workloads) || !spec->device ||
      !spec->cost ||
      (spec->nnets > 0 && !spec->nets))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "codesign spec: missing model, "
                          "device, cost model or networks");
  if (spec->nnets < 0)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "nets", "negative network count");
  int rc = weft_par_device_check(&spec->base, spec->device, err); /* the same at every point */
  if (rc) return rc;
  for (int i = 0; i < spec->nnets; i++) {
    const WeftNetwork *net = &spec->nets[i];
    if (net->ndims < 1 || net->ndims > WEFT_MAX_DIMS)
      return weft_error_set(err, WEFT_EINVAL, net->file, 0, 0, "ndims",
                            "network %d: %d dims, expected 1..%d", i, net->ndims, WEFT_MAX_DIMS);
    double total = weft_network_npus_total(net);
    if (!(total >= 1 && total <= INT32_MAX))
      return weft_error_set(err, WEFT_EINVAL, net->file, 0, 0, "npus",
                            "network %d: %.0f NPUs, expected 1..%d", i, total, INT32_MAX);
  }
  rc = check_list("tp", spec->ntp, spec->tp, 1, err);
  if (!rc) rc = check_list("pp", spec->npp, spec->pp, 1, err);
  if (!rc) rc = check_list("mb", spec->nmb, spec->mb, 1, err);
  if (!rc) rc = check_knob("zero", spec->nzero, spec->zero, 4, 0, 3, err);
  if (!rc) rc = check_knob("sp", spec->nsp, spec->sp, 2, 0, 1, err);
  if (!rc) rc = check_knob("recompute", spec->nrc, spec->rc, 3, 0, WEFT_RECOMPUTE_SELECTIVE, err);
  if (!rc) rc = check_list("vp", spec->nvp, spec->vp, 1, err);
  if (!rc) rc = check_list("cp", spec->ncp, spec->cp, 1, err);
  if (!rc) rc = check_list("ep", spec->nep, spec->ep, 1, err);
  if (!rc) rc = check_ep(spec, err);
  return rc;
}

/* The (tp, pp) pairs of one network, in enumeration order. Lists given:
 * their cross product (a pair whose product does not divide the NPUs is a
 * point with dp = 0, INVALID). Lists left empty: every divisor, and with both
 * empty only the pairs with tp*pp dividing the NPUs (the others have no dp). */
typedef struct {
  int n;
  int tp[WEFT_SHAPES_MAX_DIVISORS], pp[WEFT_SHAPES_MAX_DIVISORS];
  int ntp, npp;
} Lists;

static void lists_for(const WeftCodesignSpec *spec, int npus, Lists *l) {
  if (spec->ntp > 0) {
    memcpy(l->tp, spec->tp, (size_t)spec->ntp * sizeof l->tp[0]);
    l->ntp = spec->ntp;
  } else {
    l->ntp = weft_divisors(npus, l->tp, WEFT_SHAPES_MAX_DIVISORS);
  }
  if (spec->npp > 0) {
    memcpy(l->pp, spec->pp, (size_t)spec->npp * sizeof l->pp[0]);
    l->npp = spec->npp;
  } else {
    l->npp = weft_divisors(npus, l->pp, WEFT_SHAPES_MAX_DIVISORS);
  }
}

/* Is the pair enumerated at all? */
static int pair_listed(const WeftCodesignSpec *spec, int npus, int tp, int pp) {
  if (spec->ntp > 0 || spec->npp > 0) return 1;
  return (long)tp * pp <= npus && npus % ((long)tp * pp) == 0;
}

static const int default_mb[] = {1, 2, 4, 8};
static const WeftParDim all_orders[6][3] = {
    {WEFT_PAR_TP, WEFT_PAR_PP, WEFT_PAR_DP}, {WEFT_PAR_TP, WEFT_PAR_DP, WEFT_PAR_PP},
    {WEFT_PAR_PP, WEFT_PAR_TP, WEFT_PAR_DP}, {WEFT_PAR_PP, WEFT_PAR_DP, WEFT_PAR_TP},
    {WEFT_PAR_DP, WEFT_PAR_TP, WEFT_PAR_PP}, {WEFT_PAR_DP, WEFT_PAR_PP, WEFT_PAR_TP}};

/* The knob combinations (EP x CP x ZeRO x SP x recompute x interleaving), at least 1. */
static int knobs(const WeftCodesignSpec *spec) {
  return (spec->nep > 0 ? spec->nep : 1) * (spec->ncp > 0 ? spec->ncp : 1) *
         (spec->nzero > 0 ? spec->nzero : 1) * (spec->nsp > 0 ? spec->nsp : 1) *
         (spec->nrc > 0 ? spec->nrc : 1) * (spec->nvp > 0 ? spec->nvp : 1);
}

/* Knob combination k (0 <= k < knobs) into par: the last list innermost. */
static void set_knobs(const WeftCodesignSpec *spec, int k, WeftParallel *par) {
  if (spec->nvp > 0) {
    par->virtual_stages = spec->vp[k % spec->nvp];
    k /= spec->nvp;
  }
  if (spec->nrc > 0) {
    par->recompute = spec->rc[k % spec->nrc];
    k /= spec->nrc;
  }
  if (spec->nsp > 0) {
    par->sequence_parallel = spec->sp[k % spec->nsp];
    k /= spec->nsp;
  }
  if (spec->nzero > 0) {
    par->zero_stage = spec->zero[k % spec->nzero];
    k /= spec->nzero;
  }
  if (spec->ncp > 0) {
    par->cp = spec->cp[k % spec->ncp];
    k /= spec->ncp;
  }
  if (spec->nep > 0) par->ep = spec->ep[k % spec->nep];
}

/* The points of one network: listed (tp, pp) pairs x micro-batches x knobs x orders. */
static size_t net_points(const WeftCodesignSpec *spec, int npus, const Lists *l, int nmb,
                         int nord) {
  size_t pairs = 0;
  for (int a = 0; a < l->ntp; a++)
    for (int b = 0; b < l->npp; b++) pairs += (size_t)pair_listed(spec, npus, l->tp[a], l->pp[b]);
  return pairs * (size_t)nmb * (size_t)knobs(spec) * (size_t)nord;
}

/* Walk the points; those with index in [first, first + count) go to
 * out[index - first]. With out == NULL only count (stopping early past
 * CODESIGN_MAX_POINTS). Order: net, tp, pp, mb, ep, cp, zero, sp, recompute,
 * virtual stages, order. Returns the total,
 * or with out the index reached. Networks wholly before first are skipped
 * by their count, so a range costs O(networks + its points). */
static size_t enumerate_nets(const WeftCodesignSpec *spec, Lists *l, WeftDesignPoint *out,
                             size_t first, size_t count, int model) {
  const int *mb = spec->nmb > 0 ? spec->mb : default_mb;
  int nmb = spec->nmb > 0 ? spec->nmb : (int)(sizeof default_mb / sizeof default_mb[0]);
  int nord = spec->all_orders ? 6 : 1, nknob = knobs(spec);
  size_t i = 0, end = first + count;
  for (int net = 0; net < spec->nnets && (!out || i < end); net++) {
    int npus = (int)weft_network_npus_total(&spec->nets[net]);
    lists_for(spec, npus, l);
    size_t here = spec->workloads ? 1 : net_points(spec, npus, l, nmb, nord);
    if (!out || i + here <= first) {
      i += here;
      if (!out && i > CODESIGN_MAX_POINTS) return i;
      continue;
    }
    if (spec->workloads) { /* the trace fixes the parallelization: one point */
      if (i >= first) {
        WeftDesignPoint *pt = &out[i - first];
        memset(pt, 0, sizeof *pt);
        pt->net = net;
        pt->model = model;
        pt->par = spec->base;
        pt->par.tp = pt->par.pp = pt->par.dp = pt->par.micro_batch = 0;
        pt->status = WEFT_POINT_OK;
      }
      i++;
      continue;
    }
    for (int a = 0; a < l->ntp && i < end; a++)
      for (int b = 0; b < l->npp && i < end; b++) {
        int tp = l->tp[a], pp = l->pp[b];
        if (!pair_listed(spec, npus, tp, pp)) continue;
        long tpp = (long)tp * pp;
        int dp = tpp <= npus && npus % tpp == 0 ? (int)(npus / tpp) : 0;
        for (int m = 0; m < nmb; m++)
          for (int k = 0; k < nknob; k++)
            for (int o = 0; o < nord; o++, i++) {
              if (i < first || i >= end) continue;
              WeftDesignPoint *pt = &out[i - first];
              memset(pt, 0, sizeof *pt);
              pt->net = net;
              pt->model = model;
              pt->par = spec->base;
              pt->par.tp = tp;
              pt->par.pp = pp;
              pt->par.dp = dp;
              pt->par.micro_batch = mb[m];
              pt->par.stage_layers = NULL; /* stages balanced for every pp */
              pt->par.nstage_layers = 0;
              set_knobs(spec, k, &pt->par);
              if (pt->par.cp > 1) /* the NPUs left after TP x PP, over CP */
                pt->par.dp = dp % pt->par.cp == 0 ? dp / pt->par.cp : 0;
              if (spec->all_orders) memcpy(pt->par.order, all_orders[o], sizeof pt->par.order);
              pt->status = WEFT_POINT_OK;
            }
      }
  }
  return i;
}

/* Every model's points in turn, the model outermost (each model has the
 * same points: they depend on the networks and lists alone). Returns as
 * enumerate_nets: the total (counting), or the index reached. */
static size_t enumerate(const WeftCodesignSpec *spec, Lists *l, WeftDesignPoint *out,
                        size_t first, size_t count) {
  int nm = spec->nmodels > 0 ? spec->nmodels : 1;
  size_t per = enumerate_nets(spec, l, NULL, 0, 0, 0);
  if (!out) return per > CODESIGN_MAX_POINTS ? per : per * (size_t)nm;
  size_t end = first + count;
  for (int m = 0; m < nm; m++) {
    size_t lo = (size_t)m * per, hi = lo + per;
    if (hi <= first || lo >= end) continue;
    size_t f = first > lo ? first - lo : 0, e = (end < hi ? end : hi) - lo;
    enumerate_nets(spec, l, out + (lo + f - first), f, e - f, m);
  }
  return end;
}

int weft_codesign_default_ep(const WeftModel *models, int n, int *ep, int max) {
  int k = 0;
  if (!models || !ep) return 0;
  for (int v = 1; k < max; v++) { /* ascending: every divisor of some model's experts */
    int any = 0, more = 0;
    for (int m = 0; m < n; m++) {
      int e = models[m].experts;
      if (e > 1 && v <= e) more = 1;
      if (e > 1 && e % v == 0) any = 1;
    }
    if (!more) break;
    if (any) ep[k++] = v;
  }
  return k;
}

/* Check spec and count its points (at most CODESIGN_MAX_POINTS). */
static int count_points(const WeftCodesignSpec *spec, Lists *l, size_t *n, WeftError *err) {
  int rc = check_spec(spec, err);
  if (rc) return rc;
  *n = enumerate(spec, l, NULL, 0, 0);
  if (*n > CODESIGN_MAX_POINTS)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, NULL,
                          "more than %d design points: narrow the shapes or the tp, pp, "
                          "micro-batch or knob lists", CODESIGN_MAX_POINTS);
  return WEFT_OK;
}

int weft_codesign_count(const WeftCodesignSpec *spec, size_t *n, WeftError *err) {
  if (n) *n = 0;
  if (!n) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "null argument");
  Lists *l = malloc(sizeof *l);
  if (!l) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  size_t total = 0;
  int rc = count_points(spec, l, &total, err);
  free(l);
  if (!rc) *n = total;
  return rc;
}

int weft_codesign_points_at(const WeftCodesignSpec *spec, size_t first, size_t count,
                            WeftDesignPoint *out, WeftError *err) {
  if (count > 0 && !out) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "null points");
  Lists *l = malloc(sizeof *l);
  if (!l) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  size_t total = 0;
  int rc = count_points(spec, l, &total, err);
  if (!rc && (first > total || count > total - first))
    rc = weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                        "points %zu..%zu: the enumeration has %zu", first, first + count, total);
  if (!rc && count > 0) enumerate(spec, l, out, first, count);
  free(l);
  return rc;
}

int weft_codesign_points(const WeftCodesignSpec *spec, WeftDesignPoint **out, size_t *n,
                         WeftError *err) {
  if (out) *out = NULL;
  if (n) *n = 0;
  if (!out || !n) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "null argument");
  size_t total = 0;
  int rc = weft_codesign_count(spec, &total, err);
  if (rc) return rc;
  WeftDesignPoint *pts = total ? calloc(total, sizeof *pts) : NULL;
  if (total && !pts)
    return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL,
                          "out of memory for %zu design points", total);
  rc = weft_codesign_points_at(spec, 0, total, pts, err);
  if (rc) {
    free(pts);
    return rc;
  }
  *out = pts;
  *n = total;
  return WEFT_OK;
}

/* What one evaluation needs besides the point: reused across the points a
 * thread evaluates, so the generator does not reallocate its layers. */
typedef struct {
  WeftWorkload *wl;
  WeftCommunicator comm;
} Scratch;

/* The point's one-job spec over its generated workload (in s). */
static void point_spec(const WeftCodesignSpec *spec, const WeftModel *m, const WeftNetwork *net,
                       Scratch *s, WeftSpec *ws) {
  memset(ws, 0, sizeof *ws);
  ws->net = net;
  ws->cost = spec->cost;
  ws->njobs = 1;
  ws->jobs[0].workload = s->wl;
  ws->jobs[0].comm = &s->comm;
  if (spec->workloads) { /* the network's trace, read on it */
    ptrdiff_t k = net - spec->nets;
    ws->jobs[0].workload = spec->workloads[k];
    ws->jobs[0].comm = &spec->comms[k];
  }
  ws->jobs[0].weight = 1.0;
  if (m) memcpy(ws->jobs[0].name, m->name, sizeof ws->jobs[0].name);
  else snprintf(ws->jobs[0].name, sizeof ws->jobs[0].name, "trace");
  ws->cons = spec->cons;
  ws->objective = spec->objective;
  ws->loop = spec->loop;
}

static int has_whole(const WeftNetwork *net) {
  int whole = 0;
  for (int d = 0; d < net->ndims; d++) whole |= net->link_gbps[d] > 0.0;
  return whole;
}

/* The point's solve: its network's whole links (LinkGBps) when it has any
 * (weft_whole_solve_on, p its template), else the continuous problem p. */
static int point_solve(const WeftCodesignSpec *spec, const WeftModel *m, const WeftNetwork *net,
                       Scratch *s, WeftProblem *p, WeftResult *res, WeftError *err) {
  if (!has_whole(net)) return weft_problem_solve(p, &spec->settings, res);
  WeftSpec ws;
  point_spec(spec, m, net, s, &ws);
  WeftWholeResult *w = malloc(sizeof *w);
  if (!w) return WEFT_ENOMEM;
  int rc = weft_whole_solve_on(&ws, p, &spec->settings, w, err);
  if (!rc) *res = w->result;
  free(w);
  return rc;
}

enum { BUILD_GENERATE = 1, BUILD_PROBLEM = 2 };  /* which step failed (err says why) */

/* The point's workload (into s) and its one-job problem (*p), as every
 * evaluation of the point builds them: the solve, and a report's breakdown.
 * On whole links *p is a template (no pre-checks: never solved itself, the
 * branch and bound's judge of designs and its nodes' template). */
static int build(const WeftCodesignSpec *spec, const WeftDesignPoint *pt, Scratch *s,
                 WeftGenInfo *info, WeftProblem **p, WeftError *err) {
  const WeftNetwork *net = &spec->nets[pt->net];
  /* weft_generate clears info and the communicator first. compact merges
   * identical layers: exact for no-overlap and fwd-ig-overlap (their times
   * depend on per-phase totals only), while tp-dp-overlap needs every layer
   * in order; so, for the others, the earlier micro-batches' backward may
   * stay merged in the layers (docs/zoo.md, "Gradient accumulation": the
   * same totals, none of the splitting) */
  int compact = spec->loop != WEFT_LOOP_TP_DP_OVERLAP;
  WeftParallel par = pt->par;
  if (compact) par.merged_backward = 1;
  int rc = WEFT_OK;
  if (spec->workloads) memset(info, 0, sizeof *info);  /* the trace's workload: nothing made */
  else rc = weft_generate(model_of(spec, pt), spec->device, &par, net, compact, s->wl, &s->comm,
                          info, err);
  if (rc) {
    err->code = rc;
    return BUILD_GENERATE;
  }
  WeftSpec ws;
  point_spec(spec, model_of(spec, pt), net, s, &ws);
  rc = (has_whole(net) ? weft_problem_create_template : weft_problem_create)(&ws, p, err);
  if (rc) {
    err->code = rc;
    return BUILD_PROBLEM;
  }
  return 0;
}

static void eval_with(const WeftCodesignSpec *spec, WeftDesignPoint *pt, Scratch *s) {
  /* Results start from zero so a point's bytes depend on its inputs alone. */
  pt->status = WEFT_POINT_OK;
  pt->time_ns = pt->cost_usd = pt->objective = pt->equal_time_ns = pt->mem_bytes = pt->gap = 0;
  pt->equal_bw_gbps = pt->capex_usd = pt->power_w = pt->cost_per_iteration_usd = pt->tokens = 0;
  memset(pt->bw_gbps, 0, sizeof pt->bw_gbps);
  memset(pt->reason, 0, sizeof pt->reason);
  if (pt->net < 0 || pt->net >= spec->nnets) {
    pt->status = WEFT_POINT_INVALID;
    set_reason(pt, "network index out of range");
    return;
  }
  if (pt->model < 0 || pt->model >= (spec->nmodels > 0 ? spec->nmodels : 1)) {
    pt->status = WEFT_POINT_INVALID;
    set_reason(pt, "model index out of range");
    return;
  }
  const WeftNetwork *net = &spec->nets[pt->net];
  if (pt->par.dp < 1 && !spec->workloads) {  /* listed by a tp or pp list, but tp*pp does not divide the NPUs */
    pt->status = WEFT_POINT_INVALID;
    if (pt->par.cp > 1)
      snprintf(pt->reason, sizeof pt->reason, "tp x cp x pp = %ld does not divide the %.0f NPUs",
               (long)pt->par.tp * pt->par.cp * pt->par.pp, weft_network_npus_total(net));
    else
      snprintf(pt->reason, sizeof pt->reason, "tp x pp = %ld does not divide the %.0f NPUs",
               (long)pt->par.tp * pt->par.pp, weft_network_npus_total(net));
    return;
  }
  WeftGenInfo info;
  WeftError err;
  WeftProblem *p = NULL;
  weft_error_clear(&err);
  int rc = build(spec, pt, s, &info, &p, &err);
  pt->mem_bytes = info.mem.total_bytes;
  if (rc == BUILD_GENERATE) {
    rc = err.code;
    pt->status = rc == WEFT_EMODEL                      ? WEFT_POINT_NO_MEMORY
                 : rc == WEFT_EINPUT || rc == WEFT_EINVAL ? WEFT_POINT_INVALID
                                                          : WEFT_POINT_FAILED;
    set_reason(pt, err.msg[0] ? err.msg : weft_strerror(rc));
    return;
  }
  if (rc) {
    rc = err.code;
    pt->status = rc == WEFT_EINPUT || rc == WEFT_EINVAL ? WEFT_POINT_INVALID : WEFT_POINT_FAILED;
    set_reason(pt, err.msg[0] ? err.msg : weft_strerror(rc));
    return;
  }
  WeftResult res;
  weft_error_clear(&err);
  rc = point_solve(spec, model_of(spec, pt), &spec->nets[pt->net], s, p, &res, &err);
  if (rc) {
    pt->status = rc == WEFT_EINPUT ? WEFT_POINT_INVALID : WEFT_POINT_FAILED;
    set_reason(pt, err.msg[0] ? err.msg : weft_strerror(rc));
  } else if (res.status != WEFT_STATUS_SOLVED) {
    pt->status = res.status == WEFT_STATUS_INFEASIBLE   ? WEFT_POINT_INFEASIBLE
                 : res.status == WEFT_STATUS_UNBOUNDED ? WEFT_POINT_UNBOUNDED
                                                       : WEFT_POINT_FAILED;
    set_reason(pt, res.message[0] ? res.message : weft_status_name(res.status));
  } else {
    int D = res.ndims < WEFT_MAX_DIMS ? res.ndims : WEFT_MAX_DIMS;
    pt->time_ns = res.eval.time_ns;
    pt->cost_usd = res.eval.cost_usd;
    pt->objective = res.objective;
    pt->gap = res.gap;
    pt->capex_usd = res.eval.capex_usd;
    pt->power_w = res.eval.power_w;
    pt->cost_per_iteration_usd = res.eval.cost_per_iteration_usd;
    pt->tokens = info.tokens;
    memcpy(pt->bw_gbps, res.bw_gbps, (size_t)D * sizeof pt->bw_gbps[0]);
    double eq[WEFT_MAX_DIMS];
    WeftEval ev;
    if (weft_problem_equal_bw(p, eq, NULL, 0) && weft_problem_evaluate(p, eq, &ev) == WEFT_OK) {
      pt->equal_bw_gbps = eq[0];
      pt->equal_time_ns = ev.time_ns;
    }
  }
  weft_problem_free(p);
}

void weft_codesign_eval(const WeftCodesignSpec *spec, WeftDesignPoint *pt) {
  if (!spec || !pt) return;
  Scratch s;
  s.wl = weft_workload_create();
  if (!s.wl) {
    pt->status = WEFT_POINT_FAILED;
    set_reason(pt, weft_strerror(WEFT_ENOMEM));
    return;
  }
  eval_with(spec, pt, &s);
  weft_workload_free(s.wl);
}

int weft_codesign_evaluate(const WeftCodesignSpec *spec, const WeftDesignPoint *pt,
                           const double *bw_gbps, WeftEval *ev, WeftError *err) {
  int rc = check_spec(spec, err);
  if (rc) return rc;
  if (!pt || !bw_gbps || !ev)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "null argument");
  if (pt->net < 0 || pt->net >= spec->nnets || (pt->par.dp < 1 && !spec->workloads) ||
      pt->model < 0 ||
      pt->model >= (spec->nmodels > 0 ? spec->nmodels : 1))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "not a point of this co-design");
  Scratch s;
  WeftGenInfo info;
  WeftProblem *p = NULL;
  WeftError e;
  weft_error_clear(&e);
  if (!(s.wl = weft_workload_create()))
    return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  rc = build(spec, pt, &s, &info, &p, &e) ? e.code : WEFT_OK;
  if (!rc) rc = weft_problem_evaluate(p, bw_gbps, ev);
  weft_problem_free(p);
  weft_workload_free(s.wl);
  if (rc && e.code == rc && e.msg[0]) {
    if (err) *err = e;
    return rc;
  }
  if (rc) return weft_error_set(err, rc, "", 0, 0, NULL, "%s", weft_strerror(rc));
  return WEFT_OK;
}

/* Per-thread scratch without thread ids: at most `threads` evaluations run at
 * once, so a slot is always free; a thread claims one for a point (one
 * compare-and-swap) and gives it back. */
typedef struct {
  atomic_int busy;
  Scratch s;
} Slot;

typedef struct {
  const WeftCodesignSpec *spec;
  WeftDesignPoint *pts;
  int nslots;
  Slot *slot;
} RunCtx;

static void run_one(void *ctx, size_t i) {
  RunCtx *r = ctx;
  for (;;)
    for (int k = 0; k < r->nslots; k++) {
      int zero = 0;
      if (atomic_compare_exchange_strong(&r->slot[k].busy, &zero, 1)) {
        Slot *sl = &r->slot[k];
        if (!sl->s.wl) sl->s.wl = weft_workload_create();
        if (sl->s.wl) {
          eval_with(r->spec, &r->pts[i], &sl->s);
        } else {
          r->pts[i].status = WEFT_POINT_FAILED;
          set_reason(&r->pts[i], weft_strerror(WEFT_ENOMEM));
        }
        atomic_store(&sl->busy, 0);
        return;
      }
    }
}

int weft_codesign_run(const WeftCodesignSpec *spec, WeftDesignPoint *pts, size_t n,
                      const WeftRunSettings *rs, WeftError *err) {
  WeftRunSettings def;
  if (!rs) {
    weft_run_settings_default(&def);
    rs = &def;
  }
  int rc = check_spec(spec, err);
  if (rc) return rc;
  if (n > 0 && !pts) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "null points");
  if (rs->nranks == 0 || rs->rank >= rs->nranks)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "rank", "rank %zu of %zu", rs->rank,
                          rs->nranks);
  int threads = rs->threads;
  if (threads <= 0) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    threads = c > 0 ? (int)c : 1;
  }
  RunCtx r = {.spec = spec, .pts = pts, .nslots = threads, .slot = NULL};
  r.slot = calloc((size_t)threads, sizeof *r.slot);
  if (!r.slot) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  for (int k = 0; k < threads; k++) atomic_init(&r.slot[k].busy, 0);
  rc = weft_pool_run(n, threads, rs->rank, rs->nranks, run_one, &r, rs->progress,
                     rs->progress_ctx);
  for (int k = 0; k < threads; k++) weft_workload_free(r.slot[k].s.wl);
  free(r.slot);
  if (rc) return weft_error_set(err, rc, "", 0, 0, NULL, "thread pool: %s", weft_strerror(rc));
  return WEFT_OK;
}
