/* dimres.c — dimension fidelity: each dim is one resource of B_d bytes/ns
 * per NPU, shared equally by the transfers on it (processor sharing: each
 * keeps the bytes it has left; a collective sends one chunk on a dim at a
 * time, so a dim holds a transfer or two). */
#include <math.h>
#include <stdlib.h>

#include "sim/sim.h"

/* A transfer is done when what it has left is within this fraction of its
 * bytes: the rounding of its own bookkeeping, never a share of the clock
 * (1e-9 of a 1 GB transfer is a byte). */
#define DIM_DONE_REL 1e-9
/* ... or when its end is within this many units in the last place of the
 * clock: a double cannot place it apart from now (at 1e18 ns, 128 ns a unit). */
#define DIM_CLOCK_ULPS 2

typedef struct {
  int *id;            /* active transfers: xfer ids ... */
  double *left;       /* ... the bytes each has still to send ... */
  double *size;       /* ... and its bytes in all */
  int n, cap;
  double last_ns;     /* when left[] was last brought up to date */
  double bw;
} Dim;

typedef struct {
  SimRes base;  /* first: the SimRes pointer is this struct's */
  int ndims;
  Dim dim[WEFT_MAX_DIMS];
} DimRes;

static double dim_next(const Dim *d) {
  if (!d->n) return HUGE_VAL;
  double f = d->left[0];
  for (int i = 1; i < d->n; i++) f = fmin(f, d->left[i]);
  return d->last_ns + f * d->n / d->bw;
}

static double next(SimRes *r) {
  DimRes *dr = (DimRes *)r;
  double t = HUGE_VAL;
  for (int k = 0; k < dr->ndims; k++) t = fmin(t, dim_next(&dr->dim[k]));
  return t;
}

/* Is transfer i of d done at t_ns (d brought up to t_ns)? */
static int dim_done(const Dim *d, int i, double t_ns) {
  double clock_ns = DIM_CLOCK_ULPS * (nextafter(t_ns, HUGE_VAL) - t_ns);
  return d->left[i] <= DIM_DONE_REL * d->size[i] || d->left[i] * d->n / d->bw <= clock_ns;
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
      double each = dt * d->bw / d->n; /* processor sharing: an equal share each */
      for (int i = 0; i < d->n; i++) d->left[i] -= each;
      r->dim_busy_ns[k] += dt;
      d->last_ns = t_ns;
    }
    int w = 0;
    for (int i = 0; i < d->n; i++) {
      if (nd < max && dim_done(d, i, t_ns)) {
        done[nd++] = d->id[i];
        r->dim_bytes[k] += d->size[i]; /* its bytes, exactly */
      } else {
        d->id[w] = d->id[i];
        d->left[w] = d->left[i];
        d->size[w++] = d->size[i];
      }
    }
    r->completions += (unsigned long long)(d->n - w);
    d->n = w;
  }
  return nd;
}

static int start(SimRes *r, int xfer, const SimXfer *x, const Stage *s, double t_ns) {
  DimRes *dr = (DimRes *)r;
  Dim *d = &dr->dim[s->dim];
  advance(r, t_ns, NULL, 0); /* every share up to now before it changes */
  if (d->n == d->cap) {
    int nc = d->cap ? 2 * d->cap : 8;
    int *ni = realloc(d->id, (size_t)nc * sizeof *ni);
    if (!ni) return WEFT_ENOMEM;
    d->id = ni;
    double *nl = realloc(d->left, (size_t)nc * sizeof *nl);
    if (!nl) return WEFT_ENOMEM;
    d->left = nl;
    double *ns = realloc(d->size, (size_t)nc * sizeof *ns);
    if (!ns) return WEFT_ENOMEM;
    d->size = ns;
    d->cap = nc;
  }
  double bytes = x->merged ? stage_bytes(s) : stage_step_bytes(s, x->step);
  d->id[d->n] = xfer;
  d->left[d->n] = bytes;
  d->size[d->n++] = bytes;
  return WEFT_OK;
}

static void dimres_free(SimRes *r) {
  DimRes *dr = (DimRes *)r;
  if (!dr) return;
  for (int k = 0; k < dr->ndims; k++) {
    free(dr->dim[k].id);
    free(dr->dim[k].left);
    free(dr->dim[k].size);
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
