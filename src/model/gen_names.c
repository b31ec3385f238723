/* gen_names.c — the transformer generator's entry names and policy line:
 * text and whole numbers appended by hand (snprintf's format parsing was a
 * tenth of a generation, which names a few entries per design point). */
#include "model/gen_names.h"

typedef struct {
  char *p;
  size_t left; /* bytes from p on, the terminator's included (>= 1) */
} Txt;

static void txt_str(Txt *t, const char *s) {
  while (*s && t->left > 1) {
    *t->p++ = *s++;
    t->left--;
  }
  *t->p = '\0';
}

static void txt_int(Txt *t, int v) {
  char d[16];
  int n = sizeof d - 1;
  unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
  d[n] = '\0';
  do d[--n] = (char)('0' + u % 10); while (u /= 10);
  if (v < 0) d[--n] = '-';
  txt_str(t, d + n);
}

void weft_gen_copy_name(char *out, size_t n, const char *s, int j) {
  Txt t = {out, n};
  txt_str(&t, s);
  if (j > 0) {
    txt_str(&t, ".");
    txt_int(&t, j);
  }
}

void weft_gen_range_name(char *out, size_t n, int lo, int hi, const char *what) {
  Txt t = {out, n};
  txt_str(&t, "L");
  txt_int(&t, lo);
  if (lo != hi) {
    txt_str(&t, "-");
    txt_int(&t, hi);
  }
  txt_str(&t, ".");
  txt_str(&t, what);
}

void weft_gen_policy(char *out, size_t n, int tp) {
  Txt t = {out, n};
  txt_str(&t, "HYBRID_TRANSFORMER model_parallel_NPU_group: ");
  txt_int(&t, tp);
}
