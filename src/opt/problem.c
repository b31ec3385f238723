/* problem.c — compile a WeftSpec into the bandwidth problem: merge
 * collectives into traffic patterns, build job time rows, fold constraints. */
#include "opt/problem.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_FIRST_BYTES 16384  /* holds a small problem whole: one malloc */
#define PAT_STACK 64             /* patterns kept on the stack while collecting */
#define NGROUP_KEYS (WEFT_NPHASES + WEFT_MAX_GROUPS)  /* phase groups, then named */

void weft_problem_free(WeftProblem *p) {
  if (!p) return;
  arena_free(&p->arena);
}

/* Patterns as they are collected: on the stack, on the heap past PAT_STACK. */
typedef struct {
  double stack[PAT_STACK * WEFT_MAX_DIMS];
  double *u;
  int n, cap, D;
} PatSet;

/* Find the pattern equal to v (exact), or append it. Returns its index. */
static int pattern_id(PatSet *ps, const double *v) {
  size_t D = (size_t)ps->D;
  for (int k = 0; k < ps->n; k++)
    if (memcmp(ps->u + (size_t)k * D, v, D * sizeof *v) == 0) return k;
  if (ps->n == ps->cap) {
    int nc = 2 * ps->cap;
    double *nu = malloc((size_t)nc * D * sizeof *nu);
    if (!nu) return -1;
    memcpy(nu, ps->u, (size_t)ps->n * D * sizeof *nu);
    if (ps->u != ps->stack) free(ps->u);
    ps->u = nu;
    ps->cap = nc;
  }
  memcpy(ps->u + (size_t)ps->n * D, v, D * sizeof *v);
  return ps->n++;
}

/* Pattern of each (collective, group) a job uses: the traffic per byte
 * depends on nothing else, so layers only look their pattern up. */
typedef struct {
  int id[WEFT_NCOLL][NGROUP_KEYS];  /* -2 not yet seen, -1 no traffic */
  double lat[WEFT_NCOLL][NGROUP_KEYS]; /* latency of one such collective, ns */
} PatKeys;

static int phase_pattern(const PatKeys *keys, const WeftPhaseSpec *s, int ph) {
  if (s->coll == WEFT_COLL_NONE || (unsigned)s->coll >= WEFT_NCOLL || s->size_bytes <= 0)
    return -1;
  return keys->id[s->coll][s->group ? WEFT_NPHASES + s->group - 1 : ph];
}

/* The latency (ns) of a phase's collectives, one per call the entry stands
 * for: a constant of the design. */
static double phase_latency(const PatKeys *keys, const WeftPhaseSpec *s, int ph) {
  if (phase_pattern(keys, s, ph) < 0) return 0.0;
  return weft_phase_calls(s) * keys->lat[s->coll][s->group ? WEFT_NPHASES + s->group - 1 : ph];
}

/* Patterns of every job, in order of first use (layers, then phases).
 * Named groups are found in the job's communicator first, so a missing one
 * is a clear input error rather than a wrong answer. */
static int collect_patterns(const WeftSpec *spec, PatSet *ps, PatKeys *keys, WeftError *err) {
  for (int j = 0; j < spec->njobs; j++) {
    const WeftWorkload *wl = spec->jobs[j].workload;
    const WeftCommunicator *cm = spec->jobs[j].comm;
    const int *group[NGROUP_KEYS] = {0};
    for (int ph = 0; ph < WEFT_NPHASES; ph++) group[ph] = cm->group[ph];
    for (int k = 0; k < wl->ngroups && k < WEFT_MAX_GROUPS; k++)
      if (!(group[WEFT_NPHASES + k] = weft_communicator_find(cm, wl->group_name[k])))
        return weft_error_set(err, WEFT_EINPUT, wl->file, 0, 0, wl->group_name[k],
                              "the workload uses group '%s', which the communicator%s%s "
                              "does not name",
                              wl->group_name[k], cm->file[0] ? " " : "", cm->file);
    for (int c = 0; c < WEFT_NCOLL; c++)
      for (int g = 0; g < NGROUP_KEYS; g++) keys[j].id[c][g] = -2;
    for (int l = 0; l < wl->nlayers; l++)
      for (int ph = 0; ph < WEFT_NPHASES; ph++) {
        const WeftPhaseSpec *s = &wl->layers[l].phase[ph];
        if (s->coll == WEFT_COLL_NONE || s->size_bytes <= 0) continue;
        if (s->group < 0 || s->group > wl->ngroups || s->group > WEFT_MAX_GROUPS)
          return weft_error_set(err, WEFT_EINVAL, wl->file, wl->layers[l].line, 0, "group",
                                "layer %s: group index %d out of range", wl->layers[l].name,
                                s->group);
        if ((unsigned)s->coll >= WEFT_NCOLL) continue; /* no traffic */
        int g = s->group ? WEFT_NPHASES + s->group - 1 : ph;
        int *id = &keys[j].id[s->coll][g];
        if (*id != -2) continue;
        double v[WEFT_MAX_DIMS];
        int any = 0;
        weft_collective_traffic(s->coll, 1.0, group[g], ps->D, v);
        for (int d = 0; d < ps->D; d++) { /* bytes at the bandwidth the dim achieves */
          double eff = spec->net->efficiency[d];
          if (eff > 0.0) v[d] /= eff;
          any |= v[d] > 0;
        }
        *id = any ? pattern_id(ps, v) : -1;
        keys[j].lat[s->coll][g] = any ? weft_collective_latency_ns(s->coll, group[g], spec->net) : 0.0;
        if (any && *id < 0) return WEFT_ENOMEM;
      }
  }
  return WEFT_OK;
}

