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
