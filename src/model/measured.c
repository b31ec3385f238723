/* measured.c — a device's measured kernel tables (docs/zoo.md, "Measured
 * tables"): read once per process into a fixed set of slots, the GEMM
 * shape model fitted to each type's rows, and the lookups the compute model
 * makes. Slots are written under a lock and never changed once published,
 * so lookups from any thread read them without one. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/gemm_eff.h"
#include "model/measured_tab.h"

static WeftMeasured g_set[WM_MAX_SETS];
static atomic_int g_nset; /* published slots: written under g_lock (release),
                           * read without it (acquire) */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------ GEMM fit */

static double peak_of(const WeftDevice *d, int dt) {
  return dt != WM_BF16 && d->peak_fp8_flops > 0 ? d->peak_fp8_flops : d->peak_flops;
}

/* The device gemm_eff.c sees for a fit p (eff_max, k0, t0_ns) into d. */
static void fit_device(const WeftMeasured *t, const double *p, WeftDevice *d) {
  memset(d, 0, sizeof *d);
  d->sms = t->sms;
  d->tile_m = t->tile_m;
  d->tile_n = t->tile_n;
  d->gemm_efficiency = p[0];
  d->gemm_eff_max = p[0];
  d->gemm_k0 = p[1];
  d->gemm_t0_ns = p[2];
}

static double fitted_ns(const WeftMeasured *t, int dt, double batch, double m, double n,
                        double k) {
  return weft_gemm_ns(&t->fitdev[dt], t->peak[dt], batch, m, n, k);
}
static double burst_ns(const WeftMeasured *t, int dt, int lo, int hi, double batch, double m,
                       double n, double k);

/* Solve the n x n system a x = b (n <= 3) by elimination with partial
 * pivoting; 0 when singular. */
static int solve(double a[3][3], double *b, int n, double *x) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(a[r][c]) > fabs(a[p][c])) p = r;
    if (!(fabs(a[p][c]) > 1e-300)) return 0;
    for (int j = 0; j < n; j++) {
      double s = a[c][j];
      a[c][j] = a[p][j];
      a[p][j] = s;
    }
    double s = b[c];
    b[c] = b[p];
    b[p] = s;
    for (int r = c + 1; r < n; r++) {
      double f = a[r][c] / a[c][c];
      for (int j = c; j < n; j++) a[r][j] -= f * a[c][j];
      b[r] -= f * b[c];
    }
  }
  for (int c = n - 1; c >= 0; c--) {
    double s = b[c];
    for (int j = c + 1; j < n; j++) s -= a[c][j] * x[j];
    x[c] = s / a[c][c];
  }
  return 1;
}

/* The shape model's time is linear in (t0, 1 / eff_max, k0 / eff_max):
 *   time = t0 + (k / s) A / eff_max + A k0 / eff_max,  A = waves 2 rows cols sms / peak
 * (gemm_eff.c). Least squares of the relative error over type dt's rows,
 * with t0 and k0 each kept or held at 0 (the best of the four fits whose
 * figures are all >= 0 and eff_max > 0). */
