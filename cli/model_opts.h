/* model_opts.h — --model, --device and parallelization options, and
 * loading the model and device they name. */
#ifndef WEFT_CLI_MODEL_OPTS_H
#define WEFT_CLI_MODEL_OPTS_H

#include "opts.h"
#include "weft.h"

enum { CLI_MO_MODEL, CLI_MO_DEVICE, CLI_MO_TP, CLI_MO_PP, CLI_MO_DP, CLI_MO_EP, CLI_MO_MB, CLI_MO_VP,
       CLI_MO_SP, CLI_MO_ZERO, CLI_MO_RECOMPUTE, CLI_MO_ORDER, CLI_MO_EFF, CLI_MO_ZOO,
       CLI_MO_PPL, CLI_MO_CP, CLI_MO_ATTN, CLI_MO_FP8, CLI_MO_GRADB, CLI_MO_SCHED,
       CLI_MO_MASTER, CLI_MO_OPTSTATES, CLI_MO_GRAPHS, CLI_MO_OGR, CLI_MO_OPG, CLI_MO_BUCKET,
       CLI_MO_PPEMB, CLI_MO_PPLOSS, CLI_MO_RCLAYERS, CLI_MO_RCMETHOD, CLI_MO_RCMODULES,
       CLI_MO_TPO, CLI_MO_TPOSMS, CLI_MO_TPOAGG, CLI_MO_TPOMETH, CLI_MO_TPOFP8, CLI_MO_P2P, CLI_MO_ETP, CLI_MO_OFFLOAD, CLI_MO_CPCOMM, CLI_MO_PPLAYOUT,
       CLI_MO_ADROP, CLI_MO_HDROP, CLI_MO_MOEPF, CLI_MO_MOERF, CLI_MO_MOEA2A, CLI_MO_MOEDFP8,
       CLI_MO_AMAX, CLI_MO_CE, CLI_MO_ACTF, CLI_MO_FP8PG, CLI_MO_MOEDISP, CLI_MO_FSDP,
       CLI_MO_NORMF, CLI_MO_ROPEF, CLI_MO_RESHARD, CLI_MO_MOEROUTE, CLI_MO_LAYERS, CLI_MO_GA, CLI_MO_LORA, CLI_MO_LORAT,
       CLI_MO_PACK, CLI_MO_GSCOPE, CLI_MO_COUNT };

#define CLI_MAX_STAGES 1024 /* --pp-layers entries */

extern const CliOpt cli_model_opts[CLI_MO_COUNT];

typedef struct {
  const char *model_name, *device_name, *zoo_dir;
  int dp_given, pp_given, device_given;
  WeftParallel par;            /* par.stage_layers points into stage_layers: keep cm in place */
  int stage_layers[CLI_MAX_STAGES];
  WeftModel model;
  WeftDevice device;
} CliModel;

/* Parallelization from the parsed values (val indexed by CLI_MO_*). Prints
 * and returns -1 on a bad value. --recompute alone means full. */
int cli_model_opts_apply(const char *const *val, CliModel *cm);
/* --fp8's value: absent (NULL) off, alone ("") delayed, else the recipe
 * named (off, delayed, current, mxfp8, blockwise, nvfp4); prints and returns -1
 * otherwise. */
int cli_opt_fp8(const char *v, int *out);
/* FP8 and CUDA graphs options' text for --help. */
#define CLI_FP8_ARG "[delayed|current|mxfp8|blockwise|nvfp4|off]"
#define CLI_FP8_HELP                                                                  \
  "linear layers' GEMMs in FP8 with Transformer Engine's scaling\n"                   \
  "                        recipe (alone: delayed; mxfp8 on block-scaled devices;\n" \
  "                        nvfp4: NVIDIA's FP4 recipe, on FP4 devices)"
#define CLI_ATTN_HELP                                                         \
  "attention kernel: standard, flash (fused, as Transformer\n"              \
  "                        Engine runs it), fa2 (FlashAttention-2, PyTorch\n" \
  "                        SDPA's flash backend) or flex (PyTorch's\n"        \
  "                        FlexAttention) (default standard)"
#define CLI_OGR_HELP                                                          \
  "DP gradient reduction per bucket under the backward (ZeRO-3: each\n"       \
  "                        micro-batch's under its own; default on;\n"        \
  "                        Megatron's --overlap-grad-reduce)"
#define CLI_OPG_HELP                                                          \
  "parameter all-gather in the background: ZeRO 1-2 per bucket, ZeRO-3\n"    \
  "                        each layer's prefetched under the one before\n"    \
  "                        (default on; Megatron's --overlap-param-gather)"
#define CLI_BUCKET_HELP                                                       \
  "parameters per DP gradient bucket (default max(4e7, 1e6 x DP))"
