/* test_dropout.c — dropout as the frameworks run it (docs/zoo.md,
 * "Dropout"): the bias-dropout-add and attention dropout kernels' bytes by
 * hand, fused attention's slowdown against the H100's measured table
 * (data/measured/h100_attention_dropout.csv, its figures read here by
 * hand), and the activation memory with and without dropout. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/measured.h"
#include "model/opcost.h"
#include "gen_fixture.h"
#include "../test.h"
#include "oc_fixture.h"

#define EXACT 1e-12

static const OcOp *find(const OcOp *ops, int n, const char *name, int phase) {
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, name) && ops[i].phase == phase) return &ops[i];
  return NULL;
}

/* b 1, s 4, h 8 (T h = 32 elements), SwiGLU, TP 1, bf16. The residual add
 * reads x and the residual and writes the sum: 3 x 32 x 2 = 192 bytes, 32
 * FLOPs; backward twice (384, 64). With hidden dropout 0.1 Megatron's
 * bias-dropout-add also writes the 1-byte mask (+32 bytes, +32 FLOPs), the
 * backward twice: 224 and 448 bytes, 64 and 128 FLOPs. The measured
 * tables: the forward at the dropout kernel's rows (5 bytes an element: 224
 * / 5 = 44.8 elements), the backward at the add's (6 bytes: 448 / 6);
 * without dropout both at the add's (192 / 6 = 32, 384 / 6 = 64). */
static void residual_bytes(void) {
  OcLayer l = oc_tiny(3);
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  const OcOp *f = find(ops, n, "residual_add", WEFT_PHASE_FWD);
  const OcOp *b = find(ops, n, "residual_add", WEFT_PHASE_IG);
  CHECK(f && b && !find(ops, n, "bias_dropout_add", WEFT_PHASE_FWD));
  if (f && b) {
    CHECK_NEAR(f->flops, 32, EXACT);
    CHECK_NEAR(f->bytes, 192, EXACT);
    CHECK_NEAR(b->bytes, 384, EXACT);
    CHECK_EQ_INT(f->mem, WM_ADD);
    CHECK_NEAR(f->elems, 32, EXACT);
    CHECK_NEAR(b->elems, 64, EXACT);
  }
  l.hidden_drop = 0.1;
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  f = find(ops, n, "bias_dropout_add", WEFT_PHASE_FWD);
  b = find(ops, n, "bias_dropout_add", WEFT_PHASE_IG);
  CHECK(f && b);
  if (f && b) {
    CHECK_NEAR(f->flops, 64, EXACT);
    CHECK_NEAR(f->bytes, 224, EXACT);
    CHECK_NEAR(b->flops, 128, EXACT);
    CHECK_NEAR(b->bytes, 448, EXACT);
    CHECK_EQ_INT(f->mem, WM_DROPOUT);
    CHECK_NEAR(f->elems, 224 / 5.0, EXACT);
    CHECK_EQ_INT(b->mem, WM_ADD);
    CHECK_NEAR(b->elems, 448 / 6.0, EXACT);
  }
  /* attention dropout alone adds no op to the fused kernel's block */
  l.hidden_drop = 0;
  l.attn_drop = 0.1;
  l.flash = l.causal = 1;
  int m = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  l.attn_drop = 0;
  OcOp ops0[OC_MAX_OPS];
  CHECK_EQ_INT(weft_opcost_ops(&l, OC_ATTN, ops0, OC_MAX_OPS), m);
  CHECK(!find(ops, m, "attn_dropout", WEFT_PHASE_FWD));
}

static int h100(WeftDevice *d) {
  WeftError e;
  int rc = weft_zoo_device("data/zoo", "h100", d, &e);
  if (rc) fprintf(stderr, "  h100: %s\n", e.msg);
  return rc;
}

/* The table's rows (backend, batch x heads, seq, head dim: fwd_us, bwd_us at
 * p 0 and 0.1) read by hand. cuDNN, head dim 128, seq 4096: forward ratios
 * 339.3/175.3 = 1.936, 584.6/278.3 = 2.101, 1029.6/494.5 = 2.082 (median
 * the last); backward 605.7/518.1 = 1.169, 1106.4/983.4 = 1.125,
 * 2078.6/1718.3 = 1.210 (median the first). Seq 2048: forward 131.8/74.8,
 * 200.4/101.8, 318.1/166.5 (1.762, 1.969, 1.911: the last); backward
 * 1911.6/473.4 = 4.04 (a noisy timing), 636.1/391.9 = 1.623, 757.2/600.9 =
 * 1.260 (the middle one). Seq 8192 backward: 1818.3/1509.1 = 1.205,
 * 3501.0/2790.6 = 1.255, 6678.1/5552.9 = 1.203 (the first). Flash, head
 * dim 64, seq 8192 (one row): forward 1373.2/1055.4. */
