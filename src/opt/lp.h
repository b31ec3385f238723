/* lp.h — internal: a small dense two-phase simplex for the linear side of
 * the problem (feasibility, conflict sets, bounds). Not part of the API. */
#ifndef WEFT_LP_H
#define WEFT_LP_H

#include <stddef.h>

typedef enum { LP_OPTIMAL = 0, LP_INFEASIBLE = 1, LP_UNBOUNDED = 2, LP_NOMEM = 3 } LpStatus;

/* A linear program over x >= 0 (n variables):
 *   minimise c^T x  s.t.  rows with rel[i] in {-1: <=, 0: =, +1: >=}. */
typedef struct {
  int n, m;
  const double *A;   /* m x n, row-major */
  const double *b;   /* m */
  const int *rel;    /* m */
  const unsigned char *active;  /* m, NULL = all rows active */
} LpRows;

/* Solve; x (n, may be NULL) and *obj receive the optimum when LP_OPTIMAL.
 * c == NULL asks only for feasibility (x is a feasible point). */
LpStatus lp_solve(const LpRows *rows, const double *c, double *x, double *obj);

/* Caller-owned tableau memory, so a solve allocates nothing. */
typedef struct {
  double *t;    /* lp_tableau_doubles(n, m) */
  int *basis;   /* m */
} LpWork;

/* Doubles of tableau for n variables and m rows (every row active). */
size_t lp_tableau_doubles(int n, int m);
/* lp_solve in w, sized for at least rows->n and the active rows. */
LpStatus lp_solve_ws(const LpRows *rows, const double *c, double *x, double *obj, LpWork *w);

#endif
