/* linkres.c — link fidelity: every step of a collective is the flows of all
 * NPUs (each in its own group) on the network's NPU graph, routed dimension
 * order and sharing links in the flow engine; a step ends when all its flows
 * have (a barrier over the collective's groups). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

typedef struct {
  int pending, dim;  /* flows of the transfer's step not yet done; its dim */
} XInfo;

typedef struct {
  SimRes base;  /* first: the SimRes pointer is this struct's */
  WeftNetwork net;
  WeftGraph *g;
  WeftFlowSim *fs;
  int N, stride[WEFT_MAX_DIMS];
  XInfo *xi;                      /* per transfer id */
  int capxi;
  int *ready, nready, capready;   /* transfers done, not yet reported */
  long long active[WEFT_MAX_DIMS];  /* flows in flight per dim */
  double last_ns;
  int *path, maxhops;
  long long dim_base[WEFT_MAX_DIMS];  /* first link id of each dim (npu_graph.c's form) */
  int *peer;
  double *pbytes;
} LinkRes;

static int grow(void **p, int *cap, int need, size_t size) {
  if (need <= *cap) return WEFT_OK;
  int nc = *cap ? *cap : 16;
  while (nc < need) nc *= 2;
  void *np = realloc(*p, (size_t)nc * size);
  if (!np) return WEFT_ENOMEM;
  *p = np;
  *cap = nc;
  return WEFT_OK;
}

static double next(SimRes *r) {
  LinkRes *lr = (LinkRes *)r;
  return lr->nready ? weft_flowsim_now(lr->fs) : weft_flowsim_next(lr->fs);
}

static void busy_until(LinkRes *lr, double t) {
  double dt = t - lr->last_ns;
  if (dt > 0)
    for (int d = 0; d < lr->net.ndims; d++)
      if (lr->active[d]) lr->base.dim_busy_ns[d] += dt;
  if (t > lr->last_ns) lr->last_ns = t;
}

static int advance(SimRes *r, double t_ns, int *done, int max) {
  LinkRes *lr = (LinkRes *)r;
  unsigned long long tags[256];
  int nd = 0, k;
  if (!lr->nready) {
    busy_until(lr, t_ns);
    do {
      k = weft_flowsim_advance(lr->fs, t_ns, tags, 256);
      if (k < 0) return k;
      r->completions += (unsigned long long)k;
      for (int i = 0; i < k; i++) {
        int x = (int)tags[i];
        lr->active[lr->xi[x].dim]--;
        if (--lr->xi[x].pending == 0) {
          if (grow((void **)&lr->ready, &lr->capready, lr->nready + 1, sizeof(int)))
            return WEFT_ENOMEM;
          lr->ready[lr->nready++] = x;
        }
      }
    } while (k == 256);
  }
  int k0 = 0;
  while (nd < max && k0 < lr->nready) done[nd++] = lr->ready[k0++]; /* oldest first */
  lr->nready -= k0;
  if (k0 && lr->nready) memmove(lr->ready, lr->ready + k0, (size_t)lr->nready * sizeof *lr->ready);
  return nd;
}

/* The way round a ring dim from NPU v by delta coordinates: the shorter
 * one; a tie goes forward for even flows of a step and backward for odd
 * ones, so a ring algorithm's two directions (and a group of 2 on a ring
 * of 2) use both directions' links, as the dim model assumes. */
static int ring_path(LinkRes *lr, int v, int d, int delta, int odd) {
  int n = lr->net.npus[d], f = ((delta % n) + n) % n, b = (n - f) % n;
  int fwd = f < b || (f == b && !odd), hops = fwd ? f : b;
  int c = v / lr->stride[d] % n;
  for (int h = 0; h < hops; h++) {
    lr->path[h] = (int)(lr->dim_base[d] + 2LL * v + (fwd ? 0 : 1));
    int nc = fwd ? (c + 1) % n : (c + n - 1) % n;
    v += (nc - c) * lr->stride[d];
    c = nc;
  }
  return hops;
}