static void attention_ratio_csv(void) {
  WeftDevice d;
  if (h100(&d)) {
    CHECK(0);
    return;
  }
  const WeftMeasured *t = weft_measured_of(&d);
  CHECK(t != NULL);
  CHECK_NEAR(weft_measured_attention_dropout(t, WM_ATTN_TE, 0, 4096, 128), 1029.6 / 494.5, EXACT);
  CHECK_NEAR(weft_measured_attention_dropout(t, WM_ATTN_TE, 1, 4096, 128), 605.7 / 518.1, EXACT);
  CHECK_NEAR(weft_measured_attention_dropout(t, WM_ATTN_CUDNN, 0, 2048, 128), 318.1 / 166.5, EXACT);
  CHECK_NEAR(weft_measured_attention_dropout(t, WM_ATTN_TE, 1, 2048, 128), 636.1 / 391.9, EXACT);
  /* between measured sequences: linear in ln(seq), the midpoint at sqrt(2048 x 4096) */
  CHECK_NEAR(weft_measured_attention_dropout(t, WM_ATTN_TE, 0, sqrt(2048.0 * 4096), 128),
             (318.1 / 166.5 + 1029.6 / 494.5) / 2, 1e-9);
  /* beyond them the nearest; head width 100 is nearer 128 than 64 in ln */
  CHECK_NEAR(weft_measured_attention_dropout(t, WM_ATTN_TE, 1, 16384, 100), 1818.3 / 1509.1,
             EXACT);
  CHECK_NEAR(weft_measured_attention_dropout(t, WM_ATTN_FLASH, 0, 8192, 64), 1373.2 / 1055.4,
             EXACT);
  CHECK(weft_measured_attention_dropout(NULL, WM_ATTN_TE, 0, 4096, 128) < 0);
}

/* The fused kernel of GPT-3 175B at TP 4 (24 heads of 128, seq 2048, b 1):
 * with dropout its forward and backward take the table's ratios at seq 2048
 * longer on the H100 (above: 318.1/166.5 and 636.1/391.9). A device without
 * a table (the A100) takes the H100's medians over the rows of seq >= 4096,
 * which opcost.h holds to three places: cuDNN forward (2.082 + 2.101)/2 of
 * 1.936, 1.949, 2.078, 2.082, 2.101, 2.208, 2.407, 2.549; backward (1.205 +
 * 1.210)/2 of 1.125, 1.169, 1.203, 1.205, 1.210, 1.255, 1.299, 1.340. */
static void fused_slowdown(void) {
  WeftDevice d;
  if (h100(&d)) {
    CHECK(0);
    return;
  }
  OcLayer l;
  memset(&l, 0, sizeof l);
  l.b = 1;
  l.s = l.kv_len = 2048;
  l.h = 12288;
  l.heads = l.kv_heads = 96;
  l.dqk = l.dv = 128;
  l.ffn = l.moe_ffn = 4 * 12288;
  l.vocab = 50304;
  l.ffn_matrices = 2;
  l.tp = 4;
  l.ep = 1;
  l.act_bytes = 2;
  l.flash = l.causal = 1;
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  const OcOp *f = find(ops, n, "flash_attn", WEFT_PHASE_FWD);
  const OcOp *b = find(ops, n, "flash_attn", WEFT_PHASE_IG);
  CHECK(f && b);
  if (!f || !b) return;
  double f0 = weft_opcost_layer_op_ns(&d, &l, f), b0 = weft_opcost_layer_op_ns(&d, &l, b);
  l.attn_drop = 0.1;
  CHECK_NEAR(weft_opcost_layer_op_ns(&d, &l, f) / f0, 318.1 / 166.5, 1e-12);
  CHECK_NEAR(weft_opcost_layer_op_ns(&d, &l, b) / b0, 636.1 / 391.9, 1e-12);
  /* the block's forward grows by exactly the kernel's extra time */
  double with[WEFT_NPHASES], without[WEFT_NPHASES];
  weft_opcost_block(&d, &l, OC_ATTN, with);
  l.attn_drop = 0;
  weft_opcost_block(&d, &l, OC_ATTN, without);
  CHECK_NEAR(with[WEFT_PHASE_FWD] - without[WEFT_PHASE_FWD], f0 * (318.1 / 166.5 - 1), 1e-9);
  WeftDevice a;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "a100", &a, &e), WEFT_OK);
  CHECK(!weft_measured_of(&a));
  f0 = weft_opcost_layer_op_ns(&a, &l, f);
  b0 = weft_opcost_layer_op_ns(&a, &l, b);
  l.attn_drop = 0.1;
  CHECK_NEAR(weft_opcost_layer_op_ns(&a, &l, f) / f0, OC_DROP_TE_FWD, 1e-12);
  CHECK_NEAR(weft_opcost_layer_op_ns(&a, &l, b) / b0, OC_DROP_TE_BWD, 1e-12);
  CHECK(fabs(OC_DROP_TE_FWD - (2.0821 + 2.1006) / 2) < 1e-3);
  CHECK(fabs(OC_DROP_TE_BWD - (1818.3 / 1509.1 + 2078.6 / 1718.3) / 2) < 1e-3);
  l.fa2 = 1;
  CHECK_NEAR(weft_opcost_layer_op_ns(&a, &l, f) / f0, OC_DROP_FA2_FWD, 1e-12);
}

