/* gen.h — internal to the workload generator (generate.c, gen_transformer.c,
 * gen_other.c): groups, per-sub-block templates and their emission as layers. */
#ifndef WEFT_MODEL_GEN_H
#define WEFT_MODEL_GEN_H

#include "model/opcost.h"
#include "weft.h"

/* The process groups a generated workload can use. */
typedef enum {
  GEN_TP = 0, /* tensor parallel (transformers), table parallel (DLRM) */
  GEN_PP,     /* pipeline stages */
  GEN_DP,     /* gradient group: CP x data parallel (CP x EP x EDP when ep > 1) */
  GEN_EP,     /* expert parallel: innermost part of DP, or folded (Gen.fold) over TP x CP x DP */
  GEN_EDP,    /* expert gradient group: CP x DP / EP (folded: TP x CP x DP / (ETP x EP)) */
  GEN_WORLD,  /* every NPU (DLRM's data-parallel MLPs) */
  GEN_EMB,    /* the first and the last stage (tied embedding gradients) */
  GEN_CP,     /* context parallel: the ranks sharing each sequence */
  GEN_ETP,    /* expert tensor parallel (folded, etp != tp): the innermost of TP x CP x DP */
  GEN_NKINDS
} GenKind;

typedef struct {
  WeftCollective coll;
  double size_bytes; /* per layer, multiplicities folded in */
  double calls;      /* collective calls per layer those bytes are sent in */
  int group;         /* WeftPhaseSpec.group */
  int once;          /* once per iteration (a gradient sync), not per micro-batch */
  double overlap_ns; /* WeftPhaseSpec.overlap_ns: compute it hides behind (0: blocks) */
  int tag;           /* 0, or what it hides behind (GenHide): merged only with its tag */
} GenColl;

/* What a hidden collective runs under (GenColl.tag): Transformer Engine's
 * TP communication overlap (gen_overlap.c), pipeline P2P overlap. */
typedef enum {
  GEN_HIDE_NONE = 0,
  GEN_HIDE_AG_FPROP,  /* the sequence all-gather under the first GEMM's forward (ring exchange) */
  GEN_HIDE_RS_FPROP,  /* the reduce-scatter under the last GEMM's forward (pipelined chunks) */
  GEN_HIDE_AG_DGRAD,  /* the gradient all-gather under the last GEMM's dgrad (ring exchange) */
  GEN_HIDE_RS_WGRAD,  /* the dgrad reduce-scatter under the first GEMM's wgrad (bulk) */
  GEN_HIDE_AG_INPUT,  /* the first GEMM's input all-gathered again under its dgrad (bulk) */
  GEN_HIDE_RS_DGRAD,  /* the first GEMM's dgrad reduce-scattered under its own chunks */
  GEN_HIDE_P2P,       /* a pipeline send-recv under the other micro-batches' compute */
  GEN_HIDE_ZERO3,     /* a ZeRO-3 parameter all-gather prefetched under a layer's compute */
  GEN_HIDE_ZERO3_RS,  /* ZeRO-3's earlier micro-batches' gradient reduce-scatters */
  GEN_HIDE_CP,        /* context parallelism's ring transfers under its step kernels */
  GEN_HIDE_A2A_DISPATCH, /* a paired micro-batch's EP dispatch under the other's experts */
  GEN_HIDE_A2A_COMBINE   /* a paired micro-batch's EP combine under the other's attention */
} GenHide;

/* Distinct (collective, group, tag) triples one phase of a sub-block can
 * carry: the transformer's worst case is 10 (TP AG + RS hidden, the input's
 * AG again, their recomputed forward's, a blocking chunk, CP's two, ZeRO-3
 * gathers). */
#define GEN_MAX_COLLS 12

/* One sub-block (attention, MLP, a CNN layer, ...) of one layer: what all its
 * copies share. Emitted as one layer entry per collective a phase carries. */
typedef struct {
  double compute_ns[WEFT_NPHASES];
  int ncoll[WEFT_NPHASES];
  GenColl coll[WEFT_NPHASES][GEN_MAX_COLLS];
} GenBlock;

