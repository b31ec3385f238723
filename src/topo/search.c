/* search.c — TopoOpt's alternating optimisation: simulated annealing over
 * the strategy (TP degree, table placement or replication, data or model
 * parallel FC layers) on a fixed topology, then a topology rebuilt for the
 * best strategy, round after round. Seeded: runs repeat exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topo/fabric.h"
#include "topo/rng.h"
#include "weft.h"

void weft_topo_search_default(WeftTopoSearch *s) {
  memset(s, 0, sizeof *s);
  weft_topo_settings_default(&s->topo);
  s->iterations = 1000;
  s->rounds = 8;
  s->seed = 1;
  s->tp = 1;
  s->topo.ar_degree = WEFT_AR_DEGREE_BEST; /* each rebuild: the fastest port split */
}

typedef struct {
  int tp;
  int placement[WEFT_TOPO_MAX_TABLES];
  unsigned char layer_mp[WEFT_MAX_MODEL_LAYERS];
} Strategy;

/* The route memo of the fabric the moves are timed on (rebuilt with it). */
typedef struct {
  FabricRoutes *routes;
  const WeftFabric *of;
} Memo;

typedef struct {
  const WeftTopoSearch *s;
  Memo *memo;
  int dlrm, ntables;
  int nsplit, split[WEFT_MAX_MODEL_LAYERS]; /* FC layers the search may split */
  WeftError *err;
} Ctx;

/* Iteration time of strategy st on fabric f; HUGE_VAL when the strategy is
 * not valid for the model (e.g. a TP degree the heads do not divide). */
static int evaluate(const Ctx *c, const Strategy *st, const WeftFabric *f, double *time_ns,
                    WeftTraffic **keep) {
  WeftTraffic *t = NULL;
  WeftError e;
  WeftStrategy ws = {st->tp, c->dlrm ? st->placement : NULL, c->nsplit ? st->layer_mp : NULL};
  int rc = weft_traffic_from_strategy(c->s->model, c->s->dev, c->s->nservers, &ws, &t, &e);
  *time_ns = HUGE_VAL;
  if (rc == WEFT_EINPUT || rc == WEFT_EMODEL) return WEFT_OK; /* not a valid strategy */
  if (rc) {
    *c->err = e;
    return rc;
  }
  WeftTopoTime tt;
  if (f) { /* the link-load bound: fast enough for thousands of moves */
    if (c->memo->of != f) { /* a new fabric: a new memo (NULL: routed directly) */
      fabric_routes_free(c->memo->routes);
      c->memo->routes = fabric_routes_for(f);
      c->memo->of = f;
    }
    rc = fabric_estimate_memo(f, t, c->memo->routes, &tt, c->err);
    if (!rc) *time_ns = tt.time_ns;
  }
  if (keep && !rc) *keep = t;
  else weft_traffic_free(t);
  return rc;
}

/* A neighbour of st: DLRM moves one table or swaps two; others step the TP
 * degree to the next smaller or larger divisor of n. With layer_choice, a
 * third of the moves flip a table between replicated and placed (on a
 * random server) or an FC layer between data and model parallel. */
static void neighbour(const Ctx *c, const Strategy *st, Strategy *out, uint64_t *rng) {
  *out = *st;
  int n = c->s->nservers;
  if (c->s->layer_choice && topo_rng_unif(rng) < 1.0 / 3) {
    int nt = c->dlrm ? c->ntables : 0;
    int k = (int)(topo_rng_next(rng) % (unsigned long long)(nt + c->nsplit > 0 ? nt + c->nsplit : 1));
    if (k < nt) {
      int *p = &out->placement[k];
      *p = *p == WEFT_TABLE_REPLICATED ? (int)(topo_rng_next(rng) % (unsigned long long)n)
                                       : WEFT_TABLE_REPLICATED;
      return;
    }
    if (k - nt < c->nsplit) {
      out->layer_mp[c->split[k - nt]] ^= 1;
      return;
    }
  }
  if (c->dlrm) {
    int a = (int)(topo_rng_next(rng) % (unsigned long long)c->ntables);
    if (c->ntables > 1 && topo_rng_unif(rng) < 0.5) {
      int b = (int)(topo_rng_next(rng) % (unsigned long long)c->ntables);
      int tmp = out->placement[a];
      out->placement[a] = out->placement[b];
      out->placement[b] = tmp;
    } else {
      out->placement[a] = (int)(topo_rng_next(rng) % (unsigned long long)n);
    }
    return;
  }
  int up = topo_rng_unif(rng) < 0.5, tp = st->tp;
  do tp = up ? tp + 1 : tp - 1;
  while (tp >= 1 && tp <= n && n % tp);
  if (tp >= 1 && tp <= n) out->tp = tp;
}

/* Strategies a and b are the same moves apart (the fields the search sets). */
static int same_strategy(const Ctx *c, const Strategy *a, const Strategy *b) {
  if (a->tp != b->tp) return 0;
  for (int k = 0; k < c->ntables && c->dlrm; k++)
    if (a->placement[k] != b->placement[k]) return 0;
  for (int l = 0; l < c->nsplit; l++)
    if (a->layer_mp[c->split[l]] != b->layer_mp[c->split[l]]) return 0;
  return 1;
}

static void memo_drop(Memo *m) {
  fabric_routes_free(m->routes);
  m->routes = NULL;
  m->of = NULL;
}

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Build the topology for strategy st, its ports split as the settings say
 * (by default the fastest split); on a fixed fabric just time it. */
