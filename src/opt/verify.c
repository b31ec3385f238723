/* verify.c — designs against the constraints as the user gave them: the
 * check every answer passes before it is reported solved, and the EqualBW
 * baseline (the best design with every B_d equal that meets them). */
#include <math.h>
#include <stdio.h>

#include "opt/problem.h"

#define EQ_TOL 1e-9  /* relative slack when intersecting the equal split's bounds */

/* lhs of constraint c at natural bw, and the magnitude of its terms. */
static double lhs_of(const WeftProblem *p, const WeftConstraint *c, const double *bw, double *mag) {
  double acc = 0.0, cost = 0.0, m = 0.0;
  for (int d = 0; d < p->D; d++) {
    acc += c->coef[d] * bw[d];
    m += fabs(c->coef[d] * bw[d]);
    cost += p->cpg_nat[d] * bw[d];
  }
  acc += c->cost_coef * cost;
  *mag = m + fabs(c->cost_coef * cost);
  return acc;
}

double weft_problem_violation(const WeftProblem *p, const double *bw, int *which) {
  double nat[WEFT_MAX_DIMS], worst = 0.0, scale = 0.0;
  int w = -1;
  for (int d = 0; d < p->D; d++) {
    nat[d] = bw[d] * p->bscale;
    if (!isfinite(nat[d])) { if (which) *which = -1; return HUGE_VAL; }
    scale = fmax(scale, fabs(nat[d]));
  }
  for (int d = 0; d < p->D; d++) /* B >= 0, relative to the design's scale */
    if (nat[d] < 0.0 && -nat[d] / fmax(scale, 1e-300) > worst) worst = -nat[d] / scale;
  for (int i = 0; i < p->ncons; i++) {
    const WeftConstraint *c = &p->cons[i];
    double mag, v = lhs_of(p, c, nat, &mag) - c->rhs, rel;
    mag += fabs(c->rhs);
    if (c->rel == WEFT_REL_GE) v = -v;
    else if (c->rel == WEFT_REL_EQ) v = fabs(v);
    if (!(v > 0.0)) continue;
    rel = mag > 0.0 ? v / mag : HUGE_VAL;
    if (rel > worst) { worst = rel; w = i; }
  }
  if (which) *which = w;
  return worst;
}

#define EQ_SPAN 1e12  /* an open end of the equal split's range: this far past the other */
#define EQ_ITERS 200  /* golden-section steps on log b: (0.618)^200 of the span */

static void eq_fill(const WeftProblem *p, double b_gbps, double *bw) {
  for (int d = 0; d < p->D; d++) bw[d] = b_gbps / p->bscale;
}

/* The objective's minimum over an equal split B_d = b in [lo, hi] (GB/s),
 * time x (oc0 + g b) with oc0 > 0: each time row C_r + K_r / b times the
 * positive cost is convex in b, their max too, so a golden-section search
 * on log b finds it. An open end is EQ_SPAN past the other (or bscale);
 * returns 0 when the minimum sits at an open upper end (no minimiser). */
static int equal_tc(const WeftProblem *p, double lo, double hi, double *b) {
  double ref = lo > 0.0 ? lo : isfinite(hi) ? hi : p->bscale;
  double a = log(lo > 0.0 ? lo : ref / EQ_SPAN), z = log(isfinite(hi) ? hi : ref * EQ_SPAN);
  const double g = 0.5 * (sqrt(5.0) - 1.0);
  double bw[WEFT_MAX_DIMS];
#define EQ_F(t) (eq_fill(p, exp(t), bw), weft_problem_objective_raw(p, bw, NULL))
  double x1 = z - g * (z - a), x2 = a + g * (z - a), f1 = EQ_F(x1), f2 = EQ_F(x2);
  for (int i = 0; i < EQ_ITERS && z - a > 1e-15 * fmax(1.0, fabs(a)); i++) {
    if (f1 <= f2) { z = x2; x2 = x1; f2 = f1; x1 = z - g * (z - a); f1 = EQ_F(x1); }
    else { a = x1; x1 = x2; f1 = f2; x2 = a + g * (z - a); f2 = EQ_F(x2); }
  }
#undef EQ_F
  *b = exp(0.5 * (a + z));
  if (*b < lo) *b = lo;
  if (*b > hi) *b = hi;
  return isfinite(hi) || *b < ref * EQ_SPAN * 0.5;
}

