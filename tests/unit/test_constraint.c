/* test_constraint.c — constraint parser (coefficients derived by hand, error
 * columns counted by hand) and the ASTRA-sim network yml export. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test.h"
#include "weft.h"

/* ------------------------------------------------------------------ helpers */

/* 1 when c is exactly coef[0..nd) (rest 0) + cost*cost REL rhs, with no -0.0;
 * prints what differs otherwise. Exact: every expected value is a dyadic
 * rational or a literal the parser reads with the same strtod. */
static int cons_is(const WeftConstraint *c, const double *coef, int nd, double cost, double rhs,
                   WeftRelation rel, const char *text) {
  int ok = 1;
  for (int d = 0; d < WEFT_MAX_DIMS; d++) {
    double want = d < nd ? coef[d] : 0.0;
    if (c->coef[d] != want || (want == 0.0 && signbit(c->coef[d]))) {
      fprintf(stderr, "  coef[%d] = %g, expected %g\n", d, c->coef[d], want);
      ok = 0;
    }
  }
  if (c->cost_coef != cost || (cost == 0.0 && signbit(c->cost_coef))) {
    fprintf(stderr, "  cost_coef = %g, expected %g\n", c->cost_coef, cost);
    ok = 0;
  }
  if (c->rhs != rhs || (rhs == 0.0 && signbit(c->rhs))) {
    fprintf(stderr, "  rhs = %.17g, expected %.17g\n", c->rhs, rhs);
    ok = 0;
  }
  if (c->rel != rel) {
    fprintf(stderr, "  rel = %d, expected %d\n", (int)c->rel, (int)rel);
    ok = 0;
  }
  if (text && strcmp(c->text, text) != 0) {
    fprintf(stderr, "  text = '%s', expected '%s'\n", c->text, text);
    ok = 0;
  }
  return ok;
}

/* Parse expr into an empty set; 1 when it succeeds with n constraints. */
static int parse_ok(WeftConstraints *cs, const char *expr, int ndims, int n) {
  WeftError err;
  weft_error_clear(&err);
  memset(cs, 0, sizeof *cs);
  int rc = weft_constraints_parse(cs, expr, ndims, &err);
  if (rc != WEFT_OK || cs->n != n) {
    fprintf(stderr, "  '%s': rc %d, n %d (expected %d): %s\n", expr, rc, cs->n, n, err.msg);
    return 0;
  }
  return 1;
}

static const double Z4[4] = {0, 0, 0, 0};

/* A set already holding one constraint, to see that errors leave it alone. */
static void prefill(WeftConstraints *cs) {
  memset(cs, 0, sizeof *cs);
  cs->n = 1;
  cs->c[0].coef[0] = 7.0;
  cs->c[0].rhs = 1.0;
  cs->c[0].rel = WEFT_REL_GE;
  snprintf(cs->c[0].text, sizeof cs->c[0].text, "7*B1 >= 1");
}

/* 1 when parsing expr fails with code, column and message exactly, field
 * "constraint", no file or line, and cs byte-for-byte unchanged. */
static int parse_fails(const char *expr, int ndims, int code, int col, const char *msg) {
  static WeftConstraints cs, before;  /* static: 18 KB each */
  prefill(&cs);
  memcpy(&before, &cs, sizeof cs);
  WeftError err;
  memset(&err, 0x55, sizeof err);  /* garbage: the parser must set every field */
  int rc = weft_constraints_parse(&cs, expr, ndims, &err);
  int ok = rc == code && err.code == code && err.col == col && strcmp(err.msg, msg) == 0 &&
           strcmp(err.field, "constraint") == 0 && err.file[0] == '\0' && err.line == 0 &&
           memcmp(&cs, &before, sizeof cs) == 0;
  if (!ok)
    fprintf(stderr, "  '%s': rc %d col %d msg '%.256s' field '%.64s' line %d changed %d\n"
                    "    expected rc %d col %d msg '%s'\n",
            expr, rc, err.col, err.msg, err.field, err.line, memcmp(&cs, &before, sizeof cs) != 0,
            code, col, msg);
  return ok;
}

/* ------------------------------------------------------------------ examples */

static void examples_from_the_brief(void) {
  WeftConstraints cs;
  {
    const double c[4] = {1, 1, 1, 1};
    CHECK(parse_ok(&cs, "sum = 1000", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 1000, WEFT_REL_EQ, "sum = 1000"));
  }
  {
    const double c[4] = {1, 0, 0, 0};
    CHECK(parse_ok(&cs, "B1 = 500", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 500, WEFT_REL_EQ, "B1 = 500"));
  }
  {
    const double c[4] = {0, 0, 1, 1};  /* B3 + B4 = 200 */
    CHECK(parse_ok(&cs, "B3 + B4 = 200", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 200, WEFT_REL_EQ, NULL));
  }
  {
    const double c[4] = {-1, 2, 0, 0};  /* 2B2 - B1 <= 10 */
    CHECK(parse_ok(&cs, "2*B2 <= B1 + 10", 4, 1) &&
          cons_is(&cs.c[0], c, 4, 0, 10, WEFT_REL_LE, "2*B2 <= B1 + 10"));
  }
  CHECK(parse_ok(&cs, "cost <= 2e7", 4, 1) && cons_is(&cs.c[0], Z4, 4, 1, 20000000.0, WEFT_REL_LE, NULL));
  {
    const double c[4] = {-0.5, 0.5, 0.5, 0.5};  /* 0.5(B1+B2+B3+B4) - B1 >= -3 */
    CHECK(parse_ok(&cs, "0.5*sum - B1 >= -3", 4, 1) && cons_is(&cs.c[0], c, 4, 0, -3, WEFT_REL_GE, NULL));
  }
  {
    const double c[4] = {1, -2, 0, 0};  /* B1 - 2B2 <= 0 */
    CHECK(parse_ok(&cs, "B1 <= 2 * B2", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 0, WEFT_REL_LE, NULL));
  }
  {
    const double c[4] = {-1, 0, 0, 0};  /* -B1 >= -3 */
    CHECK(parse_ok(&cs, "-B1 + 3 >= 0", 4, 1) && cons_is(&cs.c[0], c, 4, 0, -3, WEFT_REL_GE, NULL));
  }
  {
    const double c[4] = {0.5, 0.5, -1, 0};  /* B1/2 + B2/2 - B3 >= 0 */
    CHECK(parse_ok(&cs, "(B1 + B2)/2 >= B3", 4, 1) &&
          cons_is(&cs.c[0], c, 4, 0, 0, WEFT_REL_GE, "(B1 + B2)/2 >= B3"));
  }
}

