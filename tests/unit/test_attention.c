/* test_attention.c — the attention and model shapes behind real runs: flash
 * attention (FLOPs, bytes, memory), context parallelism (traffic, groups,
 * compute), multi-head latent attention and DeepSeek-V3's parameter counts,
 * shared experts and dense first layers, FP8 GEMMs, interleaving with
 * Llama 3's end stages. Every expected value is derived by hand in the
 * comment above it. */
#include <stdlib.h>
#include <string.h>

#include "model/gen.h"
#include "../test.h"
#include "oc_fixture.h"
#include "gen_fixture.h"
#include "weft.h"

#define EXACT 1e-12 /* sums of a few exact products: only rounding */

/* The tiny GeLU model is fx_tiny(s, 2, 4) (gen_fixture.h): h 4, 2 heads (head
 * dim 2), ffn 16, V 8, 2 layers, batch 4. at_gen generates on the unit device
 * (1 ns per FLOP). */
static int at_gen(const WeftModel *m, const WeftParallel *par, const WeftNetwork *net,
                  WeftWorkload *wl, WeftCommunicator *comm, WeftGenInfo *info) {
  WeftDevice dev = fx_unit_device(1e12);
  WeftError err;
  int rc = weft_generate(m, &dev, par, net, 0, wl, comm, info, &err);
  if (rc) fprintf(stderr, "  weft_generate: %s\n", err.msg);
  return rc;
}

/* ------------------------------------------------------------------ flash */

/* Blocks of 128: s = 100 or 128 is one block, computed whole (1); 256 is 2
 * blocks of which 3 of 4 are on or below the diagonal; 4096: 32 blocks,
 * 33/64. Without a mask everything is computed. */
static void causal_fraction(void) {
  CHECK_NEAR(weft_opcost_causal_fraction(100, 1), 1.0, EXACT);
  CHECK_NEAR(weft_opcost_causal_fraction(128, 1), 1.0, EXACT);
  CHECK_NEAR(weft_opcost_causal_fraction(256, 1), 0.75, EXACT);
  CHECK_NEAR(weft_opcost_causal_fraction(4096, 1), 33.0 / 64, EXACT);
  CHECK_NEAR(weft_opcost_causal_fraction(4096, 0), 1.0, EXACT);
}

/* b 1, s 256 (2 blocks: 3/4 computed), h 8, 2 heads of 4, TP 1, bf16.
 * Pairs b a s^2 3/4 = 2 x 65536 x 3/4 = 98,304; forward 2 pairs (dqk + dv)
 * = 1,572,864 FLOPs (4 b a s^2 d x 3/4); backward 2 pairs (3 dqk + 2 dv) =
 * 3,932,160 (2.5x). Bytes: Q, O (T a d each) and K, V (b s kv_heads d each):
 * 4 x 256 x 8 x 2 = 16,384 forward, twice that backward. No score, softmax
 * or context operator is left. Bidirectional: all 4/3 more. */
static void flash_ops(void) {
  OcLayer l = oc_tiny(2);
  l.s = l.kv_len = 256;
  l.flash = l.causal = 1;
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS), found = 0;
  for (int i = 0; i < n; i++) {
    CHECK(strcmp(ops[i].name, "score") && strcmp(ops[i].name, "softmax") &&
          strcmp(ops[i].name, "context"));
    if (strcmp(ops[i].name, "flash_attn")) continue;
    found++;
    CHECK_EQ_INT(ops[i].kind, OC_FUSED);
    if (ops[i].phase == WEFT_PHASE_FWD) {
      CHECK_NEAR(ops[i].flops, 1572864, EXACT);
      CHECK_NEAR(ops[i].bytes, 16384, EXACT);
    } else {
      CHECK_EQ_INT(ops[i].phase, WEFT_PHASE_IG);
      CHECK_NEAR(ops[i].flops, 3932160, EXACT);
      CHECK_NEAR(ops[i].bytes, 32768, EXACT);
    }
  }
  CHECK_EQ_INT(found, 2);
  l.causal = 0;
  n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, "flash_attn") && ops[i].phase == WEFT_PHASE_FWD)
      CHECK_NEAR(ops[i].flops, 1572864 * 4.0 / 3, EXACT);
}