/* What sets bound k of the equal split: constraint k (>= 0), or the
 * whole links of dim -k-1 (EQ_LIMIT: its MaxLinks; EQ_LINK: the one link a
 * dim with traffic needs), into buf. */
#define EQ_LIMIT 1000
#define EQ_LINK 2000
static const char *eq_source(const WeftProblem *p, int k, char *buf, size_t size) {
  if (k >= 0) snprintf(buf, size, "'%s'", p->cons[k].text);
  else if (-k - 1 >= EQ_LINK) snprintf(buf, size, "one link of B%d", -k - 1 - EQ_LINK + 1);
  else snprintf(buf, size, "MaxLinks of B%d", -k - 1 - EQ_LIMIT + 1);
  return buf;
}

#define EQ_SCAN 1000000  /* at most this many multiples of the largest rate are tried */

/* b on whole links: b / r_d a whole number within MaxLinks on every whole
 * dim. Is the multiple k of rmax one? */
static int eq_whole(const WeftProblem *p, double b) {
  for (int d = 0; d < p->D; d++) {
    double r = p->link_gbps[d];
    if (!(r > 0.0)) continue;
    double n = b / r, m = nearbyint(n);
    if (fabs(n - m) > 1e-9 * fmax(1.0, n) || m < 1.0) return 0;
    if (p->max_links[d] > 0 && m > p->max_links[d]) return 0;
  }
  return 1;
}

/* The first whole-link b from multiple k0 of rmax stepping by dk, within
 * [lo, hi] (relative slack EQ_TOL); 0 when none within EQ_SCAN steps. */
static int eq_scan(const WeftProblem *p, double rmax, double lo, double hi, double k0, int dk,
                   double *b) {
  for (long i = 0; i < EQ_SCAN; i++) {
    double k = k0 + (double)dk * (double)i, v = k * rmax;
    if (k < 1.0 || v < lo * (1.0 - EQ_TOL) || v > hi * (1.0 + EQ_TOL)) return 0;
    if (eq_whole(p, v)) { *b = v; return 1; }
  }
  return 0;
}

/* The best equal split on whole links near the continuous one, bc in
 * [lo, hi]: the largest at or below it (perf: time falls as b grows), the
 * smallest at or above it (time x cost without a constant: grows with b),
 * or the better of those two (time x (oc0 + g b), convex in b). */
static int eq_pick(const WeftProblem *p, double rmax, double lo, double hi, double bc, double *b) {
  double down = 0.0, up = 0.0, kd = floor(bc / rmax * (1.0 + EQ_TOL)), ku = ceil(bc / rmax * (1.0 - EQ_TOL));
  int has_down = p->objective == WEFT_OBJ_PERF || p->oc0 > 0.0 ? eq_scan(p, rmax, lo, hi, kd, -1, &down) : 0;
  int has_up = p->objective != WEFT_OBJ_PERF ? eq_scan(p, rmax, lo, hi, ku, +1, &up) : 0;
  if (has_down && has_up) {
    double bw[WEFT_MAX_DIMS];
    eq_fill(p, down, bw);
    double fd = weft_problem_objective_raw(p, bw, NULL);
    eq_fill(p, up, bw);
    *b = weft_problem_objective_raw(p, bw, NULL) < fd ? up : down;
    return 1;
  }
  *b = has_down ? down : up;
  return has_down || has_up;
}

