/* test_recipes.c — recipes as Megatron-Core runs them: the uneven pipeline
 * split that counts the embedding and the loss as layers (with and without
 * virtual stages), checked against a 1F1B timeline worked by hand; attention
 * wider than the model (head_dim: Qwen3), partial recomputation (N layers,
 * uniform or block) and sliding-window attention with sinks (GPT-OSS): their
 * parameters, FLOPs and memory by hand. */
#include <stdlib.h>
#include <string.h>

#include "model/gen.h"
#include "model/opcost.h"
#include "../test.h"
#include "gen_fixture.h"
#include "weft.h"

/* Megatron's split (get_num_layers_to_build): chunks of c = (L + e + l) /
 * (pp v) layers, the first stage's first chunk c - e, the last stage's last
 * c - l. Llama 3.1 405B (126 layers) on PP-8 x VP-8: c = 128 / 64 = 2, so
 * 15, 16 x 6, 15; on PP-16 x VP-8: c = 1, 7, 8 x 14, 7 (the first chunk of
 * the first stage holds the embedding alone). Only the loss: 11 layers on 4
 * stages are 3, 3, 3, 2 (balanced: 2, 3, 3, 3). */
static void rp_accounted_stages(void) {
  int s[16];
  WeftError err;
  CHECK_EQ_INT(weft_stage_layers_accounted(126, 8, 8, 1, 1, s, &err), WEFT_OK);
  for (int k = 0; k < 8; k++) CHECK_EQ_INT(s[k], k == 0 || k == 7 ? 15 : 16);
  CHECK_EQ_INT(weft_stage_layers_accounted(126, 16, 8, 1, 1, s, &err), WEFT_OK);
  for (int k = 0; k < 16; k++) CHECK_EQ_INT(s[k], k == 0 || k == 15 ? 7 : 8);
  CHECK_EQ_INT(weft_stage_layers_accounted(11, 4, 1, 0, 1, s, &err), WEFT_OK);
  CHECK(s[0] == 3 && s[1] == 3 && s[2] == 3 && s[3] == 2);
  CHECK_EQ_INT(weft_stage_layers_balanced(11, 4, s, &err), WEFT_OK);
  CHECK(s[0] == 2 && s[1] == 3 && s[2] == 3 && s[3] == 3);
  CHECK_EQ_INT(weft_stage_layers_accounted(2, 2, 1, 1, 1, s, &err), WEFT_OK); /* c = 2 */
  CHECK(s[0] == 1 && s[1] == 1);
  /* 3 + 2 slots on 2 chunks; 1 + 2 on 3 chunks leaves the first stage none */
  CHECK_EQ_INT(weft_stage_layers_accounted(3, 2, 1, 1, 1, s, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "pp_account"));
  CHECK_EQ_INT(weft_stage_layers_accounted(1, 3, 1, 1, 1, s, &err), WEFT_EINPUT);
}

/* 5 layers of the tiny model (forward 832 FLOPs a layer, logits 128; 1 ns a
 * FLOP) on 2 stages, 4 micro-batches, the loss counted: stages 3, 2 (the
 * balanced split is 2, 3). Stage 0: f0 = 2496, b0 = 4992; stage 1 (2 layers
 * + logits): f1 = 1792, b1 = 3584. 1F1B orders: stage 0 F0 F1 B0 F2 B1 F3 B2
 * B3, stage 1 F0 B0 F1 B1 F2 B2 F3 B3. By hand: S0 F0 [0,2496], F1
 * [2496,4992]; S1 F0 [2496,4288], B0 [4288,7872]; S0 B0 [7872,12864]; S1 F1
 * [7872,9664], B1 [9664,13248]; S0 F2 [12864,15360], B1 [15360,20352]; S1 F2
 * [15360,17152], B2 [17152,20736]; S0 F3 [20352,22848], B2 [22848,27840];
 * S1 F3 [22848,24640], B3 [24640,28224]; S0 B3 [28224,33216]. T = 33216:
 * stage 0 (7488 a micro-batch) is critical and its work repeats 33216 /
 * 7488 times; it holds layers 1..3 and the embedding, no logits. */
