/* test_layout.c — Megatron-Core's pipeline layout (pp_layout): the string
 * parsed into layers per chunk and its errors; the interleaved 1F1B timeline
 * of unequal chunks in Megatron's order, worked by hand, and exact for equal
 * chunks; the activations in flight along that order; the generator's
 * critical stage, repeats and entries under a layout. */
#include <stdlib.h>
#include <string.h>

#include "model/gen.h"
#include "model/pipeline.h"
#include "../test.h"
#include "gen_fixture.h"
#include "weft.h"

static void stages_of(const int *cl, int pp, int v, int *out) {
  for (int k = 0; k < pp; k++) {
    out[k] = 0;
    for (int c = 0; c < v; c++) out[k] += cl[c * pp + k];
  }
}

/* DeepSeek-V3 on PP-8 x VP-4 (Megatron-Bridge's run_script.py): 'Et|(tt|)*30mL'
 * is 32 chunks, the first 1 layer with the embedding, 30 of 2, the last the
 * MTP layer and the loss with none: stage 0 holds chunks 0, 8, 16, 24 = 1 + 2
 * + 2 + 2 = 7, stage 7 chunks 7, 15, 23, 31 = 2 + 2 + 2 + 0 = 6, the others
 * 8; 61 layers. torchtitan's Llama 3.1 405B on PP-8 x 2 stages a rank: 16
 * stages of 7, 8 x 14, 7 layers, so ranks 15, 16 x 6, 15. */
static void lay_parse(void) {
  int cl[64], s[8];
  WeftError err;
  CHECK_EQ_INT(weft_pp_layout_parse("Et|(tt|)*30mL", 8, 4, 61, 1, cl, &err), WEFT_OK);
  CHECK(cl[0] == 1 && cl[1] == 2 && cl[30] == 2 && cl[31] == 0);
  stages_of(cl, 8, 4, s);
  static const int ds[8] = {7, 8, 8, 8, 8, 8, 8, 6};
  for (int k = 0; k < 8; k++) CHECK_EQ_INT(s[k], ds[k]);
  CHECK_EQ_INT(weft_pp_layout_parse("Et*7|(t*8|)*14t*7L", 8, 2, 126, 0, cl, &err), WEFT_OK);
  CHECK(cl[0] == 7 && cl[8] == 8 && cl[15] == 7);
  stages_of(cl, 8, 2, s);
  for (int k = 0; k < 8; k++) CHECK_EQ_INT(s[k], k == 0 || k == 7 ? 15 : 16);
  /* commas and spaces are cosmetic; the MTP layer alone with the loss (Megatron's example) */
  CHECK_EQ_INT(weft_pp_layout_parse("Ettt|(tt|)*29, m|L", 16, 2, 61, 1, cl, &err), WEFT_EINPUT);
  CHECK(strstr(err.msg, "position 16")); /* the m of chunk 31 of 32: weft's MTP is the last's */
  CHECK_EQ_INT(weft_pp_layout_parse("E, t t | t t L", 2, 1, 4, 0, cl, &err), WEFT_OK);
  CHECK(cl[0] == 2 && cl[1] == 2);
}

