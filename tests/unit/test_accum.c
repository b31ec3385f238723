/* test_accum.c — gradient accumulation in generated workloads: the layers
 * keep the last micro-batch's backward and 'accumulation' entries the earlier
 * ones'; totals are conserved, and a gradient sync waits for the last
 * micro-batch (docs/zoo.md, "Gradient accumulation"). */
#include <math.h>
#include <string.h>

#include "gen_fixture.h"

typedef struct {
  WeftWorkload *wl;
  WeftCommunicator comm;
  WeftGenInfo info;
} Gen1;

static int gen1(const WeftModel *m, const WeftParallel *par, const WeftNetwork *net, int merged,
                Gen1 *g) {
  static WeftDevice dev;
  dev = fx_unit_device(1e12);
  WeftParallel p = *par;
  p.merged_backward = merged;
  WeftError err;
  memset(g, 0, sizeof *g);
  g->wl = weft_workload_create();
  int rc = weft_generate(m, &dev, &p, net, 0, g->wl, &g->comm, &g->info, &err);
  if (rc) fprintf(stderr, "  generate: %s\n", err.msg);
  return rc;
}

/* Totals over every entry: compute per phase, bytes and calls per (phase,
 * collective, group). */
typedef struct {
  double comp[WEFT_NPHASES];
  double bytes[WEFT_NPHASES][WEFT_NCOLL][WEFT_MAX_GROUPS + 1];
  double calls[WEFT_NPHASES][WEFT_NCOLL][WEFT_MAX_GROUPS + 1];
} Totals;

static void totals(const WeftWorkload *wl, Totals *t) {
  memset(t, 0, sizeof *t);
  for (int i = 0; i < wl->nlayers; i++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      const WeftPhaseSpec *s = &wl->layers[i].phase[ph];
      t->comp[ph] += s->compute_ns;
      if (s->coll == WEFT_COLL_NONE) continue;
      t->bytes[ph][s->coll][s->group] += s->size_bytes;
      t->calls[ph][s->coll][s->group] += weft_phase_calls(s);
    }
}

/* The tiny model's 3 layers over DP 8 (4 micro-batches), merged into a and
 * split into b, on one switch of 8. */
static WeftNetwork dp8_pair(Gen1 *a, Gen1 *b) {
  int n[1] = {8};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  WeftModel m = fx_tiny(16, 3, 32);
  WeftParallel par;
  weft_parallel_default(&par);
  par.dp = 8;
  CHECK_EQ_INT(gen1(&m, &par, &net, 1, a), WEFT_OK);
  CHECK_EQ_INT(gen1(&m, &par, &net, 0, b), WEFT_OK);
  return net;
}

static double eval_time(const WeftNetwork *net, const Gen1 *g, WeftLoop loop, double bw) {
  double b[WEFT_MAX_DIMS] = {bw, bw, bw, bw};
  return fx_eval_time(net, g->wl, &g->comm, loop, b);
}

/* Merged and split workloads of several layouts hold the same work: every
 * phase's compute, every collective's bytes and calls, and so the same
 * no-overlap time; split has the 'accumulation' entry, merged none. */
static void conserves_totals(void) {
  static const struct {
    int tp, pp, dp, vp, zero, sp, layers, batch;
  } cases[] = {
      {1, 1, 8, 1, 0, 0, 4, 32},  /* pure DP, 4 micro-batches */
      {2, 1, 4, 1, 1, 1, 4, 16},  /* TP + SP, ZeRO-1 */
      {1, 1, 8, 1, 3, 0, 4, 32},  /* ZeRO-3: per-micro-batch syncs split too */
      {1, 4, 2, 1, 1, 0, 8, 16},  /* 1F1B: 8 micro-batches */
      {2, 2, 2, 2, 0, 0, 8, 8},   /* interleaved, 2 chunks of 2 layers */
  };
  int n[1] = {8};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    WeftModel m = fx_tiny(16, cases[c].layers, cases[c].batch);
    WeftParallel par;
    weft_parallel_default(&par);
    par.tp = cases[c].tp;
    par.pp = cases[c].pp;
    par.dp = cases[c].dp;
    par.virtual_stages = cases[c].vp;
    par.zero_stage = cases[c].zero;
    par.sequence_parallel = cases[c].sp;
    Gen1 a, b;
    CHECK_EQ_INT(gen1(&m, &par, &net, 1, &a), WEFT_OK);
    CHECK_EQ_INT(gen1(&m, &par, &net, 0, &b), WEFT_OK);
    Totals ta, tb;
    totals(a.wl, &ta);
    totals(b.wl, &tb);
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      CHECK_NEAR(tb.comp[ph], ta.comp[ph], 0);
      for (int k = 0; k < WEFT_NCOLL; k++)
        for (int gi = 0; gi <= WEFT_MAX_GROUPS; gi++) {
          CHECK_NEAR(tb.bytes[ph][k][gi], ta.bytes[ph][k][gi], 0);
          CHECK_NEAR(tb.calls[ph][k][gi], ta.calls[ph][k][gi], 1e-9 * (1 + ta.calls[ph][k][gi]));
        }
    }
    CHECK(!fx_find_layer(a.wl, "accumulation") && fx_find_layer(b.wl, "accumulation"));
    double t0 = eval_time(&net, &a, WEFT_LOOP_NO_OVERLAP, 10);
    CHECK_NEAR(eval_time(&net, &b, WEFT_LOOP_NO_OVERLAP, 10), t0, 1e-9 * t0);
    weft_workload_free(a.wl);
    weft_workload_free(b.wl);
  }
}

