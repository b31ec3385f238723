/* fuzz_constraints.c — constraint expressions (weft_constraints_parse).
 * Input: one byte choosing the dims (1..16), then expressions, one a line,
 * appended to one set. A failed parse leaves the set unchanged; a good one
 * appends 1.. finite constraints, never past WEFT_MAX_CONSTRAINTS. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int ndims = 1 + data[0] % WEFT_MAX_DIMS;
  char *text = fuzz_strdup(data + 1, size - 1);
  static WeftConstraints cs, before;
  memset(&cs, 0, sizeof cs);
  for (char *line = text, *next; line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    WeftError err;
    weft_error_clear(&err);
    before = cs;
    int rc = weft_constraints_parse(&cs, line, ndims, &err);
    fuzz_check_result(rc, &err, "weft_constraints_parse");
    if (rc) {
      FUZZ_CHECK(memcmp(&cs, &before, sizeof cs) == 0, "a failed parse leaves the set unchanged",
                 &err);
      FUZZ_CHECK(err.col >= 0 && (size_t)err.col <= strlen(line) + 1, "column within the line",
                 &err);
      continue;
    }
    FUZZ_CHECK(cs.n > before.n && cs.n <= WEFT_MAX_CONSTRAINTS, "constraints appended", NULL);
    for (int i = before.n; i < cs.n; i++) {
      const WeftConstraint *c = &cs.c[i];
      FUZZ_CHECK(c->rel == WEFT_REL_LE || c->rel == WEFT_REL_GE || c->rel == WEFT_REL_EQ,
                 "relation", NULL);
      FUZZ_CHECK(fuzz_finite(c->rhs) && fuzz_finite(c->cost_coef), "finite rhs and cost", NULL);
      for (int d = 0; d < WEFT_MAX_DIMS; d++)
        FUZZ_CHECK(fuzz_finite(c->coef[d]) && (d < ndims || c->coef[d] == 0.0),
                   "finite coefficients on the dims only", NULL);
      FUZZ_CHECK(memchr(c->text, '\0', sizeof c->text) != NULL, "text terminated", NULL);
    }
  }
  free(text);
  return 0;
}
