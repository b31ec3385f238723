/* wholelink.c — whole links: B_d = n_d x r_d with n_d a whole number of links,
 * solved exactly by branch and bound over the convex relaxation, each node
 * the spec with bound rows on its dims, solved and certified by
 * weft_problem_solve (docs/model.md "Whole links"). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opt/problem.h"

#define INT_TOL 1e-9      /* B_d / r_d this close (relative) to a whole number is whole */
#define PRUNE_FRAC 0.1    /* prune at bound >= best - PRUNE_FRAC gap_tol |best|: the answer
                             sits well inside the target, not at its edge */
#define ROUND_DIMS 6      /* a relaxation is rounded both ways on up to this many dims */
#define NO_LIMIT INT_MAX  /* a box with no upper end (no MaxLinks) */
#define KNOWN 16          /* feasible designs kept as starts for the nodes' solves */
#define KEEP_LINKS 1.0    /* a dim's root-box rows stay in its nodes' relaxations when the
                             root's design is this many links from one (root()) */
#define MAX_BRANCH_LINKS 1e9  /* a relaxation past this many links (a tiny rate, no limit)
                                 leaves its node unsettled: box ends are ints */

typedef struct {
  int lo[WEFT_MAX_DIMS], hi[WEFT_MAX_DIMS];  /* box on n_d (whole dims only) */
  double lb;                                 /* certified bound on every design inside */
  double bw[WEFT_MAX_DIMS];                  /* the relaxation's design (GB/s) */
  double obj;                                /* the objective at bw (when solved) */
  int solved;                                /* 0: lb is the parent's (solver failed) */
  long seq;                                  /* insertion order: ties, reproducibly */
} Node;

typedef struct {
  const WeftSpec *spec;
  const WeftSettings *st;
  WeftSpec nspec;          /* spec with cons = the user's rows, then the node's bounds */
  WeftConstraints *cons;
  int nuser;
  WeftProblem *base;       /* spec as given: every design is verified and evaluated on it */
  int own_base;            /* 1: built here (freed here), 0: the caller's */
  int D, whole[WEFT_MAX_DIMS];
  double rate[WEFT_MAX_DIMS];
  /* The root's box (a link for a dim with traffic, MaxLinks): a node's rows
   * at these ends are left out of its relaxation (fewer rows, the same
   * optimum when its design meets them) unless keep[d] (the root's design
   * is near one, or a node's design broke one: dim d's rows are then in). */
  int lo0[WEFT_MAX_DIMS], hi0[WEFT_MAX_DIMS], keep[WEFT_MAX_DIMS];
  /* So are the user's inequalities with slack at the root's design
   * (udrop[i], root()) until a node's design breaks one; lean holds the
   * rows built without them, rows the ones bound_rows built last. */
  unsigned char udrop[WEFT_MAX_CONSTRAINTS];
  WeftConstraints *lean, *rows;
  Node *heap;
  int nheap, capheap;
  long seq;
  double best, best_bw[WEFT_MAX_DIMS];
  int have_best;
  double closed_lb;        /* least bound of the leaves settled without a better design */
  double known[KNOWN][WEFT_MAX_DIMS];  /* the last designs that met the constraints (GB/s) */
  int nknown;
  int nodes, unsettled, iterations;
  struct timespec t0;
} Bnb;

enum { NODE_SOLVED = 1, NODE_EMPTY = 0, NODE_UNSETTLED = 2, NODE_PRUNED = 3 };

const char *weft_bnb_status_name(WeftBnbStatus s) {
  switch (s) {
    case WEFT_BNB_NODE_LIMIT: return "node limit";
    case WEFT_BNB_TIME_LIMIT: return "time limit";
    case WEFT_BNB_CLOSED: break;
  }
  return "tree closed";
}

static double elapsed_s(const Bnb *b) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - b->t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - b->t0.tv_nsec);
}

/* ------------------------------------------------------------------ the heap */
static int before(const Node *a, const Node *c) {
  return a->lb < c->lb || (a->lb == c->lb && a->seq < c->seq);
}

static int push(Bnb *b, Node *n) {
  if (b->nheap == b->capheap) {
    int nc = b->capheap ? 2 * b->capheap : 64;
    Node *h = realloc(b->heap, (size_t)nc * sizeof *h);
    if (!h) return WEFT_ENOMEM;
    b->heap = h;
    b->capheap = nc;
  }
  n->seq = b->seq++;
  int i = b->nheap++;
  while (i > 0 && before(n, &b->heap[(i - 1) / 2])) {
    b->heap[i] = b->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  b->heap[i] = *n;
  return WEFT_OK;
}

static Node pop(Bnb *b) {
  Node top = b->heap[0], last = b->heap[--b->nheap];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= b->nheap) break;
    if (c + 1 < b->nheap && before(&b->heap[c + 1], &b->heap[c])) c++;
    if (!before(&b->heap[c], &last)) break;
    b->heap[i] = b->heap[c];
    i = c;
  }
  if (b->nheap) b->heap[i] = last;
  return top;
}