static void fit_type(WeftMeasured *t, int dt) {
  int lo = t->gemm_from[dt], hi = t->gemm_from[dt + 1];
  double best = HUGE_VAL, bestp[3] = {0, 0, 0};
  for (int use = 0; use < 4 && hi > lo; use++) { /* bit 0: t0, bit 1: k0 */
    int col[3], n = 0;
    col[n++] = 1;
    if (use & 2) col[n++] = 2;
    if (use & 1) col[n++] = 0;
    double a[3][3] = {{0}}, b[3] = {0}, x[3] = {0};
    for (int i = lo; i < hi; i++) {
      const WmGemm *g = &t->gemm[i];
      double tiles = ceil(g->m / t->tile_m) * ceil(g->n / t->tile_n);
      double split = tiles < t->sms ? floor(t->sms / tiles) : 1;
      double A = ceil(tiles * split / t->sms) * 2.0 * t->tile_m * t->tile_n * t->sms /
                 t->peak[dt] * 1e9;
      double f3[3] = {1 / g->ns, A * g->k / split / g->ns, A / g->ns}, f[3];
      for (int c = 0; c < n; c++) f[c] = f3[col[c]];
      for (int r = 0; r < n; r++) {
        for (int c = 0; c < n; c++) a[r][c] += f[r] * f[c];
        b[r] += f[r];
      }
    }
    if (!solve(a, b, n, x)) continue;
    double coef[3] = {0, 0, 0}; /* t0_ns, 1 / eff, k0 / eff */
    for (int c = 0; c < n; c++) coef[col[c]] = x[c];
    if (!(coef[1] > 0) || coef[0] < 0 || coef[2] < 0) continue;
    double p[3] = {1 / coef[1], coef[2] / coef[1], coef[0]}, sse = 0;
    fit_device(t, p, &t->fitdev[dt]);
    for (int i = lo; i < hi; i++) {
      const WmGemm *g = &t->gemm[i];
      double e = fitted_ns(t, dt, 1, g->m, g->n, g->k) / g->ns - 1;
      sse += e * e;
    }
    if (sse < best) {
      best = sse;
      memcpy(bestp, p, sizeof p);
    }
  }
  memcpy(t->fit[dt], bestp, sizeof bestp);
  fit_device(t, bestp, &t->fitdev[dt]);
  for (int i = lo; i < hi; i++) {
    WmGemm *g = &t->gemm[i];
    g->ratio = bestp[0] > 0 ? g->ns / fitted_ns(t, dt, 1, g->m, g->n, g->k) : 1;
  }
}

/* ------------------------------------------------------------------ sorting */

static int cmp3(double a0, double a1, double a2, double b0, double b1, double b2) {
  if (a0 != b0) return a0 < b0 ? -1 : 1;
  if (a1 != b1) return a1 < b1 ? -1 : 1;
  if (a2 != b2) return a2 < b2 ? -1 : 1;
  return 0;
}

static int by_nkm(const void *pa, const void *pb) {
  const WmGemm *a = pa, *b = pb;
  if (a->dt != b->dt) return a->dt - b->dt;
  return cmp3(a->n, a->k, a->m, b->n, b->k, b->m);
}

static int mem_cmp(const void *pa, const void *pb) {
  const WmMem *a = pa, *b = pb;
  if (a->kind != b->kind) return a->kind - b->kind;
  return a->elems < b->elems ? -1 : a->elems > b->elems;
}

/* by_lm's order (qsort has no context argument: the rows in a static, set
 * and read under g_lock by the one loading thread) */
static const WmGemm *g_sort_rows;
static int by_lm_cmp(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  double x = g_sort_rows[a].lm, y = g_sort_rows[b].lm;
  if (x != y) return x < y ? -1 : 1;
  return (a > b) - (a < b);
}

/* GEMM rows sorted, one per shape (the mean time of repeats: shapes that
 * two models share), type ranges and fits. */
static void finish_gemm(WeftMeasured *t) {
  qsort(t->gemm, (size_t)t->ngemm, sizeof t->gemm[0], by_nkm);
  int out = 0;
  for (int i = 0; i < t->ngemm;) {
    int j = i;
    double sum = 0;
    while (j < t->ngemm && by_nkm(&t->gemm[i], &t->gemm[j]) == 0) sum += t->gemm[j++].ns;
    t->gemm[out] = t->gemm[i];
    t->gemm[out++].ns = sum / (j - i);
    i = j;
  }
  t->ngemm = out;
  for (int dt = 0, i = 0; dt <= WM_NDTYPES; dt++) {
    while (i < t->ngemm && t->gemm[i].dt < dt) i++;
    t->gemm_from[dt] = i;
  }
  t->gemm_from[WM_NDTYPES] = t->ngemm;
  for (int i = 0; i < t->ngemm; i++) t->by_lm[i] = i;
  g_sort_rows = t->gemm;
  for (int dt = 0; dt < WM_NDTYPES; dt++) /* each type's range by (ln m, index) */
    qsort(t->by_lm + t->gemm_from[dt], (size_t)(t->gemm_from[dt + 1] - t->gemm_from[dt]),
          sizeof t->by_lm[0], by_lm_cmp);
  for (int dt = 0; dt < WM_NDTYPES; dt++) {
    fit_type(t, dt);
    for (int i = t->gemm_from[dt]; i < t->gemm_from[dt + 1]; i++) {
      const WmGemm *g = &t->gemm[i];
      t->best[dt] = fmax(t->best[dt], 2.0 * g->m * g->n * g->k / g->ns * 1e9);
    }
  }
}

