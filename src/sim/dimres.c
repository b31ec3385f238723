/* dimres.c — dimension fidelity: each dim is one resource of B_d bytes/ns
 * per NPU, shared equally by the transfers on it (processor sharing, kept
 * as virtual time: every active transfer has received V bytes so far). */
#include <math.h>
#include <stdlib.h>

#include "sim/sim.h"

typedef struct {
  int *id;            /* active transfers: xfer ids ... */
  double *fin;        /* ... and the V at which each finishes */
  int n, cap;
  double v, last_ns;  /* bytes each active transfer has got; when V was last moved */
  double bw;
} Dim;

typedef struct {
  SimRes base;  /* first: the SimRes pointer is this struct's */
  int ndims;
  Dim dim[WEFT_MAX_DIMS];
} DimRes;

static double dim_next(const Dim *d) {
  if (!d->n) return HUGE_VAL;
  double f = d->fin[0];
  for (int i = 1; i < d->n; i++) f = fmin(f, d->fin[i]);
  return d->last_ns + (f - d->v) * d->n / d->bw;
}

static double next(SimRes *r) {
  DimRes *dr = (DimRes *)r;
  double t = HUGE_VAL;
  for (int k = 0; k < dr->ndims; k++) t = fmin(t, dim_next(&dr->dim[k]));
  return t;
}

/* Move every dim to t_ns; report the transfers whose share is complete,
 * oldest first within a dim (they were appended in start order). */
static int advance(SimRes *r, double t_ns, int *done, int max) {
  DimRes *dr = (DimRes *)r;
  int nd = 0;
  for (int k = 0; k < dr->ndims; k++) {
    Dim *d = &dr->dim[k];
    if (!d->n) {
      d->last_ns = t_ns;
      continue;
    }
    double dt = t_ns - d->last_ns;
    if (dt > 0) {
      d->v += dt * d->bw / d->n;
      r->dim_bytes[k] += dt * d->bw;
      r->dim_busy_ns[k] += dt;
      d->last_ns = t_ns;
    }
    int w = 0;
    double tol_ns = 1e-12 * fmax(1.0, t_ns); /* rounding of V and of the clock */
    for (int i = 0; i < d->n; i++) {
      if ((d->fin[i] - d->v) * d->n / d->bw <= tol_ns && nd < max) {
        done[nd++] = d->id[i];
      } else {
        d->id[w] = d->id[i];
        d->fin[w++] = d->fin[i];
      }
    }
    r->completions += (unsigned long long)(d->n - w);
    d->n = w;
    if (!w) d->v = 0.0; /* idle: restart V, which bounds its rounding */
  }
  return nd;
}

static int start(SimRes *r, int xfer, const SimXfer *x, const Stage *s, double t_ns) {
  DimRes *dr = (DimRes *)r;
  Dim *d = &dr->dim[s->dim];
  advance(r, t_ns, NULL, 0); /* V up to now before the share changes */
  if (d->n == d->cap) {
    int nc = d->cap ? 2 * d->cap : 8;
    int *ni = realloc(d->id, (size_t)nc * sizeof *ni);
    if (!ni) return WEFT_ENOMEM;
    d->id = ni;
    double *nf = realloc(d->fin, (size_t)nc * sizeof *nf);
    if (!nf) return WEFT_ENOMEM;
    d->fin = nf;
    d->cap = nc;
  }
  double bytes = x->merged ? stage_bytes(s) : stage_step_bytes(s, x->step);
  d->id[d->n] = xfer;
  d->fin[d->n++] = d->v + bytes;
  return WEFT_OK;
}

static void dimres_free(SimRes *r) {
  DimRes *dr = (DimRes *)r;
  if (!dr) return;
  for (int k = 0; k < dr->ndims; k++) {
    free(dr->dim[k].id);
    free(dr->dim[k].fin);
  }
  free(dr);
}

int dimres_create(const WeftNetwork *net, const double *bw_gbps, SimRes **out) {
  DimRes *dr = calloc(1, sizeof *dr);
  if (!dr) return WEFT_ENOMEM;
  dr->base.next = next;
  dr->base.advance = advance;
  dr->base.start = start;
  dr->base.free = dimres_free;
  dr->ndims = net->ndims;
  for (int k = 0; k < net->ndims; k++) dr->dim[k].bw = bw_gbps[k];
  *out = &dr->base;
  return WEFT_OK;
}