/* ------------------------------------------------------------------ designs */
/* A whole-link design (GB/s) as a candidate: verified against the
 * constraints as given, then kept when it beats the best. 1 when it meets
 * them (with a finite objective), 0 otherwise. */
static int consider(Bnb *b, const double *bw_gbps) {
  double x[WEFT_MAX_DIMS];
  for (int d = 0; d < b->D; d++) x[d] = bw_gbps[d] / b->base->bscale;
  if (!(weft_problem_violation(b->base, x, NULL) <= WEFT_VERIFY_TOL)) return 0;
  double obj = weft_problem_objective(b->base, x, NULL);
  if (!isfinite(obj)) return 0;
  memcpy(b->known[b->nknown++ % KNOWN], bw_gbps, (size_t)b->D * sizeof *bw_gbps);
  if (b->have_best && !(obj < b->best)) return 1;
  b->best = obj;
  b->have_best = 1;
  memcpy(b->best_bw, bw_gbps, (size_t)b->D * sizeof *bw_gbps);
  return 1;
}

/* Round the node's relaxation to whole links inside its box: both ways on
 * the first ROUND_DIMS fractional dims, to the nearest on the rest. */
static void round_design(Bnb *b, const Node *n) {
  int frac[WEFT_MAX_DIMS], nf = 0;
  double fl[WEFT_MAX_DIMS];
  for (int d = 0; d < b->D; d++) {
    if (!b->whole[d]) continue;
    double v = n->bw[d] / b->rate[d];
    fl[d] = floor(v);
    if (v - fl[d] > INT_TOL * fmax(1.0, v) && nf < ROUND_DIMS) frac[nf++] = d;
  }
  for (unsigned mask = 0; mask < (1u << nf); mask++) {
    double bw[WEFT_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < b->D; d++) {
      if (!b->whole[d]) { bw[d] = n->bw[d]; continue; }
      double v = n->bw[d] / b->rate[d], m = nearbyint(v);
      if (k < nf && frac[k] == d) m = fl[d] + (double)((mask >> k++) & 1u);
      m = fmin(fmax(m, (double)n->lo[d]), (double)n->hi[d]);
      bw[d] = m * b->rate[d];
    }
    consider(b, bw);
  }
}

/* ------------------------------------------------------------------ nodes */
/* The node's bound rows after the user's: B_d = n r (pinned), B_d >= lo r,
 * B_d <= hi r; named (the root's, which messages may quote) or not (a
 * node's: the text costs more than its solve's pre-checks); all, or (all
 * = 0) without those at the root's ends (lo0, hi0) on dims not kept.
 * Returns how many rows were left out. */
static int bound_rows(Bnb *b, const Node *n, int named, int all) {
  WeftConstraints *c = all ? b->cons : b->lean;
  int left = 0;
  b->rows = c;
  c->n = all ? b->nuser : 0;
  for (int i = 0; i < b->nuser && !all; i++) {
    if (b->udrop[i]) left++;
    else c->c[c->n++] = b->cons->c[i];
  }
  for (int d = 0; d < b->D; d++) {
    if (!b->whole[d]) continue;
    int pin = n->lo[d] == n->hi[d], lean = !all && !pin && !b->keep[d];
    for (int side = 0; side < 2; side++) {
      int lo_side = side == 0;
      if (lo_side && (n->lo[d] == 0 || pin)) continue;
      if (!lo_side && n->hi[d] == NO_LIMIT) continue;
      if (lean && (lo_side ? n->lo[d] == b->lo0[d] : n->hi[d] == b->hi0[d])) {
        left++;
        continue;
      }
      int links = lo_side ? n->lo[d] : n->hi[d];
      WeftConstraint *r = &c->c[c->n++];
      for (int k = 0; k < WEFT_MAX_DIMS; k++) r->coef[k] = 0.0; /* field by field: a memset */
      r->cost_coef = 0.0;                                       /* of the text costs more */
      r->text[0] = '\0';
      r->origin = 0;
      r->coef[d] = 1.0;
      r->rhs = links * b->rate[d];
      r->rel = pin ? WEFT_REL_EQ : lo_side ? WEFT_REL_GE : WEFT_REL_LE;
      if (named)
        snprintf(r->text, sizeof r->text, "B%d %s %d x %g (%s)", d + 1,
                 pin ? "=" : lo_side ? ">=" : "<=", links, b->rate[d],
                 lo_side ? "a dim with traffic needs a link" : "MaxLinks");
    }
  }
  return left;
}

/* 1 when the relaxation's design bw (GB/s) meets the rows bound_rows(.., 0)
 * left out of node n's (as they are: a design past one is not the node's);
 * else 0, and those dims' rows are kept from then on. */
