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
  int fp8;    /* a GEMM at the device's FP8 rate (1, when it has one) or FP4 rate (2) */
  int once;   /* once per iteration, not per micro-batch (FP8 weight casts) */
  /* For the device's measured tables (measured.h): a vector kernel's
   * WeftMeasuredMem and the elements it is looked up at; a fused attention
   * kernel's causal mask (its batch = batch x heads, m = query tokens,
   * n = keys, k = head width). */
  int mem;
  double elems;
  int causal;
  double count;  /* identical kernels this op stands for, each launched (0: one) */
  int cp_role;   /* OcCpRole: a kernel of context parallelism's P2P ring (0: not one) */
  int cp_rank;   /* OcCpRank: the CP ranks that run it */
} OcOp;

/* Context parallelism's P2P ring (opcost_cp.c): the attention kernels of its
 * steps, the diagonal one (the local queries against the local K, V) and
 * the cp - 1 others (against a block received from a neighbour). */
typedef enum { OC_CP_NONE = 0, OC_CP_DIAGONAL, OC_CP_OFF_DIAGONAL } OcCpRole;
/* Under a causal mask the ranks differ (Transformer Engine's load-balanced
 * chunks): the first rank's off-diagonal steps pair half its queries with
 * a whole received block, the last rank's all its queries with half a
 * block; the ranks between mix the two. OC_CP_FIRST and OC_CP_LAST ops are
 * those ranks' alone, and a phase takes the slower of the two (the ring
 * exchanges every layer, so the slowest rank sets the pace). */
typedef enum { OC_CP_ALL = 0, OC_CP_FIRST, OC_CP_LAST } OcCpRank;

/* One micro-batch on one TP rank: the model's shape and the parallel split. */
typedef struct {
  double b, s, h, heads, kv_heads, ffn, vocab, experts, top_k;
  double kv_len;       /* keys each query attends over: s x cp (context parallel) */
  double cp;           /* context-parallel degree (1: none) */
  int cp_ring;         /* 1: CP's attention as a ring of steps (cp > 1, flash, no sliding
                          window; cp_comm p2p: Transformer Engine's, torch_*: PyTorch's);
                          0: one kernel over kv_len */
  int cp_torch;        /* the ring is PyTorch's (cp_comm torch_allgather, torch_alltoall) */
  int norm_eager;      /* RMSNorm as eager PyTorch's kernels (WeftParallel.norm_eager) */
  int rope_eager;      /* RoPE as eager PyTorch's kernels (WeftParallel.rope_eager) */
  double dqk, dv;      /* per-head query/key and value widths (h / heads unless MLA) */
  double q_lora, kv_lora, rope; /* MLA latents (kv_lora 0: standard attention) */
  double shared, moe_ffn;       /* MoE: shared experts, an expert's FFN width */
  int ffn_matrices;    /* 2: GeLU or squared ReLU; 3: SwiGLU */
  int relu2;           /* the 2-matrix MLP's activation is squared ReLU (else GeLU) */
  int bias;            /* the linear layers have biases (the GeLU family's) */
  int layernorm;       /* LayerNorm (gamma and beta), else RMSNorm */
  int learned_pos;     /* learned positions added to the token embedding */
  double tp, ep;
  int sp;              /* sequence parallel: norms, dropout, residuals split over TP */
  int flash;           /* attention as one fused kernel (else score/softmax/context) */
  int causal;          /* causal mask: a flash kernel skips the blocks above the diagonal */
  double window, windowed; /* sliding window (tokens) and the share of layers it is on */
  int fp8;             /* a WeftFp8: linear layers' GEMMs in FP8 and its casts */
  int graphs;          /* CUDA graphs: no CPU launch cost per kernel */
  int graph_scope;     /* with graphs, the blocks they replay (WeftGraphScope bits: OC_ATTN,
                          OC_MLP, OC_MOE); 0: every block */
  double act_bytes, param_bytes;
  double etp;          /* the experts' tensor-parallel split (folding); 0: tp */
  double grad_bytes;   /* main_grad's width (Megatron's DDP buffer); 0: act_bytes */
  int main_grad;       /* weight gradients added into main_grad by their GEMMs (Megatron's
                          gradient_accumulation_fusion: ZeRO 0-2); 0: written (FSDP) */
  int rotary;          /* rotary position embedding on Q and K (SwiGLU family, MLA) */
  int fa2;             /* the fused attention is FlashAttention-2 (PyTorch SDPA's flash
                          backend): the measured tables' flash rows, not TE's */
  int flex;            /* the fused attention is FlexAttention: FA2's rows (fa2 set) at
                          OC_FLEX_*_SPEEDUP */
  double attn_drop, hidden_drop; /* dropout probabilities (weft_dropout): on the attention
                                    probabilities, on the sub-blocks' outputs */
  int permute_fusion;  /* MoE permutation as TE's fused kernels (WeftParallel.moe_permute_fusion) */
  int router_fusion;   /* MoE router as TE's fused kernels (WeftParallel.moe_router_fusion) */
  int ce;              /* the loss's implementation (a WeftCrossEntropy) */
  int act_eager;       /* the MLP's activation as eager kernels (WeftParallel.activation_eager) */
  int dispatcher;      /* the MoE token dispatcher (a WeftMoeDispatcher) */
  int routing;         /* how tokens reach their experts (a WeftMoeRouting) */
  int torch;           /* the dense layers as nn.Linear modules with DTensor TP
                          (WeftParallel.layer_impl torch; opcost_torch.c) */
  int tp_async;        /* TP's communication overlapped (tp_comm_overlap: with torch
                          layers, async TP's fused all-gather/reduce-scatter GEMMs) */
  double lora_rank;    /* LoRA (WeftParallel.lora_rank): base weights frozen, adapters of
                          this rank on lora_targets (0: every weight trains) */
  int lora_targets;    /* WeftLoraTarget bits, all four when lora_targets was 0 */
  double pack;         /* packed samples (WeftParallel.packed_sample_len): the attention
                          core runs within samples of this many tokens (0: the sequence) */
} OcLayer;