static void rp_accounted_1f1b(void) {
  static const double f[2] = {2496, 1792}, b[2] = {4992, 3584};
  double T = 0;
  CHECK_EQ_INT(weft_gen_1f1b(f, b, 2, 4, &T), WEFT_OK);
  CHECK_NEAR(T, 33216, 0);
  WeftModel m = fx_tiny(2, 5, 4);
  WeftDevice dev = fx_unit_device(1e15);
  static const int n[1] = {2};
  WeftNetwork net = fx_net(1, n, WEFT_RING);
  WeftParallel par;
  weft_parallel_default(&par);
  par.pp = 2;
  par.pp_account_loss = 1;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(info.critical_stage, 0);
  CHECK_EQ_INT(info.layers_per_stage, 3);
  CHECK_NEAR(info.pipeline_repeats, 33216.0 / 7488, 1e-12);
  CHECK(fx_find_layer(wl, "L3.mlp") && !fx_find_layer(wl, "L4.attn") && !fx_find_layer(wl, "logits"));
  /* balanced (2, 3): the last stage, 3 layers + logits, is critical */
  par.pp_account_loss = 0;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(info.critical_stage, 1);
  CHECK(fx_find_layer(wl, "logits") && fx_find_layer(wl, "L3.attn"));
  /* the embedding alone: 6 slots, stages 2, 3 (what balanced gives too) */
  par.pp_account_embedding = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(info.critical_stage, 1);
  CHECK_EQ_INT(info.layers_per_stage, 3);
  /* both: 7 slots on 2 stages do not split */
  par.pp_account_loss = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "pp_account"));
  /* and never with explicit stages */
  static const int sl[2] = {3, 2};
  par.pp_account_embedding = 0;
  par.stage_layers = sl;
  par.nstage_layers = 2;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "pp_account"));
  weft_workload_free(wl);
}

/* Virtual stages: 6 layers on PP-2 x VP-2 with the embedding and the loss
 * counted: chunks of 2, stage 0 = (1, 2), stage 1 = (2, 1), 3 layers each,
 * which the plain interleaved rule (every stage v x c, the ends c fewer)
 * refuses. 4 micro-batches (pp divides them): the interleaved rhythm m +
 * (pp - 1)/v = 4.5; the last stage (3 layers + logits) is critical. */
static void rp_accounted_virtual(void) {
  WeftModel m = fx_tiny(2, 6, 4);
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
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "virtual_stages"));
  par.pp_account_embedding = par.pp_account_loss = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(info.critical_stage, 1);
  CHECK_EQ_INT(info.layers_per_stage, 3);
  CHECK_NEAR(info.pipeline_repeats, 4.5, 0);
  CHECK(fx_find_layer(wl, "L4.attn") && fx_find_layer(wl, "L6.mlp") && fx_find_layer(wl, "logits"));
  /* the embedding alone: 7 slots on 4 chunks */
  par.pp_account_loss = 0;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "pp_account"));
  weft_workload_free(wl);
}

/* head_dim: tests/fixtures/zoo/head_dim.yml (h 60, 4 heads of 32, 2 K/V
 * groups, SwiGLU 96, V 1000, 2 layers, untied). A layer: Q 60 x 128 = 7680,
 * K and V 2 x 60 x 64 = 7680, output 128 x 60 = 7680 (23,040); MLP 3 x 60 x
 * 96 = 17,280; two RMSNorms 120: 40,440; the embedding and output 2 x 60 x
 * 1000 and the final norm 60: 2 x 40,440 + 120,060 = 200,940. A file with
 * head_dim and MLA is refused at the head_dim line. */
static void rp_head_dim_params(void) {
  WeftModel *m = malloc(sizeof *m);
  WeftError e;
  if (!m) return;
  CHECK_EQ_INT(weft_model_read("tests/fixtures/zoo/head_dim.yml", m, &e), WEFT_OK);
  CHECK_EQ_INT(m->head_dim, 32);
  CHECK_NEAR(weft_model_params(m), 200940, 0);
  CHECK_EQ_INT(weft_model_read("tests/fixtures/zoo/bad_head_dim_mla.yml", m, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "head_dim") && e.line == 7);
  free(m);
}

