/* measured_csv.c — the measured tables' CSV files (docs/zoo.md, "Measured
 * tables"): `#` comment lines (the date is kept), a header row naming the
 * columns (found by name, extra columns ignored), then rows. Every bad
 * field is an error naming the file, line and column. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/util.h"
#include "model/measured_tab.h"

#define MAX_COLS 16

typedef struct {
  const char *file;
  int line;
  int n;                 /* fields on this line */
  const char *f[MAX_COLS];
  size_t len[MAX_COLS];
  int col[MAX_COLS];     /* 1-based column of each field */
} Line;

/* Split s (one line, no newline) at commas; quotes around a field are
 * dropped (csv.writer quotes a field holding a comma). */
static int split(Line *L, const char *s, size_t len, WeftError *err) {
  size_t at = 0;
  L->n = 0;
  for (;;) {
    size_t end = at;
    while (end < len && s[end] != ',') end++;
    if (L->n == MAX_COLS)
      return weft_error_set(err, WEFT_EINPUT, L->file, L->line, (int)at + 1, NULL,
                            "more than %d fields", MAX_COLS);
    size_t a = at, b = end;
    while (a < b && (s[a] == ' ' || s[a] == '\r')) a++;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\r')) b--;
    if (b - a >= 2 && s[a] == '"' && s[b - 1] == '"') a++, b--;
    L->f[L->n] = s + a;
    L->len[L->n] = b - a;
    L->col[L->n] = (int)at + 1;
    L->n++;
    if (end >= len) return WEFT_OK;
    at = end + 1;
  }
}

/* The columns a table needs, found in the header. */
typedef struct {
  const char *const *need;
  int idx[MAX_COLS];
} Header;

/* A column named "?name" is optional (idx -1 when absent). */
static int header(const Line *L, Header *h, WeftError *err) {
  for (int c = 0; h->need[c]; c++) {
    const char *name = h->need[c] + (h->need[c][0] == '?');
    h->idx[c] = -1;
    for (int i = 0; i < L->n; i++)
      if (L->len[i] == strlen(name) && !memcmp(L->f[i], name, L->len[i])) h->idx[c] = i;
    if (h->idx[c] < 0 && name == h->need[c])
      return weft_error_set(err, WEFT_EINPUT, L->file, L->line, 1, h->need[c],
                            "header has no column '%s'", h->need[c]);
  }
  return WEFT_OK;
}

/* s[0..len) as digits with at most one point and at most 15 digits in
 * all: the integer they spell over a power of ten, both exact in a double,
 * one correctly rounded division (strtod's answer, several times faster:
 * the tables are thousands of such numbers); 0 when s is not of that form. */
static int plain_decimal(const char *s, size_t len, double *out) {
  static const double TEN[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                               1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  long long v = 0;
  int digits = 0, frac = -1;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '.' && frac < 0 && i > 0 && i + 1 < len) {
      frac = 0;
      continue;
    }
    if (s[i] < '0' || s[i] > '9' || ++digits > 15) return 0;
    v = v * 10 + (s[i] - '0');
    if (frac >= 0) frac++;
  }
  if (digits == 0) return 0;
  *out = (double)v / TEN[frac > 0 ? frac : 0];
  return 1;
}

/* Every figure of the tables is below this: 1e15 us is 31 years, 1e15
 * elements or bytes a petabyte, 1e15 TFLOP/s a million times any chip's.
 * Bounded, a figure times the reader's and the lookups' scale factors
 * (us to ns, FLOP counts over times) stays finite. */
#define WM_MAX_FIGURE 1e15

/* Field c of the header's columns as a number > 0 (or >= 0 with zero),
 * below WM_MAX_FIGURE. */
static int num(const Line *L, const Header *h, int c, int zero, double *out, WeftError *err) {
  int i = h->idx[c];
  if (i >= L->n)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, 0, h->need[c],
                          "missing field '%s' (%d fields on the line)", h->need[c], L->n);
  int r = plain_decimal(L->f[i], L->len[i], out) ? WEFT_NUM_OK
                                                 : weft_io_number(L->f[i], L->len[i], out);
  if (r != WEFT_NUM_OK || (zero ? *out < 0 : *out <= 0))
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[i], h->need[c],
                          "field '%s' must be a number %s 0, got '%.*s'", h->need[c],
                          zero ? ">=" : ">", (int)(L->len[i] > 40 ? 40 : L->len[i]), L->f[i]);
  if (*out >= WM_MAX_FIGURE)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[i], h->need[c],
                          "field '%s' is out of range: must be below 1e15, got '%.*s'",
                          h->need[c], (int)(L->len[i] > 40 ? 40 : L->len[i]), L->f[i]);
  return WEFT_OK;
}