static int meets_left_out(Bnb *b, const Node *n, const double *bw) {
  int ok = 1;
  for (int i = 0; i < b->nuser; i++) {
    if (!b->udrop[i]) continue;
    const WeftConstraint *c = &b->cons->c[i];
    double lhs = 0.0;
    for (int d = 0; d < b->D; d++) lhs += c->coef[d] * bw[d];
    if (!(c->rel == WEFT_REL_LE ? lhs <= c->rhs : lhs >= c->rhs)) {
      b->udrop[i] = 0;
      ok = 0;
    }
  }
  for (int d = 0; d < b->D; d++) {
    if (!b->whole[d] || b->keep[d] || n->lo[d] == n->hi[d]) continue;
    if ((n->lo[d] == b->lo0[d] && n->lo[d] > 0 && !(bw[d] >= n->lo[d] * b->rate[d])) ||
        (n->hi[d] == b->hi0[d] && n->hi[d] != NO_LIMIT && !(bw[d] <= n->hi[d] * b->rate[d]))) {
      b->keep[d] = 1;
      ok = 0;
    }
  }
  return ok;
}

/* 1 when the whole-link design bw (GB/s) lies inside node n's box. */
static int in_box(const Bnb *b, const Node *n, const double *bw) {
  for (int d = 0; d < b->D; d++) {
    if (!b->whole[d]) continue;
    double m = nearbyint(bw[d] / b->rate[d]);
    if (m < n->lo[d] || m > n->hi[d]) return 0;
  }
  return 1;
}

/* A design known to meet the constraints inside node n's box (the newest),
 * a start for its solve; NULL when none is. */
static const double *known_start(const Bnb *b, const Node *n) {
  int k0 = b->nknown > KNOWN ? b->nknown - KNOWN : 0;
  for (int k = b->nknown - 1; k >= k0; k--) {
    const double *bw = b->known[k % KNOWN];
    if (in_box(b, n, bw)) return bw;
  }
  return NULL;
}

static int prunable(const Bnb *b, double lb) {
  return b->have_best && lb >= b->best - PRUNE_FRAC * b->st->gap_tol * fabs(b->best);
}

/* Solve the relaxation of node n (box set): its bound and design; or only
 * its bound (NODE_PRUNED) once the solve certifies one that prunes it. */
static int solve_node(Bnb *b, Node *n, const double *start, WeftResult *res) {
  int all_pinned = 1;
  for (int d = 0; d < b->D; d++)
    all_pinned &= b->whole[d] ? n->lo[d] == n->hi[d] : 0;
  b->nodes++;
  if (all_pinned) { /* one design: evaluate it, no solve */
    double x[WEFT_MAX_DIMS];
    for (int d = 0; d < b->D; d++) {
      n->bw[d] = n->lo[d] * b->rate[d];
      x[d] = n->bw[d] / b->base->bscale;
    }
    if (!(weft_problem_violation(b->base, x, NULL) <= WEFT_VERIFY_TOL)) return NODE_EMPTY;
    n->lb = n->obj = weft_problem_objective(b->base, x, NULL);
    n->solved = 1;
    return isfinite(n->lb) ? NODE_SOLVED : NODE_EMPTY;
  }
  /* First without the rows at the root's ends (a relaxation of the node's:
   * its bounds are the node's, and so is its design when that meets them),
   * then, when its design does not or it is not solved, with every row. */
  if (!start) start = known_start(b, n);
  int rc = WEFT_OK;
  for (int all = 0; all < 2; all++) {
    all |= !bound_rows(b, n, 0, all); /* none left out: this is every row */
    WeftProblem *p = NULL;
    WeftError err;
    rc = weft_problem_recreate(b->base, b->rows, start, 1, &p, &err);
    if (rc == WEFT_ENOMEM) return rc;
    if (rc) return NODE_UNSETTLED; /* the node's rows out of range: its parent's bound stands */
    /* The best design inside the box is often the node's optimum (rounding
     * found it): its certificate (one LP) then cuts the node, no solve. */
    if (b->have_best && in_box(b, n, b->best_bw)) {
      double lb = weft_sep_certify_at(p, b->best_bw);
      if (prunable(b, lb)) {
        weft_problem_free(p);
        n->lb = lb;
        return NODE_PRUNED;
      }
    }
    double cutoff = b->have_best ? b->best - PRUNE_FRAC * b->st->gap_tol * fabs(b->best) : HUGE_VAL;
    int cut = 0;
    rc = weft_problem_solve_cut(p, b->st, cutoff, res, &cut);
    weft_problem_free(p);
    if (rc == WEFT_ENOMEM) return rc;
    b->iterations += res->iterations;
    if (!rc && cut && prunable(b, res->lower_bound)) { /* pruned exactly: no design needed */
      n->lb = res->lower_bound;
      return NODE_PRUNED;
    }
    if (!rc && res->status == WEFT_STATUS_INFEASIBLE) return NODE_EMPTY;
    if (!rc && res->status == WEFT_STATUS_SOLVED && (all || meets_left_out(b, n, res->bw_gbps)))
      break;
  }
  if (rc || res->status != WEFT_STATUS_SOLVED) return NODE_UNSETTLED;
  n->lb = res->lower_bound;
  n->obj = res->objective;
  memcpy(n->bw, res->bw_gbps, (size_t)b->D * sizeof *n->bw);
  n->solved = 1;
  return NODE_SOLVED;
}