int weft_problem_equal_bw(const WeftProblem *p, double *bw_gbps, char *why, size_t whylen) {
  double lo = 0.0, hi = HUGE_VAL, sum_cpg = 0.0;
  int ilo = -1, ihi = -1;
  for (int d = 0; d < p->D; d++) sum_cpg += p->cpg_nat[d];
  if (why && whylen) why[0] = '\0';
  for (int i = 0; i < p->ncons; i++) { /* constraint i at B_d = b: k b REL rhs */
    const WeftConstraint *c = &p->cons[i];
    double k = c->cost_coef * sum_cpg;
    for (int d = 0; d < p->D; d++) k += c->coef[d];
    int le = c->rel != WEFT_REL_GE, ge = c->rel != WEFT_REL_LE;
    if (k == 0.0) {
      if ((le && c->rhs < 0.0) || (ge && c->rhs > 0.0)) {
        if (why) snprintf(why, whylen, "no equal split meets '%s'", c->text);
        return 0;
      }
      continue;
    }
    double b = c->rhs / k;
    if (k < 0.0) { int t = le; le = ge; ge = t; } /* dividing by k < 0 turns the relation */
    if (le && b < hi) { hi = b; ihi = i; }
    if (ge && b > lo) { lo = b; ilo = i; }
  }
  /* Whole links (docs/model.md "EqualBW baseline"): a dim's MaxLinks bounds
   * b, a dim with traffic needs one link, and b is then a whole number of
   * links on every whole dim. */
  double rmax = 0.0;
  for (int d = 0; d < p->D; d++) {
    double r = p->link_gbps[d];
    if (!(r > 0.0)) continue;
    rmax = fmax(rmax, r);
    if (p->max_links[d] > 0 && p->max_links[d] * r < hi) { hi = p->max_links[d] * r; ihi = -(EQ_LIMIT + d) - 1; }
    if (p->used[d] && r > lo) { lo = r; ilo = -(EQ_LINK + d) - 1; }
  }
  char s1[160], s2[160];
  if (lo > hi * (1.0 + EQ_TOL) + 1e-300) {
    if (why) {
      if (ilo != -1 && ihi != -1 && ilo != ihi)
        snprintf(why, whylen, "no equal split meets the constraints: %s needs B >= %.6g per dim, "
                 "%s B <= %.6g", eq_source(p, ilo, s1, sizeof s1), lo,
                 eq_source(p, ihi, s2, sizeof s2), hi);
      else
        snprintf(why, whylen, "no equal split meets the constraints (%s needs B %s %.6g per dim)",
                 eq_source(p, ihi != -1 ? ihi : ilo, s1, sizeof s1), ihi != -1 ? "<=" : ">=",
                 ihi != -1 ? hi : lo);
    }
    return 0;
  }
  double b;
  if (p->objective == WEFT_OBJ_PERF) { /* time falls as b grows: the largest b */
    if (!isfinite(hi)) {
      if (why) snprintf(why, whylen, "no constraint bounds an equal split: it can grow without limit");
      return 0;
    }
    b = hi;
  } else if (p->oc0 > 0.0) { /* time x (oc0 + g b): convex in b (docs/model.md) */
    if (!equal_tc(p, lo, hi, &b)) {
      if (why) snprintf(why, whylen, "an equal split has no best time x cost: it keeps falling "
                        "as the bandwidth grows (no compute time)");
      return 0;
    }
  } else { /* time x cost = C cost(b) + const grows with b: the smallest b > 0 */
    if (!(lo > 0.0)) {
      if (why) snprintf(why, whylen, "an equal split has no best time x cost: it can shrink towards 0");
      return 0;
    }
    b = lo;
  }
  if (rmax > 0.0 && !eq_pick(p, rmax, lo, hi, b, &b)) {
    if (why) {
      size_t len = (size_t)snprintf(why, whylen, "no equal split on whole links: no B in [%.6g, "
                                    "%.6g] GB/s per dim is a whole number of links on", lo, hi);
      for (int d = 0, k = 0; d < p->D && len < whylen; d++)
        if (p->link_gbps[d] > 0.0)
          len += (size_t)snprintf(why + len, whylen - len, "%s B%d (%g GB/s)", k++ ? "," : "",
                                  d + 1, p->link_gbps[d]);
    }
    return 0;
  }
  for (int d = 0; d < p->D; d++) bw_gbps[d] = b;
  return 1;
}
