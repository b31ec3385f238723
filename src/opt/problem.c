/* problem.c — compile a WeftSpec into the bandwidth problem: merge
 * collectives into traffic patterns, build job time rows, fold constraints. */
#include "opt/problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/lp.h"

void weft_problem_free(WeftProblem *p) {
  if (!p) return;
  free(p->u);
  for (int j = 0; j < p->njobs; j++) {
    free(p->job[j].C);
    free(p->job[j].a);
    free(p->job[j].phase_bytes);
  }
  free(p->Gle);
  free(p->hle);
  free(p->Geq);
  free(p->heq);
  free(p->le_src);
  free(p->eq_src);
  double *nat[] = {p->nat.c, p->nat.ha, p->nat.G, p->nat.h, p->nat.A, p->nat.b,
                   p->sc.c,  p->sc.ha,  p->sc.G,  p->sc.h,  p->sc.A,  p->sc.b};
  for (size_t i = 0; i < sizeof nat / sizeof nat[0]; i++) free(nat[i]);
  free(p->nat.hu);
  free(p->nat.hv);
  free(p->row_kind);
  free(p->row_owner);
  free(p->xscale);
  free(p->lo);
  free(p->hi);
  free(p->x1);
  free(p->tmp_lam);
  free(p->tmp_nu);
  ipm_work_free(p->work);
  free(p);
}

/* Find the pattern equal to v (exact), or append it. Returns its index. */
static int pattern_id(WeftProblem *p, const double *v, int *cap) {
  for (int k = 0; k < p->npat; k++)
    if (memcmp(p->u + (size_t)k * (size_t)p->D, v, (size_t)p->D * sizeof *v) == 0) return k;
  if (p->npat == *cap) {
    int nc = *cap ? 2 * *cap : 16;
    double *nu = realloc(p->u, (size_t)nc * (size_t)p->D * sizeof *nu);
    if (!nu) return -1;
    p->u = nu;
    *cap = nc;
  }
  memcpy(p->u + (size_t)p->npat * (size_t)p->D, v, (size_t)p->D * sizeof *v);
  return p->npat++;
}

/* Pattern of each (layer, phase) of every job, -1 for no traffic. Named
 * groups are found in the job's communicator first, so a missing one is a
 * clear input error rather than a wrong answer. */