/* Tiny (s 2: one block, nothing skipped) at TP 2 x DP 2, micro-batch 1,
 * R = m = 2. Standard attention per rank and micro-batch: linear 2T(2h^2 +
 * 2h kv)/t = 2*2*64/2 = 128, core 2 T s (a/t)(dqk + dv) = 2*2*2*1*4 = 32:
 * 160, x R = 320 in each phase. Flash: forward the same; backward adds
 * 32 x 2.5 - 2 x 32 = 16 per micro-batch: input-grad 352. hw_flops adds the
 * recomputed QK^T, half the core, 2 b s^2 h = 32 per layer and sequence:
 * 2 layers x 4 sequences = 256.
 * Memory per layer (t = 2, 2-byte activations): standard sbh(10 + 24/t) +
 * 5as^2b/t = 8*22 + 20 = 196; flash drops the 20 and keeps the softmax
 * statistics, 4 bytes x b (a/t) s = 8: 184. 2 layers, + the fp32 logits
 * 4 b s V / t = 32: 424 standard, 400 flash. */
static void flash_generator(void) {
  WeftModel m = fx_tiny(2, 2, 4);
  static const int n[2] = {2, 2};
  WeftNetwork net = fx_net(2, n, WEFT_SWITCH);
  WeftParallel par;
  weft_parallel_default(&par);
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 2;
  par.dp = 2;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo std, fl;
  CHECK_EQ_INT(at_gen(&m, &par, &net, wl, &comm, &std), WEFT_OK);
  const WeftLayer *a = fx_layer(wl, "L1.attn");
  CHECK_NEAR(a->phase[WEFT_PHASE_FWD].compute_ns, 320, 0);
  CHECK_NEAR(a->phase[WEFT_PHASE_IG].compute_ns, 320, 0);
  CHECK_NEAR(std.mem.activations_bytes, 424, EXACT);
  CHECK_NEAR(std.hw_flops, std.model_flops, EXACT);
  par.attention = WEFT_ATTENTION_FLASH;
  CHECK_EQ_INT(at_gen(&m, &par, &net, wl, &comm, &fl), WEFT_OK);
  a = fx_layer(wl, "L1.attn");
  CHECK_NEAR(a->phase[WEFT_PHASE_FWD].compute_ns, 320, 0);
  CHECK_NEAR(a->phase[WEFT_PHASE_IG].compute_ns, 352, 0);
  CHECK_NEAR(a->phase[WEFT_PHASE_WG].compute_ns, 320, 0);
  CHECK_NEAR(fl.model_flops, std.model_flops, EXACT);
  CHECK_NEAR(fl.hw_flops - fl.model_flops, 256, EXACT);
  CHECK_NEAR(fl.mem.activations_bytes, 400, EXACT);
  /* selective recomputation has nothing left to drop or recompute */
  par.recompute = WEFT_RECOMPUTE_SELECTIVE;
  WeftGenInfo sel;
  CHECK_EQ_INT(at_gen(&m, &par, &net, wl, &comm, &sel), WEFT_OK);
  CHECK_NEAR(sel.mem.activations_bytes, 400, EXACT);
  CHECK_NEAR(fx_layer(wl, "L1.attn")->phase[WEFT_PHASE_IG].compute_ns, 352, 0);
  weft_workload_free(wl);
}

