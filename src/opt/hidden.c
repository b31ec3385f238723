/* hidden.c — a collective hidden behind compute exposes max(0, s tau + lat -
 * overlap); the sum of such hinges on one pattern is convex piecewise linear
 * in tau, the max of its pieces, so a job's time stays a max of rows. */
#include "opt/hidden.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

int weft_hid_init(HidRows *h, int P) {
  memset(h, 0, sizeof *h);
  h->P = P;
  h->W = P + 1;
  return WEFT_OK;
}

void weft_hid_free(HidRows *h) {
  free(h->pat);
  free(h->beta);
  free(h->S);
  free(h->G);
  free(h->order);
  free(h->rows);
  memset(h, 0, sizeof *h);
}

/* Breakpoints this close are one hinge: a workload's entries round their
 * bytes and overlap to whole units separately, so one kind of collective
 * (a layer's, its accumulation share's) lands on breakpoints a few parts in
 * 1e9 apart; kept apart they would multiply the rows for nothing. Merged,
 * the time moves by at most HID_BETA_REL x the hinge's overlap. */
#define HID_BETA_REL 1e-6

int weft_hid_key(HidRows *h, int pat, double s, double g) {
  double beta = g / s;
  for (int k = 0; k < h->nkey; k++)
    if (h->pat[k] == pat &&
        fabs(h->beta[k] - beta) <= HID_BETA_REL * fmax(fabs(h->beta[k]), fabs(beta)))
      return k;
  if (h->nkey == h->capkey) {
    int nc = h->capkey ? 2 * h->capkey : 8;
    int *np = realloc(h->pat, (size_t)nc * sizeof *np);
    if (np) h->pat = np;
    double *nb = realloc(h->beta, (size_t)nc * sizeof *nb);
    if (nb) h->beta = nb;
    if (!np || !nb) return -1;
    h->capkey = nc;
  }
  h->pat[h->nkey] = pat;
  h->beta[h->nkey] = beta;
  return h->nkey++;
}

static int by_pat_beta(const void *x, const void *y, const HidRows *h) {
  int a = *(const int *)x, b = *(const int *)y;
  if (h->pat[a] != h->pat[b]) return h->pat[a] < h->pat[b] ? -1 : 1;
  if (h->beta[a] != h->beta[b]) return h->beta[a] < h->beta[b] ? -1 : 1;
  return a < b ? -1 : a > b;
}

int weft_hid_ready(HidRows *h) {
  size_t n = (size_t)h->nkey + 1;
  h->order = malloc(n * sizeof *h->order);
  h->S = calloc(n, sizeof *h->S);
  h->G = calloc(n, sizeof *h->G);
  if (!h->order || !h->S || !h->G) return WEFT_ENOMEM;
  for (int i = 0; i < h->nkey; i++) h->order[i] = i;
  /* Insertion sort: a job has a handful of distinct hinges. */
  for (int i = 1; i < h->nkey; i++) {
    int v = h->order[i], j = i;
    while (j > 0 && by_pat_beta(&h->order[j - 1], &v, h) > 0) {
      h->order[j] = h->order[j - 1];
      j--;
    }
    h->order[j] = v;
  }
  return WEFT_OK;
}

/* Is row a dominated by row b (b >= a everywhere)? */
static int dominated(const double *a, const double *b, int len) {
  for (int k = 0; k < len; k++)
    if (a[k] > b[k]) return 0;
  return 1;
}

static int keep(HidRows *h, const double *row) {
  size_t W = (size_t)h->W;
  while (h->R > 0 && dominated(h->rows + (size_t)(h->R - 1) * W, row, h->W)) h->R--;
  if (h->R > 0 && dominated(row, h->rows + (size_t)(h->R - 1) * W, h->W)) return WEFT_OK;
  if (h->R == WEFT_HID_MAX_ROWS) return WEFT_EINPUT;
  if (h->R == h->cap) {
    int nc = h->cap ? 2 * h->cap : 16;
    double *nr = realloc(h->rows, (size_t)nc * W * sizeof *nr);
    if (!nr) return WEFT_ENOMEM;
    h->rows = nr;
    h->cap = nc;
  }
  memcpy(h->rows + (size_t)h->R * W, row, W * sizeof *row);
  h->R++;
  return WEFT_OK;
}

int weft_hid_push(HidRows *h, const double *base) {
  int W = h->W, ng = 0, nm = 0;
  double *row = malloc((size_t)W * sizeof *row);
  /* The active hinges with a positive breakpoint (mem), in groups of one
   * pattern each, by breakpoint: (start in mem, count, the piece chosen). */
  int *mem = malloc((size_t)(h->nkey + 1) * 4 * sizeof *mem);
  if (!row || !mem) { free(row); free(mem); return WEFT_ENOMEM; }
  int *gs = mem + h->nkey + 1, *gn = gs + h->nkey + 1, *gi = gn + h->nkey + 1;
  memcpy(row, base, (size_t)W * sizeof *row);
  for (int i = 0; i < h->nkey; i++) {
    int k = h->order[i];
    if (!(h->S[k] > 0.0)) continue;
    if (h->beta[k] <= 0.0) { /* exposed at every tau >= 0: part of the base */
      row[0] -= h->G[k];
      row[1 + h->pat[k]] += h->S[k];
      continue;
    }
    if (ng == 0 || h->pat[mem[gs[ng - 1]]] != h->pat[k]) {
      gs[ng] = nm;
      gn[ng] = 0;
      gi[ng] = 0;
      ng++;
    }
    mem[nm++] = k;
    gn[ng - 1]++;
  }
  double *out = malloc((size_t)W * sizeof *out);
  int rc = out ? WEFT_OK : WEFT_ENOMEM;
  while (!rc) { /* every choice of piece per group (an odometer) */
    memcpy(out, row, (size_t)W * sizeof *out);
    for (int q = 0; q < ng; q++) /* piece gi[q]: its gi[q] lowest breakpoints exposed */
      for (int i = 0; i < gi[q]; i++) {
        int k = mem[gs[q] + i];
        out[0] -= h->G[k];
        out[1 + h->pat[k]] += h->S[k];
      }
    if ((rc = keep(h, out))) break;
    int q = 0;
    while (q < ng && ++gi[q] > gn[q]) gi[q++] = 0;
    if (q == ng) break;
  }
  free(out);
  free(row);
  free(mem);
  return rc;
}
