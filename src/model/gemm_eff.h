/* gemm_eff.h — internal: the compute time of one GEMM from its shape (tile
 * and wave quantization, split-K, K-loop overhead; docs/zoo.md). */
#ifndef WEFT_MODEL_GEMM_EFF_H
#define WEFT_MODEL_GEMM_EFF_H

#include "weft.h"

/* ns of batch products (m x k)(k x n) on d at rate FLOP/s (the tensor-core
 * peak of the GEMM's type), compute only (the caller takes the roofline
 * with the bytes). d needs sms, tile_m, tile_n > 0 and, without the shape
 * model (gemm_eff_max 0), gemm_efficiency > 0. An empty GEMM takes 0. */
double weft_gemm_ns(const WeftDevice *d, double rate, double batch, double m, double n, double k);

#endif