typedef struct {
  const WeftModel *m;
  const WeftDevice *dev;
  const WeftParallel *par;
  const WeftNetwork *net;
  int compact;
  WeftWorkload *wl;
  WeftCommunicator *comm;
  WeftGenInfo *info;
  WeftError *err;
  int npus;                            /* the network's NPUs */
  int size[GEN_NKINDS];                /* group sizes (1: no group); DP, EDP include CP */
  int span[GEN_NKINDS][WEFT_MAX_DIMS]; /* NPUs per dim, -1 not involved */
  int named[GEN_NKINDS];               /* 0, or its WeftPhaseSpec.group once used */
  double ns_per_flop;                  /* 1e9 / (peak * efficiency) */
  int opcost;                          /* per-operator compute (efficiency 0, device has data) */
  double oc_ns[OC_NBLOCKS][WEFT_NPHASES]; /* opcost: one micro-batch per block, per phase */
  double oc_once_ns[OC_NBLOCKS];       /* opcost: once an iteration per block (FP8 weight casts) */
  double oc_titan_ns[OC_NBLOCKS];      /* opcost: what torchtitan_op recomputes, a micro-batch */
  double oc_rc_skip_ns;                /* opcost: what full recomputation of torch layers
                                          leaves out of the MLP, a micro-batch */
  int overflow;                        /* a block ran out of collective slots */
  /* MoE parallel folding (WeftParallel.expert_tp): the experts laid over
   * TP x CP x DP as ETP x EP x EDP (Megatron-Core's order), not EP inside
   * DP; etp the experts' tensor-parallel degree (tp unless folded) */
  int fold, etp;
  /* context parallelism's ring (weft_gen_cp_setup): on, a K, V block's
   * bytes, the compute its forward and backward transfers hide behind (the
   * P2P ring's), its diagonal kernel's and its faster rank's off-diagonal
   * kernel's times [forward, backward] (PyTorch's ring) */
  int cp_ring;
  double cp_block_bytes, cp_hide_ns[2], cp_diag_ns[2], cp_off_ns[2];
  /* bytes an element of an FP8 GEMM's weight moves in a parameter all-gather:
   * one FP8 copy's with fp8_param_gather, else param_bytes */
  double lin_gather_bytes;
} Gen;

/* fold and etp of par (etp 0: tp): folded unless etp = tp, ep divides dp and
 * cp = 1 or ep = 1 (Megatron-Core 0.10's expert rank generator, gen_build.c). */
void weft_gen_fold_of(const WeftParallel *par, int *fold, int *etp);

/* 1 when a MoE layer's ranks each dispatch their 1/tp of the tokens, as
 * Megatron-Core's all-to-all dispatcher does (sequence parallelism, or the
 * experts folded off TP: etp != tp); 0: every TP rank routes all of them. */
int weft_gen_moe_dispatch_shard(const WeftParallel *par, int etp);

/* "" file, no line: generator errors are about the combination of inputs. */
int weft_gen_fail(Gen *g, int code, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Map the parallelization's groups onto the network (order par->order, CP
 * right outside TP, EP innermost within DP; folded: ETP, EP, EDP over the
 * TP, CP and DP ranks in that order) and fill g->span (DP and EDP: with CP,
 * dim by dim) and the communicator's three phase groups. */
int weft_gen_map(Gen *g);

void weft_gen_block_clear(GenBlock *b);
/* Add calls collectives of size_bytes in all (rounded to whole bytes) on
 * group kind k to phase ph; merged with one of the same type and group (time
 * is linear in the size, latency in the calls); skipped when the group has
 * one NPU or the size is 0. */
void weft_gen_add(Gen *g, GenBlock *b, WeftPhase ph, WeftCollective c, GenKind k,
                  double size_bytes, double calls);
/* As weft_gen_add, the collective hidden behind overlap_ns of compute
 * (WeftPhaseSpec.overlap_ns), merged only with one of the same tag. */
void weft_gen_add_hidden(Gen *g, GenBlock *b, WeftPhase ph, WeftCollective c, GenKind k,
                         double size_bytes, double calls, double overlap_ns, GenHide tag);
/* A weight-grad collective sent once per iteration (a gradient sync after
 * the last micro-batch), not per micro-batch; one call. */