/* The tiny GeLU model (h 4, 2 heads, s 2, 1 sequence) with head_dim 4: the
 * attention is 8 wide. Forward FLOPs 2 x tokens x weights: Q 4 x 8, K and V
 * 2 x 4 x 8, output 8 x 4 = 128 weights, 2 x 2 x 128 = 512; the core (scores
 * and context) 2 x 2 tokens x 2 keys x 2 heads x (4 + 4) = 128: 640 (320 at
 * head size 2). MLP 2 x 2 x 2 x 4 x 16 = 512, logits 2 x 2 x 4 x 8 = 128:
 * model FLOPs 3 (640 + 512 + 128) = 3840 for one layer and one sequence. */
static void rp_head_dim_flops(void) {
  WeftModel m = fx_tiny(2, 1, 1);
  m.head_dim = 4;
  WeftDevice dev = fx_unit_device(1e15);
  static const int n[1] = {1};
  WeftNetwork net = fx_net(1, n, WEFT_RING);
  WeftParallel par;
  weft_parallel_default(&par);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  const WeftLayer *a = fx_find_layer(wl, "L1.attn");
  CHECK(a && a->phase[WEFT_PHASE_FWD].compute_ns == 640);
  CHECK_NEAR(info.model_flops, 3840, 0);
  m.head_dim = 0; /* hidden / heads = 2: the fixture's 320 */
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  a = fx_find_layer(wl, "L1.attn");
  CHECK(a && a->phase[WEFT_PHASE_FWD].compute_ns == 320);
  weft_workload_free(wl);
}

/* The tiny GeLU model generated on one NPU, as the recomputation tests
 * run it (gen_fixture.h's FxRun around it): rp_open fills it, rp_gen
 * generates, rp_close frees. */
typedef struct {
  WeftModel m;
  FxRun f;
} Rp;

static void rp_open(Rp *r, int seq_len, int layers) {
  r->m = fx_tiny(seq_len, layers, 1);
  fx_run_init(&r->f, 1, 1e15);
}

static int rp_gen(Rp *r) { return fx_run(&r->f, &r->m); }

static void rp_close(Rp *r) { fx_run_free(&r->f); }

/* Partial recomputation, the tiny GeLU model, 4 layers, 1 sequence, pp 1
 * (a layer: forward 832 FLOPs, attention 320; logits 128; model FLOPs 3
 * (4 x 832 + 128) = 10,368). Activations per layer (Korthikanti et al.,
 * t = 1, 2-byte): sbh(34 + 5as/h) = 8 (34 + 5) = 312 bytes; a layer's input
 * 2sbh = 16; the last stage's fp32 logits 4bsV = 64.
 *   none          4 x 312 + 64                          = 1312, no extra FLOPs
 *   full (all)    4 x 16 + 312 (one layer in backward) + 64 = 440, +3328
 *   block N = 1   16 + 3 x 312 + 312 + 64               = 1328, +832
 *   uniform N = 2 2 groups x 16 + 2 x 312 + 64          = 720, +3328
 * Block N = 1 recomputes a quarter of the stage's layers: every attention
 * entry's input-grad is 320 + 320/4 = 400 (full: 640). */