/* Bytes a sequence-parallel all-gather moves per activation element: 1
 * with FP8 GEMMs on wider activations (Transformer Engine and torchao's
 * Float8ColwiseParallel gather the FP8 copy), else act_bytes. */
double weft_opcost_tp_ag_bytes(int fp8, double act_bytes);

/* With torch layers (OcLayer.torch), the attention's or the MLP's (blk)
 * kernels beside their GEMMs (opcost_torch.c; docs/zoo.md, "Torch
 * layers"): autograd's sum of the projections' input gradients, K and V
 * repeated to every query head, and DTensor's layout copies around TP's
 * all-gathers and reduce-scatters. Fills ops (at most OC_TORCH_MAX),
 * returns how many (0 without torch layers). */
#define OC_TORCH_MAX 12
int weft_opcost_torch_ops(const OcLayer *l, OcBlock blk, OcOp *ops);
/* The bytes (read and written) of DTensor's copy of one all-gather's
 * output of the attention's or MLP's input, a micro-batch (0: no copy:
 * megatron layers, no SP, TP 1 or async TP's fused GEMM): what the
 * torchtitan_op policy's replay copies again in backward. */
double weft_opcost_torch_ag_copy_bytes(const OcLayer *l);
/* What full recomputation does not run again of block blk with torch
 * layers, a micro-batch (0 otherwise): PyTorch's non-reentrant checkpoint
 * stops once every saved tensor is back (torch.utils.checkpoint's early
 * stop, on by default), and nothing saved comes after the MLP's input to
 * w2, so w2's forward GEMM, the residual add and the output's layout copy
 * or async TP's reduction are left out (the reduce-scatter too: the
 * generator's). Transformer Engine's and Megatron's checkpoint re-runs the
 * whole layer. */
double weft_opcost_torch_rc_skip_ns(const WeftDevice *d, const OcLayer *l, OcBlock blk);

/* Most operators a block lists (forward and backward, FP8 casts, CP's ring). */
#define OC_MAX_OPS 256
/* Kernel launches (docs/zoo.md, "Kernel launches"), measured on an H100
 * SXM with PyTorch 2.11 / CUDA 13.0 (data/measured/h100_launch.csv: a chain
 * of 1000 tiny kernels): replayed from a CUDA graph 1.1734 us per kernel,
 * the gap between two kernels of a stream (with the tiny kernel's own time:
 * an upper bound); eagerly launched 8.0282 us per kernel, the CPU's cost to
 * issue one through PyTorch. A kernel shorter than the CPU's cost waits
 * for it. Applied to every device (a host's figure more than a GPU's). */