/* --overlap-grad-reduce and --overlap-param-gather, and --ddp-bucket-size
 * (a number of parameters in [1, 1e15]) into p; absent: unchanged. Prints
 * and returns -1 on a bad value. */
int cli_opt_overlap(const char *ogr, const char *opg, const char *bucket, WeftParallel *p);
#define CLI_TPO_HELP                                                          \
  "TP all-gathers and reduce-scatters under their GEMMs (Transformer\n"       \
  "                        Engine's userbuffers; needs --sp; default off;\n"  \
  "                        Megatron's --tp-comm-overlap)"
#define CLI_P2P_HELP                                                          \
  "pipeline send-recv under the other micro-batches' compute, with\n"         \
  "                        interleaving (default on; Megatron's\n"            \
  "                        --overlap-p2p-communication)"
/* --tp-comm-overlap and --overlap-p2p-communication (on|off) into p;
 * absent: unchanged. Prints and returns -1 on a bad value. */
int cli_opt_comm_overlap(const char *tpo, const char *p2p, WeftParallel *p);
#define CLI_TPOSMS_ARG "GEMM=N,..."
#define CLI_TPOSMS_HELP                                                       \
  "SMs of Transformer Engine's userbuffers comm kernels per GEMM,\n"         \
  "                        e.g. proj_fprop=24,fc2_fprop=20,qkv_wgrad=8 (names:\n" \
  "                        qkv_dgrad, qkv_wgrad, fc1_dgrad, fc1_wgrad,\n"   \
  "                        proj_fprop, fc2_fprop; absent: TE's 16; the\n"   \
  "                        recipes' ub_tp_comm_overlap_cfg num_sm)"
#define CLI_TPOAGG_HELP                                                       \
  "ring exchanges run with Transformer Engine's aggregate (two\n"            \
  "                        chunks a step, the first alone before the GEMM):\n" \
  "                        qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad (default\n" \
  "                        none, TE's; the recipes' ub_tp_comm_overlap_cfg)"
#define CLI_TPOMETH_ARG "GEMM=METHOD,..."
#define CLI_TPOMETH_HELP                                                      \
  "Transformer Engine's overlap method per GEMM, e.g.\n"                     \
  "                        proj_fprop=ring_exchange,fc1_dgrad=pipeline\n"    \
  "                        (proj_fprop, fc2_fprop: pipeline or ring_exchange;\n" \
  "                        qkv_dgrad, fc1_dgrad: bulk, or pipeline or\n"      \
  "                        ring_exchange to reduce-scatter the dgrad under\n" \
  "                        itself; absent: TE's; the recipes'\n"             \
  "                        ub_tp_comm_overlap_cfg method)"
#define CLI_TPOFP8_HELP                                                       \
  "pipelined reduce-scatters moving FP8 with FP8 GEMMs (the GEMM\n"          \
  "                        writes FP8, the comm kernel sums into BF16):\n"   \
  "                        proj_fprop, fc2_fprop, qkv_dgrad, fc1_dgrad\n"    \
  "                        (default none, TE's; the recipes' fp8_buf)"
/* --tp-overlap-sms's value into p->tp_overlap_sms,
 * --tp-overlap-aggregate's into p->tp_overlap_aggregate,
 * --tp-overlap-method's into p->tp_overlap_method and
 * --tp-overlap-fp8-buf's into p->tp_overlap_fp8_buf; absent: unchanged.
 * val[4]: the four values in that order. Prints and returns -1 on a bad
 * value. */
int cli_opt_tp_overlap(const char *const val[4], WeftParallel *p);
#define CLI_ETP_HELP                                                          \
  "MoE experts' tensor-parallel degree (Megatron's\n"                        \
  "                        --expert-tensor-parallel-size; default: tp); ep x etp\n" \
  "                        then folds over tp x cp x dp"
#define CLI_MOEPF_HELP                                                        \
  "MoE token permutation as Transformer Engine's fused\n"                   \
  "                        kernels (default off: eager PyTorch; Megatron's\n" \
  "                        --moe-permute-fusion)"
#define CLI_MOERF_HELP                                                        \
  "MoE router's top-k, scores and aux loss as Transformer\n"                \
  "                        Engine's fused kernels (default off: eager\n"     \
  "                        PyTorch; Megatron's --moe-router-fusion)"
/* --moe-permute-fusion and --moe-router-fusion (on|off) into p; absent:
 * unchanged. Prints and returns -1 on a bad value. */
int cli_opt_moe_fusion(const char *permute, const char *router, WeftParallel *p);
#define CLI_MOEA2A_HELP                                                       \
  "EP all-to-alls of a forward micro-batch under a backward\n"              \
  "                        one's compute and back (default off; Megatron's\n" \
  "                        --overlap-moe-expert-parallel-comm)"
