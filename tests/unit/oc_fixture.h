/* oc_fixture.h — the unit tests' tiny layer for the per-operator model
 * (src/model/opcost.c): b = 1, s = 4, h = 8, 2 heads of 4 (2 key/value
 * heads), FFN 32, vocab 16, TP 1, EP 1, bf16 activations; ffn_matrices 2
 * (the GeLU family: biases, LayerNorm, learned positions) or 3 (SwiGLU).
 * Each test changes what it is about. */
#ifndef WEFT_TEST_OC_FIXTURE_H
#define WEFT_TEST_OC_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "model/opcost.h"
#include "../test.h"

static inline OcLayer oc_tiny(int ffn_matrices) {
  OcLayer l;
  memset(&l, 0, sizeof l);
  l.b = 1;
  l.s = l.kv_len = 4;
  l.h = 8;
  l.heads = l.kv_heads = 2;
  l.dqk = l.dv = 4;
  l.ffn = l.moe_ffn = 32;
  l.vocab = 16;
  l.ffn_matrices = ffn_matrices;
  /* the GeLU family's traits (weft_opcost_layer takes them from the model) */
  l.bias = l.layernorm = l.learned_pos = ffn_matrices == 2;
  l.tp = l.ep = 1;
  l.act_bytes = 2;
  return l;
}

/* One rank of a context-parallel ring of 2 on a 512-token causal sequence
 * (test_cpring.c, test_cptorch.c): b = 1, S = 256 local tokens (chunks of
 * c = 128), 2 heads of 64, 1 KV head, TP 1, bf16; Transformer Engine's ring
 * (cp_torch 0) unless the test sets cp_torch. */
static inline OcLayer oc_ring2(void) {
  OcLayer l;
  memset(&l, 0, sizeof l);
  l.b = 1;
  l.s = 256;
  l.kv_len = 512;
  l.h = 128;
  l.heads = 2;
  l.kv_heads = 1;
  l.dqk = l.dv = 64;
  l.ffn = l.moe_ffn = 512;
  l.vocab = 16;
  l.ffn_matrices = 3;
  l.tp = l.ep = 1;
  l.flash = l.causal = 1;
  l.cp = 2;
  l.cp_ring = 1;
  l.act_bytes = l.param_bytes = 2;
  return l;
}

/* A CP ring layer's diagonal kernel and faster off-diagonal kernel, forward
 * [0] and backward [1], each at its time on device d (no launch), as
 * weft_gen_cp_setup takes them for the transfers' cover. */
static inline void oc_ring_kernels(const WeftDevice *d, const OcLayer *l, double diag[2],
                                   double off[2]) {
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(l, OC_ATTN, ops, OC_MAX_OPS);
  diag[0] = diag[1] = 0, off[0] = off[1] = 1e300;
  for (int i = 0; i < n; i++) {
    if (!ops[i].cp_role) continue;
    double t = weft_opcost_op_ns(d, &ops[i], 2);
    int ph = ops[i].phase != WEFT_PHASE_FWD;
    if (ops[i].cp_role == OC_CP_DIAGONAL) diag[ph] = t;
    else if (t < off[ph]) off[ph] = t;
  }
}

/* The nth op (from 0) of that name and phase in ops[0..n), or NULL. */
static inline const OcOp *oc_find(const OcOp *ops, int n, const char *name, int phase, int nth) {
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, name) && ops[i].phase == phase && nth-- == 0) return &ops[i];
  return NULL;
}

/* The first op of that name and phase; a failed check naming it when absent. */
static inline const OcOp *oc_need(const OcOp *ops, int n, const char *name, int phase) {
  const OcOp *o = oc_find(ops, n, name, phase, 0);
  CHECK(o != NULL);
  if (!o) fprintf(stderr, "  missing %s phase %d\n", name, phase);
  return o;
}

#endif