/* Llama 3 405B at 8K (TP 8 + SP, flash), one layer and micro-batch against
 * Korthikanti's eq. 6 generalised: sbh/t (8 + Q 2 + K, V 4 kv/h + O 2 +
 * MLP 2 F f/h) + the softmax statistics 4 b (a/t) s (Llama: no dropout,
 * so not Korthikanti's 10: no masks). s 8192, h 16384, kv 1024, f 53248,
 * F 3: sbh = 134,217,728 x (8 + 4 + 0.25 + 19.5)/8 = 532,676,608 + 4 x 16
 * x 8192 = 524,288: 533,200,896 bytes. With 16 layers
 * on 16 stages and 16 micro-batches the first stage holds 16 of them (the
 * last adds its logits, 4 s V / t = 525 MB, less than 15 more layers). */
static void flash_llama_memory(void) {
  WeftModel m;
  WeftError err;
  CHECK_EQ_INT(weft_zoo_model("data/zoo", "llama3-405b", &m, &err), WEFT_OK);
  m.layers = 16; /* one layer a stage */
  WeftParallel par;
  weft_parallel_default(&par);
  par.tp = 8;
  par.pp = 16;
  par.dp = 1;
  par.sequence_parallel = 1;
  par.attention = WEFT_ATTENTION_FLASH;
  par.optimizer_step = 0;
  m.global_batch = 16;
  static const int n[1] = {128};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftDevice dev = fx_unit_device(1e12);
  dev.hbm_bytes = 1e15;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(info.memory_stage, 0);
  CHECK_NEAR(info.mem.activations_bytes, 16 * 533200896.0, EXACT);
  weft_workload_free(wl);
}

/* ------------------------------------------------------------------ context parallel */

/* Tiny at s 4, CP 2 x DP 2 on 2 x 2 (CP inner), TP 1, micro-batch 1, R = 2.
 * A rank holds s/cp = 2 tokens: linear 2 T (2h^2 + 2h kv) = 2*2*64 = 256,
 * core 2 T s a (dqk + dv) = 2*2*4*2*4 = 128 (its queries against all 4
 * keys): 384 x 2 = 768 a phase, half of CP 1's 1536. K and V of its tokens:
 * T kv_heads (dqk + dv) 2 bytes = 2*2*4*2 = 32; all-gathered forward (2 x
 * 32 = 64) and again backward (64), dK and dV reduce-scattered (2 x 32 x 2
 * = 128), on the named group 'cp' = [2, -1]. Gradients sync over CP x DP =
 * [2, 2]. Memory per layer (sq 2): sbh = 8: 10*8 + 24*8 + 5 a sq s b =
 * 80 + 192 + 80 = 352; 2 layers + the logits 4 sq V = 64: 768. */