/* Is row a dominated by row b (b >= a everywhere, constant first)? */
static int dominated(const double *a, const double *b, int len) {
  for (int k = 0; k < len; k++)
    if (a[k] > b[k]) return 0;
  return 1;
}

/* Copy R rows [C, a_0..a_{npat-1}] into the job (arena), negative bytes
 * (rounding) as 0. */
static int store_rows(WeftProblem *p, Job *job, const double *rows, int R) {
  int P = p->npat, W = P + 1;
  job->nrows = R;
  job->C = arena_calloc(&p->arena, (size_t)R, sizeof *job->C);
  job->a = arena_calloc(&p->arena, (size_t)R * (size_t)P, sizeof *job->a);
  if (!job->C || !job->a) return WEFT_ENOMEM;
  for (int r = 0; r < R; r++) {
    job->C[r] = rows[(size_t)r * (size_t)W];
    for (int k = 0; k < P; k++) {
      double v = rows[(size_t)r * (size_t)W + 1 + (size_t)k];
      job->a[(size_t)r * (size_t)P + (size_t)k] = v > 0 ? v : 0.0; /* rounding */
    }
  }
  return WEFT_OK;
}

/* fwd-ig-overlap: forward and input-grad collectives run under another
 * micro-batch's compute, weight-grad ones block after it, so
 * T = max(C_all, A_fi + lat_fi) + A_wg + lat_wg: two rows, the compute one
 * (C_all + lat_wg, wg bytes) and the comm one (lat_fi + lat_wg, every
 * phase's bytes); one of them alone when it dominates the other. */
static int fwd_ig_rows(WeftProblem *p, Job *job) {
  int P = p->npat, W = P + 1;
  double *rows = calloc(2 * (size_t)W, sizeof *rows);
  if (!rows) return WEFT_ENOMEM;
  double *r0 = rows, *r1 = rows + W, lat_wg = job->phase_lat_ns[WEFT_PHASE_WG];
  r0[0] = job->compute_ns + lat_wg;
  r1[0] = job->phase_lat_ns[WEFT_PHASE_FWD] + job->phase_lat_ns[WEFT_PHASE_IG] + lat_wg;
  for (int k = 0; k < P; k++) {
    r0[1 + k] = job->phase_bytes[WEFT_PHASE_WG * P + k];
    r1[1 + k] = r0[1 + k] + job->phase_bytes[WEFT_PHASE_FWD * P + k] +
                job->phase_bytes[WEFT_PHASE_IG * P + k];
  }
  int R = 2;
  if (dominated(r1, r0, W)) R = 1;                  /* no fwd/ig traffic to hide */
  else if (dominated(r0, r1, W)) { memcpy(r0, r1, (size_t)W * sizeof *r0); R = 1; } /* comm-bound always */
  int rc = store_rows(p, job, rows, R);
  free(rows);
  return rc;
}

/* Is the phase's collective hidden behind compute? Not in the fwd-ig-overlap
 * loop, which hides every forward and input-grad collective whole. */
static int is_hidden(const WeftProblem *p, const PatKeys *keys, const WeftPhaseSpec *s, int ph) {
  return p->loop != WEFT_LOOP_FWD_IG_OVERLAP && ph != WEFT_PHASE_WG && s->overlap_ns > 0.0 &&
         phase_pattern(keys, s, ph) >= 0;
}

/* The hinges of the job's hidden collectives: declared in h, each one's
 * index in key[l * 2 + ph] (-1: not hidden), and their sums per phase and
 * hinge kept in the job for the report's split. */
