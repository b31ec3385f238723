/* test_recompute.c — what real runs do: recomputation modes against the
 * paper's formulas, uneven pipeline stages and their 1F1B timeline, the tied
 * embedding's all-reduce, by hand and against a brute-force schedule. */
#include <stdlib.h>
#include <string.h>

#include "model/gen.h"
#include "../test.h"
#include "gen_fixture.h"
#include "weft.h"

/* The tiny GeLU model here is fx_tiny(2, layers, batch) (gen_fixture.h): h 4,
 * s 2, 2 heads, ffn 16, V 8. Per micro-batch of 1 sequence: attention 320
 * FLOPs, of which the core (scores + context) 4bs^2h = 64; MLP 512; logits
 * 2bshV = 128. */

/* Activation memory per NPU, TP-2 (x DP-2), 2 layers, 1 micro-batch in
 * flight (pp = 1), against Korthikanti et al. 2022 at 2-byte activations:
 * s b h = 2*1*4 = 8, a s / h = 1, t = 2:
 *   none, TP        sbh(10 + 24/t + 5as/(ht)) = 8 (10 + 12 + 2.5) = 196  (eq. 2)
 *   none, TP + SP   sbh/t (34 + 5as/h)        = 4 (34 + 5)        = 156  (eq. 3)
 *   selective, SP   sbh/t 34                   = 136                     (sec. 5)
 *   selective, TP   sbh(10 + 24/t)             = 176
 *   full, SP        2 sbh / t                  = 8 (layer inputs)
 * per layer; selective adds one layer's recomputed core in backward
 * (5as^2b/t = 20), full one layer's whole set (196 or 156); the last stage
 * adds the fp32 logits 4 b s V / t = 32. */
static void rc_memory_modes(void) {
  WeftModel m = fx_tiny(2, 2, 4);
  WeftDevice dev = fx_unit_device(1e15);
  static const int n[2] = {2, 2};
  WeftNetwork net = fx_net(2, n, WEFT_RING);
  static const struct {
    int rc, sp;
    double want;
  } cases[] = {
      {WEFT_RECOMPUTE_NONE, 0, 2 * 196 + 32},      {WEFT_RECOMPUTE_NONE, 1, 2 * 156 + 32},
      {WEFT_RECOMPUTE_SELECTIVE, 1, 2 * 136 + 20 + 32},
      {WEFT_RECOMPUTE_SELECTIVE, 0, 2 * 176 + 20 + 32},
      {WEFT_RECOMPUTE_FULL, 1, 2 * 8 + 156 + 32},   {WEFT_RECOMPUTE_FULL, 0, 2 * 16 + 196 + 32},
  };
  WeftWorkload *wl = weft_workload_create();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    WeftParallel par;
    weft_parallel_default(&par);
    par.tp = 2;
    par.dp = 2;
    par.recompute = cases[i].rc;
    par.sequence_parallel = cases[i].sp;
    WeftCommunicator comm;
    WeftGenInfo info;
    WeftError err;
    CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
    CHECK_NEAR(info.mem.activations_bytes, cases[i].want, 1e-12);
  }
  /* TP-2 PP-2 (dp 1, m = 4), no SP, none: the first stage holds 2
   * micro-batches of its layer in flight, 2 x 196 = 392; the last 1 x 196 +
   * 32 = 228: the first is the most loaded. */
  WeftParallel par;
  weft_parallel_default(&par);
  par.tp = 2;
  par.pp = 2;
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(info.memory_stage, 0);
  CHECK_NEAR(info.mem.activations_bytes, 2 * 196, 1e-12);
  weft_workload_free(wl);
}

/* Compute of selective recomputation: the attention's input-grad adds the
 * core's forward (64 FLOPs per micro-batch) and no collective; the MLP is
 * untouched. TP-2 DP-2, m = 2: attention 320, core 64 x 2 / 2 = 64 ns. */
