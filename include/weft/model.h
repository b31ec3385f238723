/* weft/model.h — public (part of weft.h): the model zoo, parallelizations and the workload
 * generator.
 * Include <weft.h>; this header includes what it builds on. */
#ifndef WEFT_H_MODEL
#define WEFT_H_MODEL

#include "weft/output.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ model zoo
 * Models and devices are data (data/zoo/, docs/zoo.md): one YAML file per
 * model, one devices.yml. FLOPs count 2 per multiply-add. */
typedef enum { WEFT_ARCH_TRANSFORMER = 0, WEFT_ARCH_DLRM = 1, WEFT_ARCH_CNN = 2 } WeftArch;

#define WEFT_MAX_MODEL_LAYERS 128  /* CNN layers, DLRM MLP layers */

/* One layer of a CNN or MLP, expanded from the model file. */
typedef struct {
  char name[WEFT_NAME_LEN];
  double fwd_flops;  /* forward FLOPs per sample */
  double params;     /* weights + biases */
  double act_elems;  /* output activation elements per sample (kept for backward) */
} WeftModelLayer;

typedef struct {
  char name[WEFT_NAME_LEN];   /* zoo key, e.g. "gpt3-175b" */
  char title[128];            /* e.g. "GPT-3 175B" */
  char source[256];           /* where the hyper-parameters come from */
  WeftArch arch;
  int global_batch;           /* sequences (samples) per iteration */
  /* transformer */
  int seq_len, layers, hidden, heads, kv_heads, ffn_hidden, vocab;
  int ffn_matrices;           /* 2 (GeLU MLP) or 3 (SwiGLU) */
  int experts, top_k, moe_every;  /* MoE: experts 0 = dense; every moe_every-th layer */
  int shared_experts;         /* MoE: experts every token also goes through (0: none) */
  int moe_ffn_hidden;         /* MoE: an expert's FFN width (0: ffn_hidden) */
  int first_dense;            /* MoE: the first first_dense layers stay dense */
  int bidirectional;          /* 0: causal (decoder) attention mask, 1: none (BERT) */
  /* Multi-head latent attention (DeepSeek-V2/V3; kv_lora_rank 0 = standard
   * attention): queries through a q_lora_rank latent (0: direct), keys and
   * values through a kv_lora_rank latent, per-head query/key width
   * qk_nope_head_dim + qk_rope_head_dim (the rotary key part shared by the
   * heads), value width v_head_dim. */
  int q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim;
  /* dlrm: embedding tables (model parallel); MLPs in layer[] (bottom then top) */
  int tables, emb_dim, pooling;   /* pooling: lookups per table per sample */
  double table_rows;              /* rows per table (mean) */
  int nbottom;                    /* layer[0..nbottom) bottom MLP, rest top MLP */
  /* cnn and dlrm MLPs */
  int nlayers;
  WeftModelLayer layer[WEFT_MAX_MODEL_LAYERS];
  char file[WEFT_PATH_LEN];
  /* transformer: standard attention's per-head width (0: hidden / heads).
   * Qwen3 and GPT-OSS give it apart: the attention's width heads x head_dim
   * differs from hidden (Qwen3-30B-A3B: 32 x 128 = 4096 on hidden 2048). */
  int head_dim;
  /* transformer: sliding-window attention (GPT-OSS; Megatron-Core's
   * window_size (window, 0) and window_attn_skip_freq): a windowed layer's
   * query attends to itself and the window tokens before it; every
   * window_full_every-th layer attends in full (0: every layer windowed);
   * window 0: none. sinks 1: a learned sink logit per head and layer in the
   * softmax (GPT-OSS; heads parameters a layer, no GEMM). */
  int window, window_full_every, sinks;
  /* transformer: multi-token prediction depth (DeepSeek-V3 Section 2.2;
   * Megatron-Core's --mtp-num-layers): mtp_layers modules on the last
   * pipeline stage, each two RMSNorms, a 2h x h projection, one transformer
   * layer of the last layer's kind and the shared output head again. */
  int mtp_layers;
  /* transformer: dropout probabilities in [0, 1), as the frameworks' model
   * configs give them (Megatron-Core's TransformerConfig, NeMo's
   * attention_dropout and hidden_dropout; 0: none, the default): on the
   * attention probabilities (inside a fused attention kernel: its measured
   * slowdown) and on the two sub-blocks' outputs before the residual add
   * (Megatron's fused bias-dropout-add: a 1-byte mask written, kept for
   * backward and read there); docs/zoo.md, "Dropout". */
  double attention_dropout, hidden_dropout;
  /* transformer: the traits the FFN's family implies unless the model file
   * says otherwise (docs/zoo.md, "Model files"), each 0 (the family's), 1
   * (yes) or -1 (no): the linear layers' biases, LayerNorm (no: RMSNorm),
   * rotary positions (no: learned positions added to the token embedding),
   * the output layer tied to the token embedding. The GeLU family
   * (ffn_matrices 2): biases, LayerNorm, learned, tied; SwiGLU (3) and
   * MLA: none of them. Nemotron-4: a 2-matrix MLP without biases, with
   * LayerNorm, rotary positions and an untied output layer. */
  int linear_bias, layernorm, rotary, tied_embeddings;
  /* transformer: a 2-matrix MLP's activation (a WeftActivation); a
   * 3-matrix one is SwiGLU. */
  int activation;
} WeftModel;

/* The activation of a 2-matrix MLP: GeLU (GPT, BERT) or squared ReLU
 * (Nemotron-4; Megatron-Core's squared_relu). */
typedef enum { WEFT_ACT_GELU = 0, WEFT_ACT_RELU2 = 1 } WeftActivation;

typedef struct {
  char name[WEFT_NAME_LEN];  /* "a100", "h100", ... */
  char title[128];
  double peak_flops;         /* dense BF16/FP16 tensor FLOP/s */
  double hbm_bytes;          /* HBM capacity */
  double hbm_bytes_per_s;    /* HBM bandwidth */
  char source[256];
  /* Per-operator compute model (src/model/opcost.c, docs/zoo.md); all 0
   * when devices.yml gives none: then compute is charged per FLOP at
   * WeftParallel.efficiency (0.5 when that is left at 0). */
  double peak_fp8_flops;     /* dense FP8 tensor FLOP/s (0: none) */
  double peak_tf32_flops;    /* dense TF32 tensor FLOP/s (0: none) */
  double peak_vector_flops;  /* FP32 FLOP/s off the tensor cores: softmax, norms, ... */
  int sms;                   /* SMs (CUs on AMD): GEMM tiles run in waves of this many */
  int tile_m, tile_n;        /* output tile of large GEMMs (256 x 128) */
  double gemm_efficiency;    /* largest fraction of peak a large GEMM sustains */
  double hbm_efficiency;     /* fraction of hbm_bytes_per_s a streaming kernel sustains */
  double attention_efficiency; /* fraction of peak a fused (flash) attention kernel sustains;
                                  devices.yml may leave it out: gemm_efficiency */
  /* GEMM shape model (src/model/gemm_eff.c, docs/zoo.md), fitted to public
   * GEMM benchmarks; all 0 when devices.yml gives none: then a GEMM is
   * charged in waves of tiles at gemm_efficiency. */
  double gemm_eff_max;       /* fraction of peak an SM sustains inside a tile's K loop */
  double gemm_k0;            /* a tile's prologue and epilogue, in K steps */
  double gemm_t0_ns;         /* fixed time of one GEMM kernel (ramp-up and tail) */
  /* Reported, not yet charged by the compute model (docs/zoo.md, "Devices"). */
  double peak_fp4_flops;     /* dense FP4 (NVFP4/MXFP4) tensor FLOP/s (0: none or not given) */
  double power_w;            /* board/module TDP, watts (0: not published) */
  /* Measured kernel tables (docs/zoo.md, "Measured tables"): the path
   * prefix of PREFIX_{gemm,attention,memory,launch}.csv ("data/measured/h100"),
   * "" none. weft_zoo_device sets it from the device's `measured:` key or
   * finds ZOO/../measured/NAME_*.csv, and reads the tables. */
  char measured[WEFT_PATH_LEN];
  /* The device's link to host memory, bytes/s each direction (devices.yml
   * host_gbps; 0: not given): activation offloading's copies
   * (WeftParallel.cpu_offloading_num_layers; docs/zoo.md, "Activation
   * offloading"). */
  double host_bytes_per_s;
  /* A GPU that runs another's measured tables at another power limit or HBM
   * (devices.yml measured_clock, measured_hbm_gbps; docs/zoo.md, "Measured
   * kernel tables"): its sustained SM clock over that of the tables'
   * sustained run (tensor-core kernels' times divide by it; 0: 1), and the
   * HBM rate of the GPU the tables were measured on, bytes/s (memory-bound
   * kernels' times scale by it over hbm_bytes_per_s; 0: the same HBM). */
  double measured_clock;
  double measured_hbm_bytes_per_s;
  /* The host CPU's time to issue one kernel through eager PyTorch, ns
   * (devices.yml launch_cpu_us; 0: the DGX H100's x86 host as measured,
   * OC_LAUNCH_CPU_NS): a kernel shorter than it waits for it (docs/zoo.md,
   * "Kernel launches"). */
  double launch_cpu_ns;
  /* FP8 GEMMs' time in a layer over the measured tables' (devices.yml
   * measured_fp8_layer; docs/zoo.md, "FP8 GEMMs in a layer"); 0: worked out
   * from the tables' DEVICE_fp8_layer_gemms{,_each}.csv, 1 without them. */
  double measured_fp8_layer;
} WeftDevice;