static void cp_generator(void) {
  WeftModel m = fx_tiny(4, 2, 4);
  static const int n[2] = {2, 2};
  WeftNetwork net = fx_net(2, n, WEFT_SWITCH);
  WeftParallel par;
  weft_parallel_default(&par);
  par.ddp_bucket_params = 1; /* a bucket per layer entry, as derived by hand */
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.dp = 4;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  m.global_batch = 8; /* R = 2 at dp 4 */
  CHECK_EQ_INT(at_gen(&m, &par, &net, wl, &comm, &info), WEFT_OK);
  CHECK_NEAR(fx_layer(wl, "L1.attn")->phase[WEFT_PHASE_FWD].compute_ns, 1536, 0);
  par.cp = 2;
  par.dp = 2;
  m.global_batch = 4;
  CHECK_EQ_INT(at_gen(&m, &par, &net, wl, &comm, &info), WEFT_OK);
  int g = fx_group(wl, "cp");
  CHECK(g > 0);
  if (g > 0) CHECK(comm.extra[g - 1][0] == 2 && comm.extra[g - 1][1] == -1);
  CHECK(comm.group[WEFT_PHASE_WG][0] == 2 && comm.group[WEFT_PHASE_WG][1] == 2);
  const WeftLayer *a = fx_layer(wl, "L1.attn");
  CHECK_NEAR(a->phase[WEFT_PHASE_FWD].compute_ns, 768, 0);
  CHECK_EQ_INT(a->phase[WEFT_PHASE_FWD].coll, WEFT_COLL_ALLGATHER);
  CHECK_NEAR(a->phase[WEFT_PHASE_FWD].size_bytes, 64, 0);
  CHECK_EQ_INT(a->phase[WEFT_PHASE_FWD].group, g);
  /* input-grad: the all-gather on the first entry, the reduce-scatter next */
  CHECK_EQ_INT(a->phase[WEFT_PHASE_IG].coll, WEFT_COLL_ALLGATHER);
  CHECK_NEAR(a->phase[WEFT_PHASE_IG].size_bytes, 64, 0);
  const WeftLayer *a2 = fx_layer(wl, "L1.attn.2");
  CHECK_EQ_INT(a2->phase[WEFT_PHASE_IG].coll, WEFT_COLL_REDUCESCATTER);
  CHECK_NEAR(a2->phase[WEFT_PHASE_IG].size_bytes, 128, 0);
  CHECK_EQ_INT(a2->phase[WEFT_PHASE_IG].group, g);
  /* the attention shard (2h^2 + 2h kv + 2h + 2kv) + 2h = 88 elements, whole
   * on every CP rank: all-reduced over CP x DP, the communicator's WG group */
  CHECK_EQ_INT(a->phase[WEFT_PHASE_WG].coll, WEFT_COLL_ALLREDUCE);
  CHECK_NEAR(a->phase[WEFT_PHASE_WG].size_bytes, 176, 0);
  CHECK_EQ_INT(a->phase[WEFT_PHASE_WG].group, 0);
  CHECK_NEAR(info.mem.activations_bytes, 768, EXACT);
  /* ZeRO-1 shards the optimizer over CP x DP = 4 */
  WeftGenInfo z;
  par.zero_stage = 1;
  CHECK_EQ_INT(at_gen(&m, &par, &net, wl, &comm, &z), WEFT_OK);
  CHECK_NEAR(z.mem.optimizer_bytes * 4, info.mem.optimizer_bytes, EXACT);
  /* cp must divide the sequence; tp x cp x pp x dp the NPUs */
  WeftError err;
  WeftDevice dev = fx_unit_device(1e12);
  par.cp = 3;
  par.dp = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  par.cp = 4;
  par.dp = 2;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(strstr(err.msg, "tp*cp*pp*dp") != NULL);
  weft_workload_free(wl);
}

/* ------------------------------------------------------------------ MLA, MoE */

/* h 8, 2 heads, q_lora 4, kv_lora 3, qk 2 + rope 1, v 2, SwiGLU f 6, 1
 * layer, V 5. Attention: q h ql + ql + ql a dqk = 32 + 4 + 24 = 60; kv
 * h (kl + rope) + kl + kl a (nope + dv) = 32 + 3 + 24 = 59; o a dv h = 32:
 * 151. Layer 151 + 2 norms 16 + MLP 3*8*6 = 144: 311; + embedding 40 +
 * output 40 + final norm 8 = 399. */
static WeftModel at_mla(void) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "mla");
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = 2;
  m.seq_len = 4;
  m.layers = 1;
  m.hidden = 8;
  m.heads = 2;
  m.kv_heads = 2;
  m.ffn_hidden = 6;
  m.ffn_matrices = 3;
  m.vocab = 5;
  m.q_lora_rank = 4;
  m.kv_lora_rank = 3;
  m.qk_nope_head_dim = 2;
  m.qk_rope_head_dim = 1;
  m.v_head_dim = 2;
  return m;
}

/* Per token, flat model, TP 1: linear 2 x (64 latents' inputs h(kl + rope) +
 * h ql, and 80 up and out) = 288, core 2 s a (dqk + dv) = 2*4*2*5 = 80:
 * T = 4 tokens -> 1472 FLOPs a micro-batch; 2 micro-batches (dp 1): 2944.
 * TP 2: the latents whole, the rest halved: 2 x 4 x (64 + 40) + 160 =
 * 992, x 2 = 1984. */