static int hidden_keys(WeftProblem *p, const WeftWorkload *wl, const PatKeys *keys, Job *job,
                       HidRows *h, int *key) {
  for (int l = 0; l < wl->nlayers; l++)
    for (int ph = 0; ph < 2; ph++) {
      const WeftPhaseSpec *s = &wl->layers[l].phase[ph];
      key[2 * l + ph] = -1;
      if (!is_hidden(p, keys, s, ph)) continue;
      double lat = phase_latency(keys, s, ph);
      key[2 * l + ph] = weft_hid_key(h, phase_pattern(keys, s, ph), s->size_bytes,
                                     s->overlap_ns - lat);
      if (key[2 * l + ph] < 0) return WEFT_ENOMEM;
    }
  if (weft_hid_ready(h)) return WEFT_ENOMEM;
  job->hid = arena_calloc(&p->arena, 2 * (size_t)h->nkey + 1, sizeof *job->hid);
  if (!job->hid) return WEFT_ENOMEM;
  for (int ph = 0; ph < 2; ph++)
    for (int k = 0; k < h->nkey; k++) job->hid[ph * h->nkey + k] = (HidItem){ph, h->pat[k], 0, 0, 0};
  for (int l = 0; l < wl->nlayers; l++)
    for (int ph = 0; ph < 2; ph++) {
      int k = key[2 * l + ph];
      if (k < 0) continue;
      const WeftPhaseSpec *s = &wl->layers[l].phase[ph];
      HidItem *it = &job->hid[ph * h->nkey + k];
      double lat = phase_latency(keys, s, ph);
      it->s += s->size_bytes;
      it->lat += lat;
      it->g += s->overlap_ns - lat;
    }
  job->nhid = 2 * h->nkey;
  return WEFT_OK;
}