static void chains(void) {
  WeftConstraints cs;
  const double c12[4] = {1, -1, 0, 0}, c23[4] = {0, 1, -1, 0};
  CHECK(parse_ok(&cs, "B1 >= B2 >= B3", 4, 2) &&
        cons_is(&cs.c[0], c12, 4, 0, 0, WEFT_REL_GE, "B1 >= B2") &&
        cons_is(&cs.c[1], c23, 4, 0, 0, WEFT_REL_GE, "B2 >= B3"));
  /* 0 <= B1 <= B2 <= 100: -B1 <= 0, B1 - B2 <= 0, B2 <= 100 */
  const double m1[4] = {-1, 0, 0, 0}, c2[4] = {0, 1, 0, 0};
  CHECK(parse_ok(&cs, "0 <= B1 <= B2 <= 100", 4, 3) &&
        cons_is(&cs.c[0], m1, 4, 0, 0, WEFT_REL_LE, "0 <= B1") &&
        cons_is(&cs.c[1], c12, 4, 0, 0, WEFT_REL_LE, "B1 <= B2") &&
        cons_is(&cs.c[2], c2, 4, 0, 100, WEFT_REL_LE, "B2 <= 100"));
  /* 10 <= B1 + B2 <= 20: -B1 - B2 <= -10, B1 + B2 <= 20 */
  const double mm[4] = {-1, -1, 0, 0}, pp[4] = {1, 1, 0, 0};
  CHECK(parse_ok(&cs, "10 <= B1 + B2 <= 20", 4, 2) &&
        cons_is(&cs.c[0], mm, 4, 0, -10, WEFT_REL_LE, "10 <= B1 + B2") &&
        cons_is(&cs.c[1], pp, 4, 0, 20, WEFT_REL_LE, "B1 + B2 <= 20"));
  /* mixed relations are each their own pair */
  CHECK(parse_ok(&cs, "B1 >= B2 <= B3", 4, 2) && cons_is(&cs.c[0], c12, 4, 0, 0, WEFT_REL_GE, NULL) &&
        cons_is(&cs.c[1], c23, 4, 0, 0, WEFT_REL_LE, NULL));
  const double c34[4] = {0, 0, 1, -1};
  CHECK(parse_ok(&cs, "B1 = B2 = B3 = B4", 4, 3) && cons_is(&cs.c[0], c12, 4, 0, 0, WEFT_REL_EQ, NULL) &&
        cons_is(&cs.c[1], c23, 4, 0, 0, WEFT_REL_EQ, NULL) &&
        cons_is(&cs.c[2], c34, 4, 0, 0, WEFT_REL_EQ, "B3 = B4"));
}

static void relations(void) {
  WeftConstraints cs;
  const double c[4] = {1, 0, 0, 0};
  CHECK(parse_ok(&cs, "B1 == 5", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 5, WEFT_REL_EQ, NULL));
  CHECK(parse_ok(&cs, "B1 < 5", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 5, WEFT_REL_LE, NULL));  /* closed */
  CHECK(parse_ok(&cs, "B1 > 5", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 5, WEFT_REL_GE, NULL));
  CHECK(parse_ok(&cs, "B1 <= 5", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 5, WEFT_REL_LE, NULL));
  CHECK(parse_ok(&cs, "B1 >= 5", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 5, WEFT_REL_GE, NULL));
  CHECK(parse_ok(&cs, "B1 < B2 > B3", 4, 2) && cs.c[0].rel == WEFT_REL_LE && cs.c[1].rel == WEFT_REL_GE);
}