/* Field c as one of names[] (NULL-ended): its index. */
static int word(const Line *L, const Header *h, int c, const char *const *names, int *out,
                WeftError *err) {
  int i = h->idx[c];
  if (i >= L->n)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, 0, h->need[c],
                          "missing field '%s' (%d fields on the line)", h->need[c], L->n);
  for (int w = 0; names[w]; w++)
    if (L->len[i] == strlen(names[w]) && !memcmp(L->f[i], names[w], L->len[i])) {
      *out = w;
      return WEFT_OK;
    }
  return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[i], h->need[c],
                        "unknown %s '%.*s'", h->need[c], (int)(L->len[i] > 40 ? 40 : L->len[i]),
                        L->f[i]);
}

/* ------------------------------------------------------------------ tables */

static const char *const GEMM_COLS[] = {"dtype", "m", "n", "k", "time_us", NULL};
static const char *const GEMM_DT[] = {"bf16", "fp8", "fp8_fast", NULL};
static const char *const ATTN_COLS[] = {"dtype", "batch", "heads", "seq", "head_dim",
                                        "causal", "pass", "time_us", "?backend", NULL};
static const char *const BACKEND[] = {"", "flash", "cudnn", NULL}; /* WeftMeasuredAttn */
static const char *const ATTN_DT[] = {"bf16", NULL};
static const char *const PASS[] = {"fwd", "bwd", NULL};
static const char *const MEM_COLS[] = {"op", "elements", "bytes", "time_us", NULL};
/* h100_memory.csv's op names, index = WeftMeasuredMem; "" is no op; the
 * fwd_bwd rows are read as such and split by the caller. */
static const char *const MEM_OPS[] = {"", "copy", "add", "rmsnorm_fwd", "rmsnorm_fwd_bwd",
                                      "layernorm_fwd", "layernorm_fwd_bwd", "softmax_fwd",
                                      "gelu_fwd", "swiglu_eager", "dropout_fwd",
                                      "cross_entropy_fwd_bwd", "adam_step_fused",
                                      "fp8_cast_eager", "amax", "fp8_transpose", NULL};
static const char *const LAUNCH_COLS[] = {"what", "per_kernel_us", NULL};
static const char *const LAUNCH_WHAT[] = {"eager", "graph", NULL};
static const char *const SUS_COLS[] = {"dtype", "tflops", NULL};
static const char *const SEQ_COLS[] = {"name", "dtype", "seq_us", NULL};
static const char *const SEQ_DT[] = {"bf16", "fp8", NULL};
static const char *const EACH_COLS[] = {"name", "m", "n", "k", "kind", NULL};
static const char *const DROP_COLS[] = {"backend", "batch", "heads", "seq", "head_dim",
                                        "dropout_p", "fwd_us", "bwd_us", "?status", NULL};

static int gemm_row(WeftMeasured *t, const Line *L, const Header *h, WeftError *err) {
  double m, n, k, us;
  int dt, rc;
  if ((rc = word(L, h, 0, GEMM_DT, &dt, err)) || (rc = num(L, h, 1, 0, &m, err)) ||
      (rc = num(L, h, 2, 0, &n, err)) || (rc = num(L, h, 3, 0, &k, err)) ||
      (rc = num(L, h, 4, 0, &us, err)))
    return rc;
  const double dims[3] = {m, n, k};
  for (int c = 0; c < 3; c++)
    if (dims[c] >= 16777216.0 || dims[c] != floor(dims[c])) /* range first: no cast */
      return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[h->idx[1 + c]],
                            h->need[1 + c], "field '%s' must be a whole number below 2^24",
                            h->need[1 + c]);
  if (t->ngemm == WM_MAX_GEMM)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, 1, NULL,
                          "more than %d GEMM rows", WM_MAX_GEMM);
  t->gemm[t->ngemm++] = (WmGemm){m, n, k, dt, us * 1e3, 0, log(m), log(n), log(k)};
  return WEFT_OK;
}