/* DP 8, 4 micro-batches, no pipeline: each layer keeps a quarter of its
 * backward compute (rounded) and of its input-grad collectives; its
 * per-iteration gradient all-reduce stays whole in the layer; the rest of
 * the backward is the 'accumulation' entry's, which carries no weight-grad
 * collective. */
static void last_microbatch_by_hand(void) {
  Gen1 a, b;
  dp8_pair(&a, &b);
  CHECK_EQ_INT(b.info.microbatches, 4);
  double moved[WEFT_NPHASES] = {0, 0, 0};
  for (int i = 0; i < a.wl->nlayers; i++) {
    const WeftLayer *x = &a.wl->layers[i], *y = fx_layer(b.wl, x->name);
    CHECK_NEAR(y->phase[WEFT_PHASE_FWD].compute_ns, x->phase[WEFT_PHASE_FWD].compute_ns, 0);
    if (!strcmp(x->name, "optimizer")) continue;
    for (int ph = WEFT_PHASE_IG; ph <= WEFT_PHASE_WG; ph++) {
      CHECK_NEAR(y->phase[ph].compute_ns, round(x->phase[ph].compute_ns / 4), 0);
      moved[ph] += x->phase[ph].compute_ns - y->phase[ph].compute_ns;
    }
    /* the gradient all-reduce: once per iteration, whole, after the last */
    CHECK_NEAR(y->phase[WEFT_PHASE_WG].size_bytes, x->phase[WEFT_PHASE_WG].size_bytes, 0);
  }
  const WeftLayer *acc = fx_layer(b.wl, "accumulation");
  CHECK(moved[WEFT_PHASE_IG] > 0 && moved[WEFT_PHASE_WG] > 0);
  CHECK_NEAR(acc->phase[WEFT_PHASE_IG].compute_ns, moved[WEFT_PHASE_IG], 0);
  CHECK_NEAR(acc->phase[WEFT_PHASE_WG].compute_ns, moved[WEFT_PHASE_WG], 0);
  CHECK_EQ_INT(acc->phase[WEFT_PHASE_FWD].coll, WEFT_COLL_NONE);
  CHECK_EQ_INT(acc->phase[WEFT_PHASE_WG].coll, WEFT_COLL_NONE);
  CHECK(acc->phase[WEFT_PHASE_FWD].compute_ns == 0);
  weft_workload_free(a.wl);
  weft_workload_free(b.wl);
}

/* tp-dp-overlap with the gradient syncs far slower than compute: the
 * iteration is the first sync's start plus every sync. Merged, the first
 * sync (the last entry with one) starts once every micro-batch's backward of
 * the entries from it up is done; split, also after the first three
 * micro-batches' backward of every entry below it. The difference is that
 * backward compute, read off the two workloads. And the split time is never
 * below the merged one nor above no-overlap, at any bandwidth. */