/* Build the time rows of job j. Row layout: [C, a_0..a_{npat-1}]. */
static int build_job(WeftProblem *p, const WeftJob *sj, const PatKeys *keys, Job *job) {
  const WeftWorkload *wl = sj->workload;
  int P = p->npat, L = wl->nlayers, W = P + 1;
  job->weight = sj->weight;
  job->phase_bytes = arena_calloc(&p->arena, (size_t)WEFT_NPHASES * (size_t)P, sizeof(double));
  if (!job->phase_bytes) return WEFT_ENOMEM;
  double comp[WEFT_NPHASES] = {0, 0, 0}, lat = 0.0;
  int nhidden = 0;
  for (int l = 0; l < L; l++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      comp[ph] += wl->layers[l].phase[ph].compute_ns;
      int id = phase_pattern(keys, &wl->layers[l].phase[ph], ph);
      if (id >= 0) job->phase_bytes[ph * P + id] += wl->layers[l].phase[ph].size_bytes;
      job->phase_lat_ns[ph] += phase_latency(keys, &wl->layers[l].phase[ph], ph);
      nhidden += is_hidden(p, keys, &wl->layers[l].phase[ph], ph);
    }
  for (int ph = 0; ph < WEFT_NPHASES; ph++) lat += job->phase_lat_ns[ph];
  job->compute_ns = comp[0] + comp[1] + comp[2];
  if (p->loop == WEFT_LOOP_NO_OVERLAP && !nhidden) {
    job->nrows = 1;
    job->C = arena_calloc(&p->arena, 1, sizeof *job->C);
    job->a = arena_calloc(&p->arena, (size_t)P, sizeof *job->a);
    if (!job->C || !job->a) return WEFT_ENOMEM;
    job->C[0] = job->compute_ns + lat; /* every collective's latency: constants */
    for (int ph = 0; ph < WEFT_NPHASES; ph++)
      for (int k = 0; k < P; k++) job->a[k] += job->phase_bytes[ph * P + k];
    for (int k = 0; k < P; k++) job->a[k] = job->a[k] > 0 ? job->a[k] : 0.0; /* rounding */
    return WEFT_OK;
  }
  if (p->loop == WEFT_LOOP_FWD_IG_OVERLAP) return fwd_ig_rows(p, job);
  HidRows h;
  weft_hid_init(&h, P);
  double *row = calloc((size_t)W, sizeof *row);
  int *key = malloc(2 * (size_t)L * sizeof *key);
  int rc = !row || !key ? WEFT_ENOMEM : hidden_keys(p, wl, keys, job, &h, key);
  if (rc) goto done;
  /* Hidden collectives join as hinges (hidden.c), not as bytes of the row. */
  if (p->loop == WEFT_LOOP_NO_OVERLAP) {
    row[0] = job->compute_ns;
    for (int l = 0; l < L; l++)
      for (int ph = 0; ph < WEFT_NPHASES; ph++) {
        const WeftPhaseSpec *s = &wl->layers[l].phase[ph];
        int id = phase_pattern(keys, s, ph), k = ph < 2 ? key[2 * l + ph] : -1;
        if (k >= 0) weft_hid_add(&h, k, s->size_bytes, s->overlap_ns - phase_latency(keys, s, ph));
        else {
          row[0] += phase_latency(keys, s, ph);
          if (id >= 0) row[1 + id] += s->size_bytes;
        }
      }
    rc = weft_hid_push(&h, row);
    goto done;
  }
  /* tp-dp-overlap. The backward pass runs layers L-1..0. Layer i's gradient
   * is ready (ready_i) after its weight-grad compute; the FIFO weight-grad
   * stream then still has to send the collectives enqueued at or after it,
   * those of layers i, i-1, ..., 0. Iteration time = max_i ready_i +
   * sum_{k<=i} wg_k. Start from i = L (nothing of the backward pass done):
   * fwd everything, wg prefix = all layers' wg bytes. Walk i down, moving
   * layer i's ig/wg compute and ig bytes in, and dropping layer i+1's wg
   * bytes out. Latencies are constants that go with their collectives:
   * forward ones block, input-grad ones join with their layer, weight-grad
   * ones sit in the stream's suffix like their bytes. Hidden collectives
   * join as hinges instead, forward ones from the start. */
  double lat_fwd = 0.0; /* the blocking forward collectives, summed as phase_bytes is */
  for (int l = 0; l < L; l++) {
    const WeftPhaseSpec *s = &wl->layers[l].phase[WEFT_PHASE_FWD];
    int id = phase_pattern(keys, s, WEFT_PHASE_FWD), k = key[2 * l];
    double la = phase_latency(keys, s, WEFT_PHASE_FWD);
    if (k >= 0) weft_hid_add(&h, k, s->size_bytes, s->overlap_ns - la);
    else {
      lat_fwd += la;
      if (id >= 0) row[1 + id] += s->size_bytes;
    }
  }
  row[0] = comp[0] + lat_fwd + job->phase_lat_ns[WEFT_PHASE_WG];
  for (int k = 0; k < P; k++) row[1 + k] += job->phase_bytes[WEFT_PHASE_WG * P + k];
  for (int i = L - 1; i >= 0 && !rc; i--) {
    const WeftLayer *ly = &wl->layers[i];
    const WeftPhaseSpec *s = &ly->phase[WEFT_PHASE_IG];
    row[0] += s->compute_ns + ly->phase[WEFT_PHASE_WG].compute_ns;
    int ig = phase_pattern(keys, s, WEFT_PHASE_IG), k = key[2 * i + 1];
    double la = phase_latency(keys, s, WEFT_PHASE_IG);
    if (k >= 0) weft_hid_add(&h, k, s->size_bytes, s->overlap_ns - la);
    else {
      row[0] += la;
      if (ig >= 0) row[1 + ig] += s->size_bytes;
    }
    if (i + 1 < L) {
      const WeftPhaseSpec *nx = &wl->layers[i + 1].phase[WEFT_PHASE_WG];
      int wg = phase_pattern(keys, nx, WEFT_PHASE_WG);
      if (wg >= 0) row[1 + wg] -= nx->size_bytes;
      row[0] -= phase_latency(keys, nx, WEFT_PHASE_WG);
    }
    /* Kept rows the new ones dominate are dropped, newest first (a stack:
     * the compute only grows down the pass, so the newest kept rows are the
     * likeliest to be dominated), and a new row the newest kept one
     * dominates is skipped (hidden.c). Exact: a dominated row never sets
     * the max; rows this leaves behind are only redundant, and the solver's
     * active set keeps them cheap. */
    rc = weft_hid_push(&h, row);
  }
done:
  if (!rc) rc = store_rows(p, job, h.rows, h.R);
  free(row);
  free(key);
  weft_hid_free(&h);
  return rc;
}

/* Fold user constraints into B space (cost = sum_d cpg_d B_d), each row
 * scaled to max |coef| = 1 (a row of 1e-300*B1 = 1e-297 is B1 = 1000). */