static void settle(Bnb *b, double lb) { b->closed_lb = fmin(b->closed_lb, lb); }

/* z: where the line from design y through the parent's design x meets the
 * face t (dim d pinned), past x; 1 when z meets the constraints (as the
 * nodes' starts are checked, WEFT_VERIFY_TOL) inside t's box. */
static int past_parent(const Bnb *b, const Node *t, const double *y, const double *x, int d,
                       double *z) {
  double face = t->lo[d] * b->rate[d], zs[WEFT_MAX_DIMS];
  if (y[d] == x[d]) return 0;
  double u = (face - y[d]) / (x[d] - y[d]);
  for (int k = 0; k < b->D; k++) {
    z[k] = k == d ? face : y[k] + u * (x[k] - y[k]);
    if (!(z[k] >= 0.0) || (b->base->used[k] && !(z[k] > 0.0))) return 0;
    if (b->whole[k] && k != d &&
        (z[k] < t->lo[k] * b->rate[k] || (t->hi[k] != NO_LIMIT && z[k] > t->hi[k] * b->rate[k])))
      return 0;
    zs[k] = z[k] / b->base->bscale;
  }
  return weft_problem_violation(b->base, zs, NULL) <= WEFT_VERIFY_TOL;
}

/* A child with box set: solve, then settle it (empty, pruned, whole) or
 * queue it. A child the solver cannot settle is queued with its parent's
 * bound, to be split without a design. */
/* The child's relaxation on the face its parent's design was cut off from:
 * dim d pinned at the child's new end (docs/model.md "Whole links",
 * "Children on the face"). Its bound is the child's when it passes the
 * parent's objective; else (or empty, or unsettled) NODE_UNSETTLED and the
 * child is solved as it is. */
static int solve_face(Bnb *b, Node *n, const Node *parent, int d, WeftResult *res) {
  Node t = *n;
  t.lo[d] = t.hi[d] = n->hi[d] < parent->hi[d] ? n->hi[d] : n->lo[d];
  /* Its start: on the segment from a design known inside the child's box
   * to the parent's design, where it crosses the face (both meet the
   * constraints, so the point does; checked there, as every start). With
   * none known inside, on the line from a known design through the
   * parent's design, past it to the face, the first such point that meets
   * the constraints and the face's box (the face is less than a link
   * away): an LP less than starting nowhere. */
  const double *y = known_start(b, n), *x = parent->bw;
  double z[WEFT_MAX_DIMS], face = t.lo[d] * b->rate[d];
  int have_z = y && y[d] != x[d];
  if (have_z) {
    double u = (face - y[d]) / (x[d] - y[d]);
    for (int k = 0; k < b->D; k++) z[k] = y[k] + u * (x[k] - y[k]);
    z[d] = face;
  }
  for (int k = b->nknown - 1; !y && k >= 0 && k >= b->nknown - KNOWN && !have_z; k--)
    have_z = past_parent(b, &t, b->known[k % KNOWN], x, d, z);
  int rc = solve_node(b, &t, have_z ? z : NULL, res);
  if (rc < 0) return rc;
  if ((rc != NODE_SOLVED && rc != NODE_PRUNED) || !(t.lb > parent->obj)) return NODE_UNSETTLED;
  n->lb = t.lb;
  if (rc == NODE_SOLVED) {
    memcpy(n->bw, t.bw, sizeof n->bw);
    n->obj = t.obj;
    n->solved = 1;
  }
  return rc;
}

static int child(Bnb *b, Node *n, const Node *parent, int face, WeftResult *res) {
  double parent_lb = parent->lb;
  n->solved = 0;
  n->lb = parent_lb;
  if (prunable(b, parent_lb)) { /* a sibling's design already beats the parent's bound */
    settle(b, parent_lb);
    return WEFT_OK;
  }
  if (b->nodes >= b->st->max_nodes) return push(b, n); /* left open at the limit */
  int rc = face >= 0 && parent->solved && isfinite(parent->obj)
               ? solve_face(b, n, parent, face, res) : NODE_UNSETTLED;
  if (rc == NODE_UNSETTLED && b->nodes < b->st->max_nodes) {
    n->lb = parent_lb;
    rc = solve_node(b, n, NULL, res);
  }
  if (rc < 0) return rc;
  if (rc == NODE_EMPTY) return WEFT_OK;
  if (rc == NODE_PRUNED) { settle(b, n->lb); return WEFT_OK; }
  if (rc == NODE_UNSETTLED) return push(b, n);
  round_design(b, n);
  if (prunable(b, n->lb)) { settle(b, n->lb); return WEFT_OK; }
  return push(b, n);
}