static void rc_selective_compute(void) {
  WeftModel m = fx_tiny(2, 2, 4);
  WeftDevice dev = fx_unit_device(1e15);
  static const int n[2] = {2, 2};
  WeftNetwork net = fx_net(2, n, WEFT_RING);
  WeftParallel par;
  weft_parallel_default(&par);
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 2;
  par.dp = 2;
  par.recompute = WEFT_RECOMPUTE_SELECTIVE;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  const WeftLayer *a = fx_find_layer(wl, "L1.attn"), *f = fx_find_layer(wl, "L1.mlp");
  CHECK(a && f);
  if (a && f) {
    CHECK_NEAR(a->phase[WEFT_PHASE_IG].compute_ns, 320 + 64, 0);
    CHECK_NEAR(a->phase[WEFT_PHASE_IG].size_bytes, 32, 0); /* the TP all-reduce once */
    CHECK_NEAR(f->phase[WEFT_PHASE_IG].compute_ns, 512, 0);
  }
  /* hardware FLOPs: model 21,504 + 4 sequences x 2 layers x 64 */
  CHECK_NEAR(info.hw_flops, 21504 + 512, 1e-12);
  par.recompute = WEFT_RECOMPUTE_FULL; /* the attention's forward again, collective included */
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  a = fx_find_layer(wl, "L1.attn");
  CHECK(a && a->phase[WEFT_PHASE_IG].compute_ns == 640 && a->phase[WEFT_PHASE_IG].size_bytes == 64);
  int mode = -1;
  CHECK_EQ_INT(weft_recompute_parse("selective", &mode, &err), WEFT_OK);
  CHECK_EQ_INT(mode, WEFT_RECOMPUTE_SELECTIVE);
  CHECK_EQ_INT(weft_recompute_parse("some", &mode, &err), WEFT_EINPUT);
  CHECK(!strcmp(weft_recompute_name(WEFT_RECOMPUTE_NONE), "none"));
  weft_workload_free(wl);
}

/* Brute-force 1F1B: every op's start relaxed to max(stage order, input)
 * over the whole DAG until nothing moves (a Bellman-Ford fixpoint, full
 * arrays): independent of the library's work-list and rings. */
static double brute_1f1b(const double *f, const double *b, int pp, int m) {
  int n = 2 * m;
  int *kind = malloc((size_t)(pp * n) * sizeof *kind), *mb = malloc((size_t)(pp * n) * sizeof *mb);
  double *end = calloc((size_t)(pp * n), sizeof *end);
  double *fend = calloc((size_t)(pp * m), sizeof *fend), *bend = calloc((size_t)(pp * m), sizeof *bend);
  double T = -1;
  if (!kind || !mb || !end || !fend || !bend) goto out;
  for (int k = 0; k < pp; k++) {
    int w = pp - 1 - k < m ? pp - 1 - k : m, j = 0, nf = 0, nb = 0;
    for (; nf < w; nf++, j++) kind[k * n + j] = 0, mb[k * n + j] = nf;
    while (nf < m) {
      kind[k * n + j] = 0, mb[k * n + j++] = nf++;
      kind[k * n + j] = 1, mb[k * n + j++] = nb++;
    }
    while (nb < m) kind[k * n + j] = 1, mb[k * n + j++] = nb++;
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (int k = 0; k < pp; k++)
      for (int j = 0; j < n; j++) {
        int i = mb[k * n + j], isb = kind[k * n + j];
        double start = j ? end[k * n + j - 1] : 0;
        if (!isb && k > 0 && fend[(k - 1) * m + i] > start) start = fend[(k - 1) * m + i];
        if (isb && k < pp - 1 && bend[(k + 1) * m + i] > start) start = bend[(k + 1) * m + i];
        double e = start + (isb ? b[k] : f[k]);
        if (e != end[k * n + j]) {
          end[k * n + j] = e;
          (isb ? bend : fend)[k * m + i] = e;
          changed = 1;
        }
      }
  }
  T = 0;
  for (int k = 0; k < pp; k++)
    if (end[k * n + n - 1] > T) T = end[k * n + n - 1];
out:
  free(kind);
  free(mb);
  free(end);
  free(fend);
  free(bend);
  return T;
}