/* Read one model file. */
int weft_model_read(const char *path, WeftModel *m, WeftError *err);
/* A model by zoo name ("gpt3-175b": zoo_dir/models/gpt3-175b.yml) or, when
 * name contains '/' or ends in .yml, by path. */
int weft_zoo_model(const char *zoo_dir, const char *name, WeftModel *m, WeftError *err);
/* A device by name from zoo_dir/devices.yml. */
int weft_zoo_device(const char *zoo_dir, const char *name, WeftDevice *dev, WeftError *err);
/* Every device of zoo_dir/devices.yml in file order, at most max into devs
 * (NULL when max is 0); *count gets the total. */
int weft_zoo_devices(const char *zoo_dir, WeftDevice *devs, int max, int *count, WeftError *err);

/* What a device's measured tables hold (docs/zoo.md, "Measured tables"),
 * for reports: per file (gemm, attention, memory, launch, sustained) the path read
 * ("" when absent), the date its header gives and its rows; the GEMM shape
 * model fitted to each type's rows (bf16, fp8, fp8 with fast accumulation:
 * gemm_eff_max, gemm_k0, gemm_t0_ns; 0 without rows); the launch cost per
 * kernel (eager, CUDA graph; < 0 not measured). */
#define WEFT_MEASURED_FILES 5
typedef struct {
  char file[WEFT_MEASURED_FILES][WEFT_PATH_LEN];
  char date[WEFT_MEASURED_FILES][64];
  int rows[WEFT_MEASURED_FILES];
  double gemm_fit[3][3];
  double launch_us[2];
  double sustained[3]; /* per type: sustained over burst rate of tensor-core kernels (1: none) */
  double clock;        /* the device's measured_clock (1: none), in sustained[] */
  double mem_time;     /* memory-bound kernels' time over the tables' (1: the same HBM) */
  double fp8_layer;    /* FP8 GEMMs' time in a layer over the tables' (1: none), apart from
                        * sustained[] */
} WeftMeasuredInfo;
/* info for d (all files "" when d has no tables); reads them if this
 * process has not (errors as weft_zoo_device's). */
int weft_measured_info(const WeftDevice *d, WeftMeasuredInfo *info, WeftError *err);
/* Names of the zoo's models (sorted), at most max; *count gets the total. */
int weft_zoo_list(const char *zoo_dir, char (*names)[WEFT_NAME_LEN], int max, int *count,
                  WeftError *err);
/* Parameters of the whole model (for reports). */
double weft_model_params(const WeftModel *m);
/* Parameters one token goes through (MoE: top_k routed and the shared
 * experts of each MoE layer; dense models: all of them), the embedding and
 * output layers included. */
double weft_model_active_params(const WeftModel *m);

/* ------------------------------------------------------------------ cluster presets
 * zoo_dir/clusters.yml (docs/zoo.md, "Clusters"): a GPU cluster's tiers,
 * innermost first, each one network dim, with how NCCL runs on it. */
typedef struct {
  char name[WEFT_NAME_LEN];  /* "nvlink", "infiniband", ... */
  WeftTopology topology;
  int npus;                  /* GPUs the tier joins; 0 = the rest (the last tier) */
  char cost[WEFT_NAME_LEN];  /* the cost-model class of its dim (CostDimension) */
  double bw_gbps;            /* link bandwidth per GPU per direction (B_d) */
  double efficiency;         /* achievable bus-bandwidth fraction, (0, 1] */
  double latency_ns;         /* per step of the dim's collective algorithm, >= 0 */
  int fabric;                /* its fabric shape (WeftDimShape; key `fabric`), given to a
                                dim that meets the shape's rule (weft_network_set_fabric) */
} WeftClusterTier;

typedef struct {
  char name[WEFT_NAME_LEN];    /* "dgx-a100", ... */
  char title[128];
  char device[WEFT_NAME_LEN];  /* its GPU's devices.yml name ("" none) */
  char source[256];
  int ntiers;
  WeftClusterTier tier[WEFT_MAX_DIMS];
} WeftCluster;

/* A cluster by name from zoo_dir/clusters.yml; an unknown name is an error
 * naming the closest one and the available ones. */
int weft_zoo_cluster(const char *zoo_dir, const char *name, WeftCluster *c, WeftError *err);
/* Every cluster of zoo_dir/clusters.yml in file order, at most max into cs
 * (NULL when max is 0); *count gets the total. */
int weft_zoo_clusters(const char *zoo_dir, WeftCluster *cs, int max, int *count,
                      WeftError *err);
/* The network of npus GPUs on cluster c: one dim per tier needed, the fixed
 * tiers full (the innermost holds all npus when they fit in it) and the last
 * tier used the rest; each dim gets its tier's topology, cost class,
 * efficiency, latency and bandwidth (as design_gbps). npus must fill whole
 * units of the fixed tiers. */
int weft_cluster_network(const WeftCluster *c, int npus, WeftNetwork *net, WeftError *err);
/* Give net (read already) the preset's figures on the dims it leaves at 0
 * (efficiency, latency_ns, design_gbps), after checking that its dims fit
 * the tiers: no more dims than tiers, each dim's topology its tier's, a
 * fixed tier's dim holding at most its npus. Sets net->cluster. */
int weft_cluster_apply(const WeftCluster *c, WeftNetwork *net, WeftError *err);

#define WEFT_DEVICE_DEFAULT "a100" /* a model job's GPU when nothing names one */
/* The device a model job runs on over nets[0..nnets) (the one rule of every
 * command, scenario and binding): `given` when non-NULL and non-empty (an
 * explicit device wins over a cluster's GPU: "this cluster with H200s"),
 * else the GPU of the networks' cluster preset (WeftNetwork.cluster_device),
 * else WEFT_DEVICE_DEFAULT. Several networks (co-design) must agree on it:
 * two that would run different GPUs (a network without a cluster counts as
 * WEFT_DEVICE_DEFAULT) give NULL and WEFT_EINPUT naming both. The result
 * points into given, nets or a static string. */
const char *weft_job_device(const WeftNetwork *nets, int nnets, const char *given,
                            WeftError *err);

/* ------------------------------------------------------------------ parallelization */
typedef enum { WEFT_PAR_TP = 0, WEFT_PAR_PP = 1, WEFT_PAR_DP = 2 } WeftParDim;