/* Branch on node n: the most fractional whole dim (B_d <= floor, >= ceil);
 * a whole-valued design that failed verification, or a node without a
 * design, is split around a value (below, pinned, above). */
static int branch(Bnb *b, const Node *n, WeftResult *res) {
  int dbest = -1;
  double fbest = -1.0, vbest = 0.0;
  for (int d = 0; d < b->D && n->solved; d++) {
    if (!b->whole[d] || n->lo[d] == n->hi[d]) continue;
    double v = n->bw[d] / b->rate[d], f = v - floor(v), frac = fmin(f, 1.0 - f);
    if (frac > fbest) { fbest = frac; dbest = d; vbest = v; }
  }
  int split3 = 0;
  long mid = 0;
  if (dbest >= 0 && !(vbest < MAX_BRANCH_LINKS)) { /* past whole counts weft branches on */
    b->unsettled++;
    settle(b, n->lb);
    return WEFT_OK;
  }
  if (dbest >= 0 && fbest > INT_TOL * fmax(1.0, vbest)) { /* fractional: two children */
    Node c = *n;
    c.hi[dbest] = (int)floor(vbest);
    int rc = c.hi[dbest] >= c.lo[dbest] ? child(b, &c, n, dbest, res) : WEFT_OK;
    if (rc) return rc;
    c = *n;
    c.lo[dbest] = (int)ceil(vbest);
    return c.lo[dbest] <= c.hi[dbest] ? child(b, &c, n, dbest, res) : WEFT_OK;
  }
  if (n->solved) { /* whole-valued: the design itself settles the node */
    double bw[WEFT_MAX_DIMS];
    for (int d = 0; d < b->D; d++)
      bw[d] = b->whole[d] ? nearbyint(n->bw[d] / b->rate[d]) * b->rate[d] : n->bw[d];
    if (consider(b, bw)) { /* the best inside within the relaxation's gap */
      settle(b, n->lb);
      return WEFT_OK;
    }
    if (dbest >= 0) { split3 = 1; mid = lround(vbest); }
  }
  if (!split3) { /* no design: halve the first box with two ends */
    for (int d = 0; d < b->D && dbest < 0; d++)
      if (b->whole[d] && n->lo[d] < n->hi[d] && n->hi[d] != NO_LIMIT) {
        dbest = d;
        mid = ((long)n->lo[d] + n->hi[d]) / 2;
      }
    if (dbest < 0) { /* nothing left to split: the bound stands as it is */
      b->unsettled++;
      settle(b, n->lb);
      return WEFT_OK;
    }
  }
  long ends[3][2] = {{n->lo[dbest], mid - 1}, {mid, mid}, {mid + 1, n->hi[dbest]}};
  for (int k = 0; k < 3; k++) {
    if (ends[k][0] > ends[k][1]) continue;
    Node c = *n;
    c.lo[dbest] = (int)ends[k][0];
    c.hi[dbest] = (int)ends[k][1];
    int rc = child(b, &c, n, -1, res);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* ------------------------------------------------------------------ checks */
/* A constraint that fixes one whole dim's bandwidth (B1 = 500) must ask
 * for what its links give: a whole number of them, within MaxLinks. Input
 * errors, named at the network's rate entry. */
static int fixed_dims(const Bnb *b, WeftError *err) {
  const WeftNetwork *net = b->spec->net;
  for (int i = 0; i < b->nuser; i++) {
    const WeftConstraint *c = &b->spec->cons->c[i];
    int dim = -1, nz = 0;
    for (int d = 0; d < b->D; d++)
      if (c->coef[d] != 0.0) { nz++; dim = d; }
    if (c->rel != WEFT_REL_EQ || c->cost_coef != 0.0 || nz != 1 || !b->whole[dim]) continue;
    double v = c->rhs / c->coef[dim], n = v / b->rate[dim], m = nearbyint(n);
    int line = net->links_line[dim], mline = net->max_links_line[dim];
    if (!(v >= 0.0)) continue; /* the relaxation names it */
    /* a dim built of a catalog part: its rate (and limit) are the part's */
    int part = net->part[dim][0] && line == net->part_line[dim];
    int part_max = net->part[dim][0] && mline == net->part_line[dim];
    char rate_src[WEFT_NAME_LEN + 32], max_src[WEFT_NAME_LEN + 32];
    if (part) snprintf(rate_src, sizeof rate_src, "Parts entry %d: %s", dim + 1, net->part[dim]);
    else snprintf(rate_src, sizeof rate_src, "LinkGBps entry %d", dim + 1);
    if (part_max) snprintf(max_src, sizeof max_src, "Parts entry %d: %s", dim + 1, net->part[dim]);
    else snprintf(max_src, sizeof max_src, "MaxLinks entry %d", dim + 1);
    if (fabs(n - m) > INT_TOL * fmax(1.0, n))
      return weft_error_set(err, WEFT_EINPUT, line ? net->file : "", line, 0,
                            part ? "Parts" : "LinkGBps",
                            "constraint '%s' fixes B%d at %.6g GB/s, %.6g links of %g GB/s "
                            "(%s): not a whole number of links", c->text, dim + 1, v, n,
                            b->rate[dim], rate_src);
    if (net->max_links[dim] > 0 && m > net->max_links[dim])
      return weft_error_set(err, WEFT_EINPUT, mline ? net->file : "", mline, 0,
                            part_max ? "Parts" : "MaxLinks",
                            "constraint '%s' fixes B%d at %.6g GB/s, %.0f links of %g GB/s, "
                            "past %s (%d links)", c->text, dim + 1, v, m, b->rate[dim], max_src,
                            net->max_links[dim]);
  }
  return WEFT_OK;
}

/* No whole-link design: name the constraints on whole dims (the equalities
 * among them when there are any, as they are what whole links miss). */
static void infeasible(const Bnb *b, WeftResult *r) {
  const WeftConstraints *cs = b->spec->cons;
  size_t len;
  r->status = WEFT_STATUS_INFEASIBLE;
  r->nconflict = 0;
  for (int pass = 0; pass < 2 && r->nconflict == 0; pass++)
    for (int i = 0; i < b->nuser; i++) {
      const WeftConstraint *c = &cs->c[i];
      int on = c->cost_coef != 0.0;
      for (int d = 0; d < b->D; d++) on |= c->coef[d] != 0.0 && b->whole[d];
      if (on && (pass == 1 || c->rel == WEFT_REL_EQ)) r->conflict[r->nconflict++] = i;
    }
  len = (size_t)snprintf(r->message, sizeof r->message, "no whole-link design meets");
  for (int k = 0; k < r->nconflict && len < sizeof r->message; k++)
    len += (size_t)snprintf(r->message + len, sizeof r->message - len, "%s'%s'",
                            k ? ", " : " ", cs->c[r->conflict[k]].text);
  if (!r->nconflict && len < sizeof r->message)
    len += (size_t)snprintf(r->message + len, sizeof r->message - len, " the link limits");
  for (int d = 0, k = 0; d < b->D && len < sizeof r->message; d++) {
    int m = b->spec->net->max_links[d];
    if (!b->whole[d]) continue;
    len += (size_t)snprintf(r->message + len, sizeof r->message - len, "%s B%d in links of %g GB/s",
                            k++ ? "," : " with", d + 1, b->rate[d]);
    if (m && len < sizeof r->message)
      len += (size_t)snprintf(r->message + len, sizeof r->message - len, " (at most %d)", m);
  }
  memset(r->bw_gbps, 0, sizeof r->bw_gbps);
  memset(&r->eval, 0, sizeof r->eval);
  r->objective = r->lower_bound = 0.0;
  r->gap = HUGE_VAL;
}

/* ------------------------------------------------------------------ the solve */
static void bnb_free(Bnb *b) {
  free(b->heap);
  free(b->cons);
  free(b->lean);
  if (b->own_base) weft_problem_free(b->base);
}

/* The result from the best design and the tree's bound. */
static void report(Bnb *b, WeftWholeResult *out, WeftBnbStatus bs) {
  WeftResult *r = &out->result;
  double lb = b->closed_lb;
  for (int i = 0; i < b->nheap; i++) lb = fmin(lb, b->heap[i].lb);
  out->bnb_status = bs;
  out->nodes = b->nodes;
  out->unsettled = b->unsettled;
  r->iterations = b->iterations;
  r->tie_broken = 0;
  r->message[0] = '\0';
  if (!b->have_best) {
    if (bs == WEFT_BNB_CLOSED && !b->unsettled) { infeasible(b, r); return; }
    r->status = bs == WEFT_BNB_CLOSED ? WEFT_STATUS_NUMERICAL : WEFT_STATUS_MAX_ITER;
    if (bs == WEFT_BNB_CLOSED)
      snprintf(r->message, sizeof r->message, "branch and bound found no whole-link design and "
               "could not settle %d node%s: whether one exists is not known", b->unsettled,
               b->unsettled == 1 ? "" : "s");
    else
      snprintf(r->message, sizeof r->message, "branch and bound stopped at its %s after %d nodes "
               "without a whole-link design", weft_bnb_status_name(bs), b->nodes);
    r->gap = HUGE_VAL;
    return;
  }
  double x[WEFT_MAX_DIMS];
  for (int d = 0; d < b->D; d++) {
    r->bw_gbps[d] = b->best_bw[d];
    x[d] = b->best_bw[d] / b->base->bscale;
    out->links[d] = b->whole[d] ? (int)nearbyint(b->best_bw[d] / b->rate[d]) : 0;
  }
  r->objective = weft_problem_objective(b->base, x, &r->eval);
  lb = fmin(lb, r->objective);
  r->lower_bound = lb;
  r->gap = fmax(0.0, (r->objective - lb) / fmax(fabs(lb), 1e-300));
  r->nconflict = 0;
  /* every answer verified before it is reported (consider() did; again, as said) */
  r->status = weft_problem_violation(b->base, x, NULL) <= WEFT_VERIFY_TOL && isfinite(r->objective)
                  ? WEFT_STATUS_SOLVED : WEFT_STATUS_NUMERICAL;
  if (r->status != WEFT_STATUS_SOLVED)
    snprintf(r->message, sizeof r->message, "the whole-link design found fails the constraints");
  else if (bs != WEFT_BNB_CLOSED)
    snprintf(r->message, sizeof r->message, "branch and bound stopped at its %s after %d "
             "node%s: the design is the best found, proven within %.2g (relative) of the "
             "whole-link optimum, not proven optimal", weft_bnb_status_name(bs), b->nodes,
             b->nodes == 1 ? "" : "s", r->gap);
  else if (b->unsettled)
    snprintf(r->message, sizeof r->message, "%d node%s the solver could not settle keep%s their "
             "parent's bound in the gap", b->unsettled, b->unsettled == 1 ? "" : "s",
             b->unsettled == 1 ? "s" : "");
}

static int setup(Bnb *b, const WeftSpec *spec, WeftProblem *base, const WeftSettings *st,
                 WeftWholeResult *res, WeftError *err) {
  b->spec = spec;
  b->st = st;
  b->D = spec->net->ndims;
  b->nuser = spec->cons ? spec->cons->n : 0;
  b->closed_lb = HUGE_VAL;
  clock_gettime(CLOCK_MONOTONIC, &b->t0);
  int rc = weft_network_links_check(spec->net, spec->net->file, "LinkGBps", "MaxLinks", err);
  if (rc) return rc;
  int nw = 0;
  for (int d = 0; d < b->D; d++) {
    b->rate[d] = spec->net->link_gbps[d];
    b->whole[d] = b->rate[d] > 0.0;
    nw += b->whole[d];
    res->link_gbps[d] = b->rate[d];
  }
  res->nwhole = nw;
  if (b->nuser + 2 * nw > WEFT_MAX_CONSTRAINTS)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "constraints",
                          "whole links on %d dims take up to %d bound rows beside the %d "
                          "constraints, past the %d weft takes", nw, 2 * nw, b->nuser,
                          WEFT_MAX_CONSTRAINTS);
  if ((rc = fixed_dims(b, err))) return rc;
  /* with whole dims the base is never solved (the root is): a template, or
   * the caller's problem of the same spec; without, the spec's own problem */
  if (nw && base) b->base = base;
  else if ((rc = (nw ? weft_problem_create_template : weft_problem_create)(spec, &b->base, err)))
    return rc;
  else b->own_base = 1;
  b->cons = malloc(sizeof *b->cons);
  b->lean = malloc(sizeof *b->lean);
  if (!b->cons || !b->lean) return WEFT_ENOMEM;
  b->cons->n = b->nuser;
  if (b->nuser) memcpy(b->cons->c, spec->cons->c, (size_t)b->nuser * sizeof *b->cons->c);
  b->nspec = *spec;
  b->nspec.cons = b->cons;
  return WEFT_OK;
}

/* The root: the continuous optimum within the links' limits (a dim with
 * traffic needs at least one link; MaxLinks caps it), the tree's first
 * bound. 1 when the tree is to be grown, 0 when the relaxation settled the
 * answer (no whole dims, infeasible, unbounded, unsolved). */
static int root(Bnb *b, Node *n, WeftWholeResult *res) {
  for (int d = 0; d < b->D; d++) {
    int m = b->spec->net->max_links[d];
    n->lo[d] = b->lo0[d] = b->whole[d] && b->base->used[d] ? 1 : 0; /* traffic needs a link */
    n->hi[d] = b->hi0[d] = b->whole[d] && m > 0 ? m : NO_LIMIT;
  }
  WeftProblem *p = NULL;
  WeftError err;
  WeftResult *c = &res->continuous;
  int rc = WEFT_OK, done = 0;
  /* The equal split on whole links (the EqualBW baseline), when there is
   * one, is a whole-link design that meets the constraints: the first
   * candidate, and the root's start (an LP less; checked there). */
  double eq[WEFT_MAX_DIMS];
  const double *start = res->nwhole && weft_problem_equal_bw(b->base, eq, NULL, 0) &&
                        consider(b, eq) ? eq : NULL;
  /* Unnamed rows first (their text costs more than a node's solve), named
   * again only when the outcome has words that may quote a bound row. */
  for (int named = 0; res->nwhole && !done && named < 2; named++) {
    weft_problem_free(p);
    p = NULL;
    bound_rows(b, n, named, 1);
    rc = weft_problem_recreate(b->base, b->cons, start, 0, &p, &err);
    if (rc == WEFT_ENOMEM) return rc;
    if (rc) continue;
    rc = weft_problem_solve(p, b->st, c);
    if (rc) { weft_problem_free(p); return rc; }
    done = named || (c->status == WEFT_STATUS_SOLVED && !c->message[0]);
  }
  if (!res->nwhole) { /* no whole dims: the spec's own problem, as weft_problem_solve */
    if ((rc = weft_problem_solve(b->base, b->st, c))) return rc;
  } else if (!p) { /* the rows out of range: the relaxation cannot be built, none is known */
    memset(c, 0, sizeof *c);
    c->status = WEFT_STATUS_NUMERICAL;
    c->ndims = b->D;
    c->gap = HUGE_VAL;
    snprintf(c->message, sizeof c->message, "the relaxation with whole links: %.200s", err.msg);
  }
  weft_problem_free(p);
  b->nodes = 1;
  b->iterations = c->iterations;
  for (int i = 0; i < c->nconflict; i++)  /* a bound row is no constraint of the spec */
    if (c->conflict[i] >= b->nuser) c->conflict[i--] = c->conflict[--c->nconflict];
  res->result = *c;
  if (c->status != WEFT_STATUS_SOLVED || !res->nwhole) return 0;
  n->lb = c->lower_bound;
  n->obj = c->objective;
  memcpy(n->bw, c->bw_gbps, sizeof n->bw);
  n->solved = 1;
  /* The nodes leave out the rows at the root's ends (solve_node) but on
   * dims whose relaxation comes within KEEP_LINKS of one: there the nodes'
   * designs would often press on it (and be solved again with it). */
  for (int d = 0; d < b->D; d++) {
    if (!b->whole[d]) continue;
    double v = n->bw[d] / b->rate[d];
    b->keep[d] = (b->lo0[d] > 0 && v < b->lo0[d] + KEEP_LINKS) ||
                 (b->hi0[d] != NO_LIMIT && v > b->hi0[d] - KEEP_LINKS);
  }
  /* and the user's inequalities on whole dims (no cost term) whose slack
   * there is more than KEEP_LINKS of their dims' links */
  for (int i = 0; i < b->nuser; i++) {
    const WeftConstraint *r = &b->cons->c[i];
    double lhs = 0.0, mx = 0.0, rate = 0.0;
    int whole = r->rel != WEFT_REL_EQ && r->cost_coef == 0.0;
    for (int d = 0; d < b->D && whole; d++) {
      if (r->coef[d] == 0.0) continue;
      whole = b->whole[d];
      lhs += r->coef[d] * n->bw[d];
      mx = fmax(mx, fabs(r->coef[d]));
      rate = fmax(rate, b->rate[d]);
    }
    double slack = r->rel == WEFT_REL_LE ? r->rhs - lhs : lhs - r->rhs;
    b->udrop[i] = whole && mx > 0.0 && slack > KEEP_LINKS * rate * mx;
  }
  return 1;
}

int weft_whole_solve(const WeftSpec *spec, const WeftSettings *settings, WeftWholeResult *res,
                     WeftError *err) {
  return weft_whole_solve_on(spec, NULL, settings, res, err);
}

int weft_whole_solve_on(const WeftSpec *spec, WeftProblem *base, const WeftSettings *settings,
                        WeftWholeResult *res, WeftError *err) {
  WeftSettings def;
  if (!settings) { weft_settings_default(&def); settings = &def; }
  if (!spec || !spec->net || !res)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "weft_whole_solve needs a spec");
  memset(res, 0, sizeof *res);
  Bnb b;
  memset(&b, 0, sizeof b);
  int rc = setup(&b, spec, base, settings, res, err);
  Node n;
  memset(&n, 0, sizeof n);
  if (!rc) rc = root(&b, &n, res);
  if (rc == 0 || rc < 0) { /* settled by the relaxation (or an error) */
    res->nodes = b.nodes;
    bnb_free(&b);
    if (rc == WEFT_ENOMEM)
      return weft_error_set(err, rc, "", 0, 0, NULL, "out of memory in branch and bound");
    return rc;
  }
  WeftResult tmp;
  WeftBnbStatus bs = WEFT_BNB_CLOSED;
  round_design(&b, &n);
  rc = push(&b, &n);
  while (!rc && b.nheap > 0) {
    if (b.nodes >= settings->max_nodes) { bs = WEFT_BNB_NODE_LIMIT; break; }
    if (settings->time_limit_s > 0.0 && elapsed_s(&b) > settings->time_limit_s) {
      bs = WEFT_BNB_TIME_LIMIT;
      break;
    }
    Node top = pop(&b);
    if (prunable(&b, top.lb)) { /* best first: every node left is bound as high */
      settle(&b, top.lb);
      for (int i = 0; i < b.nheap; i++) settle(&b, b.heap[i].lb);
      b.nheap = 0;
      break;
    }
    rc = branch(&b, &top, &tmp);
  }
  if (rc) {
    bnb_free(&b);
    return weft_error_set(err, rc, "", 0, 0, NULL, "%s in branch and bound", weft_strerror(rc));
  }
  report(&b, res, bs);
  bnb_free(&b);
  return WEFT_OK;
}