/* 7 layers on 3 stages (2, 3, 2), 4 micro-batches, forward 1 and backward 2
 * per layer, the last stage's logits adding l to its forward and 2l to its
 * backward. 1F1B orders (w = warm-up forwards):
 *   stage 0 (w 2): F0 F1 F2 B0 F3 B1 B2 B3
 *   stage 1 (w 1): F0 F1 B0 F2 B1 F3 B2 B3
 *   stage 2 (w 0): F0 B0 F1 B1 F2 B2 F3 B3
 * By hand (l <= 1): S0 F0-F2 end 2, 4, 6; S1 F0 [2,5], F1 [5,8]; S2 F0
 * [5,7+l], B0 [7+l,11+3l]; S1 B0 [11+3l,17+3l], F2 [17+3l,20+3l]; S2 F1
 * [11+3l,13+4l], B1 [13+4l,17+6l]; S0 B0 [17+3l,21+3l], F3 [21+3l,23+3l];
 * S1 B1 [20+3l,26+3l], F3 [26+3l,29+3l]; S2 F2 [20+3l,22+4l], B2
 * [22+4l,26+6l], F3 [29+3l,31+4l], B3 [31+4l,35+6l]; S1 B2 [29+3l,35+3l],
 * B3 [35+6l,41+6l]; S0 B1 [26+3l,30+3l], B2 [35+3l,39+3l], B3 [41+6l,45+6l].
 * T = 45 + 6l: the middle stage (9 per micro-batch) sets the pace. */
static void rc_1f1b_by_hand(void) {
  static const double f0[3] = {2, 3, 2}, b0[3] = {4, 6, 4};
  static const double f1[3] = {2, 3, 2.25}, b1[3] = {4, 6, 4.5};
  double T = 0;
  CHECK_EQ_INT(weft_gen_1f1b(f0, b0, 3, 4, &T), WEFT_OK);
  CHECK_NEAR(T, 45, 0);
  CHECK_EQ_INT(weft_gen_1f1b(f1, b1, 3, 4, &T), WEFT_OK);
  CHECK_NEAR(T, 45 + 6 * 0.25, 0);
  /* uniform stages: (pp + m - 1)(f + b) */
  static const double fu[4] = {1, 1, 1, 1}, bu[4] = {2, 2, 2, 2};
  CHECK_EQ_INT(weft_gen_1f1b(fu, bu, 4, 8, &T), WEFT_OK);
  CHECK_NEAR(T, (4 + 8 - 1) * 3, 0);
  CHECK_EQ_INT(weft_gen_1f1b(fu, bu, 4, 2, &T), WEFT_OK); /* m < pp */
  CHECK_NEAR(T, (4 + 2 - 1) * 3, 0);
  CHECK_EQ_INT(weft_gen_1f1b(fu, bu, 0, 2, &T), WEFT_EINVAL);
  /* equal stages, the last heavier (the generator's closed form):
   * T = (pp - 1)(f + b) + m (f_L + b_L) */
  static const double fe[5] = {2, 2, 2, 2, 3}, be[5] = {3, 3, 3, 3, 7};
  for (int m = 1; m <= 12; m++) {
    CHECK_EQ_INT(weft_gen_1f1b(fe, be, 5, m, &T), WEFT_OK);
    CHECK_NEAR(T, 4 * 5 + m * 10, 0);
    CHECK_NEAR(T, brute_1f1b(fe, be, 5, m), 0);
  }
  /* many micro-batches: the steady rounds are skipped, the answer is the same */
  CHECK_EQ_INT(weft_gen_1f1b(fe, be, 5, 100000, &T), WEFT_OK);
  CHECK_NEAR(T, 4 * 5 + 100000.0 * 10, 0);
  CHECK_EQ_INT(weft_gen_1f1b(f1, b1, 3, 1000, &T), WEFT_OK); /* the middle stage paces: 9 a round */
  double T1 = 0;
  CHECK_EQ_INT(weft_gen_1f1b(f1, b1, 3, 999, &T1), WEFT_OK);
  CHECK_NEAR(T - T1, 9, 0);
  /* random stages against the brute force (seeded LCG) */
  unsigned long long x = 12345;
  for (int it = 0; it < 300; it++) {
    double f[9], b[9];
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    int pp = 1 + (int)((x >> 33) % 9), m = 1 + (int)((x >> 20) % 40);
    for (int k = 0; k < pp; k++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      f[k] = 1 + (double)((x >> 33) % 7);
      b[k] = 2 * f[k] + (double)((x >> 40) % 3);
    }
    double want = brute_1f1b(f, b, pp, m);
    CHECK_EQ_INT(weft_gen_1f1b(f, b, pp, m, &T), WEFT_OK);
    CHECK_NEAR(T, want, 0);
  }
}

