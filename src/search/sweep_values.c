/* sweep_values.c — the values of one swept field: {sweep: [...]} items or a
 * {range: ...} worked out exactly, each as a node to write into the tree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/sweep.h"

/* A float range reaches `to` when within this fraction of a step (or of
 * `to`, for a factor): steps written in exponent form are not exact in
 * binary, and 1e-9 is far above double rounding yet far below any step. */
#define RANGE_TOL 1e-9
#define MAX_DIGITS 17  /* decimal digits that fit a long long with room to add */

static const char *const SWEEP_KEYS[] = {"sweep", "range", "times", "format", NULL};

int weft_sweep_is_node(const WeftYamlNode *n) {
  return n && n->kind == WEFT_YAML_MAPPING &&
         (weft_yaml_get(n, "sweep", NULL) || weft_yaml_get(n, "range", NULL));
}

/* The first sweep or range node inside n (n included), or NULL. */
static const WeftYamlNode *find_sweep(const WeftYamlNode *n) {
  if (!n || weft_sweep_is_node(n)) return n;
  int m = n->kind == WEFT_YAML_MAPPING ? 2 * n->n : n->kind == WEFT_YAML_SEQUENCE ? n->n : 0;
  for (int i = 0; i < m; i++) {
    const WeftYamlNode *s = find_sweep(n->child[i]);
    if (s) return s;
  }
  return NULL;
}

/* ------------------------------------------------------------------ text */

static int sb_add(WeftSweepText *t, const char *s, size_t n) {
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 64;
    while (cap < t->len + n + 1) cap *= 2;
    char *p = realloc(t->s, cap);
    if (!p) return WEFT_ENOMEM;
    t->s = p;
    t->cap = cap;
  }
  memcpy(t->s + t->len, s, n);
  t->len += n;
  t->s[t->len] = '\0';
  return WEFT_OK;
}

/* A value in YAML flow style: 16, [4, 8], {topology: [Ring], ...}. */
static int render(WeftSweepText *t, const WeftYamlNode *n) {
  int rc = WEFT_OK, map = n->kind == WEFT_YAML_MAPPING;
  if (n->kind == WEFT_YAML_SCALAR) return sb_add(t, n->text, n->len);
  rc = sb_add(t, map ? "{" : "[", 1);
  for (int i = 0; i < n->n && !rc; i++) {
    if (i) rc = sb_add(t, ", ", 2);
    if (map && !rc && !(rc = render(t, n->child[2 * i]))) rc = sb_add(t, ": ", 2);
    if (!rc) rc = render(t, n->child[map ? 2 * i + 1 : i]);
  }
  return rc ? rc : sb_add(t, map ? "}" : "]", 1);
}

/* A scalar node with text, placed at `at` (for messages). */
static WeftYamlNode *scalar_at(const WeftYamlNode *at, const char *text) {
  WeftYamlNode *n = calloc(1, sizeof *n);
  if (!n || !(n->text = malloc(strlen(text) + 1))) {
    free(n);
    return NULL;
  }
  strcpy(n->text, text);
  n->len = strlen(text);
  n->kind = WEFT_YAML_SCALAR;
  n->line = at->line;
  n->col = at->col;
  n->plain = 1;  /* read as if written plain: numbers, true/false */
  return n;
}

/* Append value val (owned from here, also on failure) with its label. */
static int push(WeftSweepField *f, WeftYamlNode *val, const char *label) {
  char *t = val ? malloc(strlen(label) + 1) : NULL;
  if (t && f->n == f->cap) {
    int cap = f->cap ? 2 * f->cap : 8;
    WeftYamlNode **v = realloc(f->val, (size_t)cap * sizeof *v);
    if (v) f->val = v;
    char **tt = v ? realloc(f->text, (size_t)cap * sizeof *tt) : NULL;
    if (tt) f->text = tt;
    if (tt) f->cap = cap;
  }
  if (!t || f->n == f->cap) {
    weft_yaml_free(val);
    free(t);
    return WEFT_ENOMEM;
  }
  strcpy(t, label);
  f->val[f->n] = val;
  f->text[f->n++] = t;
  return WEFT_OK;
}