void weft_gen_add_once(Gen *g, GenBlock *b, WeftCollective c, GenKind k, double size_bytes);
/* Data-parallel gradient synchronisation of elems parameters (per NPU) over
 * group k, per the ZeRO stage; per_mb = the micro-batch multiplicity for
 * ZeRO-3's per-micro-batch reduce-scatter (with overlap_grad_reduce, all
 * but the last micro-batch's hidden under b's weight-grad compute: set it
 * first). */
void weft_gen_grad_sync(Gen *g, GenBlock *b, GenKind k, double elems, double per_mb);
/* Pipeline schedules an iteration that each gather and reduce ZeRO-3 kept
 * gathered (reshard_after_forward off): ga_steps under a pipeline (torch's
 * PipelineStage runs FSDP's post-backward at each schedule's last backward,
 * and the next schedule gathers again), else 1. */
double weft_gen_schedules(const Gen *g);
/* One memory-bound kernel moving bytes (read and written) in phase ph: at
 * the device's copy rate with its launch (none where CUDA graphs replay
 * block blk, an OcBlock, or -1 outside the blocks: only without a scope);
 * 0 on the flat-efficiency model, which charges no memory-bound kernel. */
double weft_gen_mem_kernel_ns(const Gen *g, WeftPhase ph, int blk, const char *name,
                              double bytes);
/* ZeRO-3's parameter all-gathers of a block over group k: per_npu_bytes
 * (the NPU's shard of the parameters the block uses, over calls
 * micro-batches) gathered for the forward and again for the backward. With
 * overlap_param_gather (FSDP's prefetch, Megatron-FSDP's), each hides
 * under the block's own forward / input-grad compute: the gather of the
 * next layer runs beside this one's (docs/zoo.md, "ZeRO-3 prefetch");
 * blocking when prefetch is 0 (the first block of a pass) or off. */
void weft_gen_zero3_gather(Gen *g, GenBlock *b, GenKind k, double per_npu_bytes, double calls,
                           int prefetch);
/* FSDP2's kernels beside a block's ZeRO-3 collectives (WeftParallel.fsdp
 * fsdp2; torch's fully_shard, _fsdp_collectives.py; docs/zoo.md, "ZeRO-3 as
 * FSDP2 runs it"), for R micro-batches, on the compute stream: each
 * gather's copy-out (split_with_sizes_copy of the gathered_bytes the NPU's
 * unsharded parameters take, read and written) in forward and again in
 * backward, and the gradients' reduce-scatter copy-in (_chunk_cat of
 * grad_elems, read at param_bytes, written at grad_bytes) after the weight
 * gradients. Nothing unless zero 3 and fsdp2. */
void weft_gen_fsdp2_copies(Gen *g, GenBlock *b, double gathered_bytes, double grad_elems,
                           double R);
/* FSDP's unit is a whole layer: the hidden ZeRO-3 gathers and reduce-
 * scatters of ffn (an MLP or MoE template, on share = its layers / the
 * stage's layers of them) move into attn, which every layer has, scaled by
 * share (totals kept); so the stage's layers make one hinge per collective,
 * not one per sub-block (docs/zoo.md, "ZeRO-3 prefetch"). */
void weft_gen_zero3_per_layer(Gen *g, GenBlock *attn, GenBlock *ffn, double share);
/* One gradient bucket of elems parameters (per NPU) over group k, ZeRO 0-2,
 * once per iteration in calls calls: its all-reduce (ZeRO 0) or
 * reduce-scatter when reduce, ZeRO 1-2's parameter all-gather when gather. */
void weft_gen_grad_bucket(Gen *g, GenBlock *b, GenKind k, double elems, double lin, double calls,
                          int reduce, int gather);
/* Bytes a parameter all-gather moves for elems parameters, lin of them the
 * FP8 GEMMs' weights: param_bytes each, the lin at one FP8 copy's bytes
 * with fp8_param_gather (docs/zoo.md, "FP8 parameters"). */
double weft_gen_gather_bytes(const Gen *g, double elems, double lin);
/* Data-parallel gradient buckets (gen_buckets.c; docs/zoo.md, "Gradient
 * buckets"), ZeRO 0-2: the parameters of a transformer layer's entries. */
typedef struct {
  double attn, mlp, moe_dense, moe_expert;
} GenEntryParams;
typedef struct {
  GenEntryParams el;  /* an NPU's parameters of each entry */
  GenEntryParams lin; /* of them the FP8 GEMMs' weights (fp8_param_gather) */
} GenLayerParams;