/* Attention rows: the script's FLOPs over the time (the faster of a shape
 * measured twice by one backend). */
static void finish_attn(WeftMeasured *t) {
  int out = 0;
  for (int i = 0; i < t->nattn; i++) {
    WmAttn a = t->attn[i];
    double ns = a.rate; /* measured_csv.c leaves the time here */
    double fl = 4 * a.b_heads * a.seq * a.seq * a.head_dim * (a.bwd ? 2.5 : 1) *
                (a.causal ? 0.5 : 1);
    a.rate = fl / ns * 1e9;
    int j = 0;
    while (j < out && !(t->attn[j].backend == a.backend && t->attn[j].bwd == a.bwd &&
                        t->attn[j].causal == a.causal &&
                        t->attn[j].b_heads == a.b_heads && t->attn[j].seq == a.seq &&
                        t->attn[j].head_dim == a.head_dim))
      j++;
    if (j == out) t->attn[out++] = a;
    else if (a.rate > t->attn[j].rate) t->attn[j] = a;
  }
  t->nattn = out;
}

/* Memory rows: sorted, repeats averaged, and the backward of a norm as
 * its fwd_bwd row less its forward row at the same size. */
static void finish_mem(WeftMeasured *t) {
  qsort(t->mem, (size_t)t->nmem, sizeof t->mem[0], mem_cmp);
  int out = 0;
  for (int i = 0; i < t->nmem;) {
    int j = i;
    double ns = 0, by = 0;
    for (; j < t->nmem && mem_cmp(&t->mem[i], &t->mem[j]) == 0; j++) {
      ns += t->mem[j].ns;
      by += t->mem[j].bytes;
    }
    t->mem[out] = (WmMem){t->mem[i].kind, t->mem[i].elems, by / (j - i), ns / (j - i)};
    out++;
    i = j;
  }
  t->nmem = out;
  out = 0;
  for (int i = 0; i < t->nmem; i++) {
    WmMem r = t->mem[i];
    if (r.kind == WM_RMSNORM_BWD || r.kind == WM_LAYERNORM_BWD) {
      int fwd = r.kind == WM_RMSNORM_BWD ? WM_RMSNORM_FWD : WM_LAYERNORM_FWD, j = 0;
      while (j < t->nmem && !(t->mem[j].kind == fwd && t->mem[j].elems == r.elems)) j++;
      if (j == t->nmem || !(r.ns > t->mem[j].ns) || !(r.bytes > t->mem[j].bytes)) continue;
      r.ns -= t->mem[j].ns;
      r.bytes -= t->mem[j].bytes;
    }
    t->mem[out++] = r;
  }
  t->nmem = out;
}

/* The sustained factor per type: the burst rate of the tables' own GEMM of
 * the sustained run's shape (8192^3, scripts/measure/sustained.py; the
 * fitted model's where not measured) over the median rate of the seconds
 * of the sustained run. fp8_fast without a run of its own takes fp8's. */
#define WM_SUSTAINED_DIM 8192.0
static void finish_sustained(WeftMeasured *t) {
  for (int dt = 0; dt < WM_NDTYPES; dt++) {
    int n = t->nsus[dt], lo = t->gemm_from[dt], hi = t->gemm_from[dt + 1];
    t->slow[dt] = 1;
    if (n == 0 || hi <= lo || !(t->fit[dt][0] > 0)) continue;
    double med = weft_measured_median(t->sus[dt], n);
    double s = WM_SUSTAINED_DIM, ns = burst_ns(t, dt, lo, hi, 1, s, s, s); /* not memoised: the
                                      thread's cache would keep this burst time (slow[] not set) */
    t->slow[dt] = 2 * s * s * s / (ns * 1e-9) / med;
  }
  if (t->nsus[WM_FP8_FAST] == 0) t->slow[WM_FP8_FAST] = t->slow[WM_FP8];
  for (int dt = 0; dt < WM_NDTYPES; dt++) t->slow[dt] /= t->clock;
}