static void rp_partial_recompute(void) {
  Rp r;
  rp_open(&r, 2, 4);
  static const struct {
    int mode, method, N;
    double act, extra, ig;
  } c[] = {{WEFT_RECOMPUTE_NONE, 0, 0, 1312, 0, 320},
           {WEFT_RECOMPUTE_FULL, 0, 0, 440, 3328, 640},
           {WEFT_RECOMPUTE_FULL, WEFT_RECOMPUTE_BLOCK, 1, 1328, 832, 400},
           {WEFT_RECOMPUTE_FULL, WEFT_RECOMPUTE_UNIFORM, 2, 720, 3328, 640}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    r.f.par.recompute = c[i].mode;
    r.f.par.recompute_method = c[i].method;
    r.f.par.recompute_num_layers = c[i].N;
    CHECK_EQ_INT(rp_gen(&r), WEFT_OK);
    CHECK_NEAR(r.f.info.mem.activations_bytes, c[i].act, 0);
    CHECK_NEAR(r.f.info.model_flops, 10368, 0);
    CHECK_NEAR(r.f.info.hw_flops - r.f.info.model_flops, c[i].extra, 0);
    const WeftLayer *a = fx_find_layer(r.f.wl, "L2.attn");
    CHECK(a && a->phase[WEFT_PHASE_IG].compute_ns == c[i].ig);
  }
  /* block N = 9 covers the stage: full recomputation */
  r.f.par.recompute_num_layers = 9;
  r.f.par.recompute_method = WEFT_RECOMPUTE_BLOCK;
  CHECK_EQ_INT(rp_gen(&r), WEFT_OK);
  CHECK_NEAR(r.f.info.mem.activations_bytes, 440, 0);
  /* only with full recomputation; block needs N */
  r.f.par.recompute = WEFT_RECOMPUTE_SELECTIVE;
  CHECK_EQ_INT(rp_gen(&r), WEFT_EINPUT);
  CHECK(!strcmp(r.f.err.field, "recompute_num_layers"));
  r.f.par.recompute = WEFT_RECOMPUTE_FULL;
  r.f.par.recompute_num_layers = 0;
  CHECK_EQ_INT(rp_gen(&r), WEFT_EINPUT);
  int method = -1;
  CHECK_EQ_INT(weft_recompute_method_parse("block", &method, &r.f.err), WEFT_OK);
  CHECK_EQ_INT(method, WEFT_RECOMPUTE_BLOCK);
  CHECK_EQ_INT(weft_recompute_method_parse("blocks", &method, &r.f.err), WEFT_EINPUT);
  CHECK(!strcmp(weft_recompute_method_name(WEFT_RECOMPUTE_UNIFORM), "uniform"));
  rp_close(&r);
}

/* Sliding windows (GPT-OSS): 512 keys are n = 4 blocks of 128; a 128-token
 * window reaches back one block: query blocks 0..3 compute 1, 2, 2, 2
 * blocks, 7 of 16 = 0.4375 (causal: 10 of 16 = (n + 1)/(2n) = 0.625); half
 * the layers windowed: 0.53125. A window as long as the keys is causal; no
 * mask, no window. tests/fixtures/zoo/window.yml: head_dim.yml's 200,940
 * parameters + a sink per head and layer (2 x 4): 200,948; a window with the
 * bidirectional mask is refused. The tiny GeLU model at s = 512, 2 layers,
 * the second full (full_every 2), flash: the attention's forward is its
 * linears 2 x 512 x 64 = 65,536 plus the core 2 x 512 x 512 x 2 heads x
 * (2 + 2) = 4,194,304 x 0.53125 = 2,228,224: 2,293,760 (causal: 2,686,976). */
static void rp_window(void) {
  CHECK_NEAR(weft_opcost_pair_fraction(512, 1, 128, 1), 0.4375, 0);
  CHECK_NEAR(weft_opcost_pair_fraction(512, 1, 128, 0.5), 0.53125, 0);
  CHECK_NEAR(weft_opcost_pair_fraction(512, 1, 512, 1), 0.625, 0);
  CHECK_NEAR(weft_opcost_pair_fraction(512, 0, 128, 1), 1, 0);
  WeftModel *mf = malloc(sizeof *mf);
  WeftError e;
  if (!mf) return;
  CHECK_EQ_INT(weft_model_read("tests/fixtures/zoo/window.yml", mf, &e), WEFT_OK);
  CHECK(mf->window == 128 && mf->window_full_every == 2 && mf->sinks == 1);
  CHECK_NEAR(weft_model_params(mf), 200948, 0);
  CHECK_NEAR(weft_opcost_window_share(mf), 0.5, 0);
  CHECK_EQ_INT(weft_model_read("tests/fixtures/zoo/bad_window_mask.yml", mf, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "window") && e.line == 9);
  free(mf);
  WeftModel m = fx_tiny(512, 2, 1);
  m.window = 128;
  m.window_full_every = 2;
  WeftDevice dev = fx_unit_device(1e15);
  static const int n[1] = {1};
  WeftNetwork net = fx_net(1, n, WEFT_RING);
  WeftParallel par;
  weft_parallel_default(&par);
  par.attention = WEFT_ATTENTION_FLASH;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  const WeftLayer *a = fx_find_layer(wl, "L1.attn");
  CHECK(a && a->phase[WEFT_PHASE_FWD].compute_ns == 2293760);
  m.window = 0;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  a = fx_find_layer(wl, "L1.attn");
  CHECK(a && a->phase[WEFT_PHASE_FWD].compute_ns == 2686976);
  weft_workload_free(wl);
}