static void terms_and_arithmetic(void) {
  WeftConstraints cs;
  {
    const double c[4] = {0, 1, 0, 0};
    CHECK(parse_ok(&cs, "b2 = 3", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 3, WEFT_REL_EQ, NULL));
    CHECK(parse_ok(&cs, "B1 - B1 + B2 = 1", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 1, WEFT_REL_EQ, NULL));
    CHECK(parse_ok(&cs, "Cost + B2 <= 5e6", 4, 1) && cons_is(&cs.c[0], c, 4, 1, 5e6, WEFT_REL_LE, NULL));
  }
  {
    const double c[4] = {2, 0, 0, 0};
    CHECK(parse_ok(&cs, "B1*2 >= 1", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 1, WEFT_REL_GE, NULL));
    CHECK(parse_ok(&cs, "2*3*B1/3 >= 1", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 1, WEFT_REL_GE, NULL));
    CHECK(parse_ok(&cs, "B1/0.5 >= 1", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 1, WEFT_REL_GE, NULL));
  }
  {
    const double c[4] = {-2, 0, 0, 0};
    CHECK(parse_ok(&cs, "2*-B1 <= 4", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 4, WEFT_REL_LE, NULL));
    CHECK(parse_ok(&cs, "-B1*2 <= 4", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 4, WEFT_REL_LE, NULL));
  }
  {
    const double c[4] = {-1, 1, 0, 0};  /* -(B1 - B2) <= 4 */
    CHECK(parse_ok(&cs, "-(B1 - B2) <= 4", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 4, WEFT_REL_LE, NULL));
  }
  {
    const double c[4] = {1, 0, 0, 0};
    CHECK(parse_ok(&cs, "--B1 = 1", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 1, WEFT_REL_EQ, NULL));
    CHECK(parse_ok(&cs, "+B1 = +1", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 1, WEFT_REL_EQ, NULL));
    CHECK(parse_ok(&cs, "-(B1) = -0", 4, 1) && cons_is(&cs.c[0], (const double[4]){-1, 0, 0, 0}, 4, 0, 0,
                                                           WEFT_REL_EQ, NULL));
  }
  {
    const double c[4] = {-1, 0, 0, 0};  /* constants move right, B1 moves left */
    CHECK(parse_ok(&cs, "1e3 = B1", 4, 1) && cons_is(&cs.c[0], c, 4, 0, -1000, WEFT_REL_EQ, NULL));
  }
  {
    const double c[4] = {3, 6, 0, 0};  /* 3B1 + 6B2 - 6 >= 0 */
    CHECK(parse_ok(&cs, "3*(B1 + 2*(B2 - 1)) >= 0", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 6, WEFT_REL_GE, NULL));
  }
  {
    const double c[4] = {0.25, 0, 0, 0};
    CHECK(parse_ok(&cs, "B1/4 <= 1", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 1, WEFT_REL_LE, NULL));
    CHECK(parse_ok(&cs, ".25*B1 <= 1.", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 1, WEFT_REL_LE, NULL));
  }
  {
    const double c[4] = {8, 8, 8, 8};  /* SUM, any case; 2*(sum*4) */
    CHECK(parse_ok(&cs, "2*(SUM*4) = 8", 4, 1) && cons_is(&cs.c[0], c, 4, 0, 8, WEFT_REL_EQ, NULL));
  }
  CHECK(parse_ok(&cs, "1.5e-3*cost <= 1", 4, 1) && cons_is(&cs.c[0], Z4, 4, 1.5e-3, 1, WEFT_REL_LE, NULL));
  CHECK(parse_ok(&cs, "cost/2 - 1 <= cost/4", 4, 1) && cons_is(&cs.c[0], Z4, 4, 0.25, 1, WEFT_REL_LE, NULL));
  /* the smallest normal double is fine; below it is an error (see the error table) */
  CHECK(parse_ok(&cs, "B1 >= 2.2250738585072014e-308", 4, 1) &&
        cs.c[0].rhs == 2.2250738585072014e-308);
  {
    const double c[2] = {1, 1};  /* sum spans ndims only; other dims stay 0 */
    CHECK(parse_ok(&cs, "sum = 3", 2, 1) && cons_is(&cs.c[0], c, 2, 0, 3, WEFT_REL_EQ, NULL));
  }
  {
    double c[16] = {0};
    c[15] = 1;
    CHECK(parse_ok(&cs, "B16 = 1", 16, 1) && cons_is(&cs.c[0], c, 16, 0, 1, WEFT_REL_EQ, NULL));
  }
}

static void whitespace_and_text(void) {
  WeftConstraints cs;
  const double c12[4] = {1, -1, 0, 0}, c23[4] = {0, 1, -1, 0};
  CHECK(parse_ok(&cs, "B1>=B2>=B3", 4, 2) && cons_is(&cs.c[0], c12, 4, 0, 0, WEFT_REL_GE, "B1>=B2") &&
        cons_is(&cs.c[1], c23, 4, 0, 0, WEFT_REL_GE, "B2>=B3"));
  CHECK(parse_ok(&cs, "  B1 >=\tB2\n>= B3  \n", 4, 2) &&
        cons_is(&cs.c[0], c12, 4, 0, 0, WEFT_REL_GE, "B1 >=\tB2") &&
        cons_is(&cs.c[1], c23, 4, 0, 0, WEFT_REL_GE, "B2\n>= B3"));
  const double s[4] = {1, 1, 1, 1};
  CHECK(parse_ok(&cs, "sum=1000", 4, 1) && cons_is(&cs.c[0], s, 4, 0, 1000, WEFT_REL_EQ, "sum=1000"));
  const double h[4] = {0.5, 0.5, -1, 0};
  CHECK(parse_ok(&cs, " ( B1+B2 ) / 2>=B3", 4, 1) &&
        cons_is(&cs.c[0], h, 4, 0, 0, WEFT_REL_GE, "( B1+B2 ) / 2>=B3"));

  /* text longer than the field: cut to 124 bytes + "..." */
  char expr[300] = "";
  for (int i = 0; i < 40; i++) strcat(expr, "B1 + ");
  strcat(expr, "B1 <= 1");  /* 207 bytes, 41*B1 */
  const double c41[4] = {41, 0, 0, 0};
  CHECK(parse_ok(&cs, expr, 4, 1) && cons_is(&cs.c[0], c41, 4, 0, 1, WEFT_REL_LE, NULL));
  CHECK_EQ_INT(strlen(cs.c[0].text), sizeof cs.c[0].text - 1);
  CHECK(strncmp(cs.c[0].text, expr, 124) == 0 && strcmp(cs.c[0].text + 124, "...") == 0);
}