static void mla_params_flops(void) {
  WeftModel m = at_mla();
  CHECK_NEAR(weft_model_params(&m), 399, EXACT);
  CHECK_NEAR(weft_model_active_params(&m), 399, EXACT);
  static const int n1[1] = {1}, n2[1] = {2};
  WeftNetwork net = fx_net(1, n1, WEFT_SWITCH);
  WeftParallel par;
  weft_parallel_default(&par);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  CHECK_EQ_INT(at_gen(&m, &par, &net, wl, &comm, &info), WEFT_OK);
  CHECK_NEAR(fx_layer(wl, "L1.attn")->phase[WEFT_PHASE_FWD].compute_ns, 2944, 0);
  net = fx_net(1, n2, WEFT_SWITCH);
  par.tp = 2;
  CHECK_EQ_INT(at_gen(&m, &par, &net, wl, &comm, &info), WEFT_OK);
  CHECK_NEAR(fx_layer(wl, "L1.attn")->phase[WEFT_PHASE_FWD].compute_ns, 1984, 0);
  weft_workload_free(wl);
}

/* Selective recomputation of MLA's up-projections (mla_up_proj), at_mla
 * with 2 layers, TP 1, 2 micro-batches of 1 (T = 4 tokens), standard
 * attention, against core_attn alone. FLOPs again per token: q up ql a dqk
 * = 4*2*3 = 24, kv up kl a (nope + dv) = 3*2*(2 + 2) = 24: 2 x 48 = 96, x 4
 * tokens = 384 a micro-batch and layer; hw - model FLOPs grow by 384 x 2
 * layers x 2 micro-batches = 1536, and a layer's input-grad compute by 384
 * x 2 = 768 ns on the unit device: the last micro-batch's 384 in its entry,
 * the first's in the accumulation entry (2 layers: 768). Not kept per token (2-byte units): Q 2 a
 * dqk = 12, K 2 a dqk = 12, V 2 a dv = 8: 32, x 4 tokens = 128 a layer;
 * with 2 layers and one micro-batch in flight (pp 1) the stage keeps
 * 2 (act - drop) + drop: 128 bytes fewer. Without MLA (the tiny GeLU
 * model) the module changes nothing. */
static void mla_up_proj_recompute(void) {
  WeftModel m = at_mla();
  m.layers = 2;
  static const int n1[1] = {1};
  WeftNetwork net = fx_net(1, n1, WEFT_SWITCH);
  WeftParallel par;
  weft_parallel_default(&par);
  par.recompute = WEFT_RECOMPUTE_SELECTIVE;
  par.recompute_modules = WEFT_RC_CORE_ATTN;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo a, b;
  CHECK_EQ_INT(at_gen(&m, &par, &net, wl, &comm, &a), WEFT_OK);
  double ig = fx_layer(wl, "L1.attn")->phase[WEFT_PHASE_IG].compute_ns;
  double acc = fx_layer(wl, "accumulation")->phase[WEFT_PHASE_IG].compute_ns;
  par.recompute_modules = WEFT_RC_CORE_ATTN | WEFT_RC_MLA_UP_PROJ;
  CHECK_EQ_INT(at_gen(&m, &par, &net, wl, &comm, &b), WEFT_OK);
  CHECK_NEAR(b.model_flops, a.model_flops, 0);
  CHECK_NEAR(b.hw_flops - a.hw_flops, 1536, 1e-9);
  CHECK_NEAR(fx_layer(wl, "L1.attn")->phase[WEFT_PHASE_IG].compute_ns - ig, 384, 1e-9);
  CHECK_NEAR(fx_layer(wl, "accumulation")->phase[WEFT_PHASE_IG].compute_ns - acc, 768, 1e-9);
  CHECK_NEAR(a.mem.activations_bytes - b.mem.activations_bytes, 128, 1e-9);
  WeftModel g = fx_tiny(2, 2, 1);
  par.recompute_modules = WEFT_RC_CORE_ATTN;
  CHECK_EQ_INT(at_gen(&g, &par, &net, wl, &comm, &a), WEFT_OK);
  par.recompute_modules = WEFT_RC_CORE_ATTN | WEFT_RC_MLA_UP_PROJ;
  CHECK_EQ_INT(at_gen(&g, &par, &net, wl, &comm, &b), WEFT_OK);
  CHECK_NEAR(b.hw_flops, a.hw_flops, 0);
  CHECK_NEAR(b.mem.activations_bytes, a.mem.activations_bytes, 0);
  int mask = 0;
  WeftError err;
  CHECK_EQ_INT(weft_recompute_modules_parse("layernorm,mla_up_proj", &mask, &err), WEFT_OK);
  CHECK_EQ_INT(mask, WEFT_RC_LAYERNORM | WEFT_RC_MLA_UP_PROJ);
  weft_workload_free(wl);
}