/* Multi-token prediction (DeepSeek-V3), the tiny GeLU model, 2 layers, 1
 * sequence, pp 1, one MTP module: its layer like the last (attention 320,
 * MLP 512), its projection 2 x 2 tokens x 2h x h = 128 and the output head
 * again 128: forward 1088, the head's share 256. Model FLOPs 3 (2 x 832 +
 * 128 + 1088) = 8640. Parameters: the model's 536 (a layer 244 = attention
 * 80 + MLP 148 + 2 LayerNorms 16; embedding 32, positions 8, final norm 8)
 * + the module's layer 244, projection 32 and 3 norms 24: 836 (2 bytes
 * each on the one stage). */
static void rp_mtp(void) {
  WeftModel m = fx_tiny(2, 2, 1);
  CHECK_NEAR(weft_model_params(&m), 536, 0);
  m.mtp_layers = 1;
  CHECK_NEAR(weft_model_params(&m), 836, 0);
  WeftDevice dev = fx_unit_device(1e15);
  static const int n[1] = {1};
  WeftNetwork net = fx_net(1, n, WEFT_RING);
  WeftParallel par;
  weft_parallel_default(&par);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.model_flops, 8640, 0);
  CHECK_NEAR(info.mem.params_bytes, 2 * 836, 0);
  const WeftLayer *a = fx_find_layer(wl, "mtp.attn"), *f = fx_find_layer(wl, "mtp.mlp"),
                  *h = fx_find_layer(wl, "mtp.head");
  CHECK(a && a->phase[WEFT_PHASE_FWD].compute_ns == 320);
  CHECK(f && f->phase[WEFT_PHASE_FWD].compute_ns == 512);
  CHECK(h && h->phase[WEFT_PHASE_FWD].compute_ns == 256);
  m.mtp_layers = 0;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.model_flops, 3 * (2 * 832 + 128), 0);
  CHECK(!fx_find_layer(wl, "mtp.attn"));
  weft_workload_free(wl);
}

/* Selective recomputation's modules, the tiny GeLU model, 2 layers, 1
 * sequence, pp 1: a layer keeps 312 bytes (Korthikanti: sbh(34 + 5as/h),
 * sbh = 8), of which the attention core 5as^2b = 40, the MLP's two
 * internal tensors 16 sbh = 128 (its input, the norm's output, stays), the
 * two norms' outputs 2 x 2sbh = 32; the fp32 logits 64.
 *   core_attn            2 (312 - 40) + 40 + 64          = 648, +2 x 64 FLOPs
 *   mlp                  2 (312 - 128) + 128 + 64        = 560, +2 x 512
 *   core_attn,layernorm  2 (312 - 72) + 72 + 64          = 616, +2 x 64
 * With mlp the MLP entry's input-grad is 512 + 512. */