/* FP8 GEMMs in a layer (docs/zoo.md, "FP8 GEMMs in a layer"): the tables
 * time each GEMM alone, back to back with itself; in a layer the GEMMs run
 * one after another (scripts/measure/fp8_layer_gemms.py). For each layer
 * measured in both types, its FP8 over BF16 time measured in sequence over
 * the same ratio of the tables' burst times of its GEMMs (the forward's FP8
 * with fast accumulation, as the script runs it); the factor is their
 * geometric mean (1 without such a layer), unless the device gives one.
 * It multiplies both FP8 types' GEMM times; BF16's are the reference. */
static int finish_fp8_layer(WeftMeasured *t, WeftError *err) {
  t->fp8_layer = 1;
  if (t->fp8_given > 0) {
    t->fp8_layer = t->fp8_given;
    return WEFT_OK;
  }
  double logs = 0;
  int used = 0;
  for (int l = 0; l < t->nlayer; l++) {
    const WmLayer *y = &t->layer[l];
    double tab[2] = {0, 0};
    int ok = y->nseq[0] > 0 && y->nseq[1] > 0;
    for (int g = 0; ok && g < y->ng; g++)
      for (int s = 0; s < 2 && ok; s++) {
        int dt = s == 0 ? WM_BF16 : y->pass[g] == 0 ? WM_FP8_FAST : WM_FP8;
        int lo = t->gemm_from[dt], hi = t->gemm_from[dt + 1];
        ok = hi > lo && t->fit[dt][0] > 0;
        if (ok) tab[s] += burst_ns(t, dt, lo, hi, 1, y->m[g], y->n[g], y->k[g]);
      }
    if (!ok || !(tab[0] > 0 && tab[1] > 0)) continue; /* a type without rows: not this layer */
    double seq = y->seq_ns[1] / y->nseq[1] / (y->seq_ns[0] / y->nseq[0]);
    logs += log(seq / (tab[1] / tab[0]));
    used++;
  }
  if (used) t->fp8_layer = exp(logs / used);
  if (!(t->fp8_layer >= 1.0 / WM_FP8_LAYER_MAX && t->fp8_layer <= WM_FP8_LAYER_MAX))
    return weft_error_set(err, WEFT_EINPUT, t->file[WM_FILE_SEQ].file, 0, 0, "seq_us",
                          "the FP8 layer factor these layers give, %g, is outside [%g, %d]",
                          t->fp8_layer, 1.0 / WM_FP8_LAYER_MAX, WM_FP8_LAYER_MAX);
  return WEFT_OK;
}

/* ------------------------------------------------------------------ the sets */

/* The device's sustained clock over the tables' (1: the same). */
static double clock_of(const WeftDevice *d) {
  return d->measured_clock > 0 ? d->measured_clock : 1;
}

/* Memory-bound kernels' time on d over the tables' (1: the same HBM): the
 * same fraction of a slower or faster HBM's rate. */
static double mem_time_of(const WeftDevice *d) {
  return d->measured_hbm_bytes_per_s > 0 && d->hbm_bytes_per_s > 0
             ? d->measured_hbm_bytes_per_s / d->hbm_bytes_per_s
             : 1;
}

static int same_device(const WeftMeasured *t, const WeftDevice *d) {
  return !strcmp(t->prefix, d->measured) && t->sms == d->sms && t->tile_m == d->tile_m &&
         t->tile_n == d->tile_n && t->peak[WM_BF16] == peak_of(d, WM_BF16) &&
         t->peak[WM_FP8] == peak_of(d, WM_FP8) && t->clock == clock_of(d) &&
         t->mem_time == mem_time_of(d) && t->fp8_given == d->measured_fp8_layer;
}

/* The files of t as they are now still those it read. */
static int unchanged(const WeftMeasured *t) {
  for (int i = 0; i < WM_NFILES; i++) {
    char path[WEFT_PATH_LEN];
    struct stat st;
    if (snprintf(path, sizeof path, "%s_%s.csv", t->prefix, weft_measured_suffix[i]) >=
        (int)sizeof path)
      return 0;
    int there = stat(path, &st) == 0;
    if (there != (t->file[i].file[0] != '\0')) return 0;
    if (there && ((long long)st.st_size != t->file[i].size ||
                  (long long)st.st_mtime != t->file[i].mtime))
      return 0;
  }
  return 1;
}

