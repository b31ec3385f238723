/* gen_names.h — internal: the transformer generator's entry names and
 * policy line, written without snprintf (a few per design point). */
#ifndef WEFT_MODEL_GEN_NAMES_H
#define WEFT_MODEL_GEN_NAMES_H

#include <stddef.h>

/* "L<lo>-<hi>.<what>", or "L<lo>.<what>" when lo == hi, into out[n] (n >= 1),
 * cut to fit and terminated as snprintf would. */
void weft_gen_range_name(char *out, size_t n, int lo, int hi, const char *what);
/* s, then ".<j>" when j > 0, into out[n] (n >= 1), cut to fit and terminated
 * as snprintf would. */
void weft_gen_copy_name(char *out, size_t n, const char *s, int j);
/* "HYBRID_TRANSFORMER model_parallel_NPU_group: <tp>" into out[n] (n >= 1). */
void weft_gen_policy(char *out, size_t n, int tp);

#endif