static int fold_constraints(WeftProblem *p, const WeftConstraints *cons) {
  int n = cons ? cons->n : 0, D = p->D;
  Arena *a = &p->arena;
  size_t sz = (size_t)n;
  p->Gle = arena_calloc(a, sz * (size_t)D, sizeof(double));
  p->hle = arena_calloc(a, sz, sizeof(double));
  p->Geq = arena_calloc(a, sz * (size_t)D, sizeof(double));
  p->heq = arena_calloc(a, sz, sizeof(double));
  p->le_src = arena_calloc(a, sz, sizeof(int));
  p->eq_src = arena_calloc(a, sz, sizeof(int));
  p->cons_text = arena_alloc(a, sz, sizeof *p->cons_text); /* copied whole below */
  WeftConstraint *keep = arena_alloc(a, sz, sizeof *keep);
  if (!p->Gle || !p->hle || !p->Geq || !p->heq || !p->le_src || !p->eq_src || !p->cons_text ||
      !keep)
    return WEFT_ENOMEM;
  if (n) memcpy(keep, cons->c, sz * sizeof *keep);
  p->cons = keep;
  p->ncons = n;
  for (int i = 0; i < n; i++) {
    const WeftConstraint *c = &cons->c[i];
    memcpy(p->cons_text[i], c->text, sizeof p->cons_text[i]);
    p->cons_text[i][sizeof p->cons_text[i] - 1] = '\0';
    double row[WEFT_MAX_DIMS], sign = c->rel == WEFT_REL_GE ? -1.0 : 1.0, mx = 0.0;
    for (int d = 0; d < D; d++) {
      row[d] = sign * (c->coef[d] + c->cost_coef * p->cpg[d]);
      mx = fmax(mx, fabs(row[d]));
    }
    if (!(mx > 0.0) || !isfinite(mx)) mx = 1.0; /* a row of zeros: the pre-checks judge it */
    for (int d = 0; d < D; d++) row[d] /= mx;
    if (c->rel == WEFT_REL_EQ) {
      memcpy(p->Geq + (size_t)p->neq * (size_t)D, row, (size_t)D * sizeof *row);
      p->heq[p->neq] = c->rhs / mx;
      p->eq_src[p->neq++] = i;
    } else {
      memcpy(p->Gle + (size_t)p->nle * (size_t)D, row, (size_t)D * sizeof *row);
      p->hle[p->nle] = sign * c->rhs / mx;
      p->le_src[p->nle++] = i;
    }
  }
  /* LP rows: user rows, then a cost row and one per dim; D + 1 columns. */
  int mlp = p->nle + p->neq + D + 1, nlp = D + 1;
  /* not zeroed: every LP writes its rows first (precheck.c, lp_user_rows
   * and lp_row) and its tableau (lp.c); most nodes run none */
  p->lp_A = arena_alloc(a, (size_t)mlp * (size_t)nlp, sizeof(double));
  p->lp_b = arena_alloc(a, (size_t)mlp, sizeof(double));
  p->lp_rel = arena_alloc(a, (size_t)mlp, sizeof(int));
  p->lpw.t = arena_alloc(a, lp_tableau_doubles(nlp, mlp), sizeof(double));
  p->lpw.basis = arena_alloc(a, (size_t)mlp, sizeof(int));
  if (!p->lp_A || !p->lp_b || !p->lp_rel || !p->lpw.t || !p->lpw.basis) return WEFT_ENOMEM;
  return WEFT_OK;
}

/* Internal units: bscale = the largest |rhs| of the scaled rows (1 when
 * none), rounded down to a power of two, so the constraints that set the
 * design's scale are O(1) (in [1, 2)) and every
 * tolerance downstream is relative to it. Refuses a scale at which the
 * model's times or costs leave the range weft computes in (WEFT_MAX_VALUE),
 * naming the constraint that sets it. */