static void rp_recompute_modules(void) {
  int mask = 0;
  WeftError err;
  CHECK_EQ_INT(weft_recompute_modules_parse("core_attn, mlp", &mask, &err), WEFT_OK);
  CHECK_EQ_INT(mask, WEFT_RC_CORE_ATTN | WEFT_RC_MLP);
  CHECK_EQ_INT(weft_recompute_modules_parse("layernorm moe_act", &mask, &err), WEFT_OK);
  CHECK_EQ_INT(mask, WEFT_RC_LAYERNORM | WEFT_RC_MOE_ACT);
  CHECK_EQ_INT(weft_recompute_modules_parse("mlpx", &mask, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "recompute_modules") && strstr(err.msg, "'mlpx'"));
  CHECK_EQ_INT(weft_recompute_modules_parse(" , ", &mask, &err), WEFT_EINPUT);
  Rp r;
  rp_open(&r, 2, 2);
  r.f.par.recompute = WEFT_RECOMPUTE_SELECTIVE;
  static const struct {
    int mods;
    double act, extra;
  } c[] = {{0, 648, 128},
           {WEFT_RC_CORE_ATTN, 648, 128},
           {WEFT_RC_MLP, 560, 1024},
           {WEFT_RC_CORE_ATTN | WEFT_RC_LAYERNORM, 616, 128}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    r.f.par.recompute_modules = c[i].mods;
    CHECK_EQ_INT(rp_gen(&r), WEFT_OK);
    CHECK_NEAR(r.f.info.mem.activations_bytes, c[i].act, 0);
    CHECK_NEAR(r.f.info.hw_flops - r.f.info.model_flops, c[i].extra, 0);
  }
  r.f.par.recompute_modules = WEFT_RC_MLP;
  CHECK_EQ_INT(rp_gen(&r), WEFT_OK);
  const WeftLayer *f = fx_find_layer(r.f.wl, "L1.mlp");
  CHECK(f && f->phase[WEFT_PHASE_IG].compute_ns == 1024);
  r.f.par.recompute = WEFT_RECOMPUTE_FULL; /* modules only with selective */
  CHECK_EQ_INT(rp_gen(&r), WEFT_EINPUT);
  CHECK(!strcmp(r.f.err.field, "recompute_modules"));
  rp_close(&r);
}

/* torchtitan's op-level policy on the tiny GeLU model (rp_recompute_modules'
 * numbers: a layer keeps 312 bytes, T = 2 tokens, h 4, 2 heads of 2, ffn
 * 16, the attention core 2 x 64 FLOPs a layer, not fused). It runs again
 * wk and wo (2 T h (2 x 2 + 2 x 2) = 128 FLOPs) and, the core being bmm
 * products, the core (64); it keeps the layer's input, Q, V, the attention
 * output (2 sbh = 16 bytes each) and fc1's output (2 x 2 x 16 = 64): 128.
 *   activations 2 x 128 + (312 - 128) + 64 (logits) = 504, +2 x 192 FLOPs
 * A SwiGLU MLP (3 matrices) runs w3 again too: + 2 T h ffn = 256 on the
 * MLP's input-grad; its layer keeps 376 bytes (16 sbh of fc1's two halves
 * and the gate's output: + 64), the same 128 of them under the policy:
 *   activations 2 x 128 + (376 - 128) + 64 = 568
 * It stands alone and takes dense layers only. */
static void rp_torchtitan_op(void) {
  int mask = 0;
  WeftError err;
  CHECK_EQ_INT(weft_recompute_modules_parse("torchtitan_op", &mask, &err), WEFT_OK);
  CHECK_EQ_INT(mask, WEFT_RC_TORCHTITAN_OP);
  Rp r;
  rp_open(&r, 2, 2);
  double ig[2][2]; /* [none, torchtitan_op][attn, mlp] */
  for (int sw = 0; sw < 2; sw++) {
    r.m.ffn_matrices = sw ? 3 : 2;
    for (int t = 0; t < 2; t++) {
      r.f.par.recompute = t ? WEFT_RECOMPUTE_SELECTIVE : WEFT_RECOMPUTE_NONE;
      r.f.par.recompute_modules = t ? WEFT_RC_TORCHTITAN_OP : 0;
      CHECK_EQ_INT(rp_gen(&r), WEFT_OK);
      const WeftLayer *a = fx_find_layer(r.f.wl, "L1.attn"), *f = fx_find_layer(r.f.wl, "L1.mlp");
      CHECK(a && f);
      ig[t][0] = a ? a->phase[WEFT_PHASE_IG].compute_ns : 0;
      ig[t][1] = f ? f->phase[WEFT_PHASE_IG].compute_ns : 0;
      if (t && !sw) {
        CHECK_NEAR(r.f.info.mem.activations_bytes, 504, 0);
        CHECK_NEAR(r.f.info.hw_flops - r.f.info.model_flops, 2 * 192, 0);
      }
      if (t && sw) {
        CHECK_NEAR(r.f.info.mem.activations_bytes, 568, 0);
        CHECK_NEAR(r.f.info.hw_flops - r.f.info.model_flops, 2 * (192 + 256), 0);
      }
    }
    CHECK_NEAR(ig[1][0] - ig[0][0], 192, 0);
    CHECK_NEAR(ig[1][1] - ig[0][1], sw ? 256 : 0, 0);
  }
  r.f.par.recompute = WEFT_RECOMPUTE_SELECTIVE;
  r.f.par.recompute_modules = WEFT_RC_TORCHTITAN_OP | WEFT_RC_CORE_ATTN;
  CHECK_EQ_INT(rp_gen(&r), WEFT_EINPUT);
  CHECK(!strcmp(r.f.err.field, "recompute_modules") && strstr(r.f.err.msg, "stands alone"));
  WeftModel moe = fx_tiny_moe(2, 2);
  r.f.par.recompute_modules = WEFT_RC_TORCHTITAN_OP;
  CHECK_EQ_INT(weft_generate(&moe, &r.f.dev, &r.f.par, &r.f.net, 0, r.f.wl, &r.f.comm, &r.f.info, &r.f.err), WEFT_EINPUT);
  CHECK(!strcmp(r.f.err.field, "recompute_modules") && strstr(r.f.err.msg, "experts"));
  rp_close(&r);
}

