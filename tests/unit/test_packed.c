/* test_packed.c — packed samples (docs/zoo.md, "Packed samples"): the
 * attention core of a sequence packing samples of pk tokens is that of
 * b s / pk sequences of pk tokens (the same Q, K, V, O bytes), the model's
 * FLOP count shrinks by the scores' share, and what weft cannot run packed
 * is refused. */
#include <string.h>

#include "model/opcost.h"
#include "../test.h"
#include "gen_fixture.h"
#include "oc_fixture.h"

/* The flash kernel of the tiny causal layer (b 1, s 512) packing samples
 * of 128 tokens against that of a layer of b 4, s 128 unpacked: the same
 * FLOPs, batch and shape each way; its bytes those of the packed sequence
 * (every token's Q, K, V and O once); 4/10 of the whole sequence's FLOPs. */
static void kernel_as_samples(void) {
  OcLayer l = oc_tiny(3), ref, whole;
  l.s = l.kv_len = 512;
  l.flash = l.causal = 1;
  whole = ref = l;
  l.pack = 128;
  ref.b = 4;
  ref.s = ref.kv_len = 128;
  OcOp ops[OC_MAX_OPS], ro[OC_MAX_OPS], wo[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  int rn = weft_opcost_ops(&ref, OC_ATTN, ro, OC_MAX_OPS);
  int wn = weft_opcost_ops(&whole, OC_ATTN, wo, OC_MAX_OPS);
  for (int ph = WEFT_PHASE_FWD; ph <= WEFT_PHASE_IG; ph++) {
    const OcOp *f = oc_find(ops, n, "flash_attn", ph, 0), *r = oc_find(ro, rn, "flash_attn", ph, 0);
    const OcOp *w = oc_find(wo, wn, "flash_attn", ph, 0);
    CHECK(f && r && w);
    if (!f || !r || !w) return;
    CHECK_NEAR(f->flops, r->flops, 1e-9);
    CHECK_NEAR(f->batch, r->batch, 0);
    CHECK_NEAR(f->m, 128, 0);
    CHECK_NEAR(f->n, 128, 0);
    CHECK_NEAR(f->bytes, w->bytes, 0);
    /* 128-token tiles: the whole sequence's causal kernel computes 10 of
     * its 4 x 4 tiles, the samples' 4 diagonal ones */
    CHECK_NEAR(f->flops / w->flops, 0.4, 1e-12);
  }
}

/* The generator, flash attention on the tiny GeLU model (h 4, seq 4, 2
 * layers, batch 8, DP 4): Megatron's count has 4 s pk h score and context
 * FLOPs a sample and layer (2 heads x 2 x (d 2 + d 2) per pair), 3 x that
 * a step; samples of 2 tokens instead of 4 leave 4 x 4 x 2 x 4 = 128 of
 * 256 per sample and layer: 3 x 8 x 2 x 128 = 6144 fewer. A sample as long
 * as the sequence changes nothing. */
static void model_flops(void) {
  WeftModel m = fx_tiny(4, 2, 8);
  FxRun r;
  fx_run_init(&r, 4, 1e15);
  r.par.attention = WEFT_ATTENTION_FLASH;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_OK);
  double whole = r.info.model_flops;
  r.par.packed_sample_len = 4;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_OK);
  CHECK_NEAR(r.info.model_flops, whole, 1e-9);
  r.par.packed_sample_len = 2;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_OK);
  CHECK_NEAR(whole - r.info.model_flops, 6144, 1e-6);
  fx_run_free(&r);
}

/* Refused naming packed_sample_len: longer than the sequence, unfused
 * attention (its scores cover the whole sequence), context parallelism;
 * a negative length. */
static void refusals(void) {
  WeftModel m = fx_tiny(4, 2, 8);
  FxRun r;
  fx_run_init(&r, 4, 1e15);
  r.par.attention = WEFT_ATTENTION_FLASH;
  r.par.packed_sample_len = 5;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_EINPUT);
  CHECK(!strcmp(r.err.field, "packed_sample_len") && strstr(r.err.msg, "seq_len"));
  r.par.packed_sample_len = 2;
  r.par.attention = WEFT_ATTENTION_STANDARD;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_EINPUT);
  CHECK(!strcmp(r.err.field, "packed_sample_len") && strstr(r.err.msg, "fused"));
  r.par.attention = WEFT_ATTENTION_FLASH;
  r.par.cp = 2;
  r.par.dp = 2;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_EINPUT);
  CHECK(!strcmp(r.err.field, "packed_sample_len") && strstr(r.err.msg, "cp 1"));
  r.par.cp = 1;
  r.par.dp = 4;
  r.par.packed_sample_len = -1;
  CHECK_EQ_INT(fx_run(&r, &m), WEFT_EINPUT);
  CHECK(!strcmp(r.err.field, "packed_sample_len"));
  fx_run_free(&r);
}

const TestCase suite_packed[] = {{"packed/kernel_as_samples", kernel_as_samples},
                                 {"packed/model_flops", model_flops},
                                 {"packed/refusals", refusals},
                                 {NULL, NULL}};
