/* measured_drop.c — fused attention's slowdown with dropout, from a
 * device's DEVICE_attention_dropout.csv (scripts/measure/attn_dropout.py;
 * docs/zoo.md, "Dropout"): each shape timed at dropout 0 and p, forward and
 * backward; read as the dropout / no-dropout time ratio by shape. */
#include <math.h>
#include <stdlib.h>

#include "model/measured_tab.h"

static int dbl_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double weft_measured_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof v[0], dbl_cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each p > 0 row over the p = 0 row of its shape, then one row per
 * (backend, head width, seq): the median ratio over its batch x heads
 * shapes (single timings of short kernels are noisy: the median keeps one
 * odd shape from setting the ratio). */
void weft_measured_finish_drop(WeftMeasured *t) {
  WmDrop r[WM_MAX_DROP];
  int n = 0;
  for (int i = 0; i < t->ndrop; i++) {
    const WmDrop *a = &t->drop[i];
    if (!(a->p > 0)) continue;
    for (int j = 0; j < t->ndrop; j++) {
      const WmDrop *z = &t->drop[j];
      if (z->p == 0 && z->backend == a->backend && z->b_heads == a->b_heads &&
          z->seq == a->seq && z->head_dim == a->head_dim) {
        r[n] = *a;
        r[n].fwd = a->fwd / z->fwd;
        r[n].bwd = a->bwd / z->bwd;
        n++;
        break;
      }
    }
  }
  int out = 0, done[WM_MAX_DROP] = {0};
  for (int i = 0; i < n; i++) {
    if (done[i]) continue;
    double f[WM_MAX_DROP], b[WM_MAX_DROP];
    int k = 0;
    for (int j = i; j < n; j++)
      if (!done[j] && r[j].backend == r[i].backend && r[j].seq == r[i].seq &&
          r[j].head_dim == r[i].head_dim) {
        f[k] = r[j].fwd;
        b[k++] = r[j].bwd;
        done[j] = 1;
      }
    t->drop[out] = r[i];
    t->drop[out].b_heads = 0;
    t->drop[out].fwd = weft_measured_median(f, k);
    t->drop[out].bwd = weft_measured_median(b, k);
    out++;
  }
  t->ndrop = out;
}

double weft_measured_attention_dropout(const WeftMeasured *t, WeftMeasuredAttn be, int bwd,
                                       double kv_len, double head_dim) {
  if (!t || !(kv_len > 0) || !(head_dim > 0)) return -1;
  if (be == WM_ATTN_TE) { /* cuDNN's rows when there are any, as the attention rows */
    be = WM_ATTN_FLASH;
    for (int i = 0; i < t->ndrop; i++)
      if (t->drop[i].backend == WM_ATTN_CUDNN) be = WM_ATTN_CUDNN;
  }
  double hd = 0;
  for (int i = 0; i < t->ndrop; i++) {
    const WmDrop *a = &t->drop[i];
    if (a->backend == (int)be &&
        (!hd || fabs(log(a->head_dim / head_dim)) < fabs(log(hd / head_dim))))
      hd = a->head_dim;
  }
  const WmDrop *lo = NULL, *hi = NULL;
  for (int i = 0; i < t->ndrop; i++) {
    const WmDrop *a = &t->drop[i];
    if (a->backend != (int)be || a->head_dim != hd) continue;
    if (a->seq <= kv_len && (!lo || a->seq > lo->seq)) lo = a;
    if (a->seq >= kv_len && (!hi || a->seq < hi->seq)) hi = a;
  }
  if (!lo && !hi) return -1;
  double y0 = lo ? (bwd ? lo->bwd : lo->fwd) : 0, y1 = hi ? (bwd ? hi->bwd : hi->fwd) : 0;
  if (!lo) return y1;
  if (!hi || hi->seq == lo->seq) return y0;
  double w = log(kv_len / lo->seq) / log(hi->seq / lo->seq); /* linear in ln(seq) */
  return y0 + w * (y1 - y0);
}
