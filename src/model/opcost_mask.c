/* opcost_mask.c — the share of a flash kernel's score blocks an attention
 * mask leaves it to compute (causal, sliding window; docs/zoo.md), for the
 * one-kernel attention (opcost.c) and context parallelism's ring steps
 * (opcost_cp.c). */
#include <math.h>

#include "model/opcost.h"

double weft_opcost_causal_fraction(double kv_len, int causal) {
  if (!causal) return 1.0;
  double n = ceil(kv_len / OC_FLASH_BLOCK);
  return n > 0 ? (n + 1) / (2 * n) : 1.0;
}

double weft_opcost_pair_fraction(double kv_len, int causal, double window, double windowed) {
  double c = weft_opcost_causal_fraction(kv_len, causal);
  if (!causal || !(window > 0) || !(windowed > 0) || window >= kv_len) return c;
  double n = ceil(kv_len / OC_FLASH_BLOCK), blocks = 0;
  for (double j = 0; j < n; j++) {
    double first = floor((j * OC_FLASH_BLOCK - window) / OC_FLASH_BLOCK);
    blocks += j - (first > 0 ? first : 0) + 1;
  }
  return windowed * blocks / (n * n) + (1 - windowed) * c;
}