/* The least flat efficiency (WeftParallel.efficiency, --efficiency): a
 * millionth of peak keeps a generated workload's times within their limit
 * (1e18 ns), where 1e-300 made them infinite. */
#define WEFT_MIN_EFFICIENCY 1e-6

/* The userbuffers overlaps whose comm kernel runs on SMs, by Transformer
 * Engine's names (WeftParallel.tp_overlap_sms): the bulk all-gather of the
 * first GEMMs' input under their dgrad (qkv_dgrad, fc1_dgrad), the bulk
 * reduce-scatter of their dgrad under their wgrad (qkv_wgrad, fc1_wgrad),
 * the pipelined reduce-scatter under the last GEMMs' forward (proj_fprop,
 * fc2_fprop). TE's ring exchanges (qkv_fprop, fc1_fprop, proj_dgrad,
 * fc2_dgrad) move their chunks with the copy engines and take none. */
typedef enum {
  WEFT_TPO_QKV_DGRAD = 0,
  WEFT_TPO_QKV_WGRAD = 1,
  WEFT_TPO_FC1_DGRAD = 2,
  WEFT_TPO_FC1_WGRAD = 3,
  WEFT_TPO_PROJ_FPROP = 4,
  WEFT_TPO_FC2_FPROP = 5,
  WEFT_TPO_NGEMMS = 6
} WeftTpoGemm;
#define WEFT_TPO_DEFAULT_SMS 16 /* TE's get_default_config, v1.11-v2.3 */
#define WEFT_TPO_MAX_SMS 4096   /* what a text may give; the device bounds it further */
/* TE's name of a WeftTpoGemm ("qkv_dgrad", ...); "unknown" otherwise. */
const char *weft_tp_overlap_gemm_name(int gemm);
/* "proj_fprop=24,fc2_fprop=20" (NAME=N entries separated by commas or
 * spaces) into sms: each named GEMM's SMs, 0..WEFT_TPO_MAX_SMS, the others
 * kept. WEFT_EINPUT (field "tp_overlap_sms") for an unknown or repeated
 * name, a ring exchange's, a bad number or no entry; sms unchanged then. */
int weft_tp_overlap_sms_parse(const char *text, int sms[WEFT_TPO_NGEMMS], WeftError *err);
/* TE's ring exchanges (WeftParallel.tp_overlap_aggregate bits): the
 * sequence all-gather under the first GEMMs' forward (qkv_fprop, fc1_fprop)
 * and the gradient's under the last GEMMs' dgrad (proj_dgrad, fc2_dgrad). */
typedef enum {
  WEFT_TPO_QKV_FPROP = 1,
  WEFT_TPO_FC1_FPROP = 2,
  WEFT_TPO_PROJ_DGRAD = 4,
  WEFT_TPO_FC2_DGRAD = 8
} WeftTpoRing;
/* "qkv_fprop,fc2_dgrad" (names separated by commas or spaces) into *mask
 * (WeftTpoRing bits); WEFT_EINPUT (field "tp_overlap_aggregate") for an
 * unknown or repeated name, a GEMM that is no ring exchange, or none;
 * *mask unchanged then. */
int weft_tp_overlap_aggregate_parse(const char *text, int *mask, WeftError *err);
/* Transformer Engine's overlap method for a WeftTpoGemm
 * (WeftParallel.tp_overlap_method; the recipes' ub_tp_comm_overlap_cfg
 * method): 0 keeps TE's (pipeline for proj_fprop and fc2_fprop, bulk for
 * the other four). proj_fprop and fc2_fprop take pipeline or ring_exchange;
 * qkv_dgrad and fc1_dgrad bulk (the input's all-gather under the dgrad) or,
 * as TE's "dgrad reduce-scatter overlap", pipeline or ring_exchange (the
 * dgrad's own reduce-scatter under its chunks; the matching wgrad's bulk
 * overlap dropped); qkv_wgrad and fc1_wgrad bulk only. */
typedef enum {
  WEFT_TPO_METHOD_DEFAULT = 0,
  WEFT_TPO_BULK = 1,
  WEFT_TPO_PIPELINE = 2,
  WEFT_TPO_RING_EXCHANGE = 3
} WeftTpoMethod;
/* "proj_fprop=ring_exchange,fc1_dgrad=pipeline" (NAME=METHOD entries
 * separated by commas or spaces; TE's method names bulk, pipeline,
 * ring_exchange) into method (WeftTpoMethod, indexed by WeftTpoGemm), the
 * others kept. WEFT_EINPUT (field "tp_overlap_method") for an unknown or
 * repeated name, a ring exchange's name (TE's all-gathers under the first
 * GEMMs' forward and the last GEMMs' dgrad take no other method), a method
 * the GEMM does not take, or no entry; method unchanged then. */
int weft_tp_overlap_method_parse(const char *text, int method[WEFT_TPO_NGEMMS], WeftError *err);
/* "proj_fprop,fc2_fprop" (names separated by commas or spaces) into *mask
 * (bits 1 << WeftTpoGemm): the pipelined reduce-scatters whose buffer is
 * FP8 (the recipes' fp8_buf): proj_fprop, fc2_fprop, and qkv_dgrad or
 * fc1_dgrad run as reduce-scatter overlaps. WEFT_EINPUT (field
 * "tp_overlap_fp8_buf") for an unknown or repeated name, another GEMM (the
 * all-gathers' buffers are FP8 with FP8 GEMMs already; the bulk ones take
 * none), or none; *mask unchanged then. */
int weft_tp_overlap_fp8_buf_parse(const char *text, int *mask, WeftError *err);

