/* test_lora.c — LoRA fine-tuning (docs/zoo.md, "LoRA"): the frozen base's
 * operators (no weight gradient, row-wise FP8 copies only), the adapters'
 * GEMMs and kernels by hand, the trained parameters' memory, reduction and
 * FLOP count in the generator, the targets' names and the refusals. */
#include <stdio.h>
#include <string.h>

#include "model/opcost.h"
#include "../test.h"
#include "gen_fixture.h"
#include "oc_fixture.h"

#define EXACT 1e-12

static int count(const OcOp *ops, int n, const char *name, int phase) {
  int c = 0;
  for (int i = 0; i < n; i++) c += !strcmp(ops[i].name, name) && (phase < 0 || ops[i].phase == phase);
  return c;
}

/* The nth op of that name and phase has these FLOPs (flops >= 0) and bytes
 * (bytes >= 0); a failure naming it when it is missing. */
static void expect(const OcOp *ops, int n, const char *name, int phase, int nth, double flops,
                   double bytes) {
  const OcOp *o = oc_find(ops, n, name, phase, nth);
  if (!o) {
    fprintf(stderr, "  no op %s (phase %d, #%d)\n", name, phase, nth);
    test_failures_++;
    return;
  }
  if (flops >= 0) CHECK_NEAR(o->flops, flops, EXACT);
  if (bytes >= 0) CHECK_NEAR(o->bytes, bytes, EXACT);
}

static int prefixed(const OcOp *ops, int n, const char *prefix) {
  int c = 0;
  for (int i = 0; i < n; i++) c += !strncmp(ops[i].name, prefix, strlen(prefix));
  return c;
}

/* The tiny SwiGLU layer (b 1, s 4, h 8, 2 heads of 4, 2 KV heads, FFN 32,
 * bf16: T = 4 tokens), rank 2 on all four layers, TP 1. QKV's adapter
 * (in 8, out 2 x 4 + 2 x 8 = 24): A 2 T r h = 128 FLOPs each way, B 2 T 24 r
 * = 384; its scale over T x 24 = 96 elements (2 x 96 x 2 bytes), the add
 * 3 x 96 x 2, the input gradient added over T x 8 (3 x 32 x 2). The
 * projection's (row-parallel: in 8, out 8): A and B 2 x 4 x 2 x 8 = 128.
 * fc1's (in 8, out 2 x 32): B 2 x 4 x 64 x 2 = 1024; fc2's (in 32, out
 * 8): A 2 x 4 x 2 x 32 = 512. No base GEMM has a weight gradient, each
 * adapter GEMM has, and the base's forward and data-gradient GEMMs are
 * those of full training; no gradient accumulation kernel is left. */
static void ops_by_hand(void) {
  OcLayer l = oc_tiny(3), full = l;
  l.lora_rank = 2;
  l.lora_targets = WEFT_LORA_ALL;
  OcOp ops[OC_MAX_OPS], fo[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  int fn = weft_opcost_ops(&full, OC_ATTN, fo, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "qkv", WEFT_PHASE_WG), 0);
  CHECK_EQ_INT(count(ops, n, "proj", WEFT_PHASE_WG), 0);
  CHECK_EQ_INT(count(fo, fn, "qkv", WEFT_PHASE_WG), 1);
  const OcOp *q = oc_find(ops, n, "qkv", WEFT_PHASE_IG, 0), *fq = oc_find(fo, fn, "qkv", WEFT_PHASE_IG, 0);
  CHECK(q && fq);
  if (q && fq) CHECK_NEAR(q->flops, fq->flops, EXACT);
  expect(ops, n, "lora_a", WEFT_PHASE_FWD, 0, 128, -1);
  expect(ops, n, "lora_a", WEFT_PHASE_WG, 0, 128, -1);
  expect(ops, n, "lora_b", WEFT_PHASE_FWD, 0, 384, -1);
  expect(ops, n, "lora_scale", WEFT_PHASE_FWD, 0, -1, 384);
  expect(ops, n, "lora_add", WEFT_PHASE_FWD, 0, -1, 576);
  expect(ops, n, "lora_grad_add", WEFT_PHASE_IG, 0, -1, 192);
  expect(ops, n, "lora_a", WEFT_PHASE_FWD, 1, 128, -1);
  expect(ops, n, "lora_b", WEFT_PHASE_FWD, 1, 128, -1);
  CHECK_EQ_INT(count(ops, n, "lora_a", WEFT_PHASE_WG) + count(ops, n, "lora_b", WEFT_PHASE_WG), 4);
  CHECK_EQ_INT(prefixed(ops, n, "grad_accum"), 0);
  CHECK(prefixed(fo, fn, "grad_accum") > 0);
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "fc1", WEFT_PHASE_WG) + count(ops, n, "fc2", WEFT_PHASE_WG), 0);
  expect(ops, n, "lora_b", WEFT_PHASE_FWD, 0, 1024, -1);
  expect(ops, n, "lora_a", WEFT_PHASE_FWD, 1, 512, -1);
  /* one target: the projection's and the MLP's adapters gone */
  l.lora_targets = WEFT_LORA_QKV;
  n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "lora_a", WEFT_PHASE_FWD), 1);
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  CHECK_EQ_INT(prefixed(ops, n, "lora"), 0);
  CHECK_EQ_INT(count(ops, n, "fc1", WEFT_PHASE_WG), 0); /* frozen all the same */
  /* the logits' weight is frozen too */
  n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "logits", WEFT_PHASE_WG), 0);
  CHECK_EQ_INT(count(ops, n, "logits", WEFT_PHASE_IG), 1);
}