static void appends_to_existing_set(void) {
  static WeftConstraints cs;
  WeftError err;
  weft_error_clear(&err);
  prefill(&cs);
  CHECK_EQ_INT(weft_constraints_parse(&cs, "B1 >= B2 >= B3", 3, &err), WEFT_OK);
  CHECK_EQ_INT(cs.n, 3);
  CHECK(cs.c[0].coef[0] == 7.0 && strcmp(cs.c[0].text, "7*B1 >= 1") == 0);
  CHECK(strcmp(cs.c[1].text, "B1 >= B2") == 0 && strcmp(cs.c[2].text, "B2 >= B3") == 0);
  CHECK_EQ_INT(weft_constraints_parse(&cs, "cost <= 1", 3, &err), WEFT_OK);
  CHECK(cs.n == 4 && cs.c[3].cost_coef == 1.0);
}

/* ------------------------------------------------------------------ errors */

typedef struct {
  const char *expr;
  int ndims, code, col;
  const char *msg;
} ErrCase;

static const ErrCase ERR_CASES[] = {
    /* names */
    {"bandwith <= 5", 4, WEFT_EINPUT, 1, "unknown name 'bandwith'"},
    {"B <= 5", 4, WEFT_EINPUT, 1, "unknown name 'B'"},
    {"B1x = 2", 4, WEFT_EINPUT, 1, "unknown name 'B1x'"},
    {"B1 = summ", 4, WEFT_EINPUT, 6, "unknown name 'summ'"},
    {"B5 <= 3", 4, WEFT_EINPUT, 1, "B5 is out of range: the network has 4 dims"},
    {"B1 + b0 >= 1", 4, WEFT_EINPUT, 6, "b0 is out of range: the network has 4 dims"},
    {"B2 = 1", 1, WEFT_EINPUT, 1, "B2 is out of range: the network has 1 dim"},
    {"B99999999999999999999 = 1", 4, WEFT_EINPUT, 1,
     "B99999999999999999999 is out of range: the network has 4 dims"},
    {"B17 = 1", 16, WEFT_EINPUT, 1, "B17 is out of range: the network has 16 dims"},
    /* no relation, missing operators */
    {"B1", 4, WEFT_ESYNTAX, 3, "expected a relation (=, <=, >=)"},
    {"B1 + 2", 4, WEFT_ESYNTAX, 7, "expected a relation (=, <=, >=)"},
    {"2 B1 <= 3", 4, WEFT_ESYNTAX, 3, "missing operator before 'B1'"},
    {"B1 500", 4, WEFT_ESYNTAX, 4, "missing operator before '500'"},
    {"B1 >= B2 B3", 4, WEFT_ESYNTAX, 10, "missing operator before 'B3'"},
    {"(2 B1) <= 3", 4, WEFT_ESYNTAX, 4, "missing operator before 'B1'"},
    {"2 (B1) <= 3", 4, WEFT_ESYNTAX, 3, "missing operator before '('"},
    /* nonlinear, division */
    {"B1 * B2 <= 3", 4, WEFT_EINPUT, 1, "nonlinear term 'B1 * B2'"},
    {"2 * (B1 + 1) * B3 >= 0", 4, WEFT_EINPUT, 1, "nonlinear term '2 * (B1 + 1) * B3'"},
    {"B4 >= 1 + B1 / B2", 4, WEFT_EINPUT, 11, "nonlinear term 'B1 / B2'"},
    {"4 / B2 <= 3", 4, WEFT_EINPUT, 1, "nonlinear term '4 / B2'"},
    {"cost * sum <= 3", 4, WEFT_EINPUT, 1, "nonlinear term 'cost * sum'"},
    {"B1 / (B2 - B2) <= 3", 4, WEFT_EINPUT, 1, "nonlinear term 'B1 / (B2 - B2)'"},
    {"B1 / 0 <= 3", 4, WEFT_EINPUT, 6, "division by zero in 'B1 / 0'"},
    {"B1 / (2 - 2) <= 3", 4, WEFT_EINPUT, 6, "division by zero in 'B1 / (2 - 2)'"},
    /* constraints without a variable */
    {"3 <= 4", 4, WEFT_EINPUT, 3, "constraint has no bandwidth or cost term"},
    {"B1 - B1 >= 3", 4, WEFT_EINPUT, 9, "constraint has no bandwidth or cost term"},
    {"0*B1 + 0*cost = 0", 4, WEFT_EINPUT, 15, "constraint has no bandwidth or cost term"},
    /* non-finite and out-of-range numbers */
    {"nan <= B1", 4, WEFT_EINPUT, 1, "'nan' is not a finite number"},
    {"B1 >= NAN", 4, WEFT_EINPUT, 7, "'NAN' is not a finite number"},
    {"B1 <= inf", 4, WEFT_EINPUT, 7, "'inf' is not a finite number"},
    {"B1 <= -Infinity", 4, WEFT_EINPUT, 8, "'Infinity' is not a finite number"},
    {"B1 <= 1e999", 4, WEFT_EINPUT, 7, "number out of range '1e999'"},
    {"B1 <= -1e400", 4, WEFT_EINPUT, 8, "number out of range '1e400'"},
    {"1e300 * 1e300 * B1 >= 0", 4, WEFT_EINPUT, 1, "value out of range in '1e300 * 1e300'"},
    {"B1 / 1e-300 / 1e-300 >= 0", 4, WEFT_EINPUT, 1,
     "value out of range in 'B1 / 1e-300 / 1e-300'"},
    {"B1 / 1e-320 >= 0", 4, WEFT_EINPUT, 6,
     "denormal number '1e-320' (nonzero, below 2.2e-308): write 0 or a larger value"},
    {"B1 >= 1e-400", 4, WEFT_EINPUT, 7,
     "denormal number '1e-400' (nonzero, below 2.2e-308): write 0 or a larger value"},
    {"1e308*B1 + 1e308*B1 >= 0", 4, WEFT_EINPUT, 1, "value out of range in '1e308*B1 + 1e308*B1'"},
    {"1e308*B1 <= -1e308*B1", 4, WEFT_EINPUT, 1, "value out of range in '1e308*B1 <= -1e308*B1'"},
    /* malformed tokens */
    {"B1 <= 2e", 4, WEFT_ESYNTAX, 7, "malformed number '2e'"},
    {"B1 <= 1.2.3", 4, WEFT_ESYNTAX, 7, "malformed number '1.2.3'"},
    {"2B1 >= 0", 4, WEFT_ESYNTAX, 1, "malformed number '2B1'"},
    /* one number grammar with the files: no hex floats or integers */
    {"B1 >= 0x10", 4, WEFT_ESYNTAX, 7, "malformed number '0x10'"},
    {"sum = 0x1p10", 4, WEFT_ESYNTAX, 7, "malformed number '0x1p10'"},
    {"B1 <= 3 $", 4, WEFT_ESYNTAX, 9, "unexpected character '$'"},
    {"B1 ^ 2 <= 3", 4, WEFT_ESYNTAX, 4, "unexpected character '^'"},
    {"B1 \xc3\xa9 = 2", 4, WEFT_ESYNTAX, 4, "unexpected byte 0xc3"},
    {"B1 <= 1; B2 <= 1", 4, WEFT_ESYNTAX, 8, "unexpected character ';'"},
    {"", 4, WEFT_ESYNTAX, 1, "empty constraint"},
    {"  \t ", 4, WEFT_ESYNTAX, 1, "empty constraint"},
    /* misplaced operators and relations */
    {"B1 <=", 4, WEFT_ESYNTAX, 6, "expected a number, name or '(', found end of constraint"},
    {"B1 <= -", 4, WEFT_ESYNTAX, 8, "expected a number, name or '(', found end of constraint"},
    {"<= B1", 4, WEFT_ESYNTAX, 1, "expected a number, name or '(', found '<='"},
    {"B1 + * B2 = 1", 4, WEFT_ESYNTAX, 6, "expected a number, name or '(', found '*'"},
    {"B1 >= >= B2", 4, WEFT_ESYNTAX, 7, "expected a number, name or '(', found '>='"},
    {"B1 != B2", 4, WEFT_ESYNTAX, 4, "'!=' is not supported: use =, <= or >="},
    {"B1 => 3", 4, WEFT_ESYNTAX, 4, "'=>' is not a relation: use >="},
    {"B1 =< 3", 4, WEFT_ESYNTAX, 4, "'=<' is not a relation: use <="},
    {"B1 ! 3", 4, WEFT_ESYNTAX, 4, "unexpected character '!'"},
    /* parentheses */
    {"(B1 + B2 >= B3", 4, WEFT_ESYNTAX, 10, "expected ')' to close '(' at column 1, found '>='"},
    {"B3 <= (B1 + (B2 - 1)", 4, WEFT_ESYNTAX, 21,
     "expected ')' to close '(' at column 7, found end of constraint"},
    {"B1 + B2) >= 3", 4, WEFT_ESYNTAX, 8, "unmatched ')'"},
    {"() = B1", 4, WEFT_ESYNTAX, 2, "expected a number, name or '(', found ')'"},
    /* an error late in a chain appends nothing */
    {"B1 >= B2 >= 3 >= 4", 4, WEFT_EINPUT, 15, "constraint has no bandwidth or cost term"},
    {"B1 >= B2 >= B9", 4, WEFT_EINPUT, 13, "B9 is out of range: the network has 4 dims"},
    {"B1 >= B2 >= (B3", 4, WEFT_ESYNTAX, 16,
     "expected ')' to close '(' at column 13, found end of constraint"},
    {"B1 >= B2 >= B3 B4", 4, WEFT_ESYNTAX, 16, "missing operator before 'B4'"},
};