/* A scalar value: label written through format (every {} becomes the
 * label; NULL = the label itself), placed at `at`. */
static int add_value(WeftSweepField *f, const WeftYamlNode *at, const char *label,
                     const char *format) {
  WeftSweepText out = {0};
  int rc = WEFT_OK;
  for (const char *p = format; p && *p && !rc;) {
    const char *hole = strstr(p, "{}");
    size_t n = hole ? (size_t)(hole - p) : strlen(p);
    rc = sb_add(&out, p, n);
    if (hole && !rc) rc = sb_add(&out, label, strlen(label));
    p = hole ? hole + 2 : p + n;
  }
  WeftYamlNode *v = rc ? NULL : scalar_at(at, format ? out.s : label);
  free(out.s);
  return push(f, v, label);
}

/* ------------------------------------------------------------------ ranges */

/* "-12.50" -> 1250 and 2 decimals; 0 when not plain decimal (exponent, too
 * many digits). */
static int decimal(const char *s, long long *mant, int *scale) {
  long long m = 0;
  int neg = *s == '-', digits = 0, frac = -1;
  if (*s == '-' || *s == '+') s++;
  for (; *s; s++) {
    if (*s == '.' && frac < 0) {
      frac = 0;
      continue;
    }
    if (*s < '0' || *s > '9' || ++digits > MAX_DIGITS) return 0;
    m = 10 * m + (*s - '0');
    if (frac >= 0) frac++;
  }
  if (digits == 0) return 0;
  *mant = neg ? -m : m;
  *scale = frac < 0 ? 0 : frac;
  return 1;
}

/* mant / 10^scale as shortest decimal text: 150, 2 -> "1.5". */
static void decimal_text(long long mant, int scale, char *out, size_t size) {
  char digits[32];
  unsigned long long a = mant < 0 ? 0ULL - (unsigned long long)mant : (unsigned long long)mant;
  int n = snprintf(digits, sizeof digits, "%0*llu", scale + 1, a);
  while (scale > 0 && digits[n - 1] == '0') {  /* 1.50 -> 1.5, 2.0 -> 2 */
    digits[--n] = '\0';
    scale--;
  }
  snprintf(out, size, "%s%.*s%s%s", mant < 0 ? "-" : "", n - scale, digits, scale ? "." : "",
           digits + n - scale);
}

/* A double as short exact-looking text: integers plainly, else 15
 * significant digits (what binary rounding leaves of a decimal value). */
static void double_text(double v, char *out, size_t size) {
  if (v == floor(v) && fabs(v) < 1e15)
    snprintf(out, size, "%.0f", v == 0.0 ? 0.0 : v);
  else
    snprintf(out, size, "%.15g", v);
}

static int too_many(const char *file, const WeftYamlNode *at, const char *path, double count,
                    WeftError *err) {
  return weft_error_set(err, WEFT_EINPUT, file, at->line, at->col, path,
                        "%s: range gives %.0f values, more than %d", path, count,
                        WEFT_SWEEP_MAX_POINTS);
}

/* from, from+step, ..., to (when reached), exactly in decimal when the three
 * are plain decimals, else in doubles. */