/* The generator on 7 layers, 3 stages, 4 micro-batches (tp = dp = 1): the
 * stages are 2, 3, 2; the middle one is the slowest (3 layers, 3 x 832 =
 * 2496 forward FLOPs vs 2 x 832 + 128 for the last). In layer units c = 832
 * FLOPs the logits are l = 128/832, so T = 45c + 6 x 128 = 38,208 FLOPs and
 * the middle stage's work repeats R = 38,208 / (3 x 2496) times: its
 * attention entries take round(320 R) ns, its layers are L3..L5, and the
 * workload has neither the embedding nor the logits. */
static void rc_uneven_generator(void) {
  WeftModel m = fx_tiny(2, 7, 4);
  WeftDevice dev = fx_unit_device(1e15);
  static const int n[1] = {3};
  WeftNetwork net = fx_net(1, n, WEFT_RING);
  WeftParallel par;
  weft_parallel_default(&par);
  par.pp = 3;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  const double R = 38208.0 / 7488;
  CHECK_EQ_INT(info.microbatches, 4);
  CHECK_EQ_INT(info.critical_stage, 1);
  CHECK_EQ_INT(info.layers_per_stage, 3);
  CHECK_NEAR(info.pipeline_repeats, R, 1e-12);
  const WeftLayer *a = fx_find_layer(wl, "L3.attn");
  CHECK(a && a->phase[WEFT_PHASE_FWD].compute_ns == round(320 * R));
  CHECK(fx_find_layer(wl, "L5.mlp") && !fx_find_layer(wl, "L6.attn") && !fx_find_layer(wl, "L2.mlp"));
  CHECK(!fx_find_layer(wl, "logits") && !fx_find_layer(wl, "embedding") && fx_find_layer(wl, "pipeline"));
  /* explicit stages: 1, 5, 1 -> the middle again, layers 2..6 */
  static const int sl[3] = {1, 5, 1};
  par.stage_layers = sl;
  par.nstage_layers = 3;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(info.layers_per_stage, 5);
  CHECK(fx_find_layer(wl, "L2.attn") && fx_find_layer(wl, "L6.mlp") && !fx_find_layer(wl, "L7.attn"));
  static const int bad[3] = {1, 5, 2}; /* 8 layers */
  par.stage_layers = bad;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "pp_layers"));
  par.nstage_layers = 2;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  weft_workload_free(wl);
}

/* Balanced stages: floor/ceil with the lighter stages at the ends (first,
 * last, second, ...): BLOOM-176B's 70 layers on 12 stages are 5, 6 x 10, 5;
 * Llama 3 405B's 126 on 16 are 7, 8 x 14, 7; 9 on 4 are 2, 2, 3, 2. */
static void rc_balanced_stages(void) {
  int s[16];
  WeftError err;
  CHECK_EQ_INT(weft_stage_layers_balanced(70, 12, s, &err), WEFT_OK);
  for (int k = 0; k < 12; k++) CHECK_EQ_INT(s[k], k == 0 || k == 11 ? 5 : 6);
  CHECK_EQ_INT(weft_stage_layers_balanced(126, 16, s, &err), WEFT_OK);
  for (int k = 0; k < 16; k++) CHECK_EQ_INT(s[k], k == 0 || k == 15 ? 7 : 8);
  CHECK_EQ_INT(weft_stage_layers_balanced(9, 4, s, &err), WEFT_OK);
  CHECK(s[0] == 2 && s[1] == 2 && s[2] == 3 && s[3] == 2);
  CHECK_EQ_INT(weft_stage_layers_balanced(96, 8, s, &err), WEFT_OK);
  for (int k = 0; k < 8; k++) CHECK_EQ_INT(s[k], 12);
  CHECK_EQ_INT(weft_stage_layers_balanced(3, 4, s, &err), WEFT_EINPUT);
}