static void errors_with_columns(void) {
  for (size_t i = 0; i < sizeof ERR_CASES / sizeof ERR_CASES[0]; i++) {
    const ErrCase *e = &ERR_CASES[i];
    CHECK(parse_fails(e->expr, e->ndims, e->code, e->col, e->msg));
  }
}

static void long_tokens_are_quoted_short(void) {
  char expr[200], msg[200];
  memset(expr, 'x', 100);
  strcpy(expr + 100, " = 1");
  snprintf(msg, sizeof msg, "unknown name '%.60s'", expr);  /* first 60 bytes */
  CHECK(parse_fails(expr, 4, WEFT_EINPUT, 1, msg));
}

static void nesting_depth_is_bounded(void) {
  char expr[400];
  WeftConstraints cs;
  /* 64 levels parse */
  size_t n = 0;
  for (int i = 0; i < 64; i++) expr[n++] = '(';
  memcpy(expr + n, "B1", 2), n += 2;
  for (int i = 0; i < 64; i++) expr[n++] = ')';
  strcpy(expr + n, " = 2");
  const double c[4] = {1, 0, 0, 0};
  CHECK(parse_ok(&cs, expr, 4, 1) && cons_is(&cs.c[0], c, 4, 0, 2, WEFT_REL_EQ, NULL));
  /* 65 fail at the 65th '(' */
  n = 0;
  for (int i = 0; i < 65; i++) expr[n++] = '(';
  memcpy(expr + n, "B1", 2), n += 2;
  for (int i = 0; i < 65; i++) expr[n++] = ')';
  strcpy(expr + n, " = 2");
  CHECK(parse_fails(expr, 4, WEFT_EINPUT, 65, "parentheses nested too deeply (at most 64)"));
  /* many signs are no recursion at all */
  n = 0;
  for (int i = 0; i < 300; i++) expr[n++] = '-';
  strcpy(expr + n, "B1 = 1");
  CHECK(parse_ok(&cs, expr, 4, 1) && cs.c[0].coef[0] == 1.0);
}