typedef struct {
  int tp, pp, dp;        /* degrees; tp*cp*pp*dp = the network's NPUs */
  int ep;                /* expert parallel degree (MoE), divides tp*cp*dp / etp and the
                            experts (expert_tp below); 1 = off */
  int cp;                /* context parallel degree: each sequence split over cp NPUs
                            (laid right outside TP); 1 = off */
  int attention;         /* a WeftAttention: the attention kernel */
  int fp8;               /* a WeftFp8: the linear layers' GEMMs (forward, data- and
                            weight-gradient) in FP8 at the device's FP8 rate, with the
                            recipe's cast and scaling kernels; attention core, norms,
                            embedding and logits in act_bytes. 0: off */
  int micro_batch;       /* sequences per micro-batch */
  int virtual_stages;    /* interleaved 1F1B: model chunks per stage (1 = plain 1F1B) */
  int sequence_parallel; /* Megatron SP: reduce-scatter + all-gather for TP */
  int zero_stage;        /* 0..3 (1 optimizer states, 2 + gradients, 3 + parameters) */
  int recompute;         /* a WeftRecompute: 0 none, 1 full, 2 selective */
  WeftParDim order[3];   /* how groups are laid on dims, innermost first */
  double efficiency;     /* achieved fraction of the device's peak FLOP/s, charged per
                            FLOP, WEFT_MIN_EFFICIENCY..1; 0 = the device's per-operator
                            model (0.5 per FLOP when the device has none) */
  double act_bytes, param_bytes, grad_bytes;  /* bytes per element */
  double optimizer_bytes;  /* per parameter: fp32 master + Adam moments = 12 */
  /* Transformer layers per pipeline stage (borrowed, nstage_layers = pp
   * entries summing to the layers), or NULL: balanced (docs/zoo.md). */
  const int *stage_layers;
  int nstage_layers;
  int optimizer_step;    /* 1: the optimizer step (HBM bound) as compute, transformers */
  int schedule;          /* a WeftSchedule: the pipeline schedule */
  int merged_backward;   /* 1: each layer entry holds every micro-batch's backward, so its
                            gradient synchronisation may start after the first (LIBRA's and
                            ASTRA-sim 1.0's reading); 0 (default): gradient accumulation as
                            frameworks run it, the synchronisation after the last
                            micro-batch's backward ('accumulation' entries, docs/zoo.md) */
  int cuda_graphs;       /* 1: the layers' kernels replayed from CUDA graphs (no CPU launch
                            cost per kernel, docs/zoo.md "Kernel launches"); 0: eager */
  /* Data-parallel gradient buckets as Megatron-Core's DDP and distributed
   * optimizer run them (docs/zoo.md, "Gradient buckets"), ZeRO 0-2: */
  int overlap_grad_reduce;  /* 1 (default): each bucket's reduction starts when the last
                               micro-batch's backward has made its gradients; 0: one bucket,
                               reduced after the backward */
  int overlap_param_gather; /* ZeRO 1-2, 1 (default): each bucket's parameter all-gather
                               with its reduction, in the background; 0: after the step */
  double ddp_bucket_params; /* parameters per bucket, 0 (Megatron's max(4e7, 1e6 x DP)) or
                               1..WEFT_MAX_BUCKET_PARAMS */
  /* Megatron-Core's uneven pipeline split (account_for_embedding_in_pipeline_split,
   * account_for_loss_in_pipeline_split): the embedding (the output layer and
   * loss) counts as one layer of the first (last) stage's first (last) model
   * chunk, so layers + the two must divide into pp x virtual_stages chunks of c
   * layers, and that chunk holds c - 1 (weft_stage_layers_accounted). 0: off. */
  int pp_account_embedding, pp_account_loss;
  /* Full recomputation of only some layers (Megatron-Core's
   * --recompute-num-layers N with --recompute-method): recompute_num_layers 0
   * is every layer, each alone (weft's full recompute); uniform with N > 0:
   * every layer, in groups of N whose inputs are kept (one group's
   * activations live in backward); block: the first N layers of each chunk
   * of each stage, the rest keep their activations (docs/zoo.md). Only with
   * recompute full. */
  int recompute_num_layers;
  int recompute_method;  /* a WeftRecomputeMethod */
  /* Selective recomputation's modules (Megatron-Core's --recompute-modules),
   * WeftRecomputeModule bits; 0: the attention core alone. Only with
   * recompute selective. */
  int recompute_modules;
  /* Communication hidden behind compute (docs/zoo.md, "TP communication
   * overlap", "Pipeline P2P overlap"; WeftPhaseSpec.overlap_ns): */
  int tp_comm_overlap;      /* 1: Megatron-Core's --tp-comm-overlap (Transformer Engine's
                               userbuffers): the sequence-parallel all-gathers and
                               reduce-scatters of attention and dense MLP layers under
                               their GEMMs; needs sequence_parallel when tp > 1. 0
                               (default, Megatron's): they block */
  int overlap_p2p;          /* 1 (default): Megatron's --overlap-p2p-communication, with
                               interleaving (virtual_stages > 1) only, as Megatron: each
                               pipeline send-recv under the other micro-batches' compute,
                               the first and the last exposed; 0: they block */
  /* Megatron-Core's MoE parallel folding (expert_tensor_parallel_size;
   * docs/zoo.md, "Expert parallelism"): the MoE layers' experts split over
   * etp ranks (their GEMMs' width) and ep ranks (whole experts), laid over
   * the same tp x cp x dp ranks of a stage as the attention, etp innermost,
   * then ep, then the expert gradient group edp = tp cp dp / (etp ep).
   * 0 (default): etp = tp. When etp = tp, ep divides dp and cp = 1, EP is
   * laid innermost within DP (the layout before folding); with cp > 1 it
   * folds over the CP ranks first, as Megatron-Core's expert rank generator
   * (core_v0.10.0) lays it. */
  int expert_tp;
  /* Activation offloading to host memory as Megatron-Core's
   * --cpu-offloading-num-layers N runs it (Transformer Engine's
   * get_cpu_offload_context, default schedule; docs/zoo.md, "Activation
   * offloading"): the activations saved for backward of the first N layers
   * of the stage go to host memory after their forward and come back before
   * their backward, on a side stream beside the compute; at most layers - N
   * layers' sets stay in HBM. 0 (default): off. As Megatron: pp 1, no
   * recomputation, N below the layers; the device needs a host link
   * (host_bytes_per_s). */
  int cpu_offloading_num_layers;
  int cp_comm;              /* a WeftCpComm: how context parallelism's attention exchanges
                               K and V (Megatron-Core's --cp-comm-type); 0 (default,
                               Megatron's): p2p */
  /* Megatron-Core's pipeline layout (--pipeline-model-parallel-layout;
   * docs/zoo.md, "Pipeline layout"), borrowed, NULL: none ("" is refused). Its pp x
   * virtual_stages chunks (chunk i on stage i mod pp, virtual chunk i / pp)
   * say the transformer layers (t) of each model chunk, the embedding (E)
   * in the first, the MTP layers (m) and the loss (L) in the last
   * (weft_pp_layout_parse). Not with stage_layers or pp_account_*. */
  const char *pp_layout;
  /* Dropout as the run sets it (Megatron's --attention-dropout and
   * --hidden-dropout, NeMo's attention_dropout and hidden_dropout): a
   * probability in [0, 1), or < 0 (weft_parallel_default): the model's
   * (WeftModel.attention_dropout, hidden_dropout). */
  double attention_dropout, hidden_dropout;
  /* Megatron-Core's --moe-permute-fusion (core_v0.11.0 and later; docs/zoo.md,
   * "Around the MoE GEMMs"): 1: a MoE layer's token permutation, its
   * inverse and the sort by local expert as Transformer Engine's fused
   * kernels (transformer_engine/pytorch/permutation.py); 0 (default,
   * Megatron's, and core_v0.10.0's only way): eager PyTorch (moe_utils.py). */
  int moe_permute_fusion;
  /* Megatron-Core's --moe-router-fusion (docs/zoo.md, "Around the MoE
   * GEMMs"): 1: the router's top-k with its score function, the aux loss's
   * scores and the aux loss as Transformer Engine's fused kernels
   * (transformer_engine/pytorch/router.py); 0 (default, Megatron's, and
   * core_v0.10.0's only way): eager PyTorch (moe_utils.py). */
  int moe_router_fusion;
  /* SMs of Transformer Engine's userbuffers comm kernels beside each GEMM
   * they overlap (the recipes' ub_tp_comm_overlap_cfg num_sm; docs/zoo.md,
   * "TP communication overlap"), indexed by WeftTpoGemm, each
   * 0..device SMs - 1; weft_parallel_default: TE's 16 (WEFT_TPO_DEFAULT_SMS).
   * Read only with tp_comm_overlap. */
  int tp_overlap_sms[WEFT_TPO_NGEMMS];
  /* The ring exchanges run with TE's `aggregate` (WeftTpoRing bits; the
   * recipes' ub_tp_comm_overlap_cfg aggregate): the first chunk exchanged
   * between rank pairs before the GEMM starts, then tp/2 - 1 steps of two
   * chunks each under the GEMM of two (tp even). 0 (default, TE's): one
   * chunk a step, tp - 1 steps. Read only with tp_comm_overlap. */
  int tp_overlap_aggregate;
  /* Each WeftTpoGemm's overlap method (WeftTpoMethod; the recipes'
   * ub_tp_comm_overlap_cfg method; docs/zoo.md, "TP communication
   * overlap"): 0 (default) TE's. Read only with tp_comm_overlap. */
  int tp_overlap_method[WEFT_TPO_NGEMMS];
  /* The pipelined reduce-scatters that move FP8 (bits 1 << WeftTpoGemm:
   * proj_fprop, fc2_fprop, qkv_dgrad, fc1_dgrad; the recipes' fp8_buf):
   * the GEMM writes its output in FP8 and the comm kernel sums it into
   * BF16 (TE's rule: honoured with FP8 GEMMs on a pipelined method only).
   * 0 (default, TE's): BF16. Read only with tp_comm_overlap. */
  int tp_overlap_fp8_buf;
  /* Megatron-Core's --overlap-moe-expert-parallel-comm (Megatron-Bridge's
   * moe_a2a_overlap; docs/zoo.md, "MoE all-to-all overlap"): 1: the combined
   * 1F1B schedule runs a forward micro-batch beside a backward one, layer by
   * layer, each EP dispatch / combine all-to-all of one under the other's
   * attention or expert compute; the warm-up and cool-down micro-batches,
   * which have no partner, exposed as without. 0 (default, Megatron's). */
  int moe_a2a_overlap;
  /* The MoE forward dispatch all-to-all in FP8 with fp8 (DeepSeek-V3,
   * Section 3.3.3: the activations quantized before the dispatch; Megatron-
   * Core's moe_dispatch_fwd_dtype with the ncclep flex backend; docs/zoo.md,
   * "Expert parallelism"): 1: a dispatched element moves 1 byte; 0 (default,
   * Megatron-Core's all-to-all and DeepEP dispatchers up to 2026-08): the
   * activations' own width, the experts casting after it. Needs fp8 and
   * ep > 1. The combine moves act_bytes either way. */
  int moe_dispatch_fp8;
  /* Delayed scaling's amax reduction group (a WeftFp8AmaxReduce; docs/zoo.md,
   * "FP8"): stage (0, default: TP x CP x DP, Megatron-Core's amax reduction
   * group), tp (Megatron's --tp-only-amax-red: TP x CP) or off (TE's
   * DelayedScaling(reduce_amax=False), NeMo's reduce_amax: False). Needs fp8
   * delayed unless stage. */
  int fp8_amax_reduce;
  /* How the loss over the vocabulary runs (a WeftCrossEntropy; docs/zoo.md,
   * "The loss"): fused (0, default: Megatron-Core's fused_vocab_parallel_
   * cross_entropy, cross_entropy_loss_fusion True, as NeMo 2's GPTConfig and
   * Megatron-Bridge's GPTModelProvider set it), megatron (its unfused
   * vocab_parallel_cross_entropy, Megatron-Core's own default), te
   * (cross_entropy_fusion_impl "te": Transformer Engine's Triton kernels) or
   * torch (PyTorch's F.cross_entropy on the logits cast to fp32,
   * torchtitan's loss) or torch_nocast (F.cross_entropy on the logits at
   * their own width, NeMo AutoModel's MaskedCrossEntropy with fp32_upcast
   * false). */
  int cross_entropy;
  /* 1: the MLP's activation as eager PyTorch kernels (Megatron-Core's
   * bias_activation_fusion off: NeMo 2's NemotronConfig, whose squared ReLU
   * is a plain Python function; torch without compile); 0 (default): one
   * fused kernel each way (Megatron's bias_gelu / bias_swiglu / @jit_fuser
   * squared_relu, or torch.compile). docs/zoo.md, "The MLP's activation";
   * the entry points' activation_fusion (on = 0). */
  int activation_eager;
  /* 1: RMSNorm as eager PyTorch's kernels (torchtitan's RMSNorm without
   * torch.compile: x.float(), pow, mean, rsqrt, the product, type_as, the
   * weight); 0 (default): one fused kernel each way (Transformer Engine's,
   * torch.compile's). LayerNorm is one ATen kernel either way. The entry
   * points' norm_fusion (on = 0); docs/zoo.md, "Eager norms and RoPE". */
  int norm_eager;
  /* 1: RoPE as eager PyTorch's kernels (torchtitan's apply_rotary_emb
   * without torch.compile: the query and key cast to fp32, multiplied as
   * complex numbers, cast back); 0 (default): one fused kernel each
   * (Megatron's apply_rope_fusion, torch.compile). The entry points'
   * rope_fusion (on = 0). */
  int rope_eager;
  /* 1: the FP8 GEMMs' weights kept as FP8 parameters (Megatron-Core's
   * --fp8-param-gather, NeMo 1.x's fp8_params, Megatron-Bridge's
   * fp8_param_gather; docs/zoo.md, "FP8 parameters"): the distributed
   * optimizer's or ZeRO-3's all-gathers move them in FP8 (one copy's bytes an
   * element instead of param_bytes), and they take the place of the bf16
   * parameters beside Transformer Engine's two FP8 copies. 0 (default,
   * Megatron's). Needs fp8 delayed, current, mxfp8 or blockwise and zero
   * >= 1 (Megatron asserts the distributed optimizer or FSDP). */
  int fp8_param_gather;
  /* Megatron-Core's MoE token dispatcher (a WeftMoeDispatcher; docs/zoo.md,
   * "MoE dispatchers"): alltoall (0, default: MoEAlltoAllTokenDispatcher,
   * a copy per routed expert), deepep or hybridep (the flex dispatcher,
   * --moe-token-dispatcher-type flex with its backend: a copy per
   * destination rank, no chunk sort; DeepEP's metadata kernels; HybridEP's
   * routing-map all-gather and in-kernel FP8 padding). Needs ep > 1, etp 1
   * and no moe_dispatch_fp8 unless alltoall. */
  int moe_dispatcher;
  /* How ZeRO-3's sharded parameters are gathered and their gradients
   * reduced (a WeftFsdp; docs/zoo.md, "ZeRO-3 as FSDP2 runs it"): flat (0,
   * default: Megatron-FSDP, FSDP1, DeepSpeed: the gathered buffer is the
   * parameters and the gradients are reduced from theirs) or fsdp2
   * (PyTorch's fully_shard, torchtitan's: each gather copied out into the
   * per-parameter tensors and each gradient copied into the reduce-scatter
   * buffer, in its reduce dtype, on the compute stream). fsdp2 needs zero 3. */
  int fsdp;
  /* 1: ZeRO-3 without resharding after the forward (FSDP2's
   * reshard_after_forward False, which torchtitan sets with a pipeline;
   * docs/zoo.md, "ZeRO-3 as FSDP2 runs it"): each block's parameters are
   * gathered once a step, at its first forward, and stay gathered to the
   * step's end, and its gradients accumulate unsharded (at grad_bytes)
   * until the step's last backward, reduce-scattered once. 0 (default):
   * gathered for each micro-batch's forward and again for its backward,
   * reduced each micro-batch. The entry points' reshard_after_forward (on
   * = 0). Needs zero 3. */
  int no_reshard;
  /* How the benchmark routes each token to its top-k experts (a
   * WeftMoeRouting; docs/zoo.md, "MoE routing"): random (0, default: k
   * distinct experts drawn uniformly, Megatron-Core's
   * moe_router_force_load_balancing, random logits), or blocked (token t of
   * a rank's micro-batch to experts tk .. tk + k - 1 mod E, NeMo AutoModel's
   * FakeBalancedGate). Both balance the experts exactly; they differ in how
   * many EP ranks a token's k copies reach, which sets the flex dispatcher's
   * all-to-all bytes (a copy per destination rank). Needs a model with
   * experts. */
  int moe_routing;
  /* Gradient-accumulation steps an iteration, each a pipeline schedule of
   * its own, filled and drained (docs/zoo.md, "Gradient accumulation under
   * a pipeline"): the iteration's micro-batches (global batch / (dp x
   * micro_batch)) split evenly among them, as NeMo AutoModel's recipes run a
   * local batch of several schedules (torch's schedule.step per step). 0 or
   * 1 (default): one schedule over every micro-batch, Megatron's. Without a
   * pipeline it changes nothing. Needs the micro-batches to split evenly and
   * schedule 1f1b. */
  int ga_steps;
  /* How the dense layers are written (a WeftLayerImpl; docs/zoo.md, "Torch
   * layers"): megatron (0, default: Megatron-Core with Transformer Engine,
   * one QKV GEMM and one gate/up GEMM, TP collectives on the sequence-first
   * layout) or torch (nn.Linear modules as torchtitan's Llama: wq, wk, wv
   * and w1, w3 each a GEMM of its own shape, autograd summing their input
   * gradients, K and V repeated to every query head before SDPA
   * (repeat_kv), and TP as PyTorch's DTensor runs it: with sequence
   * parallelism each all-gather's output and each reduce-scatter's input is
   * copied between layouts (functional collectives' chunk and cat on the
   * sequence dim), the copies async TP's fused ops leave out excepted).
   * MoE experts are unchanged. */
  int layer_impl;
  /* LoRA fine-tuning (docs/zoo.md, "LoRA"): the rank of the low-rank
   * adapters (Megatron-Bridge's LoRA dim); 0 (default) trains every
   * parameter. With a rank, every base weight is frozen (no weight-gradient
   * GEMM, no gradient, no optimizer state, no data-parallel reduction),
   * and each targeted linear layer gains an adapter, x A B (alpha / rank)
   * added to its output, A and B trained in the activations' precision
   * (Megatron-Bridge's ParallelLinearAdapter: Megatron-Core's own parallel
   * linears, not Transformer Engine's, so never FP8). Dense transformers
   * with Megatron layers, ZeRO 0-2, no MTP; 1..65536. */
  int lora_rank;
  /* The linear layers that get adapters (WeftLoraTarget bits; 0 with a
   * rank: all four, Megatron-Bridge's LoRA default target_modules). */
  int lora_targets;
  /* Packed samples (docs/zoo.md, "Packed samples"): each sequence of
   * seq_len tokens packs samples of this many tokens, and the attention
   * runs within each sample (Megatron's THD layout with cu_seqlens, as
   * fine-tuning packs its dataset; FlexAttention's document mask). 0
   * (default) or seq_len: one sample a sequence. The attention's work goes
   * with the square of a sample's length, so for samples of mixed lengths
   * l_i give sum(l_i^2) / sum(l_i) (their mean length weighted by length).
   * Needs a fused attention kernel and cp 1; 1..seq_len. */
  int packed_sample_len;
  /* With cuda_graphs, the transformer sub-blocks whose kernels the graphs
   * replay (WeftGraphScope bits; Megatron-Core's cuda_graph_scope, the
   * recipes' e.g. [mlp] with cuda_graph_impl transformer_engine): the
   * others, and the embedding, loss and optimizer, launch eagerly. 0
   * (default): every kernel (weft's cuda_graphs). docs/zoo.md, "Kernel
   * launches". */
  int cuda_graph_scope;
} WeftParallel;

