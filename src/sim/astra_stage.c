/* astra_stage.c — one collective as ASTRA-sim 1.0 runs it on its analytical
 * backend: per-dim phases in localBWAware order (reduce-scatter up the dims,
 * an all-reduce on the last one, all-gather back), and each phase's time.
 * The backend has no contention: a message of b bytes over h hops takes
 * trunc(trunc(h L) + b / bw) ns whatever else is sent. A member sends its
 * next message when the previous one it waits for has arrived and been
 * through the endpoint delay E (and, when it reduced, the memory time M:
 * a write and two reads of the message, each trunc(b / 500000) ns). Every
 * phase starts with one E and ends when every NPU is done (a barrier).
 * (Derived from reading ASTRA-sim's source; no code of it is used.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/astra.h"

typedef unsigned long long u64;

static double mem_ns(u64 bytes) { /* a write and two reads */
  return 3.0 * floor((double)bytes / ASTRA_MEM_BYTES_PER_NS);
}

/* Hops between members a and b of a part (coordinates stride apart). */
static int hops(const AstraDim *d, int stride, long long a, long long b) {
  if (d->topology == WEFT_FULLY_CONNECTED) return 1;
  if (d->topology == WEFT_SWITCH) return 2;
  long long x = llabs(a - b) * stride % d->npus;
  return (int)(x < d->npus - x ? x : d->npus - x);
}

/* One message: whole ns, as the backend's integer clock counts it. */
static double msg_ns(const AstraDim *d, int h, u64 bytes) {
  double lat = trunc(h * d->hop_ns);
  return trunc(lat + (double)bytes / d->send_bytes_per_ns);
}

/* The packet rounds of ASTRA-sim's pairwise algorithms (ring, halving-
 * doubling): each message a member receives inserts its next packet; a
 * round is one zero-latency packet then `per_round` others, and only the
 * others of a reduce-scatter, or of an all-reduce's first round, reduce.
 * Insert 0 starts the phase; insert k (1..sends) follows the k-th message.
 * Returns whether insert k reduces, given the state it carries. */
typedef struct {
  long long zero, other;
  int first;
} Rounds;

static int round_next(Rounds *r, long long per_round, AstraKind kind) {
  if (!r->zero && !r->other) {
    r->zero = 1;
    r->other = per_round;
    r->first = !r->first;
  }
  if (r->zero) {
    r->zero--;
    return 0;
  }
  r->other--;
  return kind == AS_RS || (kind == AS_AR && r->first);
}

/* Ring: s messages of msg bytes each to the next member. A member's k-th
 * message waits for the (k-1)-th from its predecessor, so the phase ends
 * after the slowest chain of s consecutive edges of the ring. */
static int ring(const AstraDim *d, const AstraPart *p, AstraKind kind, u64 data, double E,
                double *dur, double *sent, u64 *out) {
  long long n = p->n, s;
  u64 msg = kind == AS_AG ? data : data / (u64)n;
  s = kind == AS_AR ? 2 * (n - 1) : kind == AS_A2A ? n * (n - 1) / 2 : n - 1;
  if (s > 2147483647LL) return WEFT_EINPUT; /* ASTRA-sim counts them in an int */
  double *edge = malloc((size_t)n * sizeof *edge);
  if (!edge) return WEFT_ENOMEM;
  Rounds rd = {0, 0, 0};
  double fixed = 0.0, all = 0.0, best = 0.0, win = 0.0, m = mem_ns(msg);
  for (long long k = 0; k <= s; k++) fixed += E + (round_next(&rd, n - 1, kind) ? m : 0.0);
  for (long long j = 0; j < n; j++) all += edge[j] = msg_ns(d, hops(d, p->stride, j, (j + 1) % n), msg);
  /* s consecutive edges of the cycle: whole turns, then the best r-window */
  long long r = s % n;
  for (long long j = 0; j < r; j++) win += edge[j];
  best = win;
  for (long long j = 0; j < n && r > 0; j++) {
    win += edge[(j + r) % n] - edge[j];
    if (win > best) best = win;
  }
  *dur = fixed + (double)(s / n) * all + best;
  *sent = (double)s * (double)msg;
  *out = kind == AS_RS ? data / (u64)n : kind == AS_AG ? data * (u64)n : data;
  free(edge);
  return WEFT_OK;
}

/* Halving-doubling (n a power of two): message k goes to the member
 * `offset` away; the offset doubles (reduce-scatter, all-reduce's first
 * half) or halves (all-gather, the second half) and the message halves or
 * doubles with it, in whole bytes. Every pair is alike, so one chain. */
