/* test.h — a tiny test harness: CHECK macros, per-suite case tables.
 * Each suite file exports `const TestCase suite_NAME[]` ending in {0}. */
#ifndef WEFT_TEST_H
#define WEFT_TEST_H

#include <math.h>
#include <stdio.h>

typedef struct {
  const char *name;
  void (*fn)(void);
} TestCase;

extern int test_failures_;  /* failures within the running case */

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      test_failures_++;                                                      \
    }                                                                        \
  } while (0)

/* |a-b| <= tol * max(1, |b|): relative for large values, absolute near 0. */
#define CHECK_NEAR(a, b, tol)                                                \
  do {                                                                       \
    double a_ = (a), b_ = (b), t_ = (tol);                                   \
    double s_ = fabs(b_) > 1.0 ? fabs(b_) : 1.0;                             \
    if (!(fabs(a_ - b_) <= t_ * s_)) {                                       \
      fprintf(stderr, "  %s:%d: %s = %.12g, expected %s = %.12g (tol %g)\n", \
              __FILE__, __LINE__, #a, a_, #b, b_, t_);                       \
      test_failures_++;                                                      \
    }                                                                        \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                   \
  do {                                                                       \
    long a_ = (long)(a), b_ = (long)(b);                                     \
    if (a_ != b_) {                                                          \
      fprintf(stderr, "  %s:%d: %s = %ld, expected %ld\n", __FILE__, __LINE__, \
              #a, a_, b_);                                                   \
      test_failures_++;                                                      \
    }                                                                        \
  } while (0)

#endif