static void too_many_constraints(void) {
  static WeftConstraints cs, before;
  WeftError err;
  memset(&cs, 0, sizeof cs);
  cs.n = WEFT_MAX_CONSTRAINTS - 1;
  memcpy(&before, &cs, sizeof cs);
  /* a chain of two with room for one: nothing appended */
  CHECK_EQ_INT(weft_constraints_parse(&cs, "B1 >= B2 >= B3", 4, &err), WEFT_EINPUT);
  CHECK_EQ_INT(err.col, 10);
  CHECK(strcmp(err.msg, "too many constraints: at most 64") == 0);
  CHECK(memcmp(&cs, &before, sizeof cs) == 0);
  /* one fits, the next does not */
  CHECK_EQ_INT(weft_constraints_parse(&cs, "B1 >= B2", 4, &err), WEFT_OK);
  CHECK_EQ_INT(cs.n, WEFT_MAX_CONSTRAINTS);
  memcpy(&before, &cs, sizeof cs);
  CHECK_EQ_INT(weft_constraints_parse(&cs, "B3 >= 1", 4, &err), WEFT_EINPUT);
  CHECK_EQ_INT(err.col, 4);
  CHECK(memcmp(&cs, &before, sizeof cs) == 0);
}

static void invalid_arguments(void) {
  static WeftConstraints cs;
  WeftError err;
  memset(&cs, 0, sizeof cs);
  CHECK_EQ_INT(weft_constraints_parse(NULL, "B1 = 1", 4, &err), WEFT_EINVAL);
  CHECK_EQ_INT(err.code, WEFT_EINVAL);
  CHECK_EQ_INT(weft_constraints_parse(&cs, NULL, 4, &err), WEFT_EINVAL);
  CHECK_EQ_INT(weft_constraints_parse(&cs, "B1 = 1", 0, &err), WEFT_EINVAL);
  CHECK_EQ_INT(weft_constraints_parse(&cs, "B1 = 1", WEFT_MAX_DIMS + 1, &err), WEFT_EINVAL);
  cs.n = -1;
  CHECK_EQ_INT(weft_constraints_parse(&cs, "B1 = 1", 4, &err), WEFT_EINVAL);
  cs.n = 0;
  /* err may be NULL */
  CHECK_EQ_INT(weft_constraints_parse(&cs, "B1 = ", 4, NULL), WEFT_ESYNTAX);
  CHECK_EQ_INT(weft_constraints_parse(&cs, "B1 = 1", 4, NULL), WEFT_OK);
  CHECK_EQ_INT(cs.n, 1);
}

/* ------------------------------------------------------------------ export */

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Entries of dir (without . and ..), space-separated, sorted is not needed:
 * the tests expect at most one. */
static int dir_entries(const char *dir, char *names, size_t size) {
  DIR *d = opendir(dir);
  int n = 0;
  names[0] = '\0';
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    n++;
    strncat(names, e->d_name, size - strlen(names) - 1);
  }
  closedir(d);
  return n;
}

static void make_net(WeftNetwork *net) {
  memset(net, 0, sizeof *net);
  net->ndims = 4;
  const WeftTopology t[4] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_RING, WEFT_SWITCH};
  const int n[4] = {4, 8, 4, 32};
  for (int d = 0; d < 4; d++) net->topology[d] = t[d], net->npus[d] = n[d];
}