/* A BLOOM-176B-like model (70 layers, h 14336, 112 heads, V 250,880, s 2048)
 * on TP-1 PP-12: accepted (was "pp does not divide the layers"). The last
 * stage (5 layers + logits, 2V/(24h + 4s) = 1.43 layers' worth) is the
 * slowest: the workload holds layers 66..70 and the logits. */
static void rc_bloom_accepted(void) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "bloom-like");
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = 24;
  m.seq_len = 2048;
  m.layers = 70;
  m.hidden = 14336;
  m.heads = 112;
  m.vocab = 250880;
  m.ffn_matrices = 2;
  m.attention_dropout = m.hidden_dropout = 0.1; /* Korthikanti's count: with the masks */
  WeftDevice dev = fx_unit_device(1e15);
  static const int n[1] = {12};
  WeftNetwork net = fx_net(1, n, WEFT_RING);
  WeftParallel par;
  weft_parallel_default(&par);
  par.pp = 12;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(info.critical_stage, 11);
  CHECK_EQ_INT(info.layers_per_stage, 5);
  CHECK(fx_find_layer(wl, "L66-70.attn") && fx_find_layer(wl, "logits"));
  /* Memory: a layer holds 12h^2 + 13h = 2,466,437,120 parameters (16 bytes
   * each with Adam) and sbh(34 + 5as/h) = 3,347,054,592 activation bytes per
   * micro-batch. Stage 0: 5 layers + the embedding (V h + s h), 12
   * micro-batches in flight: 456.15 GB; stage 1: 6 layers, 11 in flight:
   * 457.68 GB; the last: 5 layers + the output copy, 1 in flight + the fp32
   * logits: 273.65 GB. The second stage is the most loaded. */
  CHECK_EQ_INT(info.memory_stage, 1);
  CHECK_NEAR(info.mem.total_bytes, 6 * 2466437120.0 * 16 + 66 * 3347054592.0, 1e-12);
  weft_workload_free(wl);
}

/* The tied embedding's gradient all-reduce ("emb", 2 NPUs: the first and
 * last stage) exists only with pp > 1 and a tied (GeLU-family) model: V h / t
 * x 2 bytes = 64 bytes on the logits entry for the tiny model. */
static void rc_tied_allreduce(void) {
  WeftModel m = fx_tiny(2, 2, 4);
  WeftDevice dev = fx_unit_device(1e15);
  static const int n[2] = {2, 2};
  WeftNetwork net = fx_net(2, n, WEFT_RING);
  WeftWorkload *wl = weft_workload_create();
  for (int pp = 1; pp <= 2; pp++)
    for (int swiglu = 0; swiglu <= 1; swiglu++) {
      m.ffn_matrices = swiglu ? 3 : 2;
      WeftParallel par;
      weft_parallel_default(&par);
      par.pp = pp;
      par.dp = 4 / pp;
      WeftCommunicator comm;
      WeftGenInfo info;
      WeftError err;
      CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
      int g = fx_group(wl, "emb");
      if (pp == 2 && !swiglu) {
        const WeftLayer *l = fx_find_layer(wl, "logits.2");
        CHECK(g > 0 && l);
        if (l) {
          CHECK_EQ_INT(l->phase[WEFT_PHASE_WG].coll, WEFT_COLL_ALLREDUCE);
          CHECK_EQ_INT(l->phase[WEFT_PHASE_WG].group, g);
          CHECK_NEAR(l->phase[WEFT_PHASE_WG].size_bytes, 8 * 4 * 2, 0);
        }
        const int *span = weft_communicator_find(&comm, "emb");
        CHECK(span && span[0] == 2 && span[1] == -1); /* PP spans dim 1 (tp 1: [2, -1]) */
      } else {
        CHECK_EQ_INT(g, -1);
      }
    }
  weft_workload_free(wl);
}

const TestCase suite_recompute[] = {
    {"recompute/memory_modes", rc_memory_modes},
    {"recompute/selective_compute", rc_selective_compute},
    {"recompute/1f1b_by_hand", rc_1f1b_by_hand},
    {"recompute/uneven_generator", rc_uneven_generator},
    {"recompute/balanced_stages", rc_balanced_stages},
    {"recompute/bloom_accepted", rc_bloom_accepted},
    {"recompute/tied_allreduce", rc_tied_allreduce},
    {0, 0},
};