static int rebuild(const Ctx *c, const Strategy *st, WeftFabric **f, double *time_ns) {
  WeftTraffic *t = NULL;
  double unused;
  if (c->s->fixed) return evaluate(c, st, c->s->fixed, time_ns, NULL);
  int rc = evaluate(c, st, NULL, &unused, &t);
  if (!rc && !t)
    return weft_error_set(c->err, WEFT_EINPUT, "", 0, 0, NULL,
                          "the starting strategy (tp %d) is not valid for model '%s'", st->tp,
                          c->s->model->name);
  WeftFabric *nf = NULL;
  if (!rc) rc = weft_topo_build(t, &c->s->topo, &nf, c->err);
  WeftTopoTime tt;
  if (!rc) rc = weft_fabric_estimate(nf, t, &tt, c->err);
  weft_traffic_free(t);
  if (rc) {
    weft_fabric_free(nf);
    return rc;
  }
  weft_fabric_free(*f);
  *f = nf;
  *time_ns = tt.time_ns;
  return WEFT_OK;
}

int weft_topo_search(const WeftTopoSearch *s, WeftTopoSearchResult *r, WeftError *err) {
  weft_error_clear(err);
  memset(r, 0, sizeof *r);
  if (!s || !s->model || !s->dev || s->nservers < 2 || s->iterations < 0 || s->rounds < 1)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "bad search settings");
  Ctx c;
  Memo memo = {NULL, NULL};
  memset(&c, 0, sizeof c);
  c.s = s;
  c.memo = &memo;
  c.dlrm = s->model->arch == WEFT_ARCH_DLRM;
  c.ntables = s->model->tables;
  c.err = err;
  if (c.dlrm && (c.ntables < 1 || c.ntables > WEFT_TOPO_MAX_TABLES))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "tables",
                          "model '%s': %d tables (at most %d)", s->model->name, c.ntables,
                          WEFT_TOPO_MAX_TABLES);
  if (s->layer_choice && s->model->arch != WEFT_ARCH_TRANSFORMER)
    for (int l = 0; l < s->model->nlayers; l++)
      if (weft_layer_splittable(s->model, l)) c.split[c.nsplit++] = l;
  Strategy cur, best, cand;
  memset(&cur, 0, sizeof cur);
  cur.tp = s->tp > 0 ? s->tp : 1;
  for (int k = 0; k < c.ntables && c.dlrm; k++) cur.placement[k] = k % s->nservers;
  uint64_t rng = s->seed;
  WeftFabric *f = NULL;
  double t_cur, t0 = wall_s();
  int rc = rebuild(&c, &cur, &f, &t_cur);
  if (rc || (s->fixed && t_cur == HUGE_VAL)) memo_drop(&memo);
  if (rc) return rc;
  if (s->fixed && t_cur == HUGE_VAL)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, NULL,
                          "the starting strategy (tp %d) is not valid for model '%s'", cur.tp,
                          s->model->name);
  const WeftFabric *on = s->fixed ? s->fixed : f;
  Strategy built = cur; /* the strategy last wired for (rebuild is deterministic) */
  best = cur;
  double t_best = t_cur;
  r->first_time_ns = t_cur;
  int per_round = (s->iterations + s->rounds - 1) / s->rounds, done = 0, stop = 0;
  for (int round = 0; !rc && !stop && round < s->rounds && done < s->iterations; round++) {
    double temp0 = 0.05 * t_cur; /* a 5% worse move: 1/e at first */
    for (int k = 0; !rc && k < per_round && done < s->iterations; k++, done++) {
      if (s->seconds > 0 && wall_s() - t0 > s->seconds) {
        stop = 1;
        break;
      }
      double t_cand;
      neighbour(&c, &cur, &cand, &rng);
      if ((rc = evaluate(&c, &cand, on, &t_cand, NULL))) break;
      double temp = temp0 * (1.0 - (double)k / per_round) + 1e-9;
      if (t_cand < t_cur || topo_rng_unif(&rng) < exp((t_cur - t_cand) / temp)) {
        cur = cand;
        t_cur = t_cand;
        r->accepted++;
        if (t_cur < t_best) {
          best = cur;
          t_best = t_cur;
        }
      }
      if (s->progress) s->progress(s->progress_ctx, done + 1, s->iterations, t_best);
    }
    if (rc || stop) break;
    r->rounds++;
    if (s->fixed) { /* a baseline: the next round re-anneals from the best */
      cur = best;
      t_cur = t_best;
      continue;
    }
    if (same_strategy(&c, &best, &built)) { /* rebuilt for it already: the same wiring */
      cur = best;                            /* and time, which did not help then */
      t_cur = t_best;
      continue;
    }
    double t_new; /* the topology for the best strategy so far */
    WeftFabric *keep = f;
    f = NULL;
    built = best;
    if ((rc = rebuild(&c, &best, &f, &t_new))) {
      f = keep;
      break;
    }
    if (t_new < t_best * (1 - 1e-9)) { /* the new wiring helps: anneal on it */
      if (memo.of == keep) memo_drop(&memo); /* its memo goes with it */
      weft_fabric_free(keep);
      t_best = t_cur = t_new;
    } else { /* keep the old wiring; anneal again from the best strategy */
      weft_fabric_free(f);
      f = keep;
      t_cur = t_best;
    }
    cur = best;
    on = f;
  }
  r->iterations = done;
  if (rc) {
    memo_drop(&memo);
    weft_fabric_free(f);
    return rc;
  }
  double t_final; /* the best strategy on the final topology (link-load bound) */
  rc = evaluate(&c, &best, on, &t_final, NULL);
  memo_drop(&memo);
  if (rc) {
    weft_fabric_free(f);
    return rc;
  }
  r->tp = best.tp;
  r->ntables = c.dlrm ? c.ntables : 0;
  memcpy(r->placement, best.placement, sizeof r->placement);
  memcpy(r->layer_mp, best.layer_mp, sizeof r->layer_mp);
  r->time_ns = t_final;
  r->fabric = f;
  return WEFT_OK;
}