/* TP 2 with sequence parallelism: QKV's adapter (column) splits A's r = 2
 * outputs (2 x 4 x 1 x 8 = 64) and B's 24 (2 x 4 x 12 x 2 = 192), its scale
 * over the rank's T x 12; the projection's (row) A over in / 2 (2 x 4 x 2 x
 * 4 = 64), B's 8 outputs split (2 x 4 x 4 x 2 = 64), the gathered output's
 * concatenation a copy of T x 8 (2 x 32 x 2 bytes) and its gradient's split
 * one of T x 4 (2 x 16 x 2), the scale and add on the rank's T / 2 rows (16
 * elements: 64 and 96 bytes), the input gradient added over T x 4 (96). */
static void ops_tp(void) {
  OcLayer l = oc_tiny(3);
  l.tp = 2;
  l.sp = 1;
  l.lora_rank = 2;
  l.lora_targets = WEFT_LORA_QKV | WEFT_LORA_PROJ;
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  expect(ops, n, "lora_a", WEFT_PHASE_FWD, 0, 64, -1);
  expect(ops, n, "lora_b", WEFT_PHASE_FWD, 0, 192, -1);
  expect(ops, n, "lora_scale", WEFT_PHASE_FWD, 0, -1, 2 * 48 * 2);
  expect(ops, n, "lora_a", WEFT_PHASE_FWD, 1, 64, -1);
  expect(ops, n, "lora_b", WEFT_PHASE_FWD, 1, 64, -1);
  expect(ops, n, "lora_gather_cat", WEFT_PHASE_FWD, 0, -1, 128);
  expect(ops, n, "lora_split_copy", WEFT_PHASE_IG, 0, -1, 64);
  expect(ops, n, "lora_scale", WEFT_PHASE_FWD, 1, -1, 64);
  expect(ops, n, "lora_add", WEFT_PHASE_FWD, 1, -1, 96);
  expect(ops, n, "lora_grad_add", WEFT_PHASE_IG, 1, -1, 96);
}

/* Current scaling, TP 1: a frozen weight's input and output gradient are
 * cast to their row-wise FP8 copy alone (QKV's input T x h = 32 elements: 2
 * bytes read, 1 written each, 96; its gradient T x 24 = 96: 288) and
 * nothing is transposed; full training writes both copies (128, 384). */
static void fp8_rowwise(void) {
  OcLayer l = oc_tiny(3), full;
  l.param_bytes = 2;
  l.fp8 = WEFT_FP8_CURRENT;
  full = l;
  l.lora_rank = 2;
  l.lora_targets = WEFT_LORA_QKV;
  OcOp ops[OC_MAX_OPS], fo[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  int fn = weft_opcost_ops(&full, OC_ATTN, fo, OC_MAX_OPS);
  expect(ops, n, "fp8_cast_input", WEFT_PHASE_FWD, 0, -1, 96);
  expect(ops, n, "fp8_cast_grad", WEFT_PHASE_IG, 0, -1, 288);
  expect(fo, fn, "fp8_cast_input", WEFT_PHASE_FWD, 0, -1, 128);
  expect(fo, fn, "fp8_cast_grad", WEFT_PHASE_IG, 0, -1, 384);
  CHECK_EQ_INT(prefixed(ops, n, "fp8_transpose"), 0);
  /* the adapters are never FP8 */
  for (int i = 0; i < n; i++)
    if (!strncmp(ops[i].name, "lora_", 5) && ops[i].kind == OC_GEMM) CHECK_EQ_INT(ops[i].fp8, 0);
}

/* The generator on the tiny GeLU model (h 4, 2 heads of 2, FFN 16, V 8, 2
 * layers, seq 2, batch 8), DP 4, flat model, rank 1 on all four layers: a
 * layer's adapters are QKV's 1 x (4 + 12) + the projection's 1 x (4 + 4) +
 * fc1's 1 x (4 + 16) + fc2's 1 x (16 + 4) = 64, 128 for the model. Each NPU
 * holds the frozen model (weft_model_params) and the adapters at 2 bytes,
 * gradients for the 128 alone (2 bytes), Adam's 12 bytes for them, and the
 * DP all-reduces carry 128 x 2 bytes where full training carries the whole
 * model's gradient. The model FLOPs: the base forward and input gradient
 * (2/3 of full training's count) and the adapters' three passes, 3 x 8
 * sequences x 2 tokens x 2 x 64 FLOPs x 2 layers = 12288. */
static void generator(void) {
  WeftModel m = fx_tiny(2, 2, 8);
  FxRun r;
  fx_run_init(&r, 4, 1e15);
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_OK);
  double full_flops = r.info.model_flops;
  double full_ar = fx_coll_bytes(r.wl, NULL, WEFT_PHASE_WG, WEFT_COLL_ALLREDUCE, -1);
  CHECK_NEAR(full_ar, weft_model_params(&m) * 2, 1e-9);
  fx_run_free(&r);
  fx_run_init(&r, 4, 1e15);
  r.par.lora_rank = 1;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_OK);
  CHECK_NEAR(r.info.mem.params_bytes / 2, weft_model_params(&m) + 128, 1e-9);
  CHECK_NEAR(r.info.mem.grads_bytes, 256, 1e-9);
  CHECK_NEAR(r.info.mem.optimizer_bytes, 128 * 12, 1e-9);
  CHECK_NEAR(fx_coll_bytes(r.wl, NULL, WEFT_PHASE_WG, WEFT_COLL_ALLREDUCE, -1), 256, 1e-9);
  CHECK_NEAR(r.info.model_flops, full_flops * 2 / 3 + 12288, 1e-6);
  fx_run_free(&r);
}