typedef struct {
  double size[2];  /* parameters per bucket: dense, expert (HUGE_VAL: one) */
  double total[2]; /* the stage's layer parameters */
  double total_lin[2]; /* of them the FP8 GEMMs' weights */
  double n[2];     /* buckets: the calls */
  double *sync;    /* non-compact: per layer entry (2 per layer: attn, mlp/moe) and kind,
                      the bucket elements it carries, then (at 4 span + the same index)
                      the FP8 GEMMs' weights among them; NULL when compact */
  int first;       /* the stage's first layer (1-based) */
  int span;        /* layers from the first the plan covers */
} GenBuckets;

/* Plan the buckets of layers first..first+nlayers-1 in v model chunks
 * (equal, v dividing nlayers), or, chunk_lo given, of chunk c's chunk_n[c]
 * layers from chunk_lo[c] (a pipeline layout's placed chunks), into bk;
 * WEFT_ENOMEM. Free bk->sync. */
int weft_gen_buckets_plan(const Gen *g, const GenLayerParams *lp, int first, int nlayers, int v,
                          const int *chunk_lo, const int *chunk_n, GenBuckets *bk);
/* blk with the buckets layer i's entry e (0 attn, 1 mlp/moe) carries into out. */
void weft_gen_bucket_entry(Gen *g, const GenBuckets *bk, int i, int e, const GenBlock *blk,
                           GenBlock *out);
/* Compact: blk with a merged layer's share of the buckets (dense and expert
 * parameters per layer, each with its FP8 GEMMs' weights lin; the calls in
 * proportion) into out. */
void weft_gen_bucket_share(Gen *g, const GenBuckets *bk, double dense, double dense_lin,
                           double expert, double expert_lin, const GenBlock *blk, GenBlock *out);
/* Entries blk can become with any bucket on it. */
int weft_gen_bucket_bound(Gen *g, const GenBlock *blk);
/* Gradient accumulation: keep in b the last of R micro-batches' backward
 * (1/R of its input- and weight-grad compute and per-micro-batch collectives)
 * and add the rest, times copies, to acc. Nothing when R <= 1. */
void weft_gen_split_last(Gen *g, GenBlock *b, double R, double copies, GenBlock *acc);
/* FSDP under torch's pipeline (docs/zoo.md, "ZeRO-3 as FSDP2 runs it"): move
 * b's once-a-step weight-grad reduce-scatters (reshard_after_forward off)
 * into out, count copies of them, and drop them from b when take is set. */
void weft_gen_stage_reduce(Gen *g, GenBlock *b, double count, int take, GenBlock *out);
/* Entries a block becomes. */
int weft_gen_block_entries(const GenBlock *b);
/* Make room for n more layers (one allocation). */
int weft_gen_reserve(Gen *g, int n);
/* Append the block's entries, every value times count (compact merging). */
void weft_gen_emit(Gen *g, const char *name, const GenBlock *b, double count);

/* Memory of optimizer, gradients and parameters of per-NPU parameter shards
 * dense_elems (ZeRO over DP-like group size zdp) and expert_elems (over zedp),
 * lin[2] (dense, expert; NULL: none) of them the FP8 GEMMs' weights, whose
 * FP8 copies count with the parameters (docs/zoo.md, "FP8 parameters"). */
void weft_gen_memory_states(Gen *g, double dense_elems, double zdp, double expert_elems,
                            double zedp, const double *lin, WeftMemory *mem);

/* Compute of transformer block blk (OcBlock) for mult micro-batches into
 * ns[WEFT_NPHASES], no recomputation: the per-operator model when g->opcost,
 * else flat_ns (the caller's FLOPs * ns_per_flop) in every phase. */
void weft_gen_compute(const Gen *g, int blk, double mult, double flat_ns, double *ns);
/* The makespan of one 1F1B iteration (pp stages, m micro-batches, stage k
 * taking f[k] per forward and b[k] per backward): the exact longest path of
 * the schedule (docs/zoo.md, "Pipeline"). WEFT_ENOMEM; WEFT_EINVAL for bad
 * arguments. O(pp) memory; O(pp m) time at most, O(pp^2) once the steady
 * state repeats (gen_pipeline.c). */
