/* opcost.h — internal: compute time of a transformer's operators on a device,
 * one roofline per operator with GEMM tile and wave quantization (docs/zoo.md). */
#ifndef WEFT_MODEL_OPCOST_H
#define WEFT_MODEL_OPCOST_H

#include "weft.h"

/* The blocks a generated transformer charges compute to. */
typedef enum { OC_ATTN = 0, OC_MLP, OC_MOE, OC_LOGITS, OC_EMB, OC_NBLOCKS } OcBlock;

/* How an operator computes: a GEMM of batch pairs (m x k)(k x n) on the
 * tensor cores, a fused tensor-core kernel given by its FLOPs (flash
 * attention), or a vector kernel off the tensor cores. */
typedef enum { OC_VECTOR = 0, OC_GEMM, OC_FUSED } OcKind;

/* One operator of one phase. */
typedef struct {
  const char *name;
  int phase;  /* WeftPhase */
  OcKind kind;
  double batch, m, n, k;
  double flops, bytes;
  int fp8;    /* a GEMM at the device's FP8 rate (when it has one) */
  /* For the device's measured tables (measured.h): a vector kernel's
   * WeftMeasuredMem and the elements it is looked up at; a fused attention
   * kernel's causal mask (its batch = batch x heads, m = query tokens,
   * n = keys, k = head width). */
  int mem;
  double elems;
  int causal;
} OcOp;

/* One micro-batch on one TP rank: the model's shape and the parallel split. */
typedef struct {
  double b, s, h, heads, kv_heads, ffn, vocab, experts, top_k;
  double kv_len;       /* keys each query attends over: s x cp (context parallel) */
  double dqk, dv;      /* per-head query/key and value widths (h / heads unless MLA) */
  double q_lora, kv_lora, rope; /* MLA latents (kv_lora 0: standard attention) */
  double shared, moe_ffn;       /* MoE: shared experts, an expert's FFN width */
  int ffn_matrices;    /* 2: GeLU family (biases, LayerNorm, dropout); 3: SwiGLU */
  double tp, ep;
  int sp;              /* sequence parallel: norms, dropout, residuals split over TP */
  int flash;           /* attention as one fused kernel (else score/softmax/context) */
  int causal;          /* causal mask: a flash kernel skips the blocks above the diagonal */
  int fp8;             /* linear layers' GEMMs in FP8 */
  double act_bytes;
} OcLayer;

/* Most operators a block lists (forward and backward). */
#define OC_MAX_OPS 48
/* The key/query block of a flash kernel (FlashAttention-2's 128 x 128 tiles):
 * a causal mask skips the blocks wholly above the diagonal. */
#define OC_FLASH_BLOCK 128.0

/* 1 when the device carries the per-operator model's data. */
int weft_opcost_ready(const WeftDevice *d);
/* The layer of model m under par (the rank's s / cp query tokens); m must be
 * a transformer. */
void weft_opcost_layer(const WeftModel *m, const WeftParallel *par, OcLayer *l);
/* The fraction of the s_q x kv_len score blocks a flash kernel computes:
 * (n + 1) / (2n), n = ceil(kv_len / OC_FLASH_BLOCK) blocks, under a causal
 * mask (context-parallel ranks hold balanced chunk pairs, so each does that
 * share of its rows); 1 without a mask. */
double weft_opcost_causal_fraction(double kv_len, int causal);
/* The operators of block blk in forward, input-gradient and weight-gradient
 * phases into ops[max]; returns how many (at most OC_MAX_OPS). */
int weft_opcost_ops(const OcLayer *l, OcBlock blk, OcOp *ops, int max);
/* Time of one operator: max(FLOPs / achieved rate, bytes / achieved HBM
 * bandwidth); a GEMM's FLOPs are its tiles, in waves over the SMs. */
double weft_opcost_op_ns(const WeftDevice *d, const OcOp *op, double act_bytes);
/* Sum of the block's operator times per phase into ns[WEFT_NPHASES]. */
void weft_opcost_block(const WeftDevice *d, const OcLayer *l, OcBlock blk, double *ns);
/* Adam step over elems parameters (memory-bound: every state read and written). */
double weft_opcost_optimizer_ns(const WeftDevice *d, const WeftParallel *par, double elems);

#endif