/* Each error names the field, and where there is one the position. */
static void lay_errors(void) {
  int cl[64];
  WeftError err;
  static const struct {
    const char *s;
    int pp, v, layers, mtp;
    const char *has;
  } bad[] = {
      {"Et|tt|ttL", 2, 2, 5, 0, "3 chunks, pp x virtual_stages = 2 x 2 = 4"},
      {"Et|tt|tt|tL", 2, 2, 7, 0, "6 transformer layers t, the model has 7"},
      {"Et|tt|tt|tmL", 2, 2, 6, 0, "1 MTP layers m, the model has 0"},
      {"Et|tt|tt|tL", 2, 2, 6, 1, "0 MTP layers m, the model has 1"},
      {"t|Et|tt|tL", 2, 2, 6, 0, "position 3: the embedding E"},
      {"Et|tL|tt|t", 2, 2, 6, 0, "position 5: the loss L"},
      {"Et|tm|tt|tL", 2, 2, 6, 1, "position 5: MTP layers m belong in the last chunk"},
      {"Et|tt|tt|mtL", 2, 2, 6, 1, "position 11: a transformer layer after the MTP"},
      {"Et|tx|tt|tL", 2, 2, 6, 0, "position 5: 'x' is none of"},
      {"Et|(tt|)tt|tL", 2, 2, 6, 0, "position 4: a group needs '*N'"},
      {"Et|(tt|*2", 2, 2, 6, 0, "position 4: '(' without ')'"},
      {"Et|t*|tt|tL", 2, 2, 6, 0, "position 5: '*' needs a count"},
      {"Et|tt|tt|t", 2, 2, 6, 0, "no loss L"},
      {"E|tttttt||L", 2, 2, 6, 0, "stage 1 holds no transformer layer"},
      {"", 2, 2, 6, 0, "empty"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(&err, 0, sizeof err);
    int rc = weft_pp_layout_parse(bad[i].s, bad[i].pp, bad[i].v, bad[i].layers, bad[i].mtp, cl,
                                  &err);
    CHECK_EQ_INT(rc, WEFT_EINPUT);
    CHECK(!strcmp(err.field, "pp_layout"));
    if (!strstr(err.msg, bad[i].has)) {
      fprintf(stderr, "  layout '%s': '%s' lacks '%s'\n", bad[i].s, err.msg, bad[i].has);
      test_failures_++;
    }
  }
}

/* PP-2 x VP-2, chunks (layout order) of 1, 2, 2, 1 unit layers (forward 1,
 * backward 2 a layer), 4 micro-batches. Megatron's table (groups of pp):
 * step k = (mb, chunk) (0,0) (1,0) (0,1) (1,1) (2,0) (3,0) (2,1) (3,1), a
 * backward the chunk mirrored; warm-ups 2 (pp - r - 1) + (v - 1) pp: 4 on
 * rank 0, 2 on rank 1. Chunk x0 (rank 0) f 1 b 2, x1 (rank 1) 2/4, x2 (rank
 * 0) 2/4, x3 (rank 1) 1/2. By hand ([start, end], F/B micro-batch, chunk):
 * R0 F0x0 [0,1] F1x0 [1,2]; R1 F0x1 [1,3] F1x1 [3,5]; R0 F0x2 [3,5] F1x2
 * [5,7] F2x0 [7,8]; R1 F0x3 [5,6] B0x3 [6,8] F1x3 [8,9] B1x3 [9,11] F2x1
 * [11,13]; R0 B0x2 [8,12] F3x0 [12,13] B1x2 [13,17] F2x2 [17,19]; R1 B0x1
 * [13,17] F3x1 [17,19] B1x1 [19,23] F2x3 [23,24] B2x3 [24,26]; R0 B0x0
 * [19,21] F3x2 [21,23] B1x0 [23,25] B2x2 [26,30]; R1 F3x3 [26,27] B3x3
 * [27,29] B2x1 [30,34]; R0 B3x2 [30,34] B2x0 [34,36]; R1 B3x1 [34,38]; R0
 * B3x0 [38,40]. T = 40 where both ranks work 4 x 9 = 36: the bubble 4, not
 * the equal-chunk rhythm's (pp - 1)/v x 9 = 4.5. */
static void lay_timeline_by_hand(void) {
  static const double f[4] = {1, 2, 2, 1}, b[4] = {2, 4, 4, 2};
  double T = 0;
  CHECK_EQ_INT(weft_gen_interleaved(f, b, 2, 2, 4, &T), WEFT_OK);
  CHECK_NEAR(T, 40, 0);
  CHECK_EQ_INT(weft_gen_interleaved(f, b, 2, 2, 3, &T), WEFT_EINVAL); /* pp must divide m */
}

/* Equal chunks (forward 1, backward 2): T = (m v + pp - 1) 3, Narayanan et
 * al.'s interleaved rhythm m + (pp - 1)/v times a stage's 3 v, exactly. */
static void lay_timeline_equal(void) {
  double F[64], B[64], T;
  for (int i = 0; i < 64; i++) F[i] = 1, B[i] = 2;
  for (int pp = 2; pp <= 8; pp *= 2)
    for (int v = 2; v <= 4; v++)
      for (int m = pp; m <= 4 * pp; m += pp) {
        CHECK_EQ_INT(weft_gen_interleaved(F, B, pp, v, m, &T), WEFT_OK);
        CHECK_NEAR(T, ((double)m * v + pp - 1) * 3, 1e-12);
      }
}

/* Layers in flight along Megatron's order (the example above): rank 0 runs
 * F x0 x0 x2 x2 x0 (1 + 1 + 2 + 2 + 1 = 7 layer-micro-batches) before its
 * first backward frees x2's 2; rank 1 F x1 x1 x3 (5), B x3 (4), F x3 (5), B
 * (4), F x1 (6), B x1 (4), F x1 (6), ...: 6. */
static void lay_inflight(void) {
  static const int held[4] = {1, 2, 2, 1};
  CHECK_NEAR(weft_gen_interleaved_peak(held, 2, 2, 4, 0), 7, 0);
  CHECK_NEAR(weft_gen_interleaved_peak(held, 2, 2, 4, 1), 6, 0);
  /* equal chunks of 1: 2 (pp - r - 1) + (v - 1) pp + 1 chunks before a backward */
  static const int one[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  CHECK_NEAR(weft_gen_interleaved_peak(one, 4, 2, 8, 0), 2 * 3 + 4 + 1, 0);
  CHECK_NEAR(weft_gen_interleaved_peak(one, 4, 2, 8, 3), 0 + 4 + 1, 0);
}

/* The tiny model (forward 832 FLOPs a layer, logits 128) with 6 layers on
 * PP-2 x VP-2 laid out 'Et|tt|tt|tL' (the accounted split's chunks 1, 2, 2,
 * 1), 4 micro-batches. In units of 64 FLOPs: x0 f 13 b 26, x1 and x2 26/52,
 * x3 (a layer + logits) 15/30. Stage 1 (123 a micro-batch) outworks stage 0
 * (117). The example's order, by hand: R0 F0x0 [0,13] F1x0 [13,26]; R1 F0x1
 * [13,39] F1x1 [39,65]; R0 F0x2 [39,65] F1x2 [65,91] F2x0 [91,104]; R1 F0x3
 * [65,80] B0x3 [80,110] F1x3 [110,125] B1x3 [125,155] F2x1 [155,181]; R0
 * B0x2 [110,162] F3x0 [162,175] B1x2 [175,227] F2x2 [227,253]; R1 B0x1
 * [181,233] F3x1 [233,259] B1x1 [259,311] F2x3 [311,326] B2x3 [326,356]; R0
 * B0x0 [253,279] F3x2 [279,305] B1x0 [311,337] B2x2 [356,408]; R1 F3x3
 * [356,371] B3x3 [371,401] B2x1 [408,460]; R0 B3x2 [408,460] B2x0 [460,486];
 * R1 B3x1 [460,512]; R0 B3x0 [512,538]. R = 538 / 123, where the accounted
 * split's rhythm says 4.5. The stage's layers are emitted as placed: 2, 3
 * (chunk 1) and 6 (chunk 3), with the logits. */
static void lay_generate(void) {
  WeftModel m = fx_tiny(2, 6, 4);
  WeftDevice dev = fx_unit_device(1e15);
  static const int n[1] = {2};
  WeftNetwork net = fx_net(1, n, WEFT_RING);
  WeftParallel par;
  weft_parallel_default(&par);
  par.pp = 2;
  par.virtual_stages = 2;
  par.pp_layout = "Et|tt|tt|tL";
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(info.critical_stage, 1);
  CHECK_EQ_INT(info.layers_per_stage, 3);
  CHECK_NEAR(info.pipeline_repeats, 538.0 / 123, 1e-12);
  CHECK(fx_find_layer(wl, "L2.attn") && fx_find_layer(wl, "L3.mlp") &&
        fx_find_layer(wl, "L6.attn") && fx_find_layer(wl, "logits"));
  CHECK(!fx_find_layer(wl, "L4.attn") && !fx_find_layer(wl, "L1.attn"));
  CHECK(fx_find_layer(wl, "chunk1.accumulation") && fx_find_layer(wl, "chunk2.accumulation"));
  /* a layer's activations, one micro-batch (Korthikanti's, bf16): s b h = 8,
   * 10 s b h = 80 + s b (QKVO 32 + 2 F f = 64) = 192 + 5 a s^2 b = 40, half
   * of 312 elements x 2 bytes = 312 bytes. Stage 0 holds 7 layer-micro-
   * batches at its peak (lay_inflight): 2184; stage 1 6, + the fp32 logits
   * 4 b s V = 64: 1936. */
  CHECK_EQ_INT(info.memory_stage, 0);
  CHECK_NEAR(info.mem.activations_bytes, 7 * 312, 1e-12);
  /* the accounted split, the same chunks, keeps the rhythm and 1F1B's
   * min(pp - k, m) in flight: 3 layers x 2 on stage 0 */
  par.pp_layout = NULL;
  par.pp_account_embedding = par.pp_account_loss = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.pipeline_repeats, 4.5, 0);
  CHECK_NEAR(info.mem.activations_bytes, 6 * 312, 1e-12);
  /* one way to say the split: a layout with the accounted split or stages is refused */
  par.pp_layout = "Et|tt|tt|tL";
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "pp_layout"));
  par.pp_account_embedding = par.pp_account_loss = 0;
  static const int sl[2] = {3, 3};
  par.stage_layers = sl;
  par.nstage_layers = 2;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "pp_layout"));
  par.stage_layers = NULL;
  par.nstage_layers = 0;
  /* the parser's complaints come through the generator */
  par.pp_layout = "Et|tt|tt|ttL";
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "pp_layout") && strstr(err.msg, "7 transformer layers"));
  /* 2 x 2 x 2e6 micro-batches: past the timeline's 4e6 steps, refused, not allocated */
  par.pp_layout = "Et|tt|tt|tL";
  m.global_batch = 2000000;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "pp_layout") && strstr(err.msg, "interleaved steps"));
  m.global_batch = 4;
  /* an empty layout is refused, not taken for none */
  par.pp_layout = "";
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "pp_layout") && strstr(err.msg, "empty"));
  /* without interleaving a layout is stages: 1F1B's timeline, as --pp-layers 3,3 */
  par.virtual_stages = 1;
  par.pp_layout = "Ettt|tttL";
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  double r = info.pipeline_repeats;
  par.pp_layout = NULL;
  par.stage_layers = sl;
  par.nstage_layers = 2;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(r, info.pipeline_repeats, 0);
  weft_workload_free(wl);
}