/* torchtitan's op-level policy under TP 2 with SP (torchtitan
 * parallelize_llama.py @820504e20: _save_list keeps mm, SDPA, max and
 * reduce_scatter_tensor outputs, not all_gather_into_tensor's): the
 * backward's replay all-gathers each sub-block's input again, so input-grad
 * carries one more all-gather of the forward's size, and nothing else
 * changes; without SP there is no all-gather to replay. By hand: a
 * sub-block's input s b h x 2 bytes = 2 x 1 x 4 x 2 = 16, its all-gather
 * the rank's S / tp = 8 bytes in. */
static void rp_torchtitan_op_sp(void) {
  Rp r;
  r.m = fx_tiny(2, 2, 1);
  fx_run_init(&r.f, 2, 1e15);
  r.f.par.tp = 2;
  r.f.par.dp = 1;
  for (int sp = 0; sp < 2; sp++) {
    r.f.par.sequence_parallel = sp;
    double ag[2][2][2], rs[2][2]; /* [policy][attn, mlp][fwd, ig]; rs: input-grad */
    for (int t = 0; t < 2; t++) {
      r.f.par.recompute = t ? WEFT_RECOMPUTE_SELECTIVE : WEFT_RECOMPUTE_NONE;
      r.f.par.recompute_modules = t ? WEFT_RC_TORCHTITAN_OP : 0;
      CHECK_EQ_INT(rp_gen(&r), WEFT_OK);
      for (int b = 0; b < 2; b++) {
        const char *nm = b ? "L1.mlp" : "L1.attn";
        for (int ph = 0; ph < 2; ph++) ag[t][b][ph] = fx_coll_bytes(r.f.wl, nm, ph, WEFT_COLL_ALLGATHER, -1);
        rs[t][b] = fx_coll_bytes(r.f.wl, nm, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER, -1);
      }
    }
    for (int b = 0; b < 2; b++) {
      CHECK_NEAR(ag[0][b][0], sp ? 8 : 0, 0);
      CHECK_NEAR(ag[1][b][0], ag[0][b][0], 0);                   /* forward unchanged */
      CHECK_NEAR(ag[1][b][1] - ag[0][b][1], ag[0][b][0], 0);     /* one more, its size */
      CHECK_NEAR(rs[1][b], rs[0][b], 0);
    }
  }
  rp_close(&r);
}

const TestCase suite_recipes[] = {
    {"recipes/accounted_stages", rp_accounted_stages},
    {"recipes/accounted_1f1b", rp_accounted_1f1b},
    {"recipes/accounted_virtual", rp_accounted_virtual},
    {"recipes/head_dim_params", rp_head_dim_params},
    {"recipes/head_dim_flops", rp_head_dim_flops},
    {"recipes/partial_recompute", rp_partial_recompute},
    {"recipes/window", rp_window},
    {"recipes/mtp", rp_mtp},
    {"recipes/recompute_modules", rp_recompute_modules},
    {"recipes/torchtitan_op", rp_torchtitan_op},
    {"recipes/torchtitan_op_sp", rp_torchtitan_op_sp},
    {0, 0},
};