/* Refused where weft does not model it, naming lora_rank: experts, MLA,
 * ZeRO-3, torch layers, a rank TP does not divide on a column target;
 * targets without a rank name lora_targets. */
static void refusals(void) {
  WeftModel moe = fx_tiny_moe(2, 4), m = fx_tiny(2, 2, 8);
  FxRun r;
  fx_run_init(&r, 4, 1e15);
  r.par.lora_rank = 4;
  CHECK_EQ_INT(fx_run(&r, &moe), WEFT_EINPUT);
  CHECK(!strcmp(r.err.field, "lora_rank") && strstr(r.err.msg, "no experts"));
  r.par.zero_stage = 3;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_EINPUT);
  CHECK(!strcmp(r.err.field, "lora_rank") && strstr(r.err.msg, "zero"));
  r.par.zero_stage = 0;
  r.par.layer_impl = WEFT_LAYERS_TORCH;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_EINPUT);
  CHECK(!strcmp(r.err.field, "lora_rank"));
  r.par.layer_impl = WEFT_LAYERS_MEGATRON;
  r.par.lora_rank = 0;
  r.par.lora_targets = WEFT_LORA_FC1;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_EINPUT);
  CHECK(!strcmp(r.err.field, "lora_targets"));
  r.par.lora_targets = WEFT_LORA_QKV; /* rank 3 over TP 2: linear_in's outputs split */
  r.par.lora_rank = 3;
  r.par.tp = 2;
  r.par.dp = 2;
  r.par.sequence_parallel = 1;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_EINPUT);
  CHECK(!strcmp(r.err.field, "lora_rank") && strstr(r.err.msg, "tp = 2"));
  r.par.lora_targets = WEFT_LORA_PROJ | WEFT_LORA_FC2; /* row targets split their input */
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_OK);
  r.par.lora_rank = WEFT_LORA_MAX_RANK + 1;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_EINPUT);
  CHECK(!strcmp(r.err.field, "lora_rank"));
  fx_run_free(&r);
}

/* The targets' names: Megatron's with or without linear_, all, commas or
 * spaces; unknown names and an empty list refused, the mask unchanged. */
static void names(void) {
  WeftError err;
  int mask = 0;
  CHECK_EQ_INT(weft_lora_targets_parse("linear_qkv, fc2", &mask, &err), WEFT_OK);
  CHECK_EQ_INT(mask, WEFT_LORA_QKV | WEFT_LORA_FC2);
  CHECK_EQ_INT(weft_lora_targets_parse("all", &mask, &err), WEFT_OK);
  CHECK_EQ_INT(mask, WEFT_LORA_ALL);
  CHECK_EQ_INT(weft_lora_targets_parse("proj fc1", &mask, &err), WEFT_OK);
  CHECK_EQ_INT(mask, WEFT_LORA_PROJ | WEFT_LORA_FC1);
  CHECK_EQ_INT(weft_lora_targets_parse("qkv,dense", &mask, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "lora_targets") && strstr(err.msg, "'dense'"));
  CHECK_EQ_INT(weft_lora_targets_parse("linear_all", &mask, &err), WEFT_EINPUT);
  CHECK_EQ_INT(weft_lora_targets_parse(" , ", &mask, &err), WEFT_EINPUT);
  CHECK_EQ_INT(weft_lora_targets_parse(NULL, &mask, &err), WEFT_EINPUT);
  CHECK_EQ_INT(mask, WEFT_LORA_PROJ | WEFT_LORA_FC1);
}

const TestCase suite_lora[] = {{"lora/ops_by_hand", ops_by_hand},
                               {"lora/ops_tp", ops_tp},
                               {"lora/fp8_rowwise", fp8_rowwise},
                               {"lora/generator", generator},
                               {"lora/refusals", refusals},
                               {"lora/names", names},
                               {NULL, NULL}};
