/* test_stream.c — unit tests (suite stream): a co-design evaluated chunk by
 * chunk gives the points of the all-at-once run byte for byte (any chunk,
 * thread and rank count); slices of the enumeration; the streaming summary
 * against the full sort and weft_pareto over every point; a design evaluated
 * again gives its solve's time (both loops). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

#include "../test.h"

#define ZOO "data/zoo"  /* tests run from the repository root */

static uint64_t rng_next(uint64_t *s) {  /* Knuth's MMIX LCG, high bits */
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/* ------------------------------------------------------------ fixture */

typedef struct {
  WeftModel model;
  WeftDevice dev;
  WeftCostModel cost;
  WeftNetwork *nets;
  size_t nnets;
  WeftConstraints cons;
  WeftCodesignSpec sp;
} Fixture;

/* BERT-Large on every Ring x FullyConnected x Switch shape of 32 NPUs (6),
 * tp x pp with tp*pp | 32 (21 pairs), micro-batches 1 and 2, all orders:
 * 6 x 21 x 2 x 6 = 1512 points, under sum = 300, B1 >= B2. */
static int fixture(Fixture *f, WeftLoop loop) {
  static const char *const cons[] = {"sum = 300", "B1 >= B2"};
  memset(f, 0, sizeof *f);
  WeftError err;
  if (weft_zoo_model(ZOO, "bert-large", &f->model, &err) ||
      weft_zoo_device(ZOO, "a100", &f->dev, &err)) {
    fprintf(stderr, "  zoo: %s\n", err.msg);
    return -1;
  }
  static const char *const cls[] = {"A", "B", "C"};
  f->cost.nclasses = 3;
  for (int k = 0; k < 3; k++) {
    WeftCostClass *c = &f->cost.cls[k];
    snprintf(c->name, sizeof c->name, "%s", cls[k]);
    c->link_usd_per_gbps = 1.0 + k;
    c->switch_usd_per_gbps = 2.0;
    c->nic_usd_per_gbps = 3.0;
    c->has_link = c->has_switch = c->has_nic = 1;
  }
  WeftTopology topo[3] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_SWITCH};
  const char names[3][WEFT_NAME_LEN] = {"A", "B", "C"};
  if (weft_network_shapes(topo, names, 3, 32, NULL, &f->nets, &f->nnets, &err)) return -1;
  for (int i = 0; i < 2; i++)
    if (weft_constraints_parse(&f->cons, cons[i], 3, &err)) return -1;
  WeftCodesignSpec *sp = &f->sp;
  sp->model = &f->model;
  sp->device = &f->dev;
  weft_parallel_default(&sp->base);
  sp->nnets = (int)f->nnets;
  sp->nets = f->nets;
  sp->cost = &f->cost;
  sp->cons = &f->cons;
  sp->objective = WEFT_OBJ_PERF;
  sp->loop = loop;
  weft_settings_default(&sp->settings);
  sp->nmb = 2, sp->mb[0] = 1, sp->mb[1] = 2;
  sp->all_orders = 1;
  return 0;
}

/* Every point, all at once, evaluated on one thread. */
static WeftDesignPoint *reference(const Fixture *f, size_t *n) {
  WeftDesignPoint *pts = NULL;
  WeftError err;
  if (weft_codesign_points(&f->sp, &pts, n, &err)) return NULL;
  WeftRunSettings rs;
  weft_run_settings_default(&rs);
  rs.threads = 1;
  if (weft_codesign_run(&f->sp, pts, *n, &rs, &err)) {
    free(pts);
    return NULL;
  }
  return pts;
}

/* ------------------------------------------------------------ slices */