#define WEFT_MAX_BUCKET_PARAMS 1e15

/* How the FP8 GEMMs are scaled (Transformer Engine's recipes, Megatron-Core's
 * --fp8-recipe; docs/zoo.md, "FP8"): off; delayed scaling (the scale from the
 * amax history of earlier iterations: each cast also records the amax);
 * current (per-tensor) scaling (an amax pass over each tensor before its
 * cast); MXFP8 (a 1-byte E8M0 scale per 32 elements, computed in the cast;
 * block-scaled tensor cores: a device with an FP4 rate); blockwise scaling
 * (DeepSeek-V3's: an fp32 scale per 1 x 128 tile of activations and
 * gradients, per 128 x 128 block of weights, computed in the cast); NVFP4
 * (NVIDIA's NVFP4 pretraining recipe: the same GEMMs in 4-bit E2M1 at the
 * FP4 rate, an E4M3 scale per 16 elements (16 x 16 blocks of weights) and
 * an fp32 per-tensor scale, a random Hadamard transform on the
 * weight-gradient operands; a device with an FP4 rate). */
typedef enum {
  WEFT_FP8_OFF = 0,
  WEFT_FP8_DELAYED = 1,
  WEFT_FP8_CURRENT = 2,
  WEFT_FP8_MXFP8 = 3,
  WEFT_FP8_BLOCKWISE = 4,
  WEFT_FP8_NVFP4 = 5
} WeftFp8;
/* "off", "delayed", "current", "mxfp8", "blockwise", "nvfp4" <-> WeftFp8; parse: WEFT_EINPUT
 * (field "fp8") otherwise. */