/* DeepSeek-V3 by hand (Section 4.2, config.json's dense width 18432):
 * attention q 7168*1536 + 1536 + 1536*128*192 = 48,760,320, kv 7168*576 +
 * 512 + 512*128*256 = 20,906,496, o 128*128*7168 = 117,440,512:
 * 187,107,328; + 2 RMSNorms 14,336. Expert 3*7168*2048 = 44,040,192, dense
 * MLP 3*7168*18432 = 396,361,728, router 7168*256. Total 61 x 187,121,664
 * + 3 x 396,361,728 + 58 x (257 x 44,040,192 + 1,835,008) + 2 x 129280 x
 * 7168 + 7168 = 671,026,404,352 (published: 671B); one token goes through
 * 8 routed + 1 shared experts: 37,552,282,624 (published: 37B). */
static void deepseek_v3_params(void) {
  WeftModel m;
  WeftError err;
  CHECK_EQ_INT(weft_zoo_model("data/zoo", "deepseek-v3", &m, &err), WEFT_OK);
  CHECK_NEAR(weft_model_params(&m), 671026404352.0, EXACT);
  CHECK_NEAR(weft_model_active_params(&m), 37552282624.0, EXACT);
  CHECK(fabs(weft_model_params(&m) / 671e9 - 1) < 0.001);
  CHECK(fabs(weft_model_active_params(&m) / 37e9 - 1) < 0.02);
  CHECK_EQ_INT(m.first_dense, 3);
  CHECK_EQ_INT(m.shared_experts, 1);
  CHECK_EQ_INT(m.moe_ffn_hidden, 2048);
}

/* 3 layers, the first dense, then MoE of 4 experts (top-1) + 1 shared, each
 * of width 2; SwiGLU h 4 (2 heads), dense f 6, V 8, s 2. Params: attention
 * 2h^2 + 2h kv = 64 and 2 norms 8 a layer: 3 x 72; dense MLP 3*4*6 = 72;
 * MoE 5 experts x 3*4*2 = 120 + router 4*4 = 16: 2 x 136; embedding and
 * output 2 x 32, final norm 4: 216 + 72 + 272 + 68 = 628. Active: 2
 * experts (1 routed + 1 shared) 48 + 16 a MoE layer: 628 - 2 x 72 = 484.
 * Generator (TP 1, EP 1, flat, s 2, b 1, R 2): MoE forward per micro-batch
 * (1 + 1) x 2 T h f F + 2 T h E = 2 x 96 + 64 = 256 (T = 2 tokens), x 2 =
 * 512; dense 2 T h f F = 288 x 2 = 576. The compact entries: L1.mlp and
 * L2-3.moe. */