/* The newest published set for d (NULL: none); with or without g_lock (a
 * slot is written whole before the count that publishes it). */
static const WeftMeasured *find(const WeftDevice *d) {
  for (int i = atomic_load_explicit(&g_nset, memory_order_acquire) - 1; i >= 0; i--)
    if (same_device(&g_set[i], d)) return &g_set[i];
  return NULL;
}

int weft_measured_load(const WeftDevice *d, WeftError *err) {
  if (!d || !d->measured[0]) return WEFT_OK;
  if (d->sms <= 0 || d->tile_m <= 0 || d->tile_n <= 0 || !(d->peak_flops > 0))
    return weft_error_set(err, WEFT_EINPUT, d->measured, 0, 0, "measured",
                          "device '%s' has measured tables but not the per-operator keys "
                          "(sms, tile, ...) they refine",
                          d->name);
  pthread_mutex_lock(&g_lock);
  const WeftMeasured *have = find(d);
  int rc = WEFT_OK;
  if (!have || !unchanged(have)) {
    int n = atomic_load_explicit(&g_nset, memory_order_relaxed); /* only we write it */
    if (n == WM_MAX_SETS) {
      rc = weft_error_set(err, WEFT_EINPUT, d->measured, 0, 0, "measured",
                          "more than %d sets of measured tables in one process", WM_MAX_SETS);
    } else {
      WeftMeasured *t = &g_set[n];
      memset(t, 0, WM_HEAD);
      snprintf(t->prefix, sizeof t->prefix, "%s", d->measured);
      t->sms = d->sms;
      t->tile_m = d->tile_m;
      t->tile_n = d->tile_n;
      for (int dt = 0; dt < WM_NDTYPES; dt++) t->peak[dt] = peak_of(d, dt);
      t->clock = clock_of(d);
      t->mem_time = mem_time_of(d);
      t->fp8_given = d->measured_fp8_layer;
      if (!(rc = weft_measured_read(t, err))) {
        finish_gemm(t);
        finish_attn(t);
        finish_mem(t);
        finish_sustained(t);
        weft_measured_finish_drop(t);
        if (!(rc = finish_fp8_layer(t, err)))
          atomic_store_explicit(&g_nset, n + 1, memory_order_release);
      }
    }
  }
  pthread_mutex_unlock(&g_lock);
  return rc;
}

const WeftMeasured *weft_measured_of(const WeftDevice *d) {
  if (!d || !d->measured[0]) return NULL;
  const WeftMeasured *t = find(d); /* no lock: this is every layer's rates */
  if (t || weft_measured_load(d, NULL)) return t;
  return find(d);
}

/* ------------------------------------------------------------------ lookups */

/* Answers to recent lookups, per thread: a co-design search asks for the
 * same few shapes at every design point, and a lookup searches rows. A set
 * never changes once published, so an entry stays true. */
#define WM_MEMO 8192 /* a power of two */
typedef struct {
  const WeftMeasured *t;
  int what;            /* which lookup */
  double key[6];
  double v;
} WmMemo;
static _Thread_local WmMemo g_memo[WM_MEMO];

/* The entry for (t, what, key[0..5]): *hit 1 when it holds the answer. */
static WmMemo *memo(const WeftMeasured *t, int what, const double *key, int *hit) {
  unsigned long long h = (unsigned long long)(size_t)t ^ ((unsigned long long)what << 56);
  for (int i = 0; i < 6; i++) {
    unsigned long long b;
    memcpy(&b, &key[i], sizeof b);
    h = (h ^ b) * 0x100000001B3ull;
    h ^= h >> 31;
  }
  WmMemo *e = &g_memo[h & (WM_MEMO - 1)];
  *hit = e->t == t && e->what == what && !memcmp(e->key, key, sizeof e->key);
  if (!*hit) {
    e->t = t;
    e->what = what;
    memcpy(e->key, key, sizeof e->key);
  }
  return e;
}


/* Linear interpolation of y in ln(x) between (x0, y0) and (x1, y1). */
static double lerp_log(double x, double x0, double y0, double x1, double y1) {
  if (x1 == x0) return y0;
  return y0 + (y1 - y0) * (log(x) - log(x0)) / (log(x1) - log(x0));
}