static void test_points_at_slices(void) {
  Fixture f;
  if (fixture(&f, WEFT_LOOP_NO_OVERLAP)) {
    CHECK(0);
    return;
  }
  WeftDesignPoint *all = NULL, *part = malloc(1512 * sizeof *part);
  size_t n = 0, count = 0;
  WeftError err;
  CHECK_EQ_INT(weft_codesign_points(&f.sp, &all, &n, &err), WEFT_OK);
  CHECK_EQ_INT(weft_codesign_count(&f.sp, &count, &err), WEFT_OK);
  CHECK_EQ_INT(n, 1512);
  CHECK_EQ_INT(count, n);
  if (!all || !part || n != 1512) {
    CHECK(0);
    goto done;
  }
  /* every slice, fixed and random: the same bytes as the whole enumeration */
  uint64_t seed = 99;
  size_t cases[][2] = {{0, 1512}, {0, 0}, {1512, 0}, {0, 1}, {1511, 1}, {251, 2}, {252, 1}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0] + 40; c++) {
    size_t first, m;
    if (c < sizeof cases / sizeof cases[0]) {
      first = cases[c][0], m = cases[c][1];
    } else {
      first = rng_next(&seed) % 1512;
      m = rng_next(&seed) % (1512 - first + 1);
    }
    memset(part, 0xAB, 1512 * sizeof *part);  /* every byte must be written */
    CHECK_EQ_INT(weft_codesign_points_at(&f.sp, first, m, part, &err), WEFT_OK);
    CHECK(memcmp(part, all + first, m * sizeof *part) == 0);
  }
  CHECK_EQ_INT(weft_codesign_points_at(&f.sp, 1512, 1, part, &err), WEFT_EINVAL);
  CHECK_EQ_INT(weft_codesign_points_at(&f.sp, 1000, 513, part, &err), WEFT_EINVAL);
  CHECK_EQ_INT(weft_codesign_points_at(&f.sp, 0, 1, NULL, &err), WEFT_EINVAL);
done:
  free(all);
  free(part);
  free(f.nets);
}

/* ------------------------------------------------------------ stream */

typedef struct {
  WeftDesignPoint *out;  /* n points, filled from the chunks */
  size_t n, next;        /* the point the next chunk must start at */
  size_t chunks, stop_after;
  int bad;
} Collect;

static int collect(void *ctx, size_t first, WeftDesignPoint *pts, size_t m) {
  Collect *c = ctx;
  if (first != c->next || first + m > c->n || m == 0) c->bad = 1;
  else memcpy(c->out + first, pts, m * sizeof *pts);
  c->next = first + m;
  return ++c->chunks == c->stop_after ? 42 : 0;
}

static int stream(const Fixture *f, size_t chunk, int threads, size_t rank, size_t nranks,
                  Collect *c) {
  WeftRunSettings rs;
  weft_run_settings_default(&rs);
  rs.threads = threads;
  rs.rank = rank;
  rs.nranks = nranks;
  c->next = c->chunks = 0;
  c->bad = 0;
  WeftError err;
  return weft_codesign_stream(&f->sp, &rs, chunk, collect, c, &err);
}