static int attn_row(WeftMeasured *t, const Line *L, const Header *h, WeftError *err) {
  double b, heads, s, d, causal, us;
  int dt, pass, rc;
  if ((rc = word(L, h, 0, ATTN_DT, &dt, err)) || (rc = num(L, h, 1, 0, &b, err)) ||
      (rc = num(L, h, 2, 0, &heads, err)) || (rc = num(L, h, 3, 0, &s, err)) ||
      (rc = num(L, h, 4, 0, &d, err)) || (rc = num(L, h, 5, 1, &causal, err)) ||
      (rc = word(L, h, 6, PASS, &pass, err)) || (rc = num(L, h, 7, 0, &us, err)))
    return rc;
  int be = WM_ATTN_FLASH; /* without the column: the script's first, flash */
  if (h->idx[8] >= 0 && (rc = word(L, h, 8, BACKEND, &be, err))) return rc;
  if (be == WM_ATTN_TE)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[h->idx[8]], "backend",
                          "field 'backend' is empty");
  if (causal != 0 && causal != 1)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[h->idx[5]], "causal",
                          "field 'causal' must be 0 or 1");
  if (t->nattn == WM_MAX_ATTN)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, 1, NULL,
                          "more than %d attention rows", WM_MAX_ATTN);
  /* the rate in weft's FLOP count is set by measured.c (it knows the mask) */
  t->attn[t->nattn++] = (WmAttn){be, pass, (int)causal, b * heads, s, d, us * 1e3};
  return WEFT_OK;
}

static int mem_row(WeftMeasured *t, const Line *L, const Header *h, WeftError *err) {
  double e, bytes, us;
  int kind, rc;
  if ((rc = word(L, h, 0, MEM_OPS, &kind, err)) || (rc = num(L, h, 1, 0, &e, err)) ||
      (rc = num(L, h, 2, 0, &bytes, err)) || (rc = num(L, h, 3, 0, &us, err)))
    return rc;
  if (kind == WM_MEM_NONE)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[h->idx[0]], "op",
                          "field 'op' is empty");
  if (t->nmem == WM_MAX_MEM)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, 1, NULL,
                          "more than %d memory rows", WM_MAX_MEM);
  t->mem[t->nmem++] = (WmMem){kind, e, bytes, us * 1e3};
  return WEFT_OK;
}

static int launch_row(WeftMeasured *t, const Line *L, const Header *h, WeftError *err) {
  double us;
  int what, rc;
  if ((rc = word(L, h, 0, LAUNCH_WHAT, &what, err)) || (rc = num(L, h, 1, 0, &us, err)))
    return rc;
  t->launch_us[what] = us;
  return WEFT_OK;
}

static int sus_row(WeftMeasured *t, const Line *L, const Header *h, WeftError *err) {
  double tf;
  int dt, rc;
  if ((rc = word(L, h, 0, GEMM_DT, &dt, err)) || (rc = num(L, h, 1, 0, &tf, err))) return rc;
  if (t->nsus[dt] == WM_MAX_SUSTAINED)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, 1, NULL,
                          "more than %d rows of one type", WM_MAX_SUSTAINED);
  t->sus[dt][t->nsus[dt]++] = tf * 1e12;
  return WEFT_OK;
}

/* A row of scripts/measure/attn_dropout.py: a row whose status is not "ok"
 * (the kernel refused the shape) is left out. */
