/* stage.c — a collective as per-dim stages (reduce-scatter up the dims,
 * all-gather back down, all-to-all and send-recv per dim) and each stage as
 * an algorithm's steps: ring, direct, halving-doubling (docs/simulate.md). */
#include <stdio.h>

#include "sim/sim.h"

static int pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

static int log2i(int n) {
  int k = 0;
  while ((1 << k) < n) k++;
  return k;
}

static int steps_of(WeftAlgorithm alg, StageKind kind, int n) {
  if (kind == ST_SR) return 1;
  switch (alg) {
    case WEFT_ALG_RING: return n - 1;
    case WEFT_ALG_DIRECT: return 1;
    case WEFT_ALG_HD: return log2i(n);
    default: return 0;
  }
}

double stage_step_bytes(const Stage *s, int k) {
  double x = s->x_bytes, n = s->n;
  if (s->kind == ST_SR) return x;
  switch (s->alg) {
    case WEFT_ALG_RING: return s->kind == ST_AG ? x : x / n;
    case WEFT_ALG_DIRECT: return s->kind == ST_AG ? x * (n - 1) : x * (n - 1) / n;
    case WEFT_ALG_HD:
      if (s->kind == ST_RS) return x / (double)(1 << (k + 1));
      if (s->kind == ST_AG) return x * (double)(1 << k);
      return x / 2;
    default: return 0.0;
  }
}

double stage_bytes(const Stage *s) {
  if (s->alg == WEFT_ALG_RING || s->kind == ST_SR) /* every step alike; n-1 of them can be 2^31 */
    return s->nsteps * stage_step_bytes(s, 0);
  double b = 0.0;
  for (int k = 0; k < s->nsteps; k++) b += stage_step_bytes(s, k);
  return b;
}

int stage_step_peers(const Stage *s, int k, int m, int *peer, double *bytes) {
  int n = s->n;
  double b = stage_step_bytes(s, k);
  if (s->kind == ST_SR) {
    peer[0] = (m + 1) % n;
    bytes[0] = b;
    return 1;
  }
  switch (s->alg) {
    case WEFT_ALG_RING:
      if (s->kind == ST_A2A) { /* step k: the block for member m+k+1, straight there */
        peer[0] = (m + k + 1) % n;
        bytes[0] = b;
        return 1;
      }
      if (n == 2) { /* both directions reach the one neighbour */
        peer[0] = peer[1] = 1 - m;
        bytes[0] = bytes[1] = b / 2;
        return 2;
      }
      peer[0] = (m + 1) % n; /* half each way round: both directions' links */
      peer[1] = (m + n - 1) % n;
      bytes[0] = bytes[1] = b / 2;
      return 2;
    case WEFT_ALG_DIRECT: {
      int c = 0;
      for (int j = 0; j < n; j++)
        if (j != m) {
          peer[c] = j;
          bytes[c++] = b / (n - 1);
        }
      return c;
    }
    case WEFT_ALG_HD: {
      int dist = s->kind == ST_AG ? 1 << k : n >> (k + 1); /* AG doubles up */
      peer[0] = m ^ dist;
      bytes[0] = b;
      return 1;
    }
    default: return 0;
  }
}

static WeftAlgorithm resolve(WeftAlgorithm a, WeftTopology t, int fabric, int n) {
  if (a != WEFT_ALG_DEFAULT) return a;
  if (t == WEFT_RING || fabric != WEFT_SHAPE_TREE) return WEFT_ALG_RING; /* NCCL per rail */
  if (t == WEFT_FULLY_CONNECTED) return WEFT_ALG_DIRECT;
  return pow2(n) ? WEFT_ALG_HD : WEFT_ALG_RING;
}

/* How a group lies in dim d. weft's mapping and LIBRA's communicators lay
 * groups innermost first: a group that starts partway up a split dim and
 * goes on to higher dims holds its outer part (members npus/n apart);
 * otherwise its members are a block of consecutive coordinates. */
static int member_stride(const int *group, const WeftNetwork *net, int d) {
  int lo = -1, hi = -1;
  for (int e = 0; e < net->ndims; e++)
    if (group[e] > 1) {
      if (lo < 0) lo = e;
      hi = e;
    }
  if (d == lo && hi > lo && group[d] < net->npus[d] && net->npus[d] % group[d] == 0)
    return net->npus[d] / group[d];
  return 1;
}

static int add(Stage *st, int *ns, int d, int n, StageKind kind, double x,
               const WeftNetwork *net, const WeftAlgorithm *alg, WeftError *err) {
  Stage *s = &st[(*ns)++];
  s->dim = d;
  s->n = n;
  s->stride = 1;
  s->kind = kind;
  s->alg = resolve(alg[d], net->topology[d], net->fabric[d], n);
  s->x_bytes = x;
  if (s->alg == WEFT_ALG_HD && kind != ST_SR && !pow2(n))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "algorithm",
                          "dim %d (%s, %d NPUs): halving-doubling needs a power-of-two group, "
                          "the group spans %d",
                          d + 1, weft_topology_name(net->topology[d]), net->npus[d], n);
  s->nsteps = steps_of(s->alg, kind, n);
  return WEFT_OK;
}

int stage_build(WeftCollective c, double chunk_bytes, const int *group,
                const WeftNetwork *net, const WeftAlgorithm *alg, Stage *st, WeftError *err) {
  int ns = 0, D = net->ndims, rc = WEFT_OK;
  double s = chunk_bytes;
  switch (c) {
    case WEFT_COLL_NONE: break;
    case WEFT_COLL_ALLREDUCE:
    case WEFT_COLL_REDUCESCATTER:
      for (int d = 0; d < D && !rc; d++)
        if (group[d] > 1) {
          rc = add(st, &ns, d, group[d], ST_RS, s, net, alg, err);
          s /= group[d];
        }
      if (c == WEFT_COLL_REDUCESCATTER) break;
      for (int d = D - 1; d >= 0 && !rc; d--)
        if (group[d] > 1) {
          rc = add(st, &ns, d, group[d], ST_AG, s, net, alg, err);
          s *= group[d];
        }
      break;
    case WEFT_COLL_ALLGATHER:
      for (int d = D - 1; d >= 0 && !rc; d--)
        if (group[d] > 1) {
          rc = add(st, &ns, d, group[d], ST_AG, s, net, alg, err);
          s *= group[d];
        }
      break;
    case WEFT_COLL_ALLTOALL:
    case WEFT_COLL_SENDRECV:
      for (int d = 0; d < D && !rc; d++)
        if (group[d] > 1)
          rc = add(st, &ns, d, group[d], c == WEFT_COLL_ALLTOALL ? ST_A2A : ST_SR, s, net, alg,
                   err);
      break;
  }
  for (int k = 0; k < ns && !rc; k++) st[k].stride = member_stride(group, net, st[k].dim);
  return rc ? rc : ns;
}
