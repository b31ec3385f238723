/* test_loss.c — the loss's implementations (WeftParallel.cross_entropy,
 * docs/zoo.md "The loss"): their kernel times on a roofline device and the
 * last stage's memory for the loss, each by hand; the names, their round
 * trip and the refusals naming the field. */
#include <string.h>

#include "../test.h"
#include "gen_fixture.h"
#include "model/opcost.h"
#include "oc_fixture.h"
#include "weft.h"

/* A per-operator device that moves 1 byte a ns and computes far faster:
 * a vector kernel takes its bytes in ns (plus a launch, the same for
 * every kernel). */
static WeftDevice roofline(void) {
  WeftDevice d;
  memset(&d, 0, sizeof d);
  d.peak_flops = d.peak_vector_flops = 1e18;
  d.hbm_bytes_per_s = 1e9;
  d.sms = d.tile_m = d.tile_n = 1;
  d.gemm_efficiency = d.hbm_efficiency = 1.0;
  return d;
}

/* The loss's own kernel(s) in ns for implementation ce over the tiny
 * layer's 4 x 16 = 64 logits, phase ph. */
static double loss_ns(int ce, int ph) {
  WeftDevice d = roofline();
  OcLayer l = oc_tiny(2);
  l.ce = ce;
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  const OcOp *o = oc_find(ops, n, "cross_entropy", ph, 0);
  CHECK(o != NULL);
  return o ? weft_opcost_op_ns(&d, o, l.act_bytes) : 0;
}

/* Per logit at bf16 (by hand from the kernels' lines, opcost.c): megatron
 * 38 forward / 14 backward bytes, fused 22 / 10, te 6 / 4, torch's
 * F.cross_entropy on fp32 8 / 16 (its cast a kernel of its own), on the
 * bf16 logits (torch_nocast) 4 / 8. At 1 byte a ns over 64 logits the
 * differences are 64 x the bytes'. */
static void loss_time(void) {
  const int F = WEFT_PHASE_FWD, B = WEFT_PHASE_IG;
  double mf = loss_ns(WEFT_CE_MEGATRON, F), mb = loss_ns(WEFT_CE_MEGATRON, B);
  CHECK_NEAR(mf - loss_ns(WEFT_CE_FUSED, F), (38 - 22) * 64, 1e-6);
  CHECK_NEAR(mb - loss_ns(WEFT_CE_FUSED, B), (14 - 10) * 64, 1e-6);
  CHECK_NEAR(mf - loss_ns(WEFT_CE_TE, F), (38 - 6) * 64, 1e-6);
  CHECK_NEAR(mb - loss_ns(WEFT_CE_TE, B), (14 - 4) * 64, 1e-6);
  CHECK_NEAR(mf - loss_ns(WEFT_CE_TORCH, F), (38 - 8) * 64, 1e-6);
  CHECK_NEAR(loss_ns(WEFT_CE_TORCH, B) - mb, (16 - 14) * 64, 1e-6);
  CHECK_NEAR(mf - loss_ns(WEFT_CE_TORCH_NOCAST, F), (38 - 4) * 64, 1e-6);
  CHECK_NEAR(mb - loss_ns(WEFT_CE_TORCH_NOCAST, B), (14 - 8) * 64, 1e-6);
}

/* The tiny GeLU model (b 1, s 2, V 8, 4 layers; test_offload.c): 1312
 * bytes of activations, of which the loss keeps 4 b s V = 64 (fp32) under
 * Megatron's kernels, fused or not; Transformer Engine's writes the
 * gradient over the bf16 logits: 2 b s V = 32, 1280 in all; torch's holds
 * three fp32 tensors a logit at its backward's peak (the log-softmax,
 * nll_loss's gradient, log-softmax's): 12 b s V = 192, 1440 in all;
 * without the cast the three at bf16: 6 b s V = 96, 1344. */
static void loss_memory(void) {
  WeftModel m = fx_tiny(2, 4, 1);
  FxRun r;
  fx_run_init(&r, 1, 1e15);
  static const struct {
    int ce;
    double act;
  } c[] = {{WEFT_CE_FUSED, 1312}, {WEFT_CE_MEGATRON, 1312}, {WEFT_CE_TORCH, 1440},
           {WEFT_CE_TE, 1280}, {WEFT_CE_TORCH_NOCAST, 1344}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    r.par.cross_entropy = c[i].ce;
    CHECK_EQ_INT(fx_run(&r, &m), WEFT_OK);
    CHECK_NEAR(r.info.mem.activations_bytes, c[i].act, 1e-9);
  }
  /* out of range: refused, naming the field */
  static const int bad[] = {5, -1};
  for (size_t i = 0; i < 2; i++) {
    r.par.cross_entropy = bad[i];
    CHECK_EQ_INT(fx_run(&r, &m), WEFT_EINPUT);
    CHECK(!strcmp(r.err.field, "cross_entropy"));
  }
  fx_run_free(&r);
}

/* Every name parses to its enum value and back; a wrong one (a case
 * changed, Megatron's impl name "native", an empty text) is refused naming
 * the field, the output untouched. */
static void loss_names(void) {
  static const char *const n[5] = {"fused", "megatron", "te", "torch", "torch_nocast"};
  WeftError e;
  for (int i = 0; i < 5; i++) {
    int k = -1;
    CHECK_EQ_INT(weft_cross_entropy_parse(n[i], &k, &e), WEFT_OK);
    CHECK_EQ_INT(k, i);
    CHECK(!strcmp(weft_cross_entropy_name(i), n[i]));
  }
  static const char *const bad[] = {"Fused", "native", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int k = 9;
    CHECK_EQ_INT(weft_cross_entropy_parse(bad[i], &k, &e), WEFT_EINPUT);
    CHECK(!strcmp(e.field, "cross_entropy") && k == 9);
  }
}

const TestCase suite_loss[] = {
    {"loss/time", loss_time},
    {"loss/memory", loss_memory},
    {"loss/names", loss_names},
    {0, 0},
};