static void hd(const AstraDim *d, const AstraPart *p, AstraKind kind, u64 data, double E,
               double *dur, double *sent, u64 *out) {
  int K = 0;
  while ((1 << K) < p->n) K++;
  int s = kind == AS_AR ? 2 * K : K;
  Rounds rd = {0, 0, 0};
  u64 msg = kind == AS_AG ? data : data / 2;
  double off = kind == AS_AG ? p->n / 2 : 1, mult = kind == AS_AG ? 0.5 : 2.0, t = 0.0;
  *sent = 0.0;
  for (int k = 0; k <= s; k++) {
    u64 size = msg;
    int dist = (int)off;
    off = (double)(int)(off * mult);
    msg = (u64)((double)msg / mult);
    if ((int)off == p->n && kind == AS_AR) { /* turn round: halving back */
      mult = 0.5;
      off = (double)(int)(off * mult);
      msg = (u64)((double)msg / mult);
    }
    t += E + (round_next(&rd, K - 1, kind) ? mem_ns(size) : 0.0);
    if (k < s) {
      t += msg_ns(d, hops(d, p->stride, 0, dist), size);
      *sent += (double)size;
    }
  }
  *dur = t;
  *out = kind == AS_RS ? data / (u64)p->n : kind == AS_AG ? data * (u64)p->n : data;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Direct all-reduce with messages of unequal time (a ring dim with
 * latency): every member sends its n-1 messages at E; as they arrive it
 * reduces them (E + M each) and, once all have arrived, sends the n-1
 * results at the later of its k-th such time and the first one after the
 * last arrival; a result is taken when its receiver has posted the
 * matching receive (at its own k-th result send). The phase ends E after
 * the last result has been taken. */
static int direct_ar(const AstraDim *d, const AstraPart *p, u64 msg, double E, double M,
                     double *dur) {
  int n = p->n;
  if (n > ASTRA_DIRECT_MAX_N) return WEFT_EINPUT;
  double *S = malloc((size_t)n * (size_t)(n - 1) * sizeof *S), *a = malloc((size_t)n * sizeof *a);
  if (!S || !a) {
    free(S);
    free(a);
    return WEFT_ENOMEM;
  }
  for (int i = 0; i < n; i++) {
    for (int k = 1; k < n; k++) a[k - 1] = E + msg_ns(d, hops(d, p->stride, i, (i + n - k) % n), msg);
    qsort(a, (size_t)(n - 1), sizeof *a, cmp_double);
    double last = a[n - 2], first_after = HUGE_VAL;
    for (int k = 0; k < n - 1 && first_after == HUGE_VAL; k++)
      if (a[k] + E + M >= last) first_after = a[k] + E + M;
    for (int k = 0; k < n - 1; k++) S[(size_t)i * (size_t)(n - 1) + (size_t)k] = fmax(a[k] + E + M, first_after);
  }
  double end = 0.0;
  for (int j = 0; j < n; j++)
    for (int k = 1; k < n; k++) {
      int src = (j + n - k) % n;
      double arrive = S[(size_t)src * (size_t)(n - 1) + (size_t)(k - 1)] + msg_ns(d, hops(d, p->stride, src, j), msg);
      double taken = fmax(arrive, S[(size_t)j * (size_t)(n - 1) + (size_t)(k - 1)]);
      end = fmax(end, taken + E);
    }
  *dur = end;
  free(S);
  free(a);
  return WEFT_OK;
}

/* Direct: n-1 messages at once, one to every other member. */
static int direct(const AstraDim *d, const AstraPart *p, AstraKind kind, u64 data, double E,
                  double *dur, double *sent, u64 *out) {
  int n = p->n, hmax = 0;
  u64 msg = kind == AS_AG ? data : data / (u64)n;
  for (int k = 1; k < n; k++) {
    int h = hops(d, p->stride, 0, k);
    if (h > hmax) hmax = h;
  }
  double dmax = msg_ns(d, hmax, msg), M = mem_ns(msg);
  int uniform = 1;
  for (int k = 1; k < n && uniform; k++) uniform = msg_ns(d, hops(d, p->stride, 0, k), msg) == dmax;
  *sent = (double)(n - 1) * (double)msg * (kind == AS_AR ? 2.0 : 1.0);
  *out = kind == AS_RS ? data / (u64)n : kind == AS_AG ? data * (u64)n : data;
  if (kind != AS_AR) {
    *dur = E + dmax + E + (kind == AS_RS ? M : 0.0);
    return WEFT_OK;
  }
  if (uniform) {
    *dur = E + dmax + E + M + dmax + E;
    return WEFT_OK;
  }
  return direct_ar(d, p, msg, E, M, dur);
}

/* One phase on one dim for a chunk of data bytes entering it. */
static int phase_time(const AstraJob *job, int dim, const AstraPart *p, AstraKind kind,
                      WeftAlgorithm alg, u64 data, double *dur, double *sent, u64 *out) {
  const AstraDim *d = &job->dim[dim];
  double E = job->endpoint_ns;
  switch (alg) {
    case WEFT_ALG_RING: return ring(d, p, kind, data, E, dur, sent, out);
    case WEFT_ALG_HD: hd(d, p, kind, data, E, dur, sent, out); return WEFT_OK;
    default: return direct(d, p, kind, data, E, dur, sent, out);
  }
}

static int pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

int astra_stages(const AstraJob *job, WeftCollective c, int phase, double size_bytes, int chunks,
                 AstraStage *st, long long *nchunks, WeftError *err) {
  const AstraPart *part = job->part[phase];
  int D = WEFT_MAX_DIMS, dims[WEFT_MAX_DIMS], nd = 0, ns = 0;
  for (int d = 0; d < D; d++)
    if (part[d].n > 1) dims[nd++] = d;
  *nchunks = 0;
  double size = astra_whole(size_bytes);
  if (c == WEFT_COLL_NONE || !(size > 0) || nd == 0) return 0;
  u64 S = (u64)size, cs = S / (u64)chunks;
  if (cs == 0)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "chunks",
                          "a collective of %.0f bytes in %d chunks: ASTRA-sim 1.0 cuts it into "
                          "chunks of size / chunks bytes, 0 here, and never finishes (use at "
                          "most %.0f chunks)",
                          size, chunks, size);
  u64 last = S - (S - 1) / cs * cs;
  *nchunks = (long long)((S + cs - 1) / cs);
  /* localBWAware: an all-reduce reduce-scatters up to its last dim, all-reduces there and
   * all-gathers back down; an all-gather walks the dims outermost first. */
  AstraKind kinds[2 * WEFT_MAX_DIMS];
  int order[2 * WEFT_MAX_DIMS];
  for (int k = 0; k < nd; k++) {
    switch (c) {
      case WEFT_COLL_ALLREDUCE: kinds[ns] = k + 1 < nd ? AS_RS : AS_AR; order[ns++] = dims[k]; break;
      case WEFT_COLL_REDUCESCATTER: kinds[ns] = AS_RS; order[ns++] = dims[k]; break;
      case WEFT_COLL_ALLGATHER: kinds[ns] = AS_AG; order[ns++] = dims[nd - 1 - k]; break;
      default: kinds[ns] = AS_A2A; order[ns++] = dims[k]; break;
    }
  }
  for (int k = nd - 2; k >= 0 && c == WEFT_COLL_ALLREDUCE; k--) {
    kinds[ns] = AS_AG;
    order[ns++] = dims[k];
  }
  for (int v = 0; v < 2; v++) {
    u64 data = v ? last : cs;
    for (int k = 0; k < ns; k++) {
      int d = order[k];
      const AstraPart *p = &part[d];
      WeftAlgorithm alg = job->alg[d];
      if (alg == WEFT_ALG_HD && kinds[k] == AS_A2A) alg = WEFT_ALG_DIRECT; /* as exported */
      if (alg == WEFT_ALG_HD && !pow2(p->n))
        return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "algorithm",
                              "dim %d (%s, %d NPUs): halving-doubling needs a power-of-two "
                              "group, the group spans %d",
                              d + 1, weft_topology_name(job->dim[d].topology), job->dim[d].npus,
                              p->n);
      if (job->dim[d].send_bytes_per_ns <= 0.0)
        return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "bw_gbps",
                              "dim %d carries a collective but has no bandwidth", d + 1);
      AstraStage *s = &st[k];
      s->dim = d;
      s->queue = p->queue;
      s->kind = kinds[k];
      s->alg = alg;
      u64 next = data;
      int rc = phase_time(job, d, p, kinds[k], alg, data, &s->dur_ns[v], &s->bytes[v], &next);
      if (rc == WEFT_EINPUT && alg == WEFT_ALG_RING)
        return weft_error_set(err, rc, "", 0, 0, "algorithm",
                              "dim %d: a ring all-to-all of %d members is n(n-1)/2 messages, past "
                              "ASTRA-sim's int counter",
                              d + 1, p->n);
      if (rc == WEFT_EINPUT)
        return weft_error_set(err, rc, "", 0, 0, "algorithm",
                              "dim %d: a direct all-reduce on a ring dim with latency is timed "
                              "member by member, at most %d of them, the group spans %d",
                              d + 1, ASTRA_DIRECT_MAX_N, p->n);
      if (rc) return rc;
      data = next;
    }
  }
  return ns;
}