#define OC_LAUNCH_GAP_NS 1173.0
#define OC_LAUNCH_CPU_NS 8028.0
/* A weight-gradient GEMM adding into main_grad (beta 1, C = D; docs/zoo.md,
 * "Weight-gradient accumulation"): the share of the GEMM's own time its
 * epilogue's main_grad traffic hides under, the rest exposed, for a bf16
 * and an fp32 main_grad. Fitted to cuBLASLt on an H100 SXM, CUDA 13.0
 * (data/measured/h100_wgrad_accum.csv: 22 shapes at 256-8,192 tokens x FP8
 * and BF16 x the two widths, against the same GEMM writing bf16): mean
 * |error| 5.6%, max 18.6% over the 88 (nothing charged: 15.6%, 69.1%; the
 * bytes' floor alone: 13.6%, 47.3%); nothing from training runs. Applied
 * to every device. */
#define OC_WGRAD_HIDE_BF16 0.5
#define OC_WGRAD_HIDE_FP32 0.2
/* FP8 scaling (docs/zoo.md, "FP8"): Transformer Engine's delayed scaling
 * keeps 1024 amaxes per tensor (DelayedScaling's amax_history_len default);
 * MX formats one E8M0 byte per 32 elements (OCP MX specification v1.0). */
#define OC_AMAX_HISTORY 1024.0
#define OC_MX_BLOCK 32.0
/* Blockwise FP8 (Transformer Engine's Float8BlockScaling, DeepSeek-V3's
 * recipe): an fp32 scale per 128 elements of an activation or gradient
 * (1 x 128 tiles), per 128 x 128 block of a weight. */
#define OC_BLOCK_1D 128.0
#define OC_BLOCK_2D (128.0 * 128.0)
/* NVFP4 (NVIDIA, "Pretraining Large Language Models with NVFP4", 2025):
 * 4-bit E2M1 elements, a 1-byte E4M3 scale per 16 elements of an activation
 * or gradient (1 x 16) and per 16 x 16 block of a weight; a 16 x 16 random
 * Hadamard transform on the weight-gradient GEMM's operands (16
 * multiply-adds an element of those copies). */
#define OC_NV_BLOCK 16.0
#define OC_NV_BLOCK_2D (16.0 * 16.0)
#define OC_RHT_FLOPS 32.0
/* Fused attention with dropout (docs/zoo.md, "Dropout") on a device
 * without its own attention_dropout table: the time ratios over no dropout
 * measured on an H100 (data/measured/h100_attention_dropout.csv, p 0.1,
 * the medians of the rows at seq >= 4096), an estimate elsewhere: cuDNN's
 * (Transformer Engine's kernel) forward and backward, FlashAttention-2's. */
#define OC_DROP_TE_FWD 2.091
#define OC_DROP_TE_BWD 1.207
#define OC_DROP_FA2_FWD 1.245
#define OC_DROP_FA2_BWD 1.115
/* FlexAttention's speed over FlashAttention-2 on an H100, the averages its
 * authors published (Driss Guessous, "FlexAttention: The Flexibility of
 * PyTorch With the Performance of FlashAttention", GTC 2025, as PyTorch's
 * GTC 2025 post lists it: forward "~25% faster than FlashAttention2",
 * backward "~3% faster"; on an A100 90% and 85% of it): the FA2 rows' time
 * divided by these (docs/zoo.md, "FlexAttention"). */
#define OC_FLEX_FWD_SPEEDUP 1.25
#define OC_FLEX_BWD_SPEEDUP 1.03
/* Bytes an element of the measured memory kernels moves (scripts/measure/
 * measure.py, BF16): add reads two tensors and writes one (6), dropout_fwd
 * reads one and writes one and its 1-byte mask (5). */
#define OC_ADD_ROW_BYTES 6.0
#define OC_DROPOUT_ROW_BYTES 5.0
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
/* The share of the kv_len^2 score blocks a flash kernel computes, averaged
 * over layers of which the share `windowed` attends within a sliding window
 * of `window` tokens (causal only): the causal fraction, and on a windowed
 * layer the blocks of the band: query block j (of n) reaches back to block
 * floor((j T - window) / T), T = OC_FLASH_BLOCK; the blocks reached summed
 * over j, over n^2 (the causal fraction once window >= kv_len). */
double weft_opcost_pair_fraction(double kv_len, int causal, double window, double windowed);
/* The layers LoRA adapts (WeftLoraTarget bits): none without a rank, all
 * four with a rank and no targets named. */
static inline int weft_lora_targets_of(const WeftParallel *p) {
  return p->lora_rank <= 0 ? 0 : p->lora_targets ? p->lora_targets : WEFT_LORA_ALL;
}
/* A LoRA adapter's parameters for a linear layer of in x out (the whole
 * layer's): A (in x r) and B (r x out); TP splits both, column- or
 * row-wise as its base layer. */