/* Tiny (h 4, 2 heads, s 2, b 1) at TP 2 x DP 2, no SP: sbh = 8. Per layer
 * and micro-batch, 2-byte activations: the norms' and the QKV's and MLP's
 * inputs 8 sbh = 64, the TP-split tensors sbh 24/t = 96, the softmax's
 * output 2 a s^2 b / t = 8: 168; with dropout 0.1 + the two hidden masks
 * 2 sbh = 16 bytes, + the attention's mask a s^2 b / t = 4 bytes and its
 * output 8: 196 (Korthikanti's sbh (10 + 24/t) + 5as^2b/t). Flash keeps no
 * s^2 tensor (its mask is drawn again in backward) but its statistics, 4 b
 * (a/t) s = 8, in the softmax output's place: 168 without, 184 with (the
 * hidden masks). 2 layers + the fp32
 * logits 32. At 4-byte activations the masks stay 1 byte: standard 2 (64 +
 * 96 + 8) = 336 without, + 16 + 4 + 16 = 372 with. */
static void memory_masks(void) {
  WeftModel m = fx_tiny(2, 2, 4);
  static const int n[2] = {2, 2};
  WeftNetwork net = fx_net(2, n, WEFT_SWITCH);
  WeftDevice dev = fx_unit_device(1e12);
  WeftParallel par;
  weft_parallel_default(&par);
  par.tp = 2;
  par.dp = 2;
  struct {
    int attn;
    double act_bytes, p, bytes;
  } c[] = {{WEFT_ATTENTION_STANDARD, 2, 0, 2 * 168 + 32}, {WEFT_ATTENTION_STANDARD, 2, 0.1, 2 * 196 + 32},
           {WEFT_ATTENTION_FLASH, 2, 0, 2 * 168 + 32},    {WEFT_ATTENTION_FLASH, 2, 0.1, 2 * 184 + 32},
           {WEFT_ATTENTION_STANDARD, 4, 0, 2 * 336 + 32}, {WEFT_ATTENTION_STANDARD, 4, 0.1, 2 * 372 + 32}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    WeftWorkload *wl = weft_workload_create();
    WeftCommunicator comm;
    WeftGenInfo info;
    WeftError err;
    par.attention = c[i].attn;
    par.act_bytes = c[i].act_bytes;
    par.attention_dropout = par.hidden_dropout = c[i].p; /* the run's, over the model's 0.1 */
    CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
    CHECK_NEAR(info.mem.activations_bytes, c[i].bytes, EXACT);
    weft_workload_free(wl);
  }
  /* the run's value < 0: the model's (fx_tiny's 0.1) */
  par.attention = WEFT_ATTENTION_STANDARD;
  par.act_bytes = 2;
  par.attention_dropout = par.hidden_dropout = -1;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.mem.activations_bytes, 2 * 196 + 32, EXACT);
  weft_workload_free(wl);
}

const TestCase suite_dropout[] = {{"dropout_residual_bytes", residual_bytes},
                                  {"dropout_attention_ratio_csv", attention_ratio_csv},
                                  {"dropout_fused_slowdown", fused_slowdown},
                                  {"dropout_memory_masks", memory_masks},
                                  {NULL, NULL}};