static int drop_row(WeftMeasured *t, const Line *L, const Header *h, WeftError *err) {
  double b, heads, s, d, p, f, bw;
  int be, rc, st = h->idx[8];
  if (st >= 0 && st < L->n && !(L->len[st] == 2 && !memcmp(L->f[st], "ok", 2))) return WEFT_OK;
  if ((rc = word(L, h, 0, BACKEND, &be, err)) || (rc = num(L, h, 1, 0, &b, err)) ||
      (rc = num(L, h, 2, 0, &heads, err)) || (rc = num(L, h, 3, 0, &s, err)) ||
      (rc = num(L, h, 4, 0, &d, err)) || (rc = num(L, h, 5, 1, &p, err)) ||
      (rc = num(L, h, 6, 0, &f, err)) || (rc = num(L, h, 7, 0, &bw, err)))
    return rc;
  if (be == WM_ATTN_TE)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[h->idx[0]], "backend",
                          "field 'backend' is empty");
  if (p > 1)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[h->idx[5]], "dropout_p",
                          "field 'dropout_p' must be a probability in [0, 1]");
  if (t->ndrop == WM_MAX_DROP)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, 1, NULL,
                          "more than %d attention-dropout rows", WM_MAX_DROP);
  t->drop[t->ndrop++] = (WmDrop){be, b * heads, s, d, p, f * 1e3, bw * 1e3};
  return WEFT_OK;
}

/* The layer named by field c (a new one, zeroed, when not yet seen). */
static int layer_of(WeftMeasured *t, const Line *L, const Header *h, int c, WmLayer **out,
                    WeftError *err) {
  int i = h->idx[c];
  if (i >= L->n)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, 0, h->need[c],
                          "missing field '%s' (%d fields on the line)", h->need[c], L->n);
  if (L->len[i] == 0 || L->len[i] >= sizeof t->layer[0].name)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[i], h->need[c],
                          "field '%s' must have 1 to %d characters", h->need[c],
                          (int)sizeof t->layer[0].name - 1);
  for (size_t j = 0; j < L->len[i]; j++)
    if ((unsigned char)L->f[i][j] < 0x20 || L->f[i][j] == 0x7f) /* a NUL would cut the name */
      return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[i] + (int)j, h->need[c],
                            "field '%s' has a control character", h->need[c]);
  for (int l = 0; l < t->nlayer; l++)
    if (strlen(t->layer[l].name) == L->len[i] && !memcmp(t->layer[l].name, L->f[i], L->len[i])) {
      *out = &t->layer[l];
      return WEFT_OK;
    }
  if (t->nlayer == WM_MAX_LAYERS)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[i], h->need[c],
                          "more than %d layers", WM_MAX_LAYERS);
  WmLayer *y = &t->layer[t->nlayer++];
  memset(y, 0, sizeof *y);
  memcpy(y->name, L->f[i], L->len[i]);
  *out = y;
  return WEFT_OK;
}

/* A run of a layer's GEMMs in sequence (scripts/measure/fp8_layer_gemms.py). */
static int seq_row(WeftMeasured *t, const Line *L, const Header *h, WeftError *err) {
  WmLayer *y;
  double us;
  int dt, rc;
  if ((rc = layer_of(t, L, h, 0, &y, err)) || (rc = word(L, h, 1, SEQ_DT, &dt, err)) ||
      (rc = num(L, h, 2, 0, &us, err)))
    return rc;
  y->seq_ns[dt] += us * 1e3; /* each below 1e18 ns: the sum of a few stays finite */
  y->nseq[dt]++;
  if (!y->line) y->line = L->line;
  return WEFT_OK;
}

/* One of a layer's GEMMs: its shape and pass (the times are not read). */
static int each_row(WeftMeasured *t, const Line *L, const Header *h, WeftError *err) {
  WmLayer *y;
  double d[4];
  int rc;
  if ((rc = layer_of(t, L, h, 0, &y, err))) return rc;
  for (int c = 0; c < 4; c++) {
    if ((rc = num(L, h, 1 + c, c == 3, &d[c], err))) return rc;
    if (d[c] >= (c == 3 ? 3 : 16777216.0) || d[c] != floor(d[c]))
      return weft_error_set(err, WEFT_EINPUT, L->file, L->line, L->col[h->idx[1 + c]],
                            h->need[1 + c], c == 3 ? "field 'kind' must be 0, 1 or 2"
                                                   : "field '%s' must be a whole number below 2^24",
                            h->need[1 + c]);
  }
  if (y->ng == WM_LAYER_GEMMS)
    return weft_error_set(err, WEFT_EINPUT, L->file, L->line, 1, NULL,
                          "more than %d GEMMs in layer '%s'", WM_LAYER_GEMMS, y->name);
  y->m[y->ng] = d[0], y->n[y->ng] = d[1], y->k[y->ng] = d[2];
  y->pass[y->ng++] = (int)d[3];
  return WEFT_OK;
}