const char *weft_fp8_name(int mode);
int weft_fp8_parse(const char *text, int *mode, WeftError *err);

/* The pipeline schedule: 1F1B (Narayanan et al. 2021; interleaved when
 * virtual_stages > 1) or DualPipe (DeepSeek-V3 Technical Report, Section
 * 3.2.1: micro-batches fed from both ends, each rank holding two stages,
 * bubble (pp/2 - 1)(F&B + B - 3W), parameters twice, pp + 1 micro-batches'
 * activations; needs an even pp, v = 1 and an even m >= 2 pp). */
typedef enum { WEFT_SCHEDULE_1F1B = 0, WEFT_SCHEDULE_DUALPIPE = 1 } WeftSchedule;
/* "1f1b", "dualpipe" <-> WeftSchedule; parse: WEFT_EINPUT otherwise. */
const char *weft_schedule_name(int kind);
int weft_schedule_parse(const char *text, int *kind, WeftError *err);

/* Activation recomputation (Korthikanti et al. 2022): none, full (every
 * layer's forward again in backward, only layer inputs kept) or selective
 * (only the attention core: scores, softmax, dropout, context). */
typedef enum {
  WEFT_RECOMPUTE_NONE = 0,
  WEFT_RECOMPUTE_FULL = 1,
  WEFT_RECOMPUTE_SELECTIVE = 2
} WeftRecompute;

/* Which layers full recomputation covers (WeftParallel.recompute_method):
 * uniform (every layer, in groups of recompute_num_layers) or block (the
 * first recompute_num_layers of each stage's chunks). */
typedef enum { WEFT_RECOMPUTE_UNIFORM = 0, WEFT_RECOMPUTE_BLOCK = 1 } WeftRecomputeMethod;
/* "uniform", "block" <-> WeftRecomputeMethod; parse: WEFT_EINPUT (field
 * "recompute_method") otherwise. */
const char *weft_recompute_method_name(int method);
int weft_recompute_method_parse(const char *text, int *method, WeftError *err);

/* Selective recomputation's modules (WeftParallel.recompute_modules bits;
 * Megatron-Core's names): core_attn (the attention core), mlp (dense
 * layers' MLP), moe (MoE layers' experts), shared_experts, moe_act (the
 * experts' activation function), layernorm (the two norms' outputs),
 * mla_up_proj (MLA's up-projections: Q, K, V from the latents); and
 * torchtitan_op, torchtitan's op-level policy (selective_ac_option "op":
 * every matmul's and SDPA's output saved except every second matmul of a
 * layer's forward, so wk, wo and a SwiGLU MLP's w3 run again), alone and on
 * dense layers without MLA (docs/zoo.md, "Recomputation"). */
typedef enum {
  WEFT_RC_CORE_ATTN = 1,
  WEFT_RC_MLP = 2,
  WEFT_RC_MOE = 4,
  WEFT_RC_SHARED_EXPERTS = 8,
  WEFT_RC_MOE_ACT = 16,
  WEFT_RC_LAYERNORM = 32,
  WEFT_RC_MLA_UP_PROJ = 64,
  WEFT_RC_TORCHTITAN_OP = 128
} WeftRecomputeModule;
/* "core_attn,mlp,layernorm" (names separated by commas or spaces) into
 * *mask; WEFT_EINPUT (field "recompute_modules") naming an unknown name or
 * for none; *mask unchanged then. */
int weft_recompute_modules_parse(const char *text, int *mask, WeftError *err);

/* LoRA's target layers (WeftParallel.lora_targets bits; Megatron-Bridge's
 * target_modules, named without their linear_ prefix): qkv (the attention's
 * fused Q, K, V projection), proj (its output projection), fc1, fc2 (the
 * MLP's). */
typedef enum {
  WEFT_LORA_QKV = 1,
  WEFT_LORA_PROJ = 2,
  WEFT_LORA_FC1 = 4,
  WEFT_LORA_FC2 = 8,
  WEFT_LORA_ALL = 15
} WeftLoraTarget;
#define WEFT_LORA_MAX_RANK 65536
/* "qkv,proj" (names separated by commas or spaces; linear_qkv and the
 * others with Megatron's prefix alike; all for the four) into *mask;
 * WEFT_EINPUT (field "lora_targets") naming an unknown name or for none;
 * *mask unchanged then. */