static int start(SimRes *r, int xfer, const SimXfer *x, const Stage *s, double t_ns) {
  LinkRes *lr = (LinkRes *)r;
  (void)t_ns; /* the driver advanced the flows to t_ns before any start */
  int d = s->dim, nd = lr->net.npus[d], n = s->n, rc;
  if ((rc = grow((void **)&lr->xi, &lr->capxi, xfer + 1, sizeof *lr->xi))) return rc;
  XInfo *xi = &lr->xi[xfer];
  xi->pending = 0;
  xi->dim = d;
  int ms = s->stride; /* member spacing in the dim's coordinates */
  for (int v = 0; v < lr->N; v++) {
    int c = v / lr->stride[d] % nd;
    int m = ms == 1 ? c % n : c / ms, base = ms == 1 ? c - m : c % ms;
    int np = stage_step_peers(s, x->step, m, lr->peer, lr->pbytes);
    for (int i = 0; i < np; i++) {
      if (!(lr->pbytes[i] > 0)) continue;
      int dst = v + (base + lr->peer[i] * ms - c) * lr->stride[d];
      int hops = lr->net.topology[d] == WEFT_RING
                     ? ring_path(lr, v, d, (dst - v) / lr->stride[d], i & 1)
                     : weft_network_route(&lr->net, v, dst, lr->path, lr->maxhops);
      if (hops < 0) return hops;
      if ((rc = weft_flowsim_start(lr->fs, lr->path, hops, lr->pbytes[i], (unsigned long long)xfer)))
        return rc;
      xi->pending++;
      lr->active[d]++;
      lr->base.flows++;
    }
  }
  size_t a = weft_flowsim_active(lr->fs);
  if (a > lr->base.peak_flows) lr->base.peak_flows = a;
  if (!xi->pending) { /* nothing to send: done at once */
    if (grow((void **)&lr->ready, &lr->capready, lr->nready + 1, sizeof(int))) return WEFT_ENOMEM;
    lr->ready[lr->nready++] = xfer;
  }
  return WEFT_OK;
}

/* Bytes per NPU on each dim: what its own outgoing links carried (a switch's
 * down links repeat what the up links brought). */
static void finish(SimRes *r) {
  LinkRes *lr = (LinkRes *)r;
  int nl = weft_graph_nlinks(lr->g);
  for (int d = 0; d < lr->net.ndims; d++) r->dim_bytes[d] = 0.0;
  for (int l = 0; l < nl; l++) {
    int from, d = weft_network_link_dim(&lr->net, l);
    weft_graph_link(lr->g, l, &from, NULL, NULL);
    if (d >= 0 && from < lr->N) r->dim_bytes[d] += weft_flowsim_link_bytes(lr->fs, l);
  }
  for (int d = 0; d < lr->net.ndims; d++) r->dim_bytes[d] /= lr->N;
}

static void linkres_free(SimRes *r) {
  LinkRes *lr = (LinkRes *)r;
  if (!lr) return;
  weft_flowsim_free(lr->fs);
  weft_graph_free(lr->g);
  free(lr->xi);
  free(lr->ready);
  free(lr->path);
  free(lr->peer);
  free(lr->pbytes);
  free(lr);
}

int linkres_create(const WeftNetwork *net, const double *bw_gbps, WeftSharing sharing,
                   SimRes **out, WeftError *err) {
  LinkRes *lr = calloc(1, sizeof *lr);
  if (!lr) return WEFT_ENOMEM;
  lr->base.next = next;
  lr->base.advance = advance;
  lr->base.start = start;
  lr->base.finish = finish;
  lr->base.free = linkres_free;
  lr->net = *net;
  double bw[WEFT_MAX_DIMS];
  int maxn = 2;
  lr->N = 1;
  lr->maxhops = 0;
  long long base = 0;
  for (int d = 0; d < net->ndims; d++) {
    lr->stride[d] = lr->N;
    lr->N *= net->npus[d];
    bw[d] = bw_gbps[d] > 0 ? bw_gbps[d] : 1.0; /* a dim no collective uses: any capacity */
    if (net->npus[d] > maxn) maxn = net->npus[d];
    lr->maxhops += net->topology[d] == WEFT_RING ? net->npus[d] / 2 + 1 : 2;
  }
  for (int d = 0; d < net->ndims; d++) { /* npu_graph.c: base[d+1] = base[d] + N per[d] */
    int per = net->topology[d] == WEFT_FULLY_CONNECTED ? net->npus[d] - 1 : 2;
    lr->dim_base[d] = base;
    base += (long long)lr->N * per;
  }
  int rc = weft_network_graph(net, bw, &lr->g, err);
  if (!rc) rc = weft_flowsim_create(lr->g, sharing, &lr->fs);
  lr->path = malloc((size_t)lr->maxhops * sizeof *lr->path);
  lr->peer = malloc((size_t)maxn * sizeof *lr->peer);
  lr->pbytes = malloc((size_t)maxn * sizeof *lr->pbytes);
  if (!rc && (!lr->path || !lr->peer || !lr->pbytes)) rc = WEFT_ENOMEM;
  if (rc) {
    linkres_free(&lr->base);
    return rc;
  }
  *out = &lr->base;
  return WEFT_OK;
}