int weft_gen_1f1b(const double *f, const double *b, int pp, int m, double *makespan);

/* gen_overlap.c: a transformer sub-block's (OcBlock ob: attention or dense
 * MLP) TP collectives with --tp-comm-overlap (sequence parallel), R
 * micro-batches, rc = 1 with full recomputation, S one activation's bytes:
 * hidden behind their GEMMs, which slow by the comm kernels' SMs (added to
 * blk's compute). */
void weft_gen_tp_overlap(Gen *g, GenBlock *blk, int ob, double R, double rc, double S);
/* 1 when full recomputation of sub-block ob stops before its output
 * collective (torch layers' MLP: weft_opcost_torch_rc_skip_ns). */
int weft_gen_rc_stops_early(const Gen *g, int ob);
/* gen_overlap.c: the sequence-parallel all-gathers' bytes per activation
 * byte: 1 / act_bytes with FP8 GEMMs (Transformer Engine gathers the FP8
 * copy, with or without the overlap), else 1. */
double weft_gen_tp_ag_width(const Gen *g);
/* gen_overlap.c: context parallelism's ring (Transformer Engine's
 * cp_comm_type p2p, or PyTorch's: torch_allgather, torch_alltoall;
 * docs/zoo.md, "Context parallelism") for R micro-batches, rc = the share
 * recomputed: its K, V (forward) and K, V and dK, dV (backward) transfers,
 * each hidden behind the step kernels beside it.
 * Returns 0 (adding nothing) when the layer's attention is no ring
 * (OcLayer.cp_ring 0: cp_comm all_gather, standard attention, a window). */
int weft_gen_cp_ring(Gen *g, GenBlock *blk, double R, double rc);
/* Once per generation (a transformer, after g->opcost and ns_per_flop are
 * set): the ring's g->cp_* (cp_ring 0 when the layer's attention is none). */
void weft_gen_cp_setup(Gen *g);

/* gen_a2a.c: Megatron-Core's MoE all-to-all overlap (WeftParallel.
 * moe_a2a_overlap; docs/zoo.md, "MoE all-to-all overlap"). The check refuses
 * what Megatron-Core refuses (v virtual stages, the model's MTP layers). */
int weft_gen_a2a_check(Gen *g, int v, int mtp_layers);
/* The share of pipeline stage's (0-based) m micro-batches x v chunks whose
 * forward runs paired with a backward (0 when the overlap is off). */
double weft_gen_a2a_paired(const WeftParallel *p, int stage, int v, int m);
/* A MoE block's paired all-to-alls (share q of its R micro-batches; a
 * micro-batch's forward dispatch and combine bytes; the backward's two are
 * combine_bytes each), each hidden under the compute beside it in
 * TransformerLayerSchedulePlan.run: of the MoE block's (moe) and the
 * attention's (attn) other pass. The exposed 1 - q share is the caller's. */
void weft_gen_moe_a2a(Gen *g, GenBlock *moe, const GenBlock *attn, double R, double q,
                      double dispatch_bytes, double combine_bytes);

/* gen_amax.c: an all-reduce of a few KB over ranks NPUs on nodes nodes
 * (NVLink inside a node, the network between), as NCCL's tuning model times
 * it: the LL protocol, the faster of its tree and ring (ns). 0 for ranks < 2. */
double weft_nccl_ll_allreduce_ns(long long ranks, long long nodes);
/* gen_amax.c: the blocking amax all-reduces of one attention (attn 1) or
 * MLP block's forward or input-grad pass, one micro-batch, ns (after
 * g->span is mapped; docs/zoo.md, "FP8"): delayed scaling's of the FP8
 * region, over the stage's ranks or TP x CP's as WeftParallel.
 * fp8_amax_reduce says, region_share of it on each attention block (v / Ls:
 * a region a chunk); current scaling's and NVFP4's, with sequence
 * parallelism, of a gathered operand over TP. 0 without FP8. */
double weft_gen_amax_block_ns(const Gen *g, int attn, double region_share);

int weft_gen_transformer(Gen *g);
int weft_gen_cnn(Gen *g);
int weft_gen_dlrm(Gen *g);

#endif