/* The measured/fitted ratio at (m, n, k) among type rows [lo, hi) sorted by
 * (n, k, m): the row's own when measured, else the mean of the WM_NEIGHBOURS
 * nearest rows' in (ln m, ln n, ln k), each weighted by 1 / distance
 * (inverse-distance weighting; docs/zoo.md says why this rule). Nearest is
 * by (squared distance, row index), so that ties go to the lower index. The
 * search walks out from ln m through the rows in by_lm order, and stops on a
 * side once that side's ln m gap alone exceeds the fourth distance held: a
 * co-design point looks up shapes no memo has seen, and a scan of every row
 * was most of its time. */
#define WM_NEIGHBOURS 4
static int nearer(double x, int i, double dx, int di) { return x < dx || (x == dx && i < di); }

static double ratio_at(const WeftMeasured *t, int lo, int hi, double m, double n, double k) {
  int a = lo, b = hi;
  while (a < b) { /* the first row whose (n, k, m) >= the query's */
    int mid = (a + b) / 2;
    const WmGemm *g = &t->gemm[mid];
    if (cmp3(g->n, g->k, g->m, n, k, m) < 0) a = mid + 1;
    else b = mid;
  }
  if (a < hi && t->gemm[a].m == m && t->gemm[a].n == n && t->gemm[a].k == k)
    return t->gemm[a].ratio;
  double q[3] = {log(m), log(n), log(k)}, d2[WM_NEIGHBOURS], r[WM_NEIGHBOURS];
  int id[WM_NEIGHBOURS], have = 0;
  a = lo, b = hi;
  while (a < b) { /* the first row in by_lm order whose ln m >= the query's */
    int mid = (a + b) / 2;
    if (t->gemm[t->by_lm[mid]].lm < q[0]) a = mid + 1;
    else b = mid;
  }
  int down = a - 1, up = a; /* the next row below and above */
  for (;;) {
    double gd = down >= lo ? q[0] - t->gemm[t->by_lm[down]].lm : HUGE_VAL;
    double gu = up < hi ? t->gemm[t->by_lm[up]].lm - q[0] : HUGE_VAL;
    int from_up = gu < gd;
    double gap = from_up ? gu : gd;
    if (gap == HUGE_VAL || (have == WM_NEIGHBOURS && gap * gap > d2[have - 1])) break;
    int i = t->by_lm[from_up ? up++ : down--];
    const WmGemm *g = &t->gemm[i];
    double x = (g->lm - q[0]) * (g->lm - q[0]) + (g->ln - q[1]) * (g->ln - q[1]) +
               (g->lk - q[2]) * (g->lk - q[2]);
    if (have == WM_NEIGHBOURS && !nearer(x, i, d2[have - 1], id[have - 1])) continue;
    int j = have < WM_NEIGHBOURS ? have++ : have - 1; /* insert, nearest first */
    while (j > 0 && nearer(x, i, d2[j - 1], id[j - 1])) {
      d2[j] = d2[j - 1];
      r[j] = r[j - 1];
      id[j] = id[j - 1];
      j--;
    }
    d2[j] = x;
    r[j] = g->ratio;
    id[j] = i;
  }
  double sw = 0, sr = 0;
  for (int j = 0; j < have; j++) {
    double w = 1 / sqrt(d2[j]);
    sw += w;
    sr += w * r[j];
  }
  return have ? sr / sw : 1;
}

/* A GEMM's burst time from the rows of type dt [lo, hi): never faster than
 * the fastest measured GEMM (the shape model and its neighbours' ratios can
 * overshoot far from the rows, small m). */
static double burst_ns(const WeftMeasured *t, int dt, int lo, int hi, double batch, double m,
                       double n, double k) {
  double ns = fitted_ns(t, dt, batch, m, n, k) * ratio_at(t, lo, hi, m, n, k);
  return fmax(ns, 2.0 * batch * m * n * k / t->best[dt] * 1e9);
}