static void shared_and_first_dense(void) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "moe");
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = 2;
  m.seq_len = 2;
  m.layers = 3;
  m.hidden = 4;
  m.heads = 2;
  m.kv_heads = 2;
  m.ffn_hidden = 6;
  m.ffn_matrices = 3;
  m.vocab = 8;
  m.experts = 4;
  m.top_k = 1;
  m.moe_every = 1;
  m.shared_experts = 1;
  m.moe_ffn_hidden = 2;
  m.first_dense = 1;
  CHECK_NEAR(weft_model_params(&m), 628, EXACT);
  CHECK_NEAR(weft_model_active_params(&m), 484, EXACT);
  static const int n[1] = {1};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  WeftParallel par;
  weft_parallel_default(&par);
  WeftDevice dev = fx_unit_device(1e12);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(fx_layer(wl, "L1.mlp")->phase[WEFT_PHASE_FWD].compute_ns, 576, 0);
  CHECK_NEAR(fx_layer(wl, "L2-3.moe")->phase[WEFT_PHASE_FWD].compute_ns, 2 * 512, 0);
  /* all layers hold the parameters: 628 x 2 bytes */
  CHECK_NEAR(info.mem.params_bytes, 2 * 628.0, EXACT);
  weft_workload_free(wl);
}

/* ------------------------------------------------------------------ FP8 */

/* An FP8 GEMM runs at the FP8 rate and reads A and B at 1 byte: (4 x 8)(8
 * x 24) QKV of the opcost test layer reads (32 + 192) x 1 and writes 96 x
 * 2 bytes = 416 (bf16: 640). On a 1 x 1-tile device with the FP8 rate
 * twice the BF16 one, a compute-bound GEMM takes half as long. */
static void fp8_gemms(void) {
  OcLayer l = oc_tiny(2);
  l.fp8 = 1;
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS), seen = 0;
  for (int i = 0; i < n; i++) {
    if (!strcmp(ops[i].name, "qkv") && ops[i].phase == WEFT_PHASE_FWD) {
      seen++;
      CHECK(ops[i].fp8);
      CHECK_NEAR(ops[i].bytes, 416, EXACT);
    }
    if (!strcmp(ops[i].name, "score")) CHECK(!ops[i].fp8); /* the core stays bf16 */
  }
  CHECK_EQ_INT(seen, 1);
  WeftDevice d;
  memset(&d, 0, sizeof d);
  d.peak_flops = 1e12;
  d.peak_fp8_flops = 2e12;
  d.hbm_bytes_per_s = 1e15;
  d.sms = d.tile_m = d.tile_n = 1;
  d.gemm_efficiency = d.hbm_efficiency = 1;
  OcOp g = {"g", WEFT_PHASE_FWD, OC_GEMM, 1, 64, 64, 64, 2 * 64.0 * 64 * 64, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  double t16 = weft_opcost_op_ns(&d, &g, 2);
  g.fp8 = 1;
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 2), t16 / 2, EXACT);
}

/* A fused attention operator runs at attention_efficiency, not the GEMMs'
 * figure: 1e12 FLOPs at peak 1e15 are 1 ms at efficiency 1, 2 ms at 0.5
 * (the HBM side, 1e6 bytes at 1e15 B/s, is far below). The zoo's H100 reads
 * 0.52 (docs/zoo.md); a device that gives none (A100) takes its GEMMs'. */
static void attention_efficiency(void) {
  WeftDevice d;
  memset(&d, 0, sizeof d);
  d.peak_flops = 1e15;
  d.hbm_bytes_per_s = 1e15;
  d.sms = d.tile_m = d.tile_n = 1;
  d.gemm_efficiency = d.hbm_efficiency = 1;
  d.attention_efficiency = 0.5;
  OcOp f = {"flash_attn", WEFT_PHASE_FWD, OC_FUSED, 0, 0, 0, 0, 1e12, 1e6, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_NEAR(weft_opcost_op_ns(&d, &f, 2), 2e6, 1e-9);
  d.attention_efficiency = 1;
  CHECK_NEAR(weft_opcost_op_ns(&d, &f, 2), 1e6, 1e-9);
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100", &d, &e), WEFT_OK);
  CHECK_NEAR(d.attention_efficiency, 0.52, EXACT);
  CHECK_NEAR(d.gemm_efficiency, 0.75, EXACT);
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "a100", &d, &e), WEFT_OK);
  CHECK_NEAR(d.attention_efficiency, d.gemm_efficiency, EXACT);
}