static void export_four_dims(void) {
  char dir[] = "/tmp/weft_cons_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[128], names[256];
  snprintf(path, sizeof path, "%s/net.yml", dir);
  WeftNetwork net;
  make_net(&net);
  /* per link in weft's GB/s: Ring 500/2 = 250, FC 300/7, Ring 50/2 = 25,
   * Switch 100; written in ASTRA-sim's GB/s (2^30 bytes/s): x 1e9 / 2^30, so
   * 250 -> 232.8306436538696 (250e9 / 1073741824), shortest round-trip digits */
  const double bw[4] = {500, 300, 50, 100};
  WeftError err;
  weft_error_clear(&err);
  CHECK_EQ_INT(weft_astra_network_write(path, &net, bw, NULL, &err), WEFT_OK);
  const char *want =
      "# weft: optimised network (per-NPU B_d -> per-link bandwidth); ASTRA-sim's GB/s\n"
      "# is 2^30 bytes/s, weft's 1e9: bandwidth = link bytes/s / 2^30\n"
      "topology: [ Ring, FullyConnected, Ring, Switch ]\n"
      "npus_count: [ 4, 8, 4, 32 ]\n"
      "bandwidth: [ 232.8306436538696, 39.91382462637765, 23.283064365386963, 93.13225746154785 ]"
      "  # GB/s per link (ASTRA-sim's: 2^30 bytes/s)\n"
      "latency: [ 500.0, 500.0, 500.0, 500.0 ]  # ns per hop\n";
  const char *got = read_all(path);
  CHECK(got && strcmp(got, want) == 0);
  if (got && strcmp(got, want) != 0) fprintf(stderr, "  got:\n%s", got);
  CHECK(strtod("232.8306436538696", NULL) == 250.0 / WEFT_ASTRA_GBPS_PER_GIBPS);
  struct stat st;
  CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);

  /* overwrite with other values: 3 dims, FC n=4: 1000/3, Switch 0 -> 0.0,
   * Ring 3/2 = 1.5, each x 1e9 / 2^30; latencies (per hop) as given */
  net.ndims = 3;
  net.topology[0] = WEFT_FULLY_CONNECTED, net.npus[0] = 4;
  net.topology[1] = WEFT_SWITCH, net.npus[1] = 2;
  net.topology[2] = WEFT_RING, net.npus[2] = 16;
  const double bw3[3] = {1000, 0, 3}, lat[3] = {100, 250.5, 0};
  CHECK_EQ_INT(weft_astra_network_write(path, &net, bw3, lat, &err), WEFT_OK);
  const char *want3 =
      "# weft: optimised network (per-NPU B_d -> per-link bandwidth); ASTRA-sim's GB/s\n"
      "# is 2^30 bytes/s, weft's 1e9: bandwidth = link bytes/s / 2^30\n"
      "topology: [ FullyConnected, Switch, Ring ]\n"
      "npus_count: [ 4, 2, 16 ]\n"
      "bandwidth: [ 310.4408582051595, 0.0, 1.3969838619232178 ]"
      "  # GB/s per link (ASTRA-sim's: 2^30 bytes/s)\n"
      "latency: [ 100.0, 250.5, 0.0 ]  # ns per hop\n";
  got = read_all(path);
  CHECK(got && strcmp(got, want3) == 0);
  if (got && strcmp(got, want3) != 0) fprintf(stderr, "  got:\n%s", got);
  CHECK(strtod("1.3969838619232178", NULL) == 1.5 / WEFT_ASTRA_GBPS_PER_GIBPS);
  CHECK_EQ_INT(dir_entries(dir, names, sizeof names), 1);  /* no temp file left */
  CHECK(strcmp(names, "net.yml") == 0);

  /* invalid input: error before any file is touched, old content kept */
  const double bad[3] = {1000, -1, 3};
  CHECK_EQ_INT(weft_astra_network_write(path, &net, bad, NULL, &err), WEFT_EINVAL);
  const double nanbw[3] = {1000, (double)NAN, 3};
  CHECK_EQ_INT(weft_astra_network_write(path, &net, nanbw, NULL, &err), WEFT_EINVAL);
  const double badlat[3] = {1, 1, (double)INFINITY};
  CHECK_EQ_INT(weft_astra_network_write(path, &net, bw3, badlat, &err), WEFT_EINVAL);
  net.npus[0] = 1;
  CHECK_EQ_INT(weft_astra_network_write(path, &net, bw3, NULL, &err), WEFT_EINVAL);
  net.npus[0] = 4;
  CHECK_EQ_INT(weft_astra_network_write(NULL, &net, bw3, NULL, &err), WEFT_EINVAL);
  CHECK_EQ_INT(weft_astra_network_write(path, &net, NULL, NULL, &err), WEFT_EINVAL);
  got = read_all(path);
  CHECK(got && strcmp(got, want3) == 0);
  CHECK_EQ_INT(dir_entries(dir, names, sizeof names), 1);

  unlink(path);
  CHECK(rmdir(dir) == 0);
}

static void export_failures_leave_no_file(void) {
  char dir[] = "/tmp/weft_cons_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[128], msg[300], names[256];
  WeftNetwork net;
  make_net(&net);
  const double bw[4] = {500, 300, 50, 100};
  WeftError err;

  /* a directory that does not exist */
  snprintf(path, sizeof path, "%s/missing/net.yml", dir);
  weft_error_clear(&err);
  CHECK_EQ_INT(weft_astra_network_write(path, &net, bw, NULL, &err), WEFT_EIO);
  CHECK_EQ_INT(err.code, WEFT_EIO);
  snprintf(msg, sizeof msg, "cannot create file: %s", strerror(ENOENT));
  msg[20] = (char)(msg[20] - 'A' + 'a'); /* strerror's capital, lowercased */
  CHECK(strcmp(err.msg, msg) == 0);
  CHECK(strcmp(err.file, path) == 0);
  CHECK(access(path, F_OK) != 0);
  CHECK_EQ_INT(dir_entries(dir, names, sizeof names), 0);

  /* the target is a directory: refused at open, nothing created beside it */
  snprintf(path, sizeof path, "%s/out.yml", dir);
  CHECK(mkdir(path, 0755) == 0);
  CHECK_EQ_INT(weft_astra_network_write(path, &net, bw, NULL, &err), WEFT_EIO);
  snprintf(msg, sizeof msg, "cannot write file: %s", strerror(EISDIR));
  msg[19] = (char)(msg[19] - 'A' + 'a');
  CHECK(strcmp(err.msg, msg) == 0 && strcmp(err.file, path) == 0);
  CHECK_EQ_INT(dir_entries(dir, names, sizeof names), 1);
  CHECK(strcmp(names, "out.yml") == 0);
  CHECK(rmdir(path) == 0);

  CHECK(rmdir(dir) == 0);
}