static int collect_patterns(WeftProblem *p, int **pid_out, WeftError *err) {
  int cap = 0;
  for (int j = 0; j < p->njobs; j++) {
    const WeftWorkload *wl = p->spec.jobs[j].workload;
    const WeftCommunicator *cm = p->spec.jobs[j].comm;
    const int *named[WEFT_MAX_GROUPS + 1] = {0};
    for (int k = 0; k < wl->ngroups && k < WEFT_MAX_GROUPS; k++)
      if (!(named[k + 1] = weft_communicator_find(cm, wl->group_name[k])))
        return weft_error_set(err, WEFT_EINPUT, wl->file, 0, 0, wl->group_name[k],
                              "the workload uses group '%s', which the communicator%s%s "
                              "does not name",
                              wl->group_name[k], cm->file[0] ? " " : "", cm->file);
    int *pid = malloc((size_t)wl->nlayers * WEFT_NPHASES * sizeof *pid);
    if (!pid) return WEFT_ENOMEM;
    pid_out[j] = pid;
    for (int l = 0; l < wl->nlayers; l++)
      for (int ph = 0; ph < WEFT_NPHASES; ph++) {
        const WeftPhaseSpec *s = &wl->layers[l].phase[ph];
        double v[WEFT_MAX_DIMS];
        int any = 0;
        pid[l * WEFT_NPHASES + ph] = -1;
        if (s->coll == WEFT_COLL_NONE || s->size_bytes <= 0) continue;
        if (s->group < 0 || s->group > wl->ngroups)
          return weft_error_set(err, WEFT_EINVAL, wl->file, wl->layers[l].line, 0, "group",
                                "layer %s: group index %d out of range", wl->layers[l].name,
                                s->group);
        weft_collective_traffic(s->coll, 1.0, s->group ? named[s->group] : cm->group[ph], p->D,
                                v);
        for (int d = 0; d < p->D; d++) any |= v[d] > 0;
        if (!any) continue;
        int id = pattern_id(p, v, &cap);
        if (id < 0) return WEFT_ENOMEM;
        pid[l * WEFT_NPHASES + ph] = id;
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

/* Build the time rows of job j. Row layout: [C, a_0..a_{npat-1}]. */
static int build_job(WeftProblem *p, int j, const int *pid) {
  const WeftWorkload *wl = p->spec.jobs[j].workload;
  Job *job = &p->job[j];
  int P = p->npat, L = wl->nlayers, W = P + 1;
  job->weight = p->spec.jobs[j].weight;
  job->phase_bytes = calloc((size_t)WEFT_NPHASES * (size_t)(P > 0 ? P : 1), sizeof(double));
  if (!job->phase_bytes) return WEFT_ENOMEM;
  double comp[WEFT_NPHASES] = {0, 0, 0};
  for (int l = 0; l < L; l++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      comp[ph] += wl->layers[l].phase[ph].compute_ns;
      int id = pid[l * WEFT_NPHASES + ph];
      if (id >= 0) job->phase_bytes[ph * P + id] += wl->layers[l].phase[ph].size_bytes;
    }
  job->compute_ns = comp[0] + comp[1] + comp[2];
  int rows_cap = (p->spec.loop == WEFT_LOOP_TP_DP_OVERLAP) ? L : 1;
  double *rows = calloc((size_t)rows_cap * (size_t)W, sizeof *rows);
  if (!rows) return WEFT_ENOMEM;
  int R = 0;
  if (p->spec.loop == WEFT_LOOP_NO_OVERLAP) {
    rows[0] = job->compute_ns;
    for (int ph = 0; ph < WEFT_NPHASES; ph++)
      for (int k = 0; k < P; k++) rows[1 + k] += job->phase_bytes[ph * P + k];
    R = 1;
  } else {
    /* The backward pass runs layers L-1..0. Layer i's gradient is ready
     * (ready_i) after its weight-grad compute; the FIFO weight-grad stream then
     * still has to send the collectives enqueued at or after it, those of
     * layers i, i-1, ..., 0. Iteration time = max_i ready_i + sum_{k<=i} wg_k. */
    double *row = calloc((size_t)W, sizeof *row);
    if (!row) { free(rows); return WEFT_ENOMEM; }
    /* Start from i = L (nothing of the backward pass done): fwd everything,
     * wg prefix = all layers' wg bytes. Walk i down, moving layer i's ig/wg
     * compute and ig bytes in, and dropping layer i+1's wg bytes out. */
    row[0] = comp[0];
    for (int k = 0; k < P; k++) row[1 + k] = job->phase_bytes[WEFT_PHASE_FWD * P + k] +
                                            job->phase_bytes[WEFT_PHASE_WG * P + k];
    for (int i = L - 1; i >= 0; i--) {
      const WeftLayer *ly = &wl->layers[i];
      row[0] += ly->phase[WEFT_PHASE_IG].compute_ns + ly->phase[WEFT_PHASE_WG].compute_ns;
      int ig = pid[i * WEFT_NPHASES + WEFT_PHASE_IG];
      if (ig >= 0) row[1 + ig] += ly->phase[WEFT_PHASE_IG].size_bytes;
      if (i + 1 < L) {
        int wg = pid[(i + 1) * WEFT_NPHASES + WEFT_PHASE_WG];
        if (wg >= 0) row[1 + wg] -= wl->layers[i + 1].phase[WEFT_PHASE_WG].size_bytes;
      }
      /* Keep row unless dominated; drop kept rows it dominates. */
      int keep = 1;
      for (int r = 0; r < R && keep; r++)
        if (dominated(row, rows + (size_t)r * (size_t)W, W)) keep = 0;
      if (!keep) continue;
      int r2 = 0;
      for (int r = 0; r < R; r++) {
        double *q = rows + (size_t)r * (size_t)W;
        if (dominated(q, row, W)) continue;
        if (r2 != r) memcpy(rows + (size_t)r2 * (size_t)W, q, (size_t)W * sizeof *q);
        r2++;
      }
      R = r2;
      memcpy(rows + (size_t)R * (size_t)W, row, (size_t)W * sizeof *row);
      R++;
    }
    free(row);
  }
  job->nrows = R;
  job->C = malloc((size_t)R * sizeof *job->C);
  job->a = malloc((size_t)R * (size_t)(P > 0 ? P : 1) * sizeof *job->a);
  if (!job->C || !job->a) { free(rows); return WEFT_ENOMEM; }
  for (int r = 0; r < R; r++) {
    job->C[r] = rows[(size_t)r * (size_t)W];
    for (int k = 0; k < P; k++) {
      double v = rows[(size_t)r * (size_t)W + 1 + (size_t)k];
      job->a[(size_t)r * (size_t)P + (size_t)k] = v > 0 ? v : 0.0; /* rounding */
    }
  }
  free(rows);
  return WEFT_OK;
}

/* Fold user constraints into B space: cost = sum_d cpg_d B_d. */
static int fold_constraints(WeftProblem *p) {
  int n = p->cons.n, D = p->D;
  size_t sz = (size_t)(n > 0 ? n : 1);
  p->Gle = calloc(sz * (size_t)D, sizeof(double));
  p->hle = calloc(sz, sizeof(double));
  p->Geq = calloc(sz * (size_t)D, sizeof(double));
  p->heq = calloc(sz, sizeof(double));
  p->le_src = calloc(sz, sizeof(int));
  p->eq_src = calloc(sz, sizeof(int));
  if (!p->Gle || !p->hle || !p->Geq || !p->heq || !p->le_src || !p->eq_src) return WEFT_ENOMEM;
  for (int i = 0; i < n; i++) {
    const WeftConstraint *c = &p->cons.c[i];
    double row[WEFT_MAX_DIMS], sign = c->rel == WEFT_REL_GE ? -1.0 : 1.0;
    for (int d = 0; d < D; d++) row[d] = sign * (c->coef[d] + c->cost_coef * p->cpg[d]);
    if (c->rel == WEFT_REL_EQ) {
      memcpy(p->Geq + (size_t)p->neq * (size_t)D, row, (size_t)D * sizeof *row);
      p->heq[p->neq] = c->rhs;
      p->eq_src[p->neq++] = i;
    } else {
      memcpy(p->Gle + (size_t)p->nle * (size_t)D, row, (size_t)D * sizeof *row);
      p->hle[p->nle] = sign * c->rhs;
      p->le_src[p->nle++] = i;
    }
  }
  return WEFT_OK;
}

/* user rows + a bound per dim + one cost row */
#define POLY_ROWS (WEFT_MAX_CONSTRAINTS + WEFT_MAX_DIMS + 1)

/* The B-space polyhedron (user rows, plus optional caps) as LP rows. */
typedef struct {
  double A[POLY_ROWS * WEFT_MAX_DIMS];
  double b[POLY_ROWS];
  int rel[POLY_ROWS];
  int src[POLY_ROWS]; /* constraint index, -1 for rows weft adds */
  unsigned char active[POLY_ROWS];
  LpRows rows;
} Poly;

static void poly_init(Poly *q, const WeftProblem *p) {
  int D = p->D, m = 0;
  for (int i = 0; i < p->nle; i++, m++) {
    memcpy(q->A + (size_t)m * (size_t)D, p->Gle + (size_t)i * (size_t)D, (size_t)D * sizeof(double));
    q->b[m] = p->hle[i];
    q->rel[m] = -1;
    q->src[m] = p->le_src[i];
  }
  for (int i = 0; i < p->neq; i++, m++) {
    memcpy(q->A + (size_t)m * (size_t)D, p->Geq + (size_t)i * (size_t)D, (size_t)D * sizeof(double));
    q->b[m] = p->heq[i];
    q->rel[m] = 0;
    q->src[m] = p->eq_src[i];
  }
  memset(q->active, 1, sizeof q->active);
  q->rows.n = D;
  q->rows.m = m;
  q->rows.A = q->A;
  q->rows.b = q->b;
  q->rows.rel = q->rel;
  q->rows.active = q->active;
}

static void poly_add_cap(Poly *q, int D, int d, double cap) {
  int m = q->rows.m;
  memset(q->A + (size_t)m * (size_t)D, 0, (size_t)D * sizeof(double));
  q->A[(size_t)m * (size_t)D + (size_t)d] = 1.0;
  q->b[m] = cap;
  q->rel[m] = -1;
  q->src[m] = -1;
  q->active[m] = 1;
  q->rows.m = m + 1;
}

int weft_problem_min_cost(const WeftProblem *p, const double *lower, double *bw) {
  Poly *q = malloc(sizeof *q);
  if (!q) return WEFT_ENOMEM;
  poly_init(q, p);
  for (int d = 0; d < p->D; d++) {
    if (lower[d] <= 0) continue;
    poly_add_cap(q, p->D, d, lower[d]);
    q->rel[q->rows.m - 1] = +1; /* B_d >= lower_d */
  }
  LpStatus st = lp_solve(&q->rows, p->cpg, bw, NULL);
  free(q);
  return st == LP_OPTIMAL ? WEFT_OK : WEFT_ESOLVER;
}

/* Deletion filter: shrink the active rows to an irreducible infeasible set. */
static void conflict_set(WeftProblem *p, Poly *q) {
  for (int i = 0; i < q->rows.m; i++) {
    q->active[i] = 0;
    if (lp_solve(&q->rows, NULL, NULL, NULL) != LP_INFEASIBLE) q->active[i] = 1;
  }
  p->nconflict = 0;
  size_t len = 0;
  len += (size_t)snprintf(p->pre_message, sizeof p->pre_message, "constraints in conflict:");
  for (int i = 0; i < q->rows.m; i++) {
    if (!q->active[i] || q->src[i] < 0) continue;
    int dup = 0;
    for (int k = 0; k < p->nconflict; k++) dup |= p->conflict[k] == q->src[i];
    if (dup) continue;
    p->conflict[p->nconflict++] = q->src[i];
    if (len < sizeof p->pre_message)
      len += (size_t)snprintf(p->pre_message + len, sizeof p->pre_message - len, "%s '%s'",
                              p->nconflict > 1 ? "," : "", p->cons.c[q->src[i]].text);
  }
  if (len < sizeof p->pre_message)
    snprintf(p->pre_message + len, sizeof p->pre_message - len, " (with every B >= 0)");
}

/* Keep a maximal independent subset of the equality rows [G | h]. */
static void reduce_equalities(WeftProblem *p) {
  int D = p->D, kept = 0;
  double basis[WEFT_MAX_CONSTRAINTS][WEFT_MAX_DIMS + 1];
  for (int i = 0; i < p->neq; i++) {
    double v[WEFT_MAX_DIMS + 1], scale = 0.0;
    memcpy(v, p->Geq + (size_t)i * (size_t)D, (size_t)D * sizeof(double));
    v[D] = p->heq[i];
    for (int d = 0; d <= D; d++) scale = fmax(scale, fabs(v[d]));
    for (int k = 0; k < kept; k++) { /* Gram-Schmidt against kept rows */
      double dot = 0.0;
      for (int d = 0; d <= D; d++) dot += v[d] * basis[k][d];
      for (int d = 0; d <= D; d++) v[d] -= dot * basis[k][d];
    }
    double nrm = 0.0;
    for (int d = 0; d < D; d++) nrm += v[d] * v[d]; /* B part only: A must be full rank */
    nrm = sqrt(nrm);
    if (nrm <= 1e-10 * fmax(scale, 1e-300)) continue; /* dependent (or inconsistent: LP caught it) */
    double full = 0.0;
    for (int d = 0; d <= D; d++) full += v[d] * v[d];
    full = sqrt(full);
    for (int d = 0; d <= D; d++) basis[kept][d] = v[d] / full;
    if (kept != i) {
      memmove(p->Geq + (size_t)kept * (size_t)D, p->Geq + (size_t)i * (size_t)D, (size_t)D * sizeof(double));
      p->heq[kept] = p->heq[i];
      p->eq_src[kept] = p->eq_src[i];
    }
    kept++;
  }
  p->neq = kept;
}

/* Feasibility, conflict sets, per-dim bounds and a starting point. */
static int precheck(WeftProblem *p) {
  int D = p->D;
  Poly *q = malloc(sizeof *q);
  if (!q) return WEFT_ENOMEM;
  poly_init(q, p);
  p->pre_status = WEFT_STATUS_SOLVED;
  LpStatus st = lp_solve(&q->rows, NULL, NULL, NULL);
  if (st == LP_NOMEM) { free(q); return WEFT_ENOMEM; }
  if (st == LP_INFEASIBLE) {
    p->pre_status = WEFT_STATUS_INFEASIBLE;
    conflict_set(p, q);
    free(q);
    return WEFT_OK;
  }
  int ppc = p->spec.objective == WEFT_OBJ_PERF_PER_COST;
  if (ppc) {
    int zero_ok = 1; /* B = 0 feasible => time*cost has no minimiser */
    for (int i = 0; i < p->nle; i++) zero_ok &= p->hle[i] >= 0.0;
    for (int i = 0; i < p->neq; i++) zero_ok &= p->heq[i] == 0.0;
    if (zero_ok) {
      p->pre_status = WEFT_STATUS_UNBOUNDED;
      snprintf(p->pre_message, sizeof p->pre_message,
               "perf-per-cost has no minimum: the constraints let every bandwidth shrink "
               "towards 0; add one that fixes the scale, e.g. 'sum = 1000' or 'cost >= 1e6'");
      free(q);
      return WEFT_OK;
    }
    double obj;
    if (lp_solve(&q->rows, p->cpg, NULL, &obj) != LP_OPTIMAL) { free(q); return WEFT_ESOLVER; }
    p->cost_min = obj;
    /* Start from designs at most twice the cheapest: bounded, and at the
     * scale the constraints set (time*cost needs no other bound). */
    int m = q->rows.m;
    memcpy(q->A + (size_t)m * (size_t)D, p->cpg, (size_t)D * sizeof(double));
    q->b[m] = 2.0 * obj;
    q->rel[m] = -1;
    q->src[m] = -1;
    q->active[m] = 1;
    q->rows.m = m + 1;
  }
  double vert[WEFT_MAX_DIMS][WEFT_MAX_DIMS];
  int unb[WEFT_MAX_DIMS];
  double big = 1.0;
  for (int d = 0; d < D; d++) {
    double c[WEFT_MAX_DIMS] = {0}, obj;
    c[d] = -1.0;
    st = lp_solve(&q->rows, c, vert[d], &obj);
    if (st == LP_NOMEM) { free(q); return WEFT_ENOMEM; }
    unb[d] = st == LP_UNBOUNDED;
    p->U[d] = unb[d] ? HUGE_VAL : -obj;
    if (!unb[d])
      for (int k = 0; k < D; k++) big = fmax(big, vert[d][k]);
  }
  for (int i = 0; i < q->rows.m; i++) big = fmax(big, fabs(q->b[i]));
  p->cap_gbps = 10.0 * big; /* far above anything the data asks for */
  int any_cap = 0;
  for (int d = 0; d < D; d++) {
    if (!unb[d]) continue;
    if (p->used[d]) {
      p->pre_status = WEFT_STATUS_UNBOUNDED;
      snprintf(p->pre_message, sizeof p->pre_message,
               "B%d can grow without limit, so iteration time has no minimum: "
               "add an upper bound such as 'sum <= 1000' or 'cost <= ...'", d + 1);
      free(q);
      return WEFT_OK;
    }
    p->capped[d] = any_cap = 1;
    poly_add_cap(q, D, d, p->cap_gbps);
  }
  for (int d = 0; d < D && any_cap; d++) { /* vertices again: caps changed the polyhedron */
    double c[WEFT_MAX_DIMS] = {0}, obj;
    c[d] = -1.0;
    if (lp_solve(&q->rows, c, vert[d], &obj) != LP_OPTIMAL) { free(q); return WEFT_ESOLVER; }
    p->U[d] = -obj;
  }
  for (int d = 0; d < D; d++) {
    if (p->used[d] && p->U[d] <= 0.0) {
      p->pre_status = WEFT_STATUS_INFEASIBLE;
      snprintf(p->pre_message, sizeof p->pre_message,
               "B%d carries collective traffic but the constraints force it to 0", d + 1);
      free(q);
      return WEFT_OK;
    }
    p->Bstart[d] = 0.0;
    for (int k = 0; k < D; k++) p->Bstart[d] += vert[k][d] / D; /* feasible: convex combination */
  }
  free(q);
  reduce_equalities(p);
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
  if (spec->objective != WEFT_OBJ_PERF && spec->objective != WEFT_OBJ_PERF_PER_COST)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "objective", "unknown objective");
  if (spec->loop != WEFT_LOOP_NO_OVERLAP && spec->loop != WEFT_LOOP_TP_DP_OVERLAP)
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
    int rc = weft_communicator_check(job->comm, net, err);
    if (rc) return rc;
  }
  if (spec->cons && (spec->cons->n < 0 || spec->cons->n > WEFT_MAX_CONSTRAINTS))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "constraints", "bad constraint count");
  return WEFT_OK;
}