static void test_stream_identical(void) {
  Fixture f;
  if (fixture(&f, WEFT_LOOP_NO_OVERLAP)) {
    CHECK(0);
    return;
  }
  size_t n = 0;
  WeftDesignPoint *ref = reference(&f, &n), *got = malloc(1512 * sizeof *got),
                  *odd = malloc(1512 * sizeof *odd);
  Collect c = {got, n, 0, 0, 0, 0};
  if (!ref || !got || !odd || n != 1512) {
    CHECK(0);
    goto done;
  }
  size_t bytes = n * sizeof *ref;
  CHECK_EQ_INT(weft_codesign_chunk_size(0, 1), WEFT_CODESIGN_CHUNK);
  CHECK_EQ_INT(weft_codesign_chunk_size(7, 2), 8);
  CHECK_EQ_INT(weft_codesign_chunk_size(5, 3), 6);
  CHECK_EQ_INT(weft_codesign_chunk_size(1, 4), 4);
  static const size_t chunks[] = {1, 7, 100, 1511, 0};
  for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++)
    for (int threads = 1; threads <= 3; threads += 2) {
      memset(got, 0, bytes);
      CHECK_EQ_INT(stream(&f, chunks[k], threads, 0, 1, &c), WEFT_OK);
      CHECK(!c.bad && c.next == n);
      size_t want = chunks[k] ? (n + chunks[k] - 1) / chunks[k] : 1;
      CHECK_EQ_INT(c.chunks, want);
      CHECK(memcmp(got, ref, bytes) == 0);
    }
  /* two ranks, chunk 7 (8 with 2 ranks): rank r evaluates the points i with
   * i % 2 == r and leaves the others as enumerated; merged, the reference */
  Collect c1 = {odd, n, 0, 0, 0, 0};
  CHECK_EQ_INT(stream(&f, 7, 2, 0, 2, &c), WEFT_OK);
  CHECK_EQ_INT(stream(&f, 7, 1, 1, 2, &c1), WEFT_OK);
  CHECK(!c.bad && !c1.bad && c.chunks == 189 && c1.chunks == 189);
  WeftDesignPoint fresh;
  WeftError err;
  CHECK_EQ_INT(weft_codesign_points_at(&f.sp, 1, 1, &fresh, &err), WEFT_OK);
  CHECK(memcmp(&got[1], &fresh, sizeof fresh) == 0);
  for (size_t i = 1; i < n; i += 2) got[i] = odd[i];
  CHECK(memcmp(got, ref, bytes) == 0);
  /* the consumer stops the stream: its code comes back, no chunk after it */
  c.stop_after = 3;
  CHECK_EQ_INT(stream(&f, 100, 1, 0, 1, &c), 42);
  CHECK_EQ_INT(c.chunks, 3);
  CHECK_EQ_INT(stream(&f, 100, 1, 2, 2, &c), WEFT_EINVAL);
done:
  free(ref);
  free(got);
  free(odd);
  free(f.nets);
}

/* ------------------------------------------------------------ summary */

/* The ranking over every point, as the report made it before streaming:
 * OK points by (objective, index); runs of objectives within 1e-9 of the
 * run's first by (cost, index). */
typedef struct {
  double key, cost;
  size_t i;
} Ranked;