static int scale(WeftProblem *p, WeftError *err) {
  int D = p->D, src = -1;
  double beta = 0.0;
  for (int i = 0; i < p->nle + p->neq; i++) {
    double h = fabs(i < p->nle ? p->hle[i] : p->heq[i - p->nle]);
    int s = i < p->nle ? p->le_src[i] : p->eq_src[i - p->nle];
    if (!isfinite(h))
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, p->cons_text[s],
                            "constraint '%s': its right-hand side over its coefficients is "
                            "beyond the range of a double", p->cons_text[s]);
    if (h > beta) { beta = h; src = s; }
  }
  if (!(beta > 0.0)) beta = 1.0;
  int e2;
  frexp(beta, &e2);
  double b2 = ldexp(1.0, e2 - 1); /* the power of two in (beta/2, beta]: scaling by it is exact,
                                     so a bandwidth the rows pin by cancellation keeps its digits */
  p->bscale = b2;
  for (int i = 0; i < p->nle; i++) p->hle[i] /= b2;
  for (int i = 0; i < p->neq; i++) p->heq[i] /= b2;
  for (int d = 0; d < D; d++) {
    p->cpg_nat[d] = p->cpg[d];
    p->cpg[d] *= b2;
    p->ocg[d] *= b2;
    p->wpg[d] *= b2;
  }
  int bad = 0;
  for (size_t k = 0; k < (size_t)p->npat * (size_t)D; k++) {
    if (p->u[k] <= 0.0) continue;
    p->u[k] /= b2;
    bad |= !(p->u[k] >= DBL_MIN) || !isfinite(p->u[k]);
  }
  /* A copy (weft_problem_recreate) at its template's scale: the same
   * workload and costs at the same scale, checked there. */
  if (b2 == p->checked_bscale) return WEFT_OK;
  double one[WEFT_MAX_DIMS]; /* time and cost with every B' = 1, i.e. B = bscale */
  for (int d = 0; d < D; d++) one[d] = 1.0;
  WeftEval ev;
  weft_problem_eval_scaled(p, one, &ev);
  double time1 = ev.time_ns, cost1 = ev.cost_usd;
  const char *what = NULL;
  double v = 0.0;
  if (!(cost1 <= WEFT_MAX_VALUE)) { what = "the network cost"; v = cost1; }
  else if (bad) { what = "the traffic per unit of bandwidth"; v = 0.0; }
  else if (!(time1 <= WEFT_MAX_VALUE)) { what = "the iteration time"; v = time1; }
  else if (weft_problem_is_tc(p) && !(weft_problem_objective_raw(p, one, NULL) <= WEFT_MAX_VALUE)) {
    what = "time x cost"; v = time1 * (p->oc0 + cost1);
  }
  if (!what) return WEFT_OK;
  if (src < 0)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, NULL,
                          "at 1 GB/s per dim %s would be %.3g, beyond %.0e: the workload's "
                          "or cost model's numbers are out of range", what, v, WEFT_MAX_VALUE);
  return weft_error_set(err, WEFT_EINPUT, "", 0, 0, p->cons_text[src],
                        "constraint '%s' sets bandwidths near %.3g GB/s, where %s would be "
                        "%.3g, beyond the %.0e weft computes in", p->cons_text[src], beta, what,
                        v, WEFT_MAX_VALUE);
}

/* Years of 365.25 days, in ns. */
#define NS_PER_YEAR (365.25 * 86400.0 * 1e9)

/* The network's $ and W per GB/s, the system figures (defaults filled in),
 * and the objective's affine cost oc0 + ocg.B in natural units (problem.h;
 * docs/model.md "System cost"). */
static int objective_cost(WeftProblem *p, const WeftSpec *spec, WeftError *err) {
  int rc = weft_cost_per_gbps(spec->net, spec->cost, p->cpg, err);
  if (!rc) rc = weft_power_per_gbps(spec->net, spec->cost, p->wpg, err);
  if (rc) return rc;
  WeftSystemCost sc;
  weft_system_cost_resolved(spec->cost, &sc);
  double n = weft_network_npus_bought(spec->net); /* spares are bought and stand powered */
  p->npu_cost_usd = n * sc.npu_usd;
  p->npu_power_w = n * sc.npu_power_w;
  p->lifetime_ns = sc.lifetime_years * NS_PER_YEAR;
  p->usd_per_w_ns = sc.electricity_usd_per_kwh / 3.6e15 * sc.pue; /* 1 kWh = 3.6e15 W ns */
  double k = p->objective == WEFT_OBJ_COST_PER_ITERATION ? p->usd_per_w_ns * p->lifetime_ns : 0.0;
  for (int d = 0; d < p->D; d++) p->ocg[d] = p->cpg[d] + p->wpg[d] * k; /* $ over the lifetime */
  p->oc0 = p->objective == WEFT_OBJ_PERF ? 0.0 : p->npu_cost_usd + p->npu_power_w * k;
  p->ofactor = p->objective == WEFT_OBJ_COST_PER_ITERATION ? 1.0 / p->lifetime_ns : 1.0;
  return WEFT_OK;
}