int weft_problem_create(const WeftSpec *spec, WeftProblem **out, WeftError *err) {
  *out = NULL;
  int rc = validate(spec, err);
  if (rc) return rc;
  WeftProblem *p = calloc(1, sizeof *p);
  if (!p) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  p->spec = *spec;
  if (spec->cons) p->cons = *spec->cons;
  p->spec.cons = &p->cons;
  p->D = spec->net->ndims;
  p->njobs = spec->njobs;
  rc = weft_cost_per_gbps(spec->net, spec->cost, p->cpg, err);
  if (rc) { weft_problem_free(p); return rc; }
  int *pid[WEFT_MAX_JOBS] = {0};
  rc = collect_patterns(p, pid, err);
  if (rc && rc != WEFT_ENOMEM) {
    for (int j = 0; j < p->njobs; j++) free(pid[j]);
    weft_problem_free(p);
    return rc;
  }
  for (int j = 0; j < p->njobs && !rc; j++) rc = build_job(p, j, pid[j]);
  for (int j = 0; j < p->njobs; j++) free(pid[j]);
  for (int k = 0; k < p->npat; k++)
    for (int d = 0; d < p->D; d++) p->used[d] |= p->u[(size_t)k * (size_t)p->D + (size_t)d] > 0;
  if (!rc) rc = fold_constraints(p);
  if (!rc) rc = precheck(p);
  if (!rc) rc = weft_problem_build_program(p);
  if (rc) {
    weft_problem_free(p);
    return weft_error_set(err, rc, "", 0, 0, NULL, "%s while building the problem", weft_strerror(rc));
  }
  *out = p;
  return WEFT_OK;
}