double weft_measured_gemm_ns(const WeftMeasured *t, WeftMeasuredDtype dt, double batch, double m,
                             double n, double k) {
  if (!t || dt < 0 || dt >= WM_NDTYPES || !(m > 0) || !(n > 0) || !(k > 0)) return -1;
  int lo = t->gemm_from[dt], hi = t->gemm_from[dt + 1];
  if (hi <= lo || !(t->fit[dt][0] > 0)) return -1;
  int hit;
  WmMemo *e = memo(t, 0, (double[6]){dt, batch, m, n, k, 0}, &hit);
  if (!hit)
    e->v = burst_ns(t, dt, lo, hi, batch, m, n, k) * t->slow[dt] *
           (dt == WM_BF16 ? 1 : t->fp8_layer);
  return e->v;
}

int weft_measured_gemm_fit(const WeftMeasured *t, WeftMeasuredDtype dt, double *p) {
  if (!t || dt < 0 || dt >= WM_NDTYPES || t->gemm_from[dt + 1] <= t->gemm_from[dt]) return 0;
  memcpy(p, t->fit[dt], 3 * sizeof *p);
  return 1;
}

/* |ln(a / b)|: how far apart two sizes are. */
static double dist(double a, double b) { return fabs(log(a / b)); }

/* The row of seq s (head width hd) with batch x heads nearest bh. */
static const WmAttn *attn_at(const WeftMeasured *t, int be, int bwd, int causal, double hd,
                             double s, double bh) {
  const WmAttn *best = NULL;
  for (int i = 0; i < t->nattn; i++) {
    const WmAttn *a = &t->attn[i];
    if (a->backend == be && a->bwd == bwd && a->causal == causal && a->head_dim == hd &&
        a->seq == s && (!best || dist(a->b_heads, bh) < dist(best->b_heads, bh)))
      best = a;
  }
  return best;
}

static double attention_rate(const WeftMeasured *t, WeftMeasuredAttn be, int bwd, int causal,
                             double kv_len, double head_dim, double b_heads);

double weft_measured_attention_ns(const WeftMeasured *t, WeftMeasuredAttn be, int bwd, int causal,
                                  double kv_len, double head_dim, double b_heads, double flops) {
  if (!t || !(kv_len > 0) || !(head_dim > 0) || !(b_heads > 0)) return -1;
  int hit;
  WmMemo *e = memo(t, 1, (double[6]){be, bwd != 0, causal != 0, kv_len, head_dim, b_heads}, &hit);
  if (!hit) e->v = attention_rate(t, be, bwd, causal, kv_len, head_dim, b_heads);
  return e->v > 0 ? flops / e->v * 1e9 * t->slow[WM_BF16] : -1; /* tensor cores, as GEMMs */
}

/* The achieved rate (the script's FLOPs a second) for the query; < 0 none. */
static double attention_rate(const WeftMeasured *t, WeftMeasuredAttn be, int bwd, int causal,
                             double kv_len, double head_dim, double b_heads) {
  bwd = bwd != 0;
  causal = causal != 0;
  if (be == WM_ATTN_TE) { /* cuDNN's rows when there are any */
    be = WM_ATTN_FLASH;
    for (int i = 0; i < t->nattn; i++)
      if (t->attn[i].backend == WM_ATTN_CUDNN) be = WM_ATTN_CUDNN;
  }
  int mask = -1; /* the mask measured: causal's own, else the other */
  for (int i = 0; i < t->nattn && mask != causal; i++)
    if (t->attn[i].backend == (int)be && t->attn[i].bwd == bwd) mask = t->attn[i].causal;
  if (mask < 0) return -1;
  double hd = 0, lo = 0, hi = 0;
  for (int i = 0; i < t->nattn; i++) {
    const WmAttn *a = &t->attn[i];
    if (a->backend == (int)be && a->bwd == bwd && a->causal == mask &&
        (!hd || dist(a->head_dim, head_dim) < dist(hd, head_dim)))
      hd = a->head_dim;
  }
  for (int i = 0; i < t->nattn; i++) {
    const WmAttn *a = &t->attn[i];
    if (a->backend != (int)be || a->bwd != bwd || a->causal != mask || a->head_dim != hd) continue;
    if (a->seq <= kv_len && a->seq > lo) lo = a->seq;
    if (a->seq >= kv_len && (!hi || a->seq < hi)) hi = a->seq;
  }
  const WmAttn *below = lo ? attn_at(t, (int)be, bwd, mask, hd, lo, b_heads) : NULL;
  const WmAttn *above = hi ? attn_at(t, (int)be, bwd, mask, hd, hi, b_heads) : NULL;
  return !below ? above->rate
         : !above ? below->rate
                  : lerp_log(kv_len, below->seq, below->rate, above->seq, above->rate);
}