static void sync_waits_for_last_microbatch(void) {
  Gen1 a, b;
  WeftNetwork net = dp8_pair(&a, &b);
  int first = -1; /* the first entry the backward pass syncs */
  for (int i = 0; i < a.wl->nlayers; i++)
    if (a.wl->layers[i].phase[WEFT_PHASE_WG].coll != WEFT_COLL_NONE) first = i;
  CHECK(first > 0);
  double below = 0;
  for (int i = 0; i < first; i++) {
    const WeftLayer *x = &a.wl->layers[i], *y = fx_layer(b.wl, x->name);
    below += x->phase[WEFT_PHASE_IG].compute_ns + x->phase[WEFT_PHASE_WG].compute_ns -
             y->phase[WEFT_PHASE_IG].compute_ns - y->phase[WEFT_PHASE_WG].compute_ns;
  }
  double slow = 1e-9; /* GB/s: the syncs take seconds, the compute microseconds */
  double tm = eval_time(&net, &a, WEFT_LOOP_TP_DP_OVERLAP, slow);
  double ts = eval_time(&net, &b, WEFT_LOOP_TP_DP_OVERLAP, slow);
  CHECK_NEAR(ts - tm, below, 1e-6 * below);
  for (double bw = 1e-6; bw < 1e6; bw *= 10) {
    double m0 = eval_time(&net, &a, WEFT_LOOP_TP_DP_OVERLAP, bw);
    double s0 = eval_time(&net, &b, WEFT_LOOP_TP_DP_OVERLAP, bw);
    double n0 = eval_time(&net, &b, WEFT_LOOP_NO_OVERLAP, bw);
    CHECK(s0 >= m0 * (1 - 1e-12) && s0 <= n0 * (1 + 1e-12));
  }
  weft_workload_free(a.wl);
  weft_workload_free(b.wl);
}

/* Interleaved, pp 2, 2 chunks of 2 layers, 4 micro-batches: R = 4 + 1/2.
 * The last group is pp = 2 micro-batches; each chunk's other one follows its
 * layers as 'chunk<c>.accumulation' (its layers' backward / R each), the rest
 * ((R - 2) / R) is 'accumulation'. */
static void interleaved_chunks(void) {
  int n[1] = {8};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  WeftModel m = fx_tiny(16, 8, 8);
  WeftParallel par;
  weft_parallel_default(&par);
  par.tp = 2;
  par.pp = 2;
  par.dp = 2;
  par.virtual_stages = 2;
  Gen1 a, b;
  CHECK_EQ_INT(gen1(&m, &par, &net, 1, &a), WEFT_OK);
  CHECK_EQ_INT(gen1(&m, &par, &net, 0, &b), WEFT_OK);
  const double R = 4.5;
  int c1 = -1, c2 = -1, l1 = -1, l3 = -1;
  for (int i = 0; i < b.wl->nlayers; i++) {
    const char *nm = b.wl->layers[i].name;
    if (!strcmp(nm, "chunk1.accumulation")) c1 = i;
    if (!strcmp(nm, "chunk2.accumulation")) c2 = i;
  }
  /* the critical stage's layers, in order: chunk 1's two, then chunk 2's */
  for (int i = 0; i < b.wl->nlayers; i++) {
    const char *nm = b.wl->layers[i].name;
    if (strstr(nm, ".attn") && l1 < 0) l1 = i;
    else if (strstr(nm, ".attn") && l1 >= 0 && i > c1 && l3 < 0) l3 = i;
  }
  CHECK(l1 >= 0 && c1 > l1 && l3 > c1 && c2 > l3);
  double x = 0; /* chunk 1's layers' merged backward */
  for (int i = l1; i < c1; i++) {
    const WeftLayer *y = fx_layer(a.wl, b.wl->layers[i].name);
    x += y->phase[WEFT_PHASE_IG].compute_ns;
  }
  CHECK_NEAR(b.wl->layers[c1].phase[WEFT_PHASE_IG].compute_ns, x / R, 4);
  CHECK_NEAR(b.wl->layers[c2].phase[WEFT_PHASE_IG].compute_ns,
             b.wl->layers[c1].phase[WEFT_PHASE_IG].compute_ns, 0);
  weft_workload_free(a.wl);
  weft_workload_free(b.wl);
}

/* Sums over a layer's entries ("L<k>." prefix): compute per phase, and the
 * bytes and overlap of phase ph's collectives of type c. */
typedef struct {
  double comp[WEFT_NPHASES], bytes, over;
} LayerSum;

static LayerSum layer_sum(const WeftWorkload *wl, int k, int ph, WeftCollective c) {
  LayerSum r;
  memset(&r, 0, sizeof r);
  char pre[16];
  snprintf(pre, sizeof pre, "L%d.", k);
  for (int i = 0; i < wl->nlayers; i++) {
    const WeftLayer *l = &wl->layers[i];
    if (strncmp(l->name, pre, strlen(pre))) continue;
    for (int q = 0; q < WEFT_NPHASES; q++) r.comp[q] += l->phase[q].compute_ns;
    if (l->phase[ph].coll == c) {
      r.bytes += l->phase[ph].size_bytes;
      r.over += l->phase[ph].overlap_ns;
    }
  }
  return r;
}