static inline double weft_lora_params(double in, double out, double r) { return r * (in + out); }
/* The share of m's layers with sliding-window attention (0: none). */
double weft_opcost_window_share(const WeftModel *m);
/* The packed samples' length the attention runs at (WeftParallel.
 * packed_sample_len, docs/zoo.md "Packed samples"): p's when below the
 * sequence's s tokens, else 0 (one sample a sequence). */
double weft_opcost_pack_len(const WeftParallel *p, double s);
/* Context parallelism's attention core as Transformer Engine's P2P ring runs
 * it on one rank (opcost_cp.c; docs/zoo.md, "Context parallelism"): the
 * step kernels and the memory-bound passes that merge their outputs and
 * gradients, forward and input-grad, into ops[max]; returns how many it
 * lists (it writes at most max). l->cp_ring must be set. */
int weft_opcost_cp_ops(const OcLayer *l, OcOp *ops, int max);
/* Bytes of one ring step's K, V block (one rank's s/cp tokens): what each
 * P2P transfer carries (a dK, dV block in backward is as large). */
double weft_opcost_cp_block_bytes(const OcLayer *l);
/* The operators of block blk in forward, input-gradient and weight-gradient
 * phases into ops[max]; returns how many (at most OC_MAX_OPS). */
int weft_opcost_ops(const OcLayer *l, OcBlock blk, OcOp *ops, int max);

/* The width of layer l's main_grad elements (grad_bytes; 0: act_bytes). */
static inline double weft_opcost_grad_width(const OcLayer *l) {
  return l->grad_bytes > 0 ? l->grad_bytes : l->act_bytes;
}

/* The forward op of one GEMM of layer l's shape (m x n, inner k; FP8 in the
 * layer's recipe), named name: what a recomputed GEMM runs (opcost.c). */
void weft_opcost_fwd_gemm_op(const OcLayer *l, const char *name, double m, double n, double k,
                             OcOp *op);

/* The MoE router GEMM's name, told by its address: its weight gradient is
 * written, then added by its hook, not added into main_grad by the GEMM. */
extern const char weft_opcost_router[];
/* Time of one operator: max(FLOPs / achieved rate, bytes / achieved HBM
 * bandwidth); a GEMM's FLOPs are its tiles, in waves over the SMs. */
double weft_opcost_op_ns(const WeftDevice *d, const OcOp *op, double act_bytes);
/* Time of one operator of layer l: as weft_opcost_op_ns, with the layer's
 * attention kernel (TE's or FA2's rows) and its dropout's slowdown. */
double weft_opcost_layer_op_ns(const WeftDevice *d, const OcLayer *l, const OcOp *op);
/* Time of one kernel of duration op_ns with its launch: eager, max(op_ns +
 * gap, CPU issue cost); graphs, op_ns + gap. The CPU's cost is d's host's
 * (WeftDevice.launch_cpu_ns; NULL or 0: OC_LAUNCH_CPU_NS, as
 * weft_opcost_launch_ns). */
double weft_opcost_launch_ns(double op_ns, int graphs);
double weft_opcost_launch_on_ns(const WeftDevice *d, double op_ns, int graphs);
/* Whether CUDA graphs replay the kernels of block blk (an OcBlock; -1:
 * outside the blocks, as FSDP2's copies): every kernel with graphs on and
 * no scope (WeftParallel.cuda_graph_scope); with one, the attention, dense
 * MLP and MoE blocks it names (WeftGraphScope's bits in OcBlock's order),
 * nothing else. */
int weft_opcost_graphed(int graphs, int scope, int blk);
/* Bytes an FP8 cast kernel moves for a tensor of e elements read at
 * src_bytes (weight: a weight, else an activation or a gradient), in
 * recipe mode (a WeftFp8): it reads the tensor and writes
 * two FP8 copies, row- and column-wise (Hopper's FP8 GEMMs take only
 * K-major operands: the weight-gradient GEMM needs the transposes); MXFP8
 * adds a scale byte per OC_MX_BLOCK elements to each copy, blockwise 4
 * bytes per OC_BLOCK_1D (OC_BLOCK_2D for a weight), NVFP4 two half-byte
 * copies and a scale byte per OC_NV_BLOCK (OC_NV_BLOCK_2D); delayed scaling
 * the tensor's amax history (read and rolled, fp32) and its scale (read,
 * written) and inverse scale (written). Current scaling's and NVFP4's
 * (per-tensor) amax pass is a kernel of its own (e x src_bytes read). 0 when mode is off. */