/* weft_constraints_override: an option replaces the file's constraints over
 * the same linear form (up to a nonzero factor, any relation), keeps the
 * rest, never replaces another option; failures change nothing. */
static void override_same_lhs(void) {
  static WeftConstraints cs, before;
  WeftError err;
  memset(&cs, 0, sizeof cs);
  /* the file's (3 dims): sum = 1000, sum <= 1500, B1 >= B2 (B1 - B2 >= 0),
   * 2*B3 <= cost, B1 = 500 */
  const char *file[] = {"sum = 1000", "B1 + B2 + B3 <= 1500", "B1 >= B2", "2*B3 <= cost",
                        "B1 = 500"};
  for (int i = 0; i < 5; i++) CHECK_EQ_INT(weft_constraints_parse(&cs, file[i], 3, &err), WEFT_OK);
  for (int i = 0; i < 5; i++) CHECK_EQ_INT(cs.c[i].origin, WEFT_CONS_FILE);
  /* 2*sum is sum's form: both sum constraints go, whatever their relation */
  CHECK_EQ_INT(weft_constraints_override(&cs, "2*sum >= 2400", 3, &err), WEFT_OK);
  CHECK_EQ_INT(cs.n, 4);
  CHECK_EQ_INT(cs.nreplaced, 2);
  CHECK(strcmp(cs.replaced[0].text, "sum = 1000") == 0);
  CHECK(strcmp(cs.replaced[1].text, "B1 + B2 + B3 <= 1500") == 0);
  CHECK(strcmp(cs.c[3].text, "2*sum >= 2400") == 0 && cs.c[3].origin == WEFT_CONS_OPTION);
  /* B2 <= B1 + 10 is B2 - B1 <= 10: the form of B1 >= B2 times -1 */
  CHECK_EQ_INT(weft_constraints_override(&cs, "B2 <= B1 + 10", 3, &err), WEFT_OK);
  CHECK_EQ_INT(cs.nreplaced, 3);
  CHECK(strcmp(cs.replaced[2].text, "B1 >= B2") == 0);
  /* B1 + B2 is neither B1 nor sum: appended, nothing replaced */
  CHECK_EQ_INT(weft_constraints_override(&cs, "B1 + B2 <= 900", 3, &err), WEFT_OK);
  CHECK_EQ_INT(cs.nreplaced, 3);
  CHECK_EQ_INT(cs.n, 5);
  /* an option never replaces an option: a second bound on sum is added */
  CHECK_EQ_INT(weft_constraints_override(&cs, "sum <= 3000", 3, &err), WEFT_OK);
  CHECK_EQ_INT(cs.n, 6);
  CHECK_EQ_INT(cs.nreplaced, 3);
  /* in force now, in order: the file's kept, then the options */
  const char *want[] = {"2*B3 <= cost", "B1 = 500", "2*sum >= 2400", "B2 <= B1 + 10",
                        "B1 + B2 <= 900", "sum <= 3000"};
  const int origin[] = {WEFT_CONS_FILE, WEFT_CONS_FILE, WEFT_CONS_OPTION, WEFT_CONS_OPTION,
                        WEFT_CONS_OPTION, WEFT_CONS_OPTION};
  for (int i = 0; i < 6; i++) {
    CHECK(strcmp(cs.c[i].text, want[i]) == 0);
    CHECK_EQ_INT(cs.c[i].origin, origin[i]);
  }
  /* cost with a B: B3 - cost/2 is the form of 2*B3 - cost; a chain replaces per relation */
  CHECK_EQ_INT(weft_constraints_override(&cs, "B3 - 0.5*cost <= 0 <= B1", 3, &err), WEFT_OK);
  CHECK_EQ_INT(cs.nreplaced, 5);  /* 2*B3 <= cost, and B1 = 500 (the form B1) */
  CHECK(strcmp(cs.replaced[3].text, "2*B3 <= cost") == 0);
  CHECK(strcmp(cs.replaced[4].text, "B1 = 500") == 0);
  /* a bad expression or too many: unchanged */
  memcpy(&before, &cs, sizeof cs);
  CHECK_EQ_INT(weft_constraints_override(&cs, "sum = ", 3, &err), WEFT_ESYNTAX);
  CHECK(memcmp(&cs, &before, sizeof cs) == 0);
  cs.n = WEFT_MAX_CONSTRAINTS;
  memcpy(&before, &cs, sizeof cs);
  CHECK_EQ_INT(weft_constraints_override(&cs, "B2 >= 1", 3, &err), WEFT_EINPUT);
  CHECK(strstr(err.msg, "too many constraints") != NULL);
  CHECK(memcmp(&cs, &before, sizeof cs) == 0);
}

const TestCase suite_constraint[] = {
    {"constraint/override_same_lhs", override_same_lhs},
    {"constraint/examples", examples_from_the_brief},
    {"constraint/chains", chains},
    {"constraint/relations", relations},
    {"constraint/terms_and_arithmetic", terms_and_arithmetic},
    {"constraint/whitespace_and_text", whitespace_and_text},
    {"constraint/appends", appends_to_existing_set},
    {"constraint/errors_with_columns", errors_with_columns},
    {"constraint/long_tokens", long_tokens_are_quoted_short},
    {"constraint/nesting_depth", nesting_depth_is_bounded},
    {"constraint/too_many", too_many_constraints},
    {"constraint/invalid_arguments", invalid_arguments},
    {"constraint/export_four_dims", export_four_dims},
    {"constraint/export_failures", export_failures_leave_no_file},
    {0, 0},
};