/* ZeRO-3, DP 8, 4 micro-batches, whole layers (merged), overlap on: a
 * layer's gradient reduce-scatters are the last micro-batch's alone in
 * weight-grad, whole (a quarter of the blocking ones), and the earlier three
 * micro-batches' one input-grad reduce-scatter hidden under three quarters of
 * the layer's weight-grad compute; its parameter all-gathers hide under the
 * layer's forward / input-grad compute (FSDP's unit: the layer). With slow
 * links the hidden work's compute is all it hides: the no-overlap time falls
 * by exactly the compute the hidden collectives run beside; off, nothing is
 * hidden. */
static void zero3_earlier_reduces_hidden(void) {
  int n[1] = {8};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  WeftModel m = fx_tiny(16, 3, 32);
  WeftParallel par;
  weft_parallel_default(&par);
  par.dp = 8;
  par.zero_stage = 3;
  Gen1 on, off;
  CHECK_EQ_INT(gen1(&m, &par, &net, 1, &on), WEFT_OK);
  WeftParallel q = par;
  q.overlap_grad_reduce = q.overlap_param_gather = 0;
  CHECK_EQ_INT(gen1(&m, &q, &net, 1, &off), WEFT_OK);
  for (int k = 1; k <= 3; k++) {
    LayerSum x = layer_sum(off.wl, k, WEFT_PHASE_WG, WEFT_COLL_REDUCESCATTER);
    LayerSum w = layer_sum(on.wl, k, WEFT_PHASE_WG, WEFT_COLL_REDUCESCATTER);
    LayerSum r = layer_sum(on.wl, k, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER);
    CHECK(x.bytes > 0 && x.comp[WEFT_PHASE_WG] > 0);
    CHECK_NEAR(w.bytes, x.bytes / 4, 2);
    CHECK_NEAR(r.bytes, 0.75 * x.bytes, 2);
    CHECK_NEAR(r.over, 0.75 * x.comp[WEFT_PHASE_WG], 2);
    CHECK_NEAR(w.over, 0, 0);
    for (int ph = WEFT_PHASE_FWD; ph <= WEFT_PHASE_IG; ph++) {
      LayerSum a = layer_sum(off.wl, k, ph, WEFT_COLL_ALLGATHER);
      LayerSum b = layer_sum(on.wl, k, ph, WEFT_COLL_ALLGATHER);
      CHECK(a.bytes > 0 && a.over == 0);
      CHECK_NEAR(b.bytes, a.bytes, 2);
      CHECK_NEAR(b.over, a.comp[ph], 2);
    }
  }
  for (int i = 0; i < off.wl->nlayers; i++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++) CHECK(off.wl->layers[i].phase[ph].overlap_ns == 0);
  double hid = 0;
  for (int i = 0; i < on.wl->nlayers; i++)
    for (int ph = WEFT_PHASE_FWD; ph <= WEFT_PHASE_IG; ph++) hid += on.wl->layers[i].phase[ph].overlap_ns;
  CHECK(hid > 0);
  double slow = 1e-9;
  CHECK_NEAR(eval_time(&net, &off, WEFT_LOOP_NO_OVERLAP, slow) -
                 eval_time(&net, &on, WEFT_LOOP_NO_OVERLAP, slow), hid, 1e-6 * hid);
  for (double bw = 1e-6; bw < 1e6; bw *= 100)
    CHECK(eval_time(&net, &on, WEFT_LOOP_NO_OVERLAP, bw) <=
          eval_time(&net, &off, WEFT_LOOP_NO_OVERLAP, bw) * (1 + 1e-12));
  weft_workload_free(on.wl);
  weft_workload_free(off.wl);
}

const TestCase suite_accum[] = {
    {"accum/conserves_totals", conserves_totals},
    {"accum/last_microbatch_by_hand", last_microbatch_by_hand},
    {"accum/sync_waits_for_last_microbatch", sync_waits_for_last_microbatch},
    {"accum/interleaved_chunks", interleaved_chunks},
    {"accum/zero3_earlier_reduces_hidden", zero3_earlier_reduces_hidden},
    {0, 0},
};