double weft_opcost_fp8_cast_bytes(int mode, double e, double src_bytes, int weight);
/* Bytes an element of one FP8 copy of a tensor (a weight when weight) takes
 * in recipe mode: the data and its block scales (delayed, current 1; MXFP8
 * 1 + 1/32; blockwise 1 + 4 per block; NVFP4 1/2 + 1 per block); 0 when off.
 * A cast writes two (row- and column-wise). */
double weft_opcost_fp8_copy_bytes(int mode, int weight);
/* Sum of the block's per-micro-batch kernel times, launches included, per
 * phase into ns[WEFT_NPHASES]. */
void weft_opcost_block(const WeftDevice *d, const OcLayer *l, OcBlock blk, double *ns);
/* The block's once-per-iteration kernels (FP8 weight casts: Megatron-Core
 * hands Transformer Engine is_first_microbatch, so a weight is cast once an
 * iteration and reused by the other micro-batches), launches included. */
double weft_opcost_block_once_ns(const WeftDevice *d, const OcLayer *l, OcBlock blk);
/* What torchtitan's op-level selective activation checkpointing
 * (torchtitan/parallelisms/parallelize_llama.py @9dec370, selective_ac_option
 * "op": every matmul's and SDPA's output saved except every second matmul of
 * a layer's forward) runs again in a micro-batch's backward: the forward
 * GEMMs of wk and wo (OC_ATTN) and of a SwiGLU MLP's w3 (OC_MLP), launches
 * included. The pointwise ops it recomputes too (norms, rotary, the gate,
 * the residual) fuse into the backward's kernels under torch.compile
 * (data/measured/h100_sac_check.csv): not charged. 0 for other blocks. */
double weft_opcost_block_titan_rc_ns(const WeftDevice *d, const OcLayer *l, OcBlock blk);
/* The once-an-iteration passes over a rank's parameters: Megatron's
 * zero_grad_buffer (a memset of the grad_elems gradients of its DDP buffer,
 * grad_bytes each), gradient clipping's norm and the Adam step over elems
 * parameters (memory-bound: every gradient read for the norm, then every
 * state read and written). */
double weft_opcost_optimizer_ns(const WeftDevice *d, const WeftParallel *par, double elems,
                                double grad_elems);

/* Megatron-Core's kernels around Transformer Engine's layers (opcost_mg.c,
 * docs/zoo.md "Around the linear layers"). Each fills ops (at most
 * OC_MG_MAX) and returns how many; eb the activations' bytes. */
#define OC_MG_MAX 16
/* Rotary embedding (fused, on Q and K, forward and backward), the GQA
 * query's copy and the Q, K, V gradients' concatenation. */
int weft_opcost_qkv_side_ops(const OcLayer *l, OcOp *ops);
/* The per-micro-batch accumulation into main_grad of block blk's parameters
 * outside TE's fused weight-gradient GEMMs (norm gains and biases, linear
 * biases, the router; the embedding's dense gradient). */
int weft_opcost_grad_accum_ops(const OcLayer *l, OcBlock blk, OcOp *ops);

/* Megatron-Core's kernels around a MoE layer's router and expert GEMMs
 * (opcost_moe.c, docs/zoo.md "Around the MoE GEMMs"): the router's eager
 * top-k, softmax, capacity and load-balancing kernels, the permutation of
 * the routed tokens and its inverse, the chunks sorted by local expert;
 * forward and input-grad. Fills ops (at most OC_MOE_MAX), returns how many. */
#define OC_MOE_MAX 20
int weft_opcost_moe_side_ops(const OcLayer *l, OcOp *ops);
/* Copies of a routed token a MoE dispatch sends to the ep ranks of the
 * experts experts (experts / ep on each), top_k chosen: top_k with the
 * all-to-all dispatcher (one per expert); with the flex dispatcher one per
 * destination rank: its mean under random routing ep (1 - C(E - E/ep, k) /
 * C(E, k)), under blocked routing (a WeftMoeRouting) the mean count of
 * ranks a block of k consecutive experts spans (docs/zoo.md, "MoE
 * dispatchers", "MoE routing"). */
double weft_opcost_moe_dispatch_copies(int dispatcher, int routing, double experts, double top_k,
                                       double ep);

#endif