static int validate(const WeftSpec *spec, WeftError *err) {
  if (!spec || !spec->net || !spec->cost)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "spec needs a network and a cost model");
  const WeftNetwork *net = spec->net;
  if (net->ndims < 1 || net->ndims > WEFT_MAX_DIMS)
    return weft_error_set(err, WEFT_EINPUT, net->file, 0, 0, "NpusCount",
                          "network must have 1..%d dims, has %d", WEFT_MAX_DIMS, net->ndims);
  for (int d = 0; d < net->ndims; d++)
    if (net->npus[d] <= 1)
      return weft_error_set(err, WEFT_EINPUT, net->file, net->line[d], 0, "NpusCount",
                            "dim %d has %d NPUs: each dim needs more than 1", d + 1, net->npus[d]);
  if (spec->njobs < 1 || spec->njobs > WEFT_MAX_JOBS)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "workloads",
                          "need 1..%d workloads, got %d", WEFT_MAX_JOBS, spec->njobs);
  if ((unsigned)spec->objective >= WEFT_NOBJECTIVES)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "objective", "unknown objective");
  if ((unsigned)spec->loop >= WEFT_NLOOPS)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "loop", "unknown training loop");
  for (int j = 0; j < spec->njobs; j++) {
    const WeftJob *job = &spec->jobs[j];
    if (!job->workload || !job->comm)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "workload %d lacks a workload or communicator", j + 1);
    if (!(job->weight > 0.0) || !isfinite(job->weight))
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "weight",
                            "workload %d weight must be positive and finite", j + 1);
    if (job->workload->nlayers < 1)
      return weft_error_set(err, WEFT_EINPUT, job->workload->file, 0, 0, NULL, "workload has no layers");
    for (int l = 0; l < job->workload->nlayers; l++)
      for (int ph = 0; ph < WEFT_NPHASES; ph++) {
        const WeftLayer *ly = &job->workload->layers[l];
        double o = ly->phase[ph].overlap_ns;
        if (o == 0.0) continue;
        if (!(o > 0.0) || !isfinite(o) || ph == WEFT_PHASE_WG)
          return weft_error_set(err, WEFT_EINPUT, job->workload->file, ly->line, 0, "overlap_ns",
                                "layer %s: %s overlap_ns %g: must be finite and >= 0, and 0 "
                                "on weight-grad (only forward and input-grad collectives hide "
                                "behind compute)", ly->name, weft_phase_name((WeftPhase)ph), o);
      }
    int rc = weft_communicator_check(job->comm, net, err);
    if (rc) return rc;
  }
  if (spec->cons && (spec->cons->n < 0 || spec->cons->n > WEFT_MAX_CONSTRAINTS))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "constraints", "bad constraint count");
  return WEFT_OK;
}

/* The constraint-dependent half of build(): fold, scale, pre-check. */
static int finish_build(WeftProblem *p, const WeftConstraints *cons, WeftError *err) {
  int rc = fold_constraints(p, cons);
  if (!rc) rc = scale(p, err);
  if (!rc && (p->pinned = weft_pinned_point(p, p->pin_bw))) { /* one feasible point */
    p->pre_status = WEFT_STATUS_SOLVED;
    return WEFT_OK;
  }
  if (!rc) rc = weft_precheck_fast(p);
  if (!rc && !p->fast && p->pre_status == WEFT_STATUS_SOLVED) rc = weft_general_prepare(p);
  return rc;
}

/* Patterns, job rows, used dims, folded constraints, then the pre-checks:
 * the fast path's, or the general path's when it declines. */
static int build(WeftProblem *p, const WeftSpec *spec, int full, WeftError *err) {
  PatSet ps;
  ps.u = ps.stack;
  ps.n = 0;
  ps.cap = PAT_STACK;
  ps.D = p->D;
  PatKeys *keys = malloc((size_t)spec->njobs * sizeof *keys);
  if (!keys) return WEFT_ENOMEM;
  int rc = collect_patterns(spec, &ps, keys, err);
  if (!rc) {
    p->npat = ps.n;
    p->u = arena_calloc(&p->arena, (size_t)ps.n * (size_t)p->D, sizeof(double));
    if (!p->u) rc = WEFT_ENOMEM;
    else memcpy(p->u, ps.u, (size_t)ps.n * (size_t)p->D * sizeof(double));
  }
  if (ps.u != ps.stack) free(ps.u);
  int built = rc;
  for (int j = 0; j < p->njobs && !rc; j++) rc = build_job(p, &spec->jobs[j], &keys[j], &p->job[j]);
  free(keys);
  if (!built && rc == WEFT_EINPUT) /* hidden.c: too many pieces */
    return weft_error_set(err, rc, "", 0, 0, "overlap_ns",
                          "the hidden collectives' overlap times give a job more than %d time "
                          "rows: use fewer distinct overlap times per pattern",
                          WEFT_HID_MAX_ROWS);
  if (rc) return rc;
  for (int k = 0; k < p->npat; k++)
    for (int d = 0; d < p->D; d++) p->used[d] |= p->u[(size_t)k * (size_t)p->D + (size_t)d] > 0;
  if (!full) { /* a template: folded and scaled, no pre-checks (never solved) */
    rc = fold_constraints(p, spec->cons);
    return rc ? rc : scale(p, err);
  }
  return finish_build(p, spec->cons, err);
}