int weft_lora_targets_parse(const char *text, int *mask, WeftError *err);

/* The sub-blocks a CUDA graph scope takes (WeftParallel.cuda_graph_scope
 * bits; Megatron-Core's cuda_graph_scope names): attn (the attention
 * sub-block), mlp (a dense MLP), moe (an MoE layer's router, dispatch and
 * experts). */
typedef enum { WEFT_GRAPH_ATTN = 1, WEFT_GRAPH_MLP = 2, WEFT_GRAPH_MOE = 4 } WeftGraphScope;
/* "attn,mlp" (names separated by commas or spaces) into *mask; WEFT_EINPUT
 * (field "cuda_graph_scope") naming an unknown name or for none; *mask
 * unchanged then. */
int weft_cuda_graph_scope_parse(const char *text, int *mask, WeftError *err);

/* "none", "full", "selective" <-> WeftRecompute; parse returns WEFT_EINPUT
 * (err names the text) for anything else. */
const char *weft_recompute_name(int mode);
int weft_recompute_parse(const char *text, int *mode, WeftError *err);

/* The attention kernel: standard (score GEMM, softmax, dropout, context
 * GEMM, the s^2 tensors in HBM and kept for backward) or flash (one fused
 * kernel, Dao et al. 2022: no s^2 tensor in HBM, the backward recomputes the
 * scores; causal masks skip the blocks above the diagonal), as Transformer
 * Engine runs it (cuDNN's fused attention: its measured rows), or fa2 (the
 * same fused kernel as FlashAttention-2, PyTorch's scaled_dot_product_attention
 * flash backend, which torch-native stacks such as torchtitan run: the
 * measured tables' flash rows), or flex (PyTorch's FlexAttention, the
 * compiled block-sparse kernel NeMo AutoModel runs for GPT-OSS: the flash
 * rows at FlexAttention's published H100 speed over FlashAttention-2, 1.25x
 * forward and 1.03x backward; docs/zoo.md, "FlexAttention"). */
typedef enum {
  WEFT_ATTENTION_STANDARD = 0,
  WEFT_ATTENTION_FLASH = 1,
  WEFT_ATTENTION_FA2 = 2,
  WEFT_ATTENTION_FLEX = 3
} WeftAttention;
/* "standard", "flash", "fa2", "flex" <-> WeftAttention; parse: WEFT_EINPUT otherwise. */
const char *weft_attention_name(int kind);
int weft_attention_parse(const char *text, int *kind, WeftError *err);
/* Context parallelism's attention exchange (Megatron-Core's --cp-comm-type,
 * Transformer Engine's cp_comm_type; docs/zoo.md, "Context parallelism"):
 * p2p (Megatron's default: a ring of cp steps, each a flash kernel on the
 * local queries and the K, V block of one rank, the next block sent and
 * received under it) or all_gather (Llama 3's: K and V gathered whole, one
 * kernel, the gather blocking); or PyTorch's ring (torch.distributed.tensor.
 * experimental context_parallel, torchtitan's CP): the same load-balanced
 * steps around the SDPA flash kernel, its merges and gradient sums eager in
 * fp32, K and V with every query head (torchtitan's repeat_kv), exchanged
 * by one all-gather (torch_allgather, torchtitan's default rotate method)
 * or a send-recv a step (torch_alltoall), the fp32 dK, dV a send-recv a
 * step. PyTorch's ring needs a causal mask, fused attention and no window. */
typedef enum {
  WEFT_CP_P2P = 0,
  WEFT_CP_ALLGATHER = 1,
  WEFT_CP_TORCH_ALLGATHER = 2,
  WEFT_CP_TORCH_ALLTOALL = 3
} WeftCpComm;
/* "p2p", "all_gather", "torch_allgather", "torch_alltoall" <-> WeftCpComm;
 * parse: WEFT_EINPUT (field "cp_comm") otherwise. */
const char *weft_cp_comm_name(int kind);
int weft_cp_comm_parse(const char *text, int *kind, WeftError *err);
/* Over which ranks delayed scaling all-reduces an FP8 region's amaxes. */
typedef enum {
  WEFT_AMAX_STAGE = 0, /* the pipeline stage's ranks, TP x CP x DP */
  WEFT_AMAX_TP = 1,    /* TP x CP (Megatron's --tp-only-amax-red) */
  WEFT_AMAX_OFF = 2    /* none: each rank keeps its own amaxes */
} WeftFp8AmaxReduce;
/* "stage", "tp", "off" <-> WeftFp8AmaxReduce; parse: WEFT_EINPUT (field
 * "fp8_amax_reduce") otherwise. */
const char *weft_fp8_amax_reduce_name(int kind);
int weft_fp8_amax_reduce_parse(const char *text, int *kind, WeftError *err);
/* The loss's implementation (WeftParallel.cross_entropy). */
typedef enum {
  WEFT_CE_FUSED = 0,    /* Megatron-Core's fused (torch.compile'd) vocab-parallel kernels */
  WEFT_CE_MEGATRON = 1, /* Megatron-Core's unfused vocab_parallel_cross_entropy */
  WEFT_CE_TE = 2,       /* Transformer Engine's Triton parallel_cross_entropy */
  WEFT_CE_TORCH = 3,    /* PyTorch's F.cross_entropy on fp32 logits (torchtitan) */
  WEFT_CE_TORCH_NOCAST = 4 /* F.cross_entropy on the logits as they are (no fp32 cast) */
} WeftCrossEntropy;
/* "fused", "megatron", "te", "torch", "torch_nocast" <-> WeftCrossEntropy; parse: WEFT_EINPUT
 * (field "cross_entropy") otherwise. */
const char *weft_cross_entropy_name(int kind);
int weft_cross_entropy_parse(const char *text, int *kind, WeftError *err);
/* The MoE token dispatcher (WeftParallel.moe_dispatcher). */
typedef enum {
  WEFT_MOE_ALLTOALL = 0, /* Megatron-Core's all-to-all dispatcher */
  WEFT_MOE_DEEPEP = 1,   /* the flex dispatcher with DeepEP's normal kernels */
  WEFT_MOE_HYBRIDEP = 2  /* the flex dispatcher with HybridEP */
} WeftMoeDispatcher;
/* "alltoall", "deepep", "hybridep" <-> WeftMoeDispatcher; parse: WEFT_EINPUT
 * (field "moe_dispatcher") otherwise. */
const char *weft_moe_dispatcher_name(int kind);
int weft_moe_dispatcher_parse(const char *text, int *kind, WeftError *err);
/* How a benchmark routes tokens to experts (WeftParallel.moe_routing). */
typedef enum {
  WEFT_ROUTING_RANDOM = 0, /* k distinct experts uniformly at random (Megatron's forced balance) */
  WEFT_ROUTING_BLOCKED = 1 /* token t to experts tk .. tk + k - 1 mod E (AutoModel's fake gate) */
} WeftMoeRouting;
/* "random", "blocked" <-> WeftMoeRouting; parse: WEFT_EINPUT (field
 * "moe_routing") otherwise. */
const char *weft_moe_routing_name(int kind);
int weft_moe_routing_parse(const char *text, int *kind, WeftError *err);
/* How the dense layers are written (WeftParallel.layer_impl). */
typedef enum {
  WEFT_LAYERS_MEGATRON = 0, /* Megatron-Core / Transformer Engine: fused QKV, gate/up GEMMs */
  WEFT_LAYERS_TORCH = 1     /* nn.Linear modules and DTensor TP (torchtitan's Llama) */
} WeftLayerImpl;
/* "megatron", "torch" <-> WeftLayerImpl; parse: WEFT_EINPUT (field
 * "layer_impl") otherwise. */