/* FP8 keeps the FP8 GEMMs' saved inputs at 1 byte: per layer (tiny, TP 2,
 * no SP) the QKV and MLP inputs 2 sbh, the projection's input sb a dv / t
 * and the second MLP GEMM's sb f / t: 2*8 + 2*4/2 + 2*16/2 = 36 elements,
 * 1 byte saved each: 196 - 36 = 160 a layer, 2 layers + logits 32: 352.
 * On a device with an FP8 rate: without one fp8 is refused (field fp8),
 * where it changed the memory and none of the time. */
static void fp8_memory(void) {
  WeftModel m = fx_tiny(2, 2, 4);
  static const int n[2] = {2, 2};
  WeftNetwork net = fx_net(2, n, WEFT_SWITCH);
  WeftParallel par;
  weft_parallel_default(&par);
  par.tp = 2;
  par.dp = 2;
  par.fp8 = 1;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftDevice dev = fx_unit_device(1e12);
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "fp8") && strstr(err.msg, "device 'unit' has no FP8 rate"));
  dev.peak_fp8_flops = 2 * dev.peak_flops;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.mem.activations_bytes, 352, EXACT);
  weft_workload_free(wl);
}

/* ------------------------------------------------------------------ interleaving */

/* 14 layers on 4 stages, balanced: 3, 4, 4, 3; v = 4: chunks of 1 layer,
 * the end stages' fourth chunk holds the embedding or the output layer
 * (Llama 3): accepted, R = m + (pp - 1)/v = 8 + 3/4 on a 4-layer stage.
 * v = 3 does not divide the 4-layer stages; 13 layers (3, 3, 4, 3) leave a
 * middle stage short. */
static void interleaved_end_stages(void) {
  WeftModel m = fx_tiny(2, 2, 4);
  m.layers = 14;
  m.global_batch = 8;
  static const int n[1] = {4};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  WeftParallel par;
  weft_parallel_default(&par);
  par.pp = 4;
  par.virtual_stages = 4;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  CHECK_EQ_INT(at_gen(&m, &par, &net, wl, &comm, &info), WEFT_OK);
  CHECK_NEAR(info.pipeline_repeats, 8.75, EXACT);
  CHECK_EQ_INT(info.layers_per_stage, 4);
  WeftError err;
  WeftDevice dev = fx_unit_device(1e12);
  par.virtual_stages = 3;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "virtual_stages"));
  par.virtual_stages = 4;
  m.layers = 13;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  weft_workload_free(wl);
}

const TestCase suite_attention[] = {
    {"attention/causal_fraction", causal_fraction},
    {"attention/flash_ops", flash_ops},
    {"attention/flash_generator", flash_generator},
    {"attention/flash_llama_memory", flash_llama_memory},
    {"attention/cp_generator", cp_generator},
    {"attention/mla_params_flops", mla_params_flops},
    {"attention/mla_up_proj_recompute", mla_up_proj_recompute},
    {"attention/deepseek_v3_params", deepseek_v3_params},
    {"attention/shared_and_first_dense", shared_and_first_dense},
    {"attention/fp8_gemms", fp8_gemms},
    {"attention/fp8_memory", fp8_memory},
    {"attention/attention_efficiency", attention_efficiency},
    {"attention/interleaved_end_stages", interleaved_end_stages},
    {NULL, NULL},
};
