/* measured.h — internal: a device's measured kernel tables (data/measured/
 * DEVICE_{gemm,attention,memory,launch}.csv, written by
 * scripts/measure/measure.py; docs/zoo.md, "Measured tables") read once per
 * process and looked up by the per-operator compute model (opcost.c). Every
 * lookup answers < 0 when the device has no measurement for it: the caller
 * falls back to the shape model and the datasheet rates. */
#ifndef WEFT_MODEL_MEASURED_H
#define WEFT_MODEL_MEASURED_H

#include "weft.h"

/* GEMM input types of the tables: BF16 (torch.matmul), FP8 e4m3 with FP32
 * accumulation (torch._scaled_mm) and FP8 with the fast accumulation that
 * Transformer Engine's forward GEMMs use (use_fast_accum). */
typedef enum { WM_BF16 = 0, WM_FP8, WM_FP8_FAST, WM_NDTYPES } WeftMeasuredDtype;

/* The memory-bound kernels of h100_memory.csv; WM_MEM_NONE: none measured
 * (the op runs at the datasheet's bandwidth x hbm_efficiency). */
typedef enum {
  WM_MEM_NONE = 0,
  WM_COPY,
  WM_ADD,
  WM_RMSNORM_FWD,
  WM_RMSNORM_BWD,     /* rmsnorm_fwd_bwd less rmsnorm_fwd at the same size */
  WM_LAYERNORM_FWD,
  WM_LAYERNORM_BWD,   /* likewise */
  WM_SOFTMAX,
  WM_GELU,
  WM_SWIGLU,          /* swiglu_eager: silu and the product, two kernels */
  WM_DROPOUT,
  WM_CROSS_ENTROPY,   /* cross_entropy_fwd_bwd: forward and backward together */
  WM_ADAM,            /* adam_step_fused, per fp32 parameter */
  WM_FP8_CAST,        /* fp8_cast_eager: scale and cast bf16 -> e4m3 */
  WM_AMAX,
  WM_FP8_TRANSPOSE,   /* fp8_transpose: an e4m3 tensor transposed (for wgrad/dgrad) */
  WM_NMEM
} WeftMeasuredMem;

/* Fused attention kernels of the tables (the `backend` column): WM_ATTN_TE
 * is what Transformer Engine runs on the device, cuDNN's fused attention
 * when measured, else FlashAttention. */
typedef enum { WM_ATTN_TE = 0, WM_ATTN_FLASH, WM_ATTN_CUDNN, WM_NATTN } WeftMeasuredAttn;

/* The opaque tables of one device. */
typedef struct WeftMeasured WeftMeasured;

/* Read d's tables d->measured + _{gemm,attention,memory,launch}.csv
 * (d->measured "data/measured/h100"; a missing file is a table left out,
 * but at least one must exist) unless this process has them already,
 * unchanged; the GEMM fit is to d's SMs, tile and peak rates. Errors name
 * the file, line and field (WEFT_EINPUT). At most WM_MAX_SETS sets of
 * tables per process (a device on another GPU's tables with its own
 * measured_clock or measured_hbm_gbps is a set of its own; a file read again
 * after a change takes a new one). */
#define WM_MAX_SETS 32
/* The FP8 layer factor's bound, 1 / it to it (devices.yml measured_fp8_layer,
 * or the tables' layer files; docs/zoo.md, "FP8 GEMMs in a layer"): as
 * measured_clock's, a factor past it is a broken file or a typo. */
#define WM_FP8_LAYER_MAX 4
int weft_measured_load(const WeftDevice *d, WeftError *err);
/* The tables of d (NULL when d->measured is empty or they cannot be read). */
const WeftMeasured *weft_measured_of(const WeftDevice *d);

/* ns of batch (m x k)(k x n) GEMMs of type dt: the fitted shape model
 * (gemm_eff.c with this type's fitted parameters) times the ratio of
 * measured to fitted time at (m, n, k): that shape's own (one GEMM of a
 * measured shape takes its measured time), else the inverse-distance
 * weighted mean of the 4 nearest measured shapes' ratios in (ln m, ln n,
 * ln k) (docs/zoo.md, "Measured tables"). < 0: no GEMM of that type
 * measured. */
double weft_measured_gemm_ns(const WeftMeasured *t, WeftMeasuredDtype dt, double batch, double m,
                             double n, double k);
/* The fitted shape-model parameters of type dt (gemm_eff_max, gemm_k0,
 * gemm_t0_ns) into p[3]; 0 when dt has no rows. */
int weft_measured_gemm_fit(const WeftMeasured *t, WeftMeasuredDtype dt, double *p);
/* ns of fused attention by kernel be (bwd 0: forward; 1: backward) of flops FLOPs as
 * the script counts them (4 b h s^2 d forward, 2.5 times that backward,
 * halved under a causal mask) at kv_len keys, head width head_dim, over
 * b_heads = batch x heads (of the rank): flops over the achieved rate of
 * the nearest measured head width, interpolated in log(seq) and taken at
 * the nearest batch x heads. < 0: none measured. */
double weft_measured_attention_ns(const WeftMeasured *t, WeftMeasuredAttn be, int bwd, int causal,
                                  double kv_len, double head_dim, double b_heads, double flops);
/* Fused attention's time with dropout over its time without, kernel be
 * (bwd 0: forward; 1: backward), from the device's attention_dropout table
 * (measured_drop.c): at the nearest measured head width, linear in ln(seq)
 * between the sequences around kv_len (the nearest one's outside them),
 * each sequence's the median over its batch x heads shapes. < 0: none
 * measured. */
double weft_measured_attention_dropout(const WeftMeasured *t, WeftMeasuredAttn be, int bwd,
                                       double kv_len, double head_dim);
/* ns of memory-bound kernel kind over elems elements: the measured time,
 * interpolated log-log in the element count (proportional outside the
 * measured sizes). < 0: that kernel was not measured. */
double weft_measured_mem_ns(const WeftMeasured *t, WeftMeasuredMem kind, double elems);
/* Achieved GB/s of kind at bytes (the script's byte count of the kernel,
 * docs/zoo.md); < 0: not measured. */
double weft_measured_mem_gbps(const WeftMeasured *t, WeftMeasuredMem kind, double bytes);
/* Launch cost per kernel in µs: eager (graphs 0) or replayed in a CUDA
 * graph (1); < 0: not measured. */
double weft_measured_launch_us(const WeftMeasured *t, int graphs);

#endif