const char *weft_layer_impl_name(int kind);
int weft_layer_impl_parse(const char *text, int *kind, WeftError *err);
/* ZeRO-3's implementation (WeftParallel.fsdp). */
typedef enum {
  WEFT_FSDP_FLAT = 0, /* the gathered buffer is the parameters (Megatron-FSDP, FSDP1) */
  WEFT_FSDP_FSDP2 = 1 /* PyTorch's per-parameter FSDP2: copy-out and copy-in kernels */
} WeftFsdp;
/* "flat", "fsdp2" <-> WeftFsdp; parse: WEFT_EINPUT (field "fsdp") otherwise. */
const char *weft_fsdp_name(int kind);
int weft_fsdp_parse(const char *text, int *kind, WeftError *err);
/* The optimizer's copies per parameter, WeftParallel.optimizer_bytes: the
 * master weights in `master` ("fp32" 4 bytes, "bf16" 2, "none" 0: the bf16
 * parameters updated in place, "remainder" 2: the low 16 bits of an fp32
 * master whose high 16 are the bf16 parameter, apex DistributedFusedAdam's
 * store_param_remainders) plus Adam's two moments in `moments` ("fp32"
 * 4 bytes each, "bf16" 2). NULL is "fp32" (the default, 4 + 2 x 4 = 12;
 * DeepSeek-V3's fp32 master and bf16 moments: 4 + 2 x 2 = 8). WEFT_EINPUT
 * with field "master_weights" or "optimizer_states" for another text; then
 * *bytes is unchanged. */
int weft_optimizer_precision(const char *master, const char *moments, double *bytes,
                             WeftError *err);

/* The balanced layers of each of pp stages into out[pp]: L / pp each when pp
 * divides L, else floor/ceil with the lighter (floor) stages at the ends,
 * first, last, second, second to last, ... (they also hold the embedding
 * and the logits). WEFT_EINPUT when pp < 1 or pp > L. */
int weft_stage_layers_balanced(int layers, int pp, int *out, WeftError *err);

/* Megatron-Core's stage sizes when the embedding (emb 1) and the loss
 * (loss 1) count as a layer each (WeftParallel.pp_account_*): chunks of c =
 * (layers + emb + loss) / (pp v) layers, v per stage; the first stage's first
 * chunk holds c - emb, the last stage's last chunk c - loss. out[pp] gets the
 * stage totals. WEFT_EINPUT (field "pp_account") when pp v does not divide
 * layers + emb + loss, or a stage would hold no layer. */
int weft_stage_layers_accounted(int layers, int pp, int v, int emb, int loss, int *out,
                                WeftError *err);

/* Megatron-Core's pipeline layout string (WeftParallel.pp_layout) into
 * chunk_layers[pp v], the transformer layers of each model chunk in layout
 * order (chunk i on stage i mod pp). Grammar (pipeline_parallel_layer_
 * layout.py): E embedding, t transformer layer, m MTP layer, L loss, |
 * between chunks, "(...)*N" and "x*N" repeat, commas and spaces cosmetic.
 * WEFT_EINPUT (field "pp_layout", err.col and the message the 1-based
 * position where there is one) on a bad symbol, a chunk count other than
 * pp x v, t other than layers, m other than mtp_layers, E not once in the
 * first chunk, L or m outside the last, t after m, a stage with no t. */
int weft_pp_layout_parse(const char *layout, int pp, int v, int layers, int mtp_layers,
                         int *chunk_layers, WeftError *err);

/* tp = pp = dp = ep = cp = 1, micro_batch 1, virtual_stages 1, standard attention, no FP8,
 * 1F1B,
 * order TP, PP, DP, efficiency 0
 * (auto: the per-operator model where the device has its data, else 0.5 per FLOP),
 * bf16 activations/params/grads (2 bytes), 12 optimizer bytes, optimizer_step 1,
 * balanced stages, eager launches, overlapped gradient reduction and parameter
 * gather in Megatron's default buckets. */
void weft_parallel_default(WeftParallel *par);
/* "TP,PP,DP" style into order[3]; WEFT_EINPUT when not a permutation. */
int weft_parallel_order_parse(const char *text, WeftParDim order[3], WeftError *err);

/* Lay groups onto the network's dims innermost first, in the order given,
 * splitting a dim between groups when needed (LIBRA's communicator: TP-16 on
 * 4x8x4x32 -> [4,4,-1,-1], then DP-256 -> [-1,2,4,32]). out[k][d] = NPUs of
 * dim d that group k spans, -1 when none. The product of sizes must equal
 * the network's NPU count; a size that does not factor over the dims is an
 * error naming the group (names[k]) and the dim. */
int weft_map_groups(const WeftNetwork *net, const int *sizes, const char *const *names,
                    int ngroups, int (*out)[WEFT_MAX_DIMS], WeftError *err);

/* ------------------------------------------------------------------ workload generator */
typedef struct {
  double params_bytes, grads_bytes, optimizer_bytes, activations_bytes;
  double total_bytes;     /* the four above */
  double capacity_bytes;  /* the device's HBM */
  int fits;
} WeftMemory;

typedef struct {
  int microbatches;         /* per iteration (global_batch / (dp * micro_batch)) */
  int layers_per_stage;     /* of the critical (emitted) stage */
  double bubble_fraction;   /* (pp - 1) / microbatches */
  double samples;           /* sequences per iteration */
  double tokens;            /* samples * seq_len (transformers), else samples */
  double model_flops;       /* useful FLOPs per iteration, whole cluster */
  double hw_flops;          /* including recomputation */
  WeftMemory mem;           /* per NPU, the most loaded stage */
  /* transformers: the stage whose layers the workload holds (the slowest,
   * ties to the last), the stage of info.mem, and the pipeline's repeats:
   * iteration compute = pipeline_repeats x that stage's per-micro-batch work */
  int critical_stage, memory_stage;
  double pipeline_repeats;
  double optimizer_ns;      /* the optimizer step (memory bound), 0 when not modelled */
} WeftGenInfo;

/* Derive the per-NPU workload (ASTRA-sim 1.0 layers, sizes per iteration),
 * its communicator on net and the memory it needs (docs/zoo.md has every
 * formula). wl is reset and filled. compact = 1 merges identical layers into
 * one entry (same analytic time, far fewer entries: for search loops).
 * WEFT_EINPUT: the parallelization does not fit the model or network
 * (divisibility, mapping); WEFT_EMODEL: it does not fit in memory (message
 * has the numbers; info is filled). */
int weft_generate(const WeftModel *m, const WeftDevice *dev, const WeftParallel *par,
                  const WeftNetwork *net, int compact, WeftWorkload *wl, WeftCommunicator *comm,
                  WeftGenInfo *info, WeftError *err);

/* ASTRA-sim 1.0 workload text (header + layers; "@name" extension only when
 * a phase uses a named group) and LIBRA communicator yml (with `Groups:` only
 * when needed). Written to a temporary file and renamed. */
int weft_workload_write(const char *path, const WeftWorkload *wl, WeftError *err);
int weft_communicator_write(const char *path, const WeftCommunicator *comm, WeftError *err);
/* The same into an open output (weft_out_open; both left open): to commit a
 * workload and its communicator together (weft_out_commit_all). */
int weft_workload_emit(WeftOut *o, const WeftWorkload *wl, WeftError *err);
int weft_communicator_emit(WeftOut *o, const WeftCommunicator *comm, WeftError *err);

/* Append to sc a job generated from the zoo (zoo_dir NULL = "data/zoo") on
 * sc->net, which must be read already: the model and device (NULL = "a100")
 * by zoo name or path, par as weft_generate takes it except that par->dp <= 0
 * means NPUs / (tp * pp). The workload is compact, the communicator
 * generated, the job named after the model with weight 1. Scenario model
 * mappings and `weft optimize --model` both come here. WEFT_EINPUT: unknown
 * model or device, or a parallelization that does not fit the model or the
 * network; WEFT_EMODEL: the job does not fit in the device's memory (the
 * message has the numbers). On failure sc is unchanged. */
int weft_scenario_add_model_job(WeftScenario *sc, const char *zoo_dir, const char *model,
                                const char *device, const WeftParallel *par, WeftError *err);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_H_MODEL */
