/* oc_fixture.h — the unit tests' tiny layer for the per-operator model
 * (src/model/opcost.c): b = 1, s = 4, h = 8, 2 heads of 4 (2 key/value
 * heads), FFN 32, vocab 16, TP 1, EP 1, bf16 activations; ffn_matrices 2
 * (the GeLU family) or 3 (SwiGLU). Each test changes what it is about. */
#ifndef WEFT_TEST_OC_FIXTURE_H
#define WEFT_TEST_OC_FIXTURE_H

#include <string.h>

#include "model/opcost.h"

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
  l.tp = l.ep = 1;
  l.act_bytes = 2;
  return l;
}

#endif