#define CLI_MOEDFP8_HELP                                                      \
  "with --fp8, the MoE forward dispatch all-to-all in FP8\n"               \
  "                        (default off: the activations' width, as\n"     \
  "                        Megatron-Core's dispatchers; on: DeepSeek-V3's)"
#define CLI_AMAX_HELP                                                         \
  "with --fp8 delayed, the ranks an FP8 region's amaxes are\n"             \
  "                        all-reduced over (default stage: TP x CP x DP,\n" \
  "                        Megatron's; tp: TP x CP, its --tp-only-amax-red;\n" \
  "                        off: TE's reduce_amax=False)"
/* --fp8-amax-reduce (stage|tp|off) into p; absent: unchanged. Prints and
 * returns -1 on a bad value. */
int cli_opt_fp8_amax(const char *v, WeftParallel *p);
#define CLI_CE_HELP                                                           \
  "the loss's kernels (default fused: Megatron-Core's\n"                  \
  "                        fused cross entropy, NeMo's and Megatron-Bridge's;\n" \
  "                        megatron: unfused, Megatron's default; te:\n"   \
  "                        Transformer Engine's; torch: F.cross_entropy\n" \
  "                        on fp32 logits, torchtitan's; torch_nocast: on\n" \
  "                        the logits as they are, AutoModel's)"
#define CLI_ACTF_HELP                                                         \
  "the MLP's activation as one fused kernel each way\n"                  \
  "                        (default on: Megatron's bias_activation_fusion, or\n" \
  "                        torch.compile) or as eager PyTorch's kernels\n" \
  "                        (off: NeMo 2's Nemotron, eager torch)"
/* --activation-fusion (on|off) into p; absent: unchanged. Prints and
 * returns -1 on a bad value. */
int cli_opt_activation_fusion(const char *v, WeftParallel *p);
#define CLI_NORMF_HELP                                                        \
  "RMSNorm as one fused kernel each way (default on:\n"                  \
  "                        Transformer Engine's, torch.compile) or as eager\n" \
  "                        PyTorch's kernels (off: torchtitan uncompiled)"
#define CLI_ROPEF_HELP                                                        \
  "RoPE as one fused kernel each (default on: Megatron's\n"              \
  "                        apply_rope_fusion, torch.compile) or as eager\n"  \
  "                        PyTorch's complex product (off: torchtitan\n"   \
  "                        uncompiled)"
#define CLI_RESHARD_HELP                                                      \
  "ZeRO-3's parameters resharded after the forward (default\n"           \
  "                        on) or kept gathered to the step's end, the\n"   \
  "                        gradients reduced once (off: FSDP2's\n"          \
  "                        reshard_after_forward False, torchtitan with PP)"
/* --reshard-after-forward (on|off) into p->no_reshard as its opposite;
 * absent: unchanged. Prints and returns -1 on a bad value. */
int cli_opt_reshard(const char *v, WeftParallel *p);
/* --norm-fusion, --rope-fusion (on|off) into p's norm_eager, rope_eager as
 * their opposites; absent: unchanged. Prints and returns -1 on a bad value. */
int cli_opt_norm_rope_fusion(const char *norm, const char *rope, WeftParallel *p);
#define CLI_FP8PG_HELP                                                        \
  "with --fp8 and --zero >= 1, the FP8 GEMMs' weights kept\n"            \
  "                        as FP8 parameters, all-gathered in FP8 (default\n" \
  "                        off; Megatron's --fp8-param-gather, NeMo's\n"  \
  "                        fp8_params)"
/* --fp8-param-gather (on|off) into p; absent: unchanged. Prints and returns
 * -1 on a bad value. */
int cli_opt_fp8_param_gather(const char *v, WeftParallel *p);
/* --cross-entropy (fused|megatron|te|torch|torch_nocast) into p; absent: unchanged.
 * Prints and returns -1 on a bad value. */
int cli_opt_cross_entropy(const char *v, WeftParallel *p);
#define CLI_MOEDISP_HELP                                                      \
  "MoE token dispatcher (default alltoall, Megatron's; deepep\n"          \
  "                        and hybridep: the flex dispatcher with its\n"  \
  "                        backend, a copy per destination rank)"
/* --moe-dispatcher (alltoall|deepep|hybridep) into p; absent: unchanged.
 * Prints and returns -1 on a bad value. */
int cli_opt_moe_dispatcher(const char *v, WeftParallel *p);
#define CLI_MOEROUTE_HELP                                                     \
  "the benchmark's token-to-expert routing (default\n"                   \
  "                        random, Megatron's forced balance; blocked: token\n" \
  "                        t to experts tk..tk+k-1, AutoModel's fake gate)"
#define CLI_GA_HELP                                                           \
  "gradient-accumulation steps an iteration, each a pipeline\n"           \
  "                        schedule of its own, filled and drained (default\n" \
  "                        1: one schedule over every micro-batch; AutoModel\n" \
  "                        with PP runs one a local batch)"