static int by_key(const void *a, const void *b) {
  const Ranked *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

static int by_cost(const void *a, const void *b) {
  const Ranked *x = a, *y = b;
  if (x->cost != y->cost) return x->cost < y->cost ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

static size_t oracle_rank(const WeftDesignPoint *pts, size_t n, Ranked *r) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (pts[i].status == WEFT_POINT_OK) r[m++] = (Ranked){pts[i].objective, pts[i].cost_usd, i};
  qsort(r, m, sizeof *r, by_key);
  for (size_t a = 0, b; a < m; a = b) {
    for (b = a + 1; b < m && r[b].key <= r[a].key * (1.0 + 1e-9); b++) {}
    qsort(r + a, b - a, sizeof *r, by_cost);
  }
  return m;
}

#define NPTS 400

static void test_summary_oracle(void) {
  static WeftDesignPoint pts[NPTS];
  static size_t front[NPTS];
  static Ranked rank[NPTS];
  uint64_t seed = 2024;
  for (int trial = 0; trial < 200; trial++) {
    size_t n = trial % 9 == 0 ? (size_t)(trial % 3) : (size_t)(1 + rng_next(&seed) % NPTS);
    int grid = 2 + (int)(rng_next(&seed) % 15);  /* small grids: many exact ties */
    memset(pts, 0, sizeof pts);
    for (size_t i = 0; i < n; i++) {
      WeftDesignPoint *p = &pts[i];
      p->status = (WeftPointStatus)(rng_next(&seed) % 3 == 0 ? rng_next(&seed) % 6 : 0);
      p->net = (int)i;  /* a tag: which point this is */
      p->cost_usd = (double)(1 + rng_next(&seed) % (uint64_t)grid) * 1000.0;
      /* times on a grid, some nudged by less than the 1e-9 tolerance */
      p->time_ns = (double)(1 + rng_next(&seed) % (uint64_t)grid) * 1e6 *
                   (1.0 + 4e-10 * (double)(rng_next(&seed) % 4));
      p->objective = trial % 2 ? p->time_ns : p->time_ns * p->cost_usd;
    }
    size_t m = oracle_rank(pts, n, rank);
    size_t nfront = weft_pareto(pts, n, front);
    static const size_t tops[] = {0, 1, 3, 10, 1000};
    for (size_t t = 0; t < sizeof tops / sizeof tops[0]; t++) {
      WeftCodesignSummary *s = weft_codesign_summary_create(tops[t]);
      if (!s) {
        CHECK(0);
        return;
      }
      for (size_t i = 0; i < n; i++)  /* indices with gaps: 3i + 5 */
        CHECK_EQ_INT(weft_codesign_summary_add(s, 3 * i + 5, &pts[i]), WEFT_OK);
      if (n) CHECK_EQ_INT(weft_codesign_summary_add(s, 3 * (n - 1) + 5, &pts[0]), WEFT_EINVAL);
      CHECK_EQ_INT(weft_codesign_summary_points(s), n);
      for (int st = 0; st < WEFT_POINT_NSTATUS; st++) {
        size_t cnt = 0, first = n;
        for (size_t i = 0; i < n; i++)
          if ((int)pts[i].status == st && cnt++ == 0) first = i;
        CHECK_EQ_INT(weft_codesign_summary_count(s, (WeftPointStatus)st), cnt);
        const WeftIndexedPoint *ex = weft_codesign_summary_example(s, (WeftPointStatus)st);
        CHECK(cnt ? ex && ex->index == 3 * first + 5 && ex->pt.net == (int)first : !ex);
      }
      const WeftIndexedPoint *top = NULL, *fr = NULL;
      size_t k = weft_codesign_summary_top(s, &top);
      CHECK_EQ_INT(k, m < tops[t] ? m : tops[t]);
      for (size_t r = 0; r < k; r++) CHECK(top[r].index == 3 * rank[r].i + 5);
      size_t kf = weft_codesign_summary_front(s, &fr);
      CHECK_EQ_INT(kf, nfront);
      for (size_t r = 0; r < kf && r < nfront; r++) CHECK(fr[r].index == 3 * front[r] + 5);
      weft_codesign_summary_free(s);
    }
  }
  weft_codesign_summary_free(NULL);
}

/* The report's view of a design: evaluated again at its bandwidth, the time
 * and cost of its solve, and at EqualBW its equal_time_ns, under both loops
 * (tp-dp-overlap times need every layer in order, not the compact workload). */
static void test_evaluate_matches_solve(void) {
  for (int loop = 0; loop < 2; loop++) {
    Fixture f;
    if (fixture(&f, loop ? WEFT_LOOP_TP_DP_OVERLAP : WEFT_LOOP_NO_OVERLAP)) {
      CHECK(0);
      return;
    }
    size_t n = 0, checked = 0;
    WeftDesignPoint *pts = reference(&f, &n);
    CHECK(pts != NULL);
    for (size_t i = 0; pts && i < n; i += 37) {
      const WeftDesignPoint *p = &pts[i];
      if (p->status != WEFT_POINT_OK) continue;
      WeftEval ev;
      WeftError err;
      CHECK_EQ_INT(weft_codesign_evaluate(&f.sp, p, p->bw_gbps, &ev, &err), WEFT_OK);
      CHECK_NEAR(ev.time_ns, p->time_ns, 1e-12);
      CHECK_NEAR(ev.cost_usd, p->cost_usd, 1e-12);
      double parts = ev.job[0].compute_ns;
      for (int ph = 0; ph < WEFT_NPHASES; ph++) parts += ev.job[0].exposed_comm_ns[ph];
      CHECK_NEAR(parts, p->time_ns, 1e-12);
      double eq[WEFT_MAX_DIMS] = {p->equal_bw_gbps, p->equal_bw_gbps, p->equal_bw_gbps};
      CHECK(p->equal_bw_gbps > 0);
      CHECK_EQ_INT(weft_codesign_evaluate(&f.sp, p, eq, &ev, &err), WEFT_OK);
      CHECK_NEAR(ev.time_ns, p->equal_time_ns, 1e-12);
      checked++;
    }
    CHECK(checked > 5);
    if (pts) {  /* a point that is not one of this co-design's */
      WeftDesignPoint bad = pts[0];
      WeftEval ev;
      WeftError err;
      bad.net = (int)f.nnets;
      CHECK_EQ_INT(weft_codesign_evaluate(&f.sp, &bad, bad.bw_gbps, &ev, &err), WEFT_EINVAL);
    }
    free(pts);
    free(f.nets);
  }
}

/* Points that are one design (same degrees, every figure equal) are merged,
 * by hand: P3 (90 ms) and P4 (its figures, tp 4) are two designs, index
 * order; at 100 ms P2 (less memory) before {P1, P0} (P1 shown: no
 * recomputation beats selective, whatever the order) before P6 (a
 * bandwidth 1e-3 off); P5 (1e-6 slower) last. */
static WeftDesignPoint hand_point(double time_ns, double mem, int rc, int order_pp_first) {
  WeftDesignPoint p;
  memset(&p, 0, sizeof p);
  weft_parallel_default(&p.par);
  p.par.tp = 2;
  p.par.dp = 4;
  p.par.recompute = rc;
  if (order_pp_first) {  /* PP-TP-DP */
    p.par.order[0] = WEFT_PAR_PP;
    p.par.order[1] = WEFT_PAR_TP;
  }
  p.time_ns = p.objective = time_ns;
  p.cost_usd = 10;
  p.mem_bytes = mem;
  p.bw_gbps[0] = 1;
  p.bw_gbps[1] = 2;
  return p;
}

static void test_summary_merge_by_hand(void) {
  WeftDesignPoint pt[7];
  pt[0] = hand_point(100, 50, WEFT_RECOMPUTE_SELECTIVE, 0);
  pt[1] = hand_point(100, 50, WEFT_RECOMPUTE_NONE, 1);
  pt[2] = hand_point(100, 40, WEFT_RECOMPUTE_FULL, 0);
  pt[3] = hand_point(90, 50, WEFT_RECOMPUTE_NONE, 0);
  pt[3].cost_usd = 20;
  pt[4] = pt[3];
  pt[4].par.tp = 4;
  pt[4].par.dp = 2;
  pt[5] = hand_point(100 * (1 + 1e-6), 50, WEFT_RECOMPUTE_NONE, 0);
  pt[6] = hand_point(100, 50, WEFT_RECOMPUTE_SELECTIVE, 0);
  pt[6].bw_gbps[1] = 2.001;
  static const size_t want[] = {3, 4, 2, 1, 6, 5};
  for (size_t top = 0; top <= 7; top++) {
    WeftCodesignSummary *s = weft_codesign_summary_create(top);
    for (size_t i = 0; i < 7; i++) CHECK_EQ_INT(weft_codesign_summary_add(s, i, &pt[i]), WEFT_OK);
    const WeftIndexedPoint *t, *m;
    size_t k = weft_codesign_summary_top(s, &t);
    CHECK_EQ_INT(k, top < 6 ? top : 6);
    for (size_t r = 0; r < k; r++) CHECK_EQ_INT(t[r].index, want[r]);
    for (size_t r = 0; r < k; r++) {
      size_t n = weft_codesign_summary_same(s, r, &m);
      CHECK_EQ_INT(n, r == 3 ? 2 : 1);
      CHECK_EQ_INT(m[0].index, want[r]);
      if (r == 3 && n == 2) CHECK_EQ_INT(m[1].index, 0);
    }
    CHECK_EQ_INT(weft_codesign_summary_same(s, k + 10, &m), 0);
    weft_codesign_summary_free(s);
  }
}

/* Many points of one design must not crowd the next design out of the top:
 * 200 points of X (100 ms; more than the candidates held before pruning),
 * then Y (101 ms): the top 2 is X (200 points) and Y. And whatever top is
 * asked, the designs listed are the first of the full ranking (pruning
 * changes nothing), on random points with many exact copies. */
static void test_summary_merge_prune(void) {
  WeftCodesignSummary *s = weft_codesign_summary_create(2);
  WeftDesignPoint x = hand_point(100, 50, WEFT_RECOMPUTE_NONE, 0), y = hand_point(101, 50, 0, 0);
  for (size_t i = 0; i < 200; i++) {
    x.par.recompute = (int)(i % 3);
    x.par.zero_stage = (int)(i % 4);
    CHECK_EQ_INT(weft_codesign_summary_add(s, i, &x), WEFT_OK);
  }
  CHECK_EQ_INT(weft_codesign_summary_add(s, 200, &y), WEFT_OK);
  const WeftIndexedPoint *t, *m;
  CHECK_EQ_INT(weft_codesign_summary_top(s, &t), 2);
  CHECK_EQ_INT(t[0].index, 0);  /* recompute none, ZeRO 0: the simplest */
  CHECK_EQ_INT(t[1].index, 200);
  CHECK_EQ_INT(weft_codesign_summary_same(s, 0, &m), 200);
  weft_codesign_summary_free(s);

  static WeftDesignPoint pts[NPTS];
  uint64_t seed = 77;
  for (int trial = 0; trial < 50; trial++) {
    size_t n = 1 + rng_next(&seed) % NPTS;
    for (size_t i = 0; i < n; i++) {
      WeftDesignPoint *p = &pts[i];
      if (i > 0 && rng_next(&seed) % 2) {  /* a copy of an earlier point, other knobs */
        *p = pts[rng_next(&seed) % i];
        p->par.recompute = (int)(rng_next(&seed) % 3);
        p->par.zero_stage = (int)(rng_next(&seed) % 4);
        continue;
      }
      *p = hand_point((double)(1 + rng_next(&seed) % 8) * 1e6, (double)(rng_next(&seed) % 3),
                      (int)(rng_next(&seed) % 3), (int)(rng_next(&seed) % 2));
      p->cost_usd = (double)(1 + rng_next(&seed) % 3);
      p->par.tp = 1 + (int)(rng_next(&seed) % 2);
      p->status = rng_next(&seed) % 5 ? WEFT_POINT_OK : WEFT_POINT_INFEASIBLE;
    }
    WeftCodesignSummary *all = weft_codesign_summary_create(NPTS + 1);
    for (size_t i = 0; i < n; i++) CHECK_EQ_INT(weft_codesign_summary_add(all, i, &pts[i]), WEFT_OK);
    const WeftIndexedPoint *ta;
    size_t na = weft_codesign_summary_top(all, &ta);
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) ok += pts[i].status == WEFT_POINT_OK;
    size_t members = 0;
    for (size_t r = 0; r < na; r++) members += weft_codesign_summary_same(all, r, &m);
    CHECK_EQ_INT(members, ok);  /* every OK point in exactly one design */
    static const size_t tops[] = {1, 2, 5};
    for (size_t q = 0; q < 3; q++) {
      WeftCodesignSummary *s2 = weft_codesign_summary_create(tops[q]);
      for (size_t i = 0; i < n; i++) CHECK_EQ_INT(weft_codesign_summary_add(s2, i, &pts[i]), WEFT_OK);
      const WeftIndexedPoint *tq, *m2;
      size_t nq = weft_codesign_summary_top(s2, &tq);
      CHECK_EQ_INT(nq, na < tops[q] ? na : tops[q]);
      for (size_t r = 0; r < nq; r++) {
        CHECK_EQ_INT(tq[r].index, ta[r].index);
        CHECK_EQ_INT(weft_codesign_summary_same(s2, r, &m2), weft_codesign_summary_same(all, r, &m));
      }
      weft_codesign_summary_free(s2);
    }
    weft_codesign_summary_free(all);
  }
}

const TestCase suite_stream[] = {
    {"stream_summary_merge_by_hand", test_summary_merge_by_hand},
    {"stream_summary_merge_prune", test_summary_merge_prune},
    {"stream_points_at_slices", test_points_at_slices},
    {"stream_identical", test_stream_identical},
    {"stream_summary_oracle", test_summary_oracle},
    {"stream_evaluate_matches_solve", test_evaluate_matches_solve},
    {0, 0},
};