/* Equal chunks without a layout (Megatron-Core's interleaved schedule,
 * num_warmup_microbatches = 2 (pp - r - 1) + (v - 1) pp, capped at m v):
 * the closed form is the walk along the order with chunks of one layer,
 * for every stage; Nemotron-4 340B's PP-8 VP-12, 16 micro-batches, rank 0:
 * 14 + 88 warm-up forwards and the first steady one = 103 by hand; every
 * forward in flight when m v is below that (pp 4, v 2, m 4: 8), and on
 * every rank when m = pp. */
static void lay_chunks_closed_form(void) {
  static int one[4 * 16];
  for (int i = 0; i < 4 * 16; i++) one[i] = 1;
  for (int pp = 2; pp <= 8; pp *= 2)
    for (int v = 2; v <= 8; v *= 2)
      for (int m = pp; m <= 4 * pp; m += pp)
        for (int r = 0; r < pp; r++)
          if (pp * v <= 4 * 16)
            CHECK_EQ_INT(weft_gen_interleaved_chunks(pp, v, m, r),
                         weft_gen_interleaved_peak(one, pp, v, m, r));
  CHECK_EQ_INT(weft_gen_interleaved_chunks(8, 12, 16, 0), 103);
  CHECK_EQ_INT(weft_gen_interleaved_chunks(8, 12, 16, 7), 89);
  CHECK_EQ_INT(weft_gen_interleaved_chunks(4, 2, 4, 0), 8);
  /* m = pp: Megatron runs every forward first on every rank, the last too
   * (not 0 + 4 + 1 = 5) */
  CHECK_EQ_INT(weft_gen_interleaved_chunks(4, 2, 4, 3), 8);
  CHECK_EQ_INT(weft_gen_interleaved_chunks(4, 2, 8, 3), 5);
}