typedef int (*RowFn)(WeftMeasured *, const Line *, const Header *, WeftError *);

static const struct { /* in weft_measured_suffix's order */
  const char *const *cols;
  RowFn row;
} FILES[WM_NFILES] = {{GEMM_COLS, gemm_row},    {ATTN_COLS, attn_row},
                      {MEM_COLS, mem_row},      {LAUNCH_COLS, launch_row},
                      {SUS_COLS, sus_row},      {DROP_COLS, drop_row},
                      {SEQ_COLS, seq_row},      {EACH_COLS, each_row}};

const char *const weft_measured_suffix[WM_NFILES] = {
    "gemm", "attention", "memory", "launch", "sustained", "attention_dropout",
    "fp8_layer_gemms", "fp8_layer_gemms_each"};

/* "# date: 2026-11-26T16:40:00+00:00" -> the text after "date:". */
static void comment(WmFile *f, const char *s, size_t len) {
  size_t i = 1;
  while (i < len && s[i] == ' ') i++;
  if (f->date[0] || len - i < 5 || memcmp(s + i, "date:", 5)) return;
  i += 5;
  while (i < len && s[i] == ' ') i++;
  size_t n = len - i < sizeof f->date - 1 ? len - i : sizeof f->date - 1;
  memcpy(f->date, s + i, n);
  f->date[n] = '\0';
}

static int read_one(WeftMeasured *t, int which, WeftError *err) {
  WmFile *f = &t->file[which];
  char *text = NULL;
  size_t len = 0;
  int rc = weft_io_read_file(f->file, &text, &len, err);
  if (rc) return rc;
  Line L = {f->file, 0, 0, {0}, {0}, {0}};
  Header h = {FILES[which].cols, {0}};
  int have_header = 0;
  for (size_t at = 0; at < len && !rc;) {
    size_t end = at;
    while (end < len && text[end] != '\n') end++;
    L.line++;
    const char *s = text + at;
    size_t n = end - at;
    while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ')) n--;
    at = end + 1;
    if (n == 0) continue;
    if (s[0] == '#') {
      comment(f, s, n);
      continue;
    }
    if ((rc = split(&L, s, n, err))) break;
    if (!have_header) {
      rc = header(&L, &h, err);
      have_header = 1;
    } else {
      rc = FILES[which].row(t, &L, &h, err);
      f->rows++;
    }
  }
  free(text);
  if (!rc && !have_header)
    rc = weft_error_set(err, WEFT_EINPUT, f->file, L.line, 0, NULL,
                        "no header row (expected columns %s, ...)", FILES[which].cols[0]);
  return rc;
}

int weft_measured_read(WeftMeasured *t, WeftError *err) {
  int found = 0, rc;
  t->launch_us[0] = t->launch_us[1] = -1;
  for (int i = 0; i < WM_NFILES; i++) {
    WmFile *f = &t->file[i];
    struct stat st;
    char path[sizeof f->file]; /* built apart: t->prefix and f->file are both in *t */
    if (snprintf(path, sizeof path, "%s_%s.csv", t->prefix, weft_measured_suffix[i]) >=
        (int)sizeof path)
      return weft_error_set(err, WEFT_EINVAL, t->prefix, 0, 0, NULL, "path too long");
    memcpy(f->file, path, sizeof path);
    if (stat(f->file, &st) != 0) {
      f->file[0] = '\0';
      continue;
    }
    f->size = (long long)st.st_size;
    f->mtime = (long long)st.st_mtime;
    found++;
    if ((rc = read_one(t, i, err))) return rc;
  }
  if (!found)
    return weft_error_set(err, WEFT_EINPUT, t->prefix, 0, 0, "measured",
                          "no measured tables %s_{gemm,attention,memory,launch}.csv", t->prefix);
  for (int l = 0; l < t->nlayer; l++)
    if (t->layer[l].line && t->layer[l].ng == 0)
      return weft_error_set(err, WEFT_EINPUT, t->file[WM_FILE_SEQ].file, t->layer[l].line, 1,
                            "name", "layer '%s' has no GEMMs in %s_fp8_layer_gemms_each.csv",
                            t->layer[l].name, t->prefix);
  return WEFT_OK;
}