/* --moe-routing (random|blocked) into p; absent: unchanged. Prints and
 * returns -1 on a bad value. */
int cli_opt_moe_routing(const char *v, WeftParallel *p);
#define CLI_LAYERS_HELP                                                       \
  "how the dense layers are written: megatron (default;\n"               \
  "                        fused QKV and gate/up GEMMs) or torch (nn.Linear\n" \
  "                        modules and DTensor TP, torchtitan's Llama)"
#define CLI_LORA_HELP                                                         \
  "LoRA fine-tuning: adapters of rank N, the base weights\n"               \
  "                        frozen (default 0: every parameter trains)"
#define CLI_LORAT_HELP                                                        \
  "the layers LoRA adapts: qkv, proj, fc1, fc2 or all\n"                  \
  "                        (default all; Megatron-Bridge's target_modules)"
#define CLI_PACK_HELP                                                         \
  "samples of N tokens packed in each sequence, attention\n"              \
  "                        within each (fine-tuning's packed THD; default:\n" \
  "                        one sample a sequence)"
/* --lora-rank N and --lora-targets LIST into p; absent: unchanged. Prints
 * and returns -1 on a bad value. */
int cli_opt_lora(const char *rank, const char *targets, WeftParallel *p);
/* --layer-impl (megatron|torch) into p; absent: unchanged. Prints and
 * returns -1 on a bad value. */
int cli_opt_layer_impl(const char *v, WeftParallel *p);
#define CLI_FSDP_HELP                                                         \
  "ZeRO-3 as flat (default: Megatron-FSDP, FSDP1; the gathered\n"          \
  "                        buffer is the parameters) or fsdp2 (PyTorch's\n" \
  "                        fully_shard: copy-out and copy-in kernels)"
/* --fsdp (flat|fsdp2) into p; absent: unchanged. Prints and returns -1 on a
 * bad value. */
int cli_opt_fsdp(const char *v, WeftParallel *p);
/* --moe-a2a-overlap and --moe-dispatch-fp8 (on|off) into p; absent:
 * unchanged. Prints and returns -1 on a bad value. */
int cli_opt_moe_a2a(const char *overlap, const char *dispatch_fp8, WeftParallel *p);
#define CLI_CPCOMM_HELP                                                       \
  "context parallelism's K, V exchange: p2p (a ring, each\n"                 \
  "                        transfer under an attention kernel; default,\n"   \
  "                        Megatron's), all_gather (Llama 3's; Megatron's\n" \
  "                        --cp-comm-type), or PyTorch's ring as torchtitan\n" \
  "                        runs it: torch_allgather (its default rotate\n"  \
  "                        method) or torch_alltoall"
/* --cp-comm (p2p|all_gather|torch_allgather|torch_alltoall) into p; absent: unchanged. Prints and returns
 * -1 on a bad value. */
int cli_opt_cp_comm(const char *v, WeftParallel *p);
#define CLI_ADROP_HELP                                                        \
  "dropout on the attention probabilities, 0 <= P <= 1 (default: the\n"      \
  "                        model's, 0 when it gives none; Megatron's\n"     \
  "                        --attention-dropout)"
#define CLI_HDROP_HELP                                                        \
  "dropout on the attention's and MLP's outputs before the residual\n"      \
  "                        add, 0 <= P <= 1 (default: the model's, 0 when it\n" \
  "                        gives none; Megatron's --hidden-dropout)"
int cli_opt_grad_bytes(const char *v, double *out); /* --grad-bytes 2|4; -1 printed */
/* --attention-dropout and --hidden-dropout (probabilities in [0, 1]) into
 * p; absent: unchanged (the model's). Prints and returns -1 on a bad value. */
int cli_opt_dropout(const char *attn, const char *hidden, WeftParallel *p);
#define CLI_GRAPHS_HELP "kernels replayed from CUDA graphs (no CPU launch cost per kernel)"
#define CLI_GSCOPE_HELP                                                        \
  "with --cuda-graphs, the sub-blocks the graphs replay: attn, mlp,\n"        \
  "                        moe (default: every kernel; Megatron-Core's\n"     \
  "                        cuda_graph_scope)"
/* --cuda-graph-scope's value into p->cuda_graph_scope; absent: unchanged.
 * Prints and returns -1 on a bad value. */
int cli_opt_graph_scope(const char *v, WeftParallel *p);
/* --efficiency's value: a number in [WEFT_MIN_EFFICIENCY, 1]; prints and
 * returns -1 otherwise. */
int cli_opt_efficiency(const char *v, double *out);
/* Load the model and device (without --device: net's cluster's GPU, else
 * a100); dp defaults to the NPUs left by tp x cp x pp on net. */
int cli_model_load(CliModel *cm, const WeftNetwork *net, WeftError *err);

#endif