/* Layout-less interleaving keeps what Megatron's order keeps: the tiny model
 * (312 bytes of activations a layer and micro-batch, lay_generate) with 8
 * layers on PP-2 x VP-2 (chunks of 2), 4 micro-batches: stage 0 holds 2 + 2
 * + 1 = 5 chunks at its peak, 10 layer-micro-batches = 3120 bytes (1F1B's
 * count said 2 x 4 = 2496); stage 1 3 chunks, 6 x 312 + the fp32 logits 64
 * = 1936. Without interleaving, 1F1B's 2 micro-batches x 4 layers. */
static void lay_generate_equal_chunks(void) {
  WeftModel m = fx_tiny(2, 8, 4);
  WeftDevice dev = fx_unit_device(1e15);
  static const int n[1] = {2};
  WeftNetwork net = fx_net(1, n, WEFT_RING);
  WeftParallel par;
  weft_parallel_default(&par);
  par.pp = 2;
  par.virtual_stages = 2;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(info.memory_stage, 0);
  CHECK_NEAR(info.mem.activations_bytes, 10 * 312, 1e-12);
  par.virtual_stages = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.mem.activations_bytes, 2 * 4 * 312, 1e-12);
  weft_workload_free(wl);
}

const TestCase suite_layout[] = {{"pp_layout_chunks_closed_form", lay_chunks_closed_form},
                                 {"pp_layout_generate_equal_chunks", lay_generate_equal_chunks},
                                 {"pp_layout_parse", lay_parse},
                                 {"pp_layout_errors", lay_errors},
                                 {"pp_layout_timeline_by_hand", lay_timeline_by_hand},
                                 {"pp_layout_timeline_equal", lay_timeline_equal},
                                 {"pp_layout_inflight", lay_inflight},
                                 {"pp_layout_generate", lay_generate},
                                 {0}};