/* Rows of kind: [*lo, *hi). */
static void mem_rows(const WeftMeasured *t, int kind, int *lo, int *hi) {
  int a = 0;
  while (a < t->nmem && t->mem[a].kind < kind) a++;
  int b = a;
  while (b < t->nmem && t->mem[b].kind == kind) b++;
  *lo = a;
  *hi = b;
}

/* ln(time) linear in ln(x) between the rows around x (x: elements, or
 * bytes with by_bytes); outside them the rate of the nearest row. */
static double mem_time(const WeftMeasured *t, int kind, double x, int by_bytes) {
  int lo, hi;
  if (!t || kind <= WM_MEM_NONE || kind >= WM_NMEM || !(x > 0)) return -1;
  mem_rows(t, kind, &lo, &hi);
  if (hi <= lo) return -1;
#define X_(r) (by_bytes ? (r)->bytes : (r)->elems)
  const WmMem *below = NULL, *above = NULL;
  for (int i = lo; i < hi; i++) {
    const WmMem *r = &t->mem[i];
    if (X_(r) <= x && (!below || X_(r) > X_(below))) below = r;
    if (X_(r) >= x && (!above || X_(r) < X_(above))) above = r;
  }
  if (!below) return above->ns * x / X_(above);
  if (!above) return below->ns * x / X_(below);
  if (X_(above) == X_(below)) return below->ns;
  return exp(lerp_log(x, X_(below), log(below->ns), X_(above), log(above->ns)));
#undef X_
}

/* mem_time through the memo. */
static double mem_time_memo(const WeftMeasured *t, int kind, double x, int by_bytes) {
  if (!t) return -1;
  int hit;
  WmMemo *e = memo(t, 2, (double[6]){kind, x, by_bytes, 0, 0, 0}, &hit);
  if (!hit) e->v = mem_time(t, kind, x, by_bytes);
  return e->v;
}

double weft_measured_mem_ns(const WeftMeasured *t, WeftMeasuredMem kind, double elems) {
  double ns = mem_time_memo(t, (int)kind, elems, 0);
  return ns > 0 ? ns * t->mem_time : ns;
}

double weft_measured_mem_gbps(const WeftMeasured *t, WeftMeasuredMem kind, double bytes) {
  double ns = mem_time_memo(t, (int)kind, bytes, 1);
  return ns > 0 ? bytes / (ns * t->mem_time) : -1;
}

double weft_measured_launch_us(const WeftMeasured *t, int graphs) {
  return t ? t->launch_us[graphs != 0] : -1;
}

int weft_measured_info(const WeftDevice *d, WeftMeasuredInfo *info, WeftError *err) {
  memset(info, 0, sizeof *info);
  info->launch_us[0] = info->launch_us[1] = -1;
  if (!d || !d->measured[0]) return WEFT_OK;
  int rc = weft_measured_load(d, err);
  if (rc) return rc;
  const WeftMeasured *t = weft_measured_of(d);
  if (!t) return weft_error_set(err, WEFT_EINPUT, d->measured, 0, 0, "measured",
                                "measured tables not read");
  for (int i = 0; i < WM_NFILES && i < WEFT_MEASURED_FILES; i++) {
    snprintf(info->file[i], sizeof info->file[i], "%s", t->file[i].file);
    snprintf(info->date[i], sizeof info->date[i], "%s", t->file[i].date);
    info->rows[i] = t->file[i].rows;
  }
  for (int dt = 0; dt < WM_NDTYPES && dt < 3; dt++) memcpy(info->gemm_fit[dt], t->fit[dt], sizeof t->fit[dt]);
  for (int dt = 0; dt < WM_NDTYPES && dt < 3; dt++) info->sustained[dt] = 1 / t->slow[dt];
  info->clock = t->clock;
  info->mem_time = t->mem_time;
  info->fp8_layer = t->fp8_layer;
  info->launch_us[0] = t->launch_us[0];
  info->launch_us[1] = t->launch_us[1];
  return WEFT_OK;
}