static int arithmetic(WeftSweepField *f, const WeftYamlNode *rv, const double *x,
                      const char *format, const char *file, WeftError *err) {
  const char *path = f->path;
  double span = x[1] - x[0];
  if (x[2] == 0.0)
    return weft_error_set(err, WEFT_EINPUT, file, rv->line, rv->col, path,
                          "%s: range step must not be 0", path);
  if (span != 0.0 && (span > 0.0) != (x[2] > 0.0))
    return weft_error_set(err, WEFT_EINPUT, file, rv->line, rv->col, path,
                          "%s: range step %s never gets from %s to %s", path,
                          rv->child[2]->text, rv->child[0]->text, rv->child[1]->text);
  double q = span / x[2];
  if (q + 1.0 > WEFT_SWEEP_MAX_POINTS) return too_many(file, rv, path, floor(q) + 1.0, err);
  long long m[3];
  int sc[3], scale = 0, exact = 1;
  for (int k = 0; k < 3; k++) {
    exact = exact && decimal(rv->child[k]->text, &m[k], &sc[k]);
    if (exact && sc[k] > scale) scale = sc[k];
  }
  for (int k = 0; k < 3 && exact; k++)  /* common scale; stays below 10^18 */
    for (int s = sc[k]; s < scale && exact; s++)
      if ((exact = m[k] < 100000000000000000LL && m[k] > -100000000000000000LL)) m[k] *= 10;
  char label[64];
  if (exact) {
    long long count = (m[1] - m[0]) / m[2] + 1;  /* exact: to is reached or passed by less */
    for (long long i = 0; i < count; i++) {
      decimal_text(m[0] + i * m[2], scale, label, sizeof label);
      if (add_value(f, rv, label, format)) return WEFT_ENOMEM;
    }
    return WEFT_OK;
  }
  long count = (long)floor(q + RANGE_TOL) + 1;
  for (long i = 0; i < count; i++) {
    double v = x[0] + (double)i * x[2];
    if (i == count - 1 && fabs(v - x[1]) <= RANGE_TOL * fabs(x[2])) v = x[1];
    double_text(v, label, sizeof label);
    if (add_value(f, rv, label, format)) return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

/* from, from*k, from*k^2, ... up to to. */
static int geometric(WeftSweepField *f, const WeftYamlNode *rv, const WeftYamlNode *tv,
                     const double *x, double k, const char *format, const char *file,
                     WeftError *err) {
  const char *path = f->path;
  if (!(k > 1.0))
    return weft_error_set(err, WEFT_EINPUT, file, tv->line, tv->col, path,
                          "%s: times must be > 1, got %s", path, tv->text);
  if (!(x[0] > 0.0) || x[1] < x[0])
    return weft_error_set(err, WEFT_EINPUT, file, rv->line, rv->col, path,
                          "%s: a range with times needs 0 < from <= to, got [%s, %s]", path,
                          rv->child[0]->text, rv->child[1]->text);
  /* The count before any value: from k^i <= to (1 + tol), i = 0..floor(q);
   * logs of each end, so no quotient overflows (1e-300 to 1e300). */
  double q = (log(x[1]) - log(x[0]) + log1p(RANGE_TOL)) / log(k);
  if (q + 1.0 > WEFT_SWEEP_MAX_POINTS) return too_many(file, rv, path, floor(q) + 1.0, err);
  char label[64];
  for (int i = 0;; i++) {
    double v = x[0] * pow(k, i);
    if (v > x[1] * (1.0 + RANGE_TOL)) break;
    if (fabs(v - x[1]) <= RANGE_TOL * x[1]) v = x[1];
    if (i >= WEFT_SWEEP_MAX_POINTS) return too_many(file, rv, path, i + 1.0, err);
    double_text(v, label, sizeof label);
    if (add_value(f, rv, label, format)) return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

static int range_values(WeftSweepField *f, const WeftYamlNode *rv, const WeftYamlNode *tv,
                        const char *format, const char *file, WeftError *err) {
  static const char *const part[] = {"from", "to", "step"};
  const char *path = f->path;
  double x[3], k = 0.0;
  int rc;
  if (rv->kind != WEFT_YAML_SEQUENCE || rv->n < 2 || rv->n > 3) {
    char got[96];
    weft_yaml_describe(rv, got, sizeof got);
    if (rv->kind == WEFT_YAML_SEQUENCE) snprintf(got, sizeof got, "%d entries", rv->n);
    return weft_error_set(err, WEFT_EINPUT, file, rv->line, rv->col, path,
                          "%s: range must be [from, to, step] or [from, to] with times: k, got "
                          "%s",
                          path, got);
  }
  for (int i = 0; i < rv->n; i++) {
    char label[WEFT_PATH_LEN];
    snprintf(label, sizeof label, "%s: range %s", path, part[i]);
    if ((rc = weft_yaml_double(rv->child[i], file, path, label, &x[i], err))) return rc;
  }
  if (tv && (rc = weft_yaml_double(tv, file, path, "times", &k, err))) return rc;
  if (rv->n == 3 && tv)
    return weft_error_set(err, WEFT_EINPUT, file, tv->line, tv->col, path,
                          "%s: give a step ([from, to, step]) or times, not both", path);
  if (rv->n == 2 && !tv)
    return weft_error_set(err, WEFT_EINPUT, file, rv->line, rv->col, path,
                          "%s: range [from, to] needs a step ([from, to, step]) or times: k",
                          path);
  return tv ? geometric(f, rv, tv, x, k, format, file, err)
            : arithmetic(f, rv, x, format, file, err);
}

/* ------------------------------------------------------------------ a field */

int weft_sweep_field_values(WeftSweepField *f, const WeftYamlNode *n, const char *file,
                            WeftError *err) {
  const WeftYamlNode *sk, *rk, *tk, *fk;
  const WeftYamlNode *sv = weft_yaml_get(n, "sweep", &sk), *rv = weft_yaml_get(n, "range", &rk);
  const WeftYamlNode *tv = weft_yaml_get(n, "times", &tk), *fv = weft_yaml_get(n, "format", &fk);
  const char *path = f->path, *format = NULL;
  int rc = weft_yaml_check_keys(n, SWEEP_KEYS, file, err);
  if (rc) return rc;
  if (sv && rv)
    return weft_error_set(err, WEFT_EINPUT, file, rk->line, rk->col, path,
                          "%s: give 'sweep' or 'range', not both", path);
  if (sv && tv)
    return weft_error_set(err, WEFT_EINPUT, file, tk->line, tk->col, path,
                          "%s: 'times' goes with 'range', not 'sweep'", path);
  if (fv) {
    if (fv->kind != WEFT_YAML_SCALAR || !strstr(fv->text, "{}"))
      return weft_error_set(err, WEFT_EINPUT, file, fv->line, fv->col, path,
                            "%s: format must be text with {} where the value goes", path);
    format = fv->text;
  }
  const WeftYamlNode *inner = find_sweep(sv ? sv : rv);
  if (!inner && tv) inner = find_sweep(tv);
  if (inner)
    return weft_error_set(err, WEFT_EINPUT, file, inner->line, inner->col, path,
                          "%s: a swept value cannot hold another sweep", path);
  if (rv) return range_values(f, rv, tv, format, file, err);
  if ((rc = weft_yaml_expect(sv, WEFT_YAML_SEQUENCE, file, path, err))) return rc;
  if (sv->n == 0)
    return weft_error_set(err, WEFT_EINPUT, file, sv->line, sv->col, path,
                          "%s: sweep list is empty: give at least one value", path);
  for (int i = 0; i < sv->n; i++) {
    const WeftYamlNode *item = sv->child[i];
    if (format && item->kind != WEFT_YAML_SCALAR)
      return weft_error_set(err, WEFT_EINPUT, file, item->line, item->col, path,
                            "%s: with a format, each value must be a single value", path);
    WeftSweepText label = {0};
    if (render(&label, item) || !label.s) {
      free(label.s);
      return weft_error_set(err, WEFT_ENOMEM, file, 0, 0, NULL, "out of memory");
    }
    /* with a format, the text it makes; else the item itself, kept whole
       (a mapping, a list, a quoted string) */
    rc = format ? add_value(f, item, label.s, format)
                : push(f, weft_sweep_clone(item, NULL, 0, NULL), label.s);
    free(label.s);
    if (rc) return weft_error_set(err, WEFT_ENOMEM, file, 0, 0, NULL, "out of memory");
  }
  return WEFT_OK;
}