int weft_problem_recreate(const WeftProblem *t, const WeftConstraints *cons,
                          const double *start_bw, int no_conflict, WeftProblem **out,
                          WeftError *err) {
  *out = NULL;
  if (cons && (cons->n < 0 || cons->n > WEFT_MAX_CONSTRAINTS))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "constraints", "bad constraint count");
  WeftProblem *p = arena_create(sizeof *p, ARENA_FIRST_BYTES);
  if (!p) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  int D = t->D, P = t->npat, rc = WEFT_OK;
  p->objective = t->objective;
  p->loop = t->loop;
  p->D = D;
  p->njobs = t->njobs;
  p->npat = P;
  memcpy(p->used, t->used, sizeof p->used);
  memcpy(p->cpg, t->cpg_nat, sizeof p->cpg);  /* natural: scale() scales them again */
  for (int d = 0; d < D; d++) { /* bscale is a power of two: exact */
    p->ocg[d] = t->ocg[d] / t->bscale;
    p->wpg[d] = t->wpg[d] / t->bscale;
  }
  p->oc0 = t->oc0;
  p->ofactor = t->ofactor;
  p->no_conflict = no_conflict;
  p->checked_bscale = t->bscale;
  memcpy(p->link_gbps, t->link_gbps, sizeof p->link_gbps);
  memcpy(p->max_links, t->max_links, sizeof p->max_links);
  p->npu_cost_usd = t->npu_cost_usd;
  p->npu_power_w = t->npu_power_w;
  p->lifetime_ns = t->lifetime_ns;
  p->usd_per_w_ns = t->usd_per_w_ns;
  if ((p->has_start = start_bw != NULL)) memcpy(p->start_bw, start_bw, (size_t)D * sizeof *start_bw);
  p->u = arena_alloc(&p->arena, (size_t)P * (size_t)D, sizeof *p->u); /* copied whole below */
  if (!p->u) rc = WEFT_ENOMEM;
  for (size_t k = 0; !rc && k < (size_t)P * (size_t)D; k++) p->u[k] = t->u[k] * t->bscale;
  for (int j = 0; j < t->njobs && !rc; j++) { /* the rows: bytes and ns, not scaled */
    const Job *a = &t->job[j];
    Job *b = &p->job[j];
    *b = *a;
    b->C = arena_alloc(&p->arena, (size_t)a->nrows, sizeof *b->C); /* each copied whole */
    b->a = arena_alloc(&p->arena, (size_t)a->nrows * (size_t)P, sizeof *b->a);
    b->phase_bytes = arena_alloc(&p->arena, (size_t)WEFT_NPHASES * (size_t)P, sizeof(double));
    if (!b->C || !b->a || !b->phase_bytes) { rc = WEFT_ENOMEM; break; }
    memcpy(b->C, a->C, (size_t)a->nrows * sizeof *b->C);
    memcpy(b->a, a->a, (size_t)a->nrows * (size_t)P * sizeof *b->a);
    memcpy(b->phase_bytes, a->phase_bytes, (size_t)WEFT_NPHASES * (size_t)P * sizeof(double));
    if (a->nhid) {
      if (!(b->hid = arena_calloc(&p->arena, (size_t)a->nhid, sizeof *b->hid))) { rc = WEFT_ENOMEM; break; }
      memcpy(b->hid, a->hid, (size_t)a->nhid * sizeof *b->hid);
    }
  }
  if (!rc) rc = finish_build(p, cons, err);
  if (rc) {
    weft_problem_free(p);
    if (rc == WEFT_ENOMEM || rc == WEFT_ESOLVER)
      return weft_error_set(err, rc, "", 0, 0, NULL, "%s while building the problem", weft_strerror(rc));
    return rc;
  }
  *out = p;
  return WEFT_OK;
}

static int create(const WeftSpec *spec, int full, WeftProblem **out, WeftError *err) {
  *out = NULL;
  int rc = validate(spec, err);
  if (rc) return rc;
  WeftProblem *p = arena_create(sizeof *p, ARENA_FIRST_BYTES);
  if (!p) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  p->objective = spec->objective;
  p->loop = spec->loop;
  p->D = spec->net->ndims;
  p->njobs = spec->njobs;
  for (int d = 0; d < p->D; d++) {
    p->link_gbps[d] = spec->net->link_gbps[d];
    p->max_links[d] = spec->net->max_links[d];
  }
  rc = objective_cost(p, spec, err);
  if (rc) { weft_problem_free(p); return rc; }
  rc = build(p, spec, full, err);
  if (rc) {
    weft_problem_free(p);
    if (rc == WEFT_ENOMEM || rc == WEFT_ESOLVER)
      return weft_error_set(err, rc, "", 0, 0, NULL, "%s while building the problem", weft_strerror(rc));
    return rc; /* err already names the input */
  }
  *out = p;
  return WEFT_OK;
}

int weft_problem_create(const WeftSpec *spec, WeftProblem **out, WeftError *err) {
  return create(spec, 1, out, err);
}

int weft_problem_create_template(const WeftSpec *spec, WeftProblem **out, WeftError *err) {
  return create(spec, 0, out, err);
}
