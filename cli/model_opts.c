/* model_opts.c — the options that name a model, a device and a
 * parallelization (--model, --tp, --pp, ...), shared by the commands that
 * generate a workload from the zoo. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model_opts.h"

const CliOpt cli_model_opts[CLI_MO_COUNT] = {
    [CLI_MO_MODEL] = {"--model", "NAME", "model from the zoo (weft zoo lists them) or a model .yml"},
    [CLI_MO_DEVICE] = {"--device", "NAME", "accelerator preset (default: the GPU of the\n"
                       "                        network's cluster, else a100)"},
    [CLI_MO_TP] = {"--tp", "N", "tensor-parallel degree (default 1)"},
    [CLI_MO_PP] = {"--pp", "N", "pipeline stages (default 1)"},
    [CLI_MO_DP] = {"--dp", "N", "data-parallel degree (default: NPUs / (tp x cp x pp))"},
    [CLI_MO_EP] = {"--ep", "N", "expert-parallel degree for MoE models (default 1)"},
    [CLI_MO_MB] = {"--mb", "N", "sequences per micro-batch (default 1)"},
    [CLI_MO_VP] = {"--vp", "N", "interleaved pipeline: model chunks per stage (default 1)"},
    [CLI_MO_SP] = {"--sp", NULL, "sequence parallelism (reduce-scatter + all-gather for TP)"},
    [CLI_MO_ZERO] = {"--zero", "0..3", "ZeRO stage (default 0)"},
    [CLI_MO_RECOMPUTE] = {"--recompute", "[none|selective|full]",
                          "activation recomputation (alone: full; default none)"},
    [CLI_MO_ORDER] = {"--order", "TP,PP,DP", "groups laid on dims innermost first (default TP,PP,DP)"},
    [CLI_MO_EFF] = {"--efficiency", "X", "flat fraction of peak FLOP/s, 1e-6 <= X <= 1 (default: per-operator model)"},
    [CLI_MO_ZOO] = {"--zoo", "DIR", "model zoo directory (default: $WEFT_ZOO or data/zoo)"},
    [CLI_MO_PPL] = {"--pp-layers", "LIST", "layers per pipeline stage, e.g. 5,6,...,6,5\n"
                    "                        (default: balanced, lighter first and last stages)"},
    [CLI_MO_CP] = {"--cp", "N", "context parallel: each sequence split over N NPUs (default 1)"},
    [CLI_MO_ATTN] = {"--attention", "standard|flash|fa2|flex", CLI_ATTN_HELP},
    [CLI_MO_FP8] = {"--fp8", CLI_FP8_ARG, CLI_FP8_HELP},
    [CLI_MO_GRAPHS] = {"--cuda-graphs", NULL, CLI_GRAPHS_HELP},
    [CLI_MO_GSCOPE] = {"--cuda-graph-scope", "LIST", CLI_GSCOPE_HELP},
    [CLI_MO_OGR] = {"--overlap-grad-reduce", "on|off", CLI_OGR_HELP},
    [CLI_MO_OPG] = {"--overlap-param-gather", "on|off", CLI_OPG_HELP},
    [CLI_MO_BUCKET] = {"--ddp-bucket-size", "N", CLI_BUCKET_HELP},
    [CLI_MO_TPO] = {"--tp-comm-overlap", "on|off", CLI_TPO_HELP},
    [CLI_MO_TPOSMS] = {"--tp-overlap-sms", CLI_TPOSMS_ARG, CLI_TPOSMS_HELP},
    [CLI_MO_TPOAGG] = {"--tp-overlap-aggregate", "LIST", CLI_TPOAGG_HELP},
    [CLI_MO_TPOMETH] = {"--tp-overlap-method", CLI_TPOMETH_ARG, CLI_TPOMETH_HELP},
    [CLI_MO_TPOFP8] = {"--tp-overlap-fp8-buf", "LIST", CLI_TPOFP8_HELP},
    [CLI_MO_P2P] = {"--overlap-p2p-communication", "on|off", CLI_P2P_HELP},
    [CLI_MO_ETP] = {"--etp", "N", CLI_ETP_HELP},
    [CLI_MO_CPCOMM] = {"--cp-comm", "p2p|all_gather|torch_allgather|torch_alltoall",
                       CLI_CPCOMM_HELP},
    [CLI_MO_ADROP] = {"--attention-dropout", "P", CLI_ADROP_HELP},
    [CLI_MO_HDROP] = {"--hidden-dropout", "P", CLI_HDROP_HELP},
    [CLI_MO_MOEPF] = {"--moe-permute-fusion", "on|off", CLI_MOEPF_HELP},
    [CLI_MO_MOERF] = {"--moe-router-fusion", "on|off", CLI_MOERF_HELP},
    [CLI_MO_MOEA2A] = {"--moe-a2a-overlap", "on|off", CLI_MOEA2A_HELP},
    [CLI_MO_MOEDFP8] = {"--moe-dispatch-fp8", "on|off", CLI_MOEDFP8_HELP},
    [CLI_MO_AMAX] = {"--fp8-amax-reduce", "stage|tp|off", CLI_AMAX_HELP},
    [CLI_MO_CE] = {"--cross-entropy", "fused|megatron|te|torch|torch_nocast", CLI_CE_HELP},
    [CLI_MO_ACTF] = {"--activation-fusion", "on|off", CLI_ACTF_HELP},
    [CLI_MO_FP8PG] = {"--fp8-param-gather", "on|off", CLI_FP8PG_HELP},
    [CLI_MO_MOEDISP] = {"--moe-dispatcher", "alltoall|deepep|hybridep", CLI_MOEDISP_HELP},
    [CLI_MO_FSDP] = {"--fsdp", "flat|fsdp2", CLI_FSDP_HELP},
    [CLI_MO_NORMF] = {"--norm-fusion", "on|off", CLI_NORMF_HELP},
    [CLI_MO_ROPEF] = {"--rope-fusion", "on|off", CLI_ROPEF_HELP},
    [CLI_MO_RESHARD] = {"--reshard-after-forward", "on|off", CLI_RESHARD_HELP},
    [CLI_MO_MOEROUTE] = {"--moe-routing", "random|blocked", CLI_MOEROUTE_HELP},
    [CLI_MO_LAYERS] = {"--layer-impl", "megatron|torch", CLI_LAYERS_HELP},
    [CLI_MO_GA] = {"--ga-steps", "N", CLI_GA_HELP},
    [CLI_MO_LORA] = {"--lora-rank", "N", CLI_LORA_HELP},
    [CLI_MO_LORAT] = {"--lora-targets", "LIST", CLI_LORAT_HELP},
    [CLI_MO_PACK] = {"--packed-sample-len", "N", CLI_PACK_HELP},
    [CLI_MO_GRADB] = {"--grad-bytes", "2|4", "bytes per gradient element: 2 (bf16, default) or 4 (fp32)"},
    [CLI_MO_SCHED] = {"--schedule", "1f1b|dualpipe",
                      "pipeline schedule (default 1f1b; dualpipe: DeepSeek-V3's,\n"
                      "                        even pp, micro-batches >= 2 pp, loop fwd-ig-overlap\n"
                      "                        unless --loop says otherwise)"},
    [CLI_MO_MASTER] = {"--master-weights", "fp32|bf16|none|remainder",
                       "optimizer's master weights (default fp32; none: the\n"
                       "                        bf16 parameters updated in place; remainder: the\n"
                       "                        bf16 parameters and their fp32 low bits, apex's\n"
                       "                        store_param_remainders)"},
    [CLI_MO_OPTSTATES] = {"--optimizer-states", "fp32|bf16", "Adam's two moments (default fp32)"},
    [CLI_MO_PPEMB] = {"--pp-account-embedding", NULL,
                      "the embedding counts as a layer of the first stage's\n"
                      "                        first chunk (Megatron's uneven split)"},
    [CLI_MO_PPLOSS] = {"--pp-account-loss", NULL,
                       "the output layer and loss count as a layer of the last\n"
                       "                        stage's last chunk (Megatron's uneven split)"},
    [CLI_MO_RCLAYERS] = {"--recompute-num-layers", "N",
                         "full recomputation: groups of N layers (uniform) or\n"
                         "                        the first N of each chunk (block)"},
    [CLI_MO_RCMETHOD] = {"--recompute-method", "uniform|block",
                         "which layers --recompute-num-layers picks (default uniform)"},
    [CLI_MO_RCMODULES] = {"--recompute-modules", "LIST",
                          "selective recomputation's modules: core_attn, mlp, moe,\n"
                          "                        shared_experts, moe_act, layernorm, mla_up_proj\n"
                          "                        (default core_attn); or torchtitan_op alone\n"
                          "                        (torchtitan's op-level policy)"},
    [CLI_MO_OFFLOAD] = {"--cpu-offloading-num-layers", "N",
                        "the first N layers' activations offloaded to host\n"
                        "                        memory (Megatron-Core's; pp 1, no recompute,\n"
                        "                        a device with host_gbps; default 0: off)"},
    [CLI_MO_PPLAYOUT] = {"--pp-layout", "STR",
                         "Megatron's pipeline layout: E t m L per chunk, | between,\n"
                         "                        (..)*N repeats, pp x vp chunks, e.g. 'Et|(tt|)*30mL'"},
};

/* "5,6,6,5": positive layer counts, one per stage. */
static int stage_list(const char *v, CliModel *cm) {
  int n = 0;
  for (const char *s = v;;) {
    const char *end = s + strcspn(s, ",");
    long long x;
    if (cli_int_value(s, (size_t)(end - s), 1, 1 << 24, &x) || n == CLI_MAX_STAGES) {
      cli_fail("--pp-layers '%s': expected at most %d comma-separated layer counts >= 1", v,
               CLI_MAX_STAGES);
      return -1;
    }
    cm->stage_layers[n++] = (int)x;
    if (!*end) break;
    s = end + 1;
  }
  cm->par.stage_layers = cm->stage_layers;
  cm->par.nstage_layers = n;
  if (!cm->pp_given) cm->par.pp = n; /* the list says how many stages */
  return 0;
}

/* A positive integer option value, strictly. */
static int positive(const char *flag, const char *v, int lo, int hi, int *out) {
  long long x;
  if (cli_int_value(v, strlen(v), lo, hi, &x)) {
    cli_fail("%s must be an integer in %d..%d, got '%s'", flag, lo, hi, v);
    return -1;
  }
  *out = (int)x;
  return 0;
}

int cli_model_opts_apply(const char *const *val, CliModel *cm) {
  weft_parallel_default(&cm->par);
  cm->model_name = val[CLI_MO_MODEL];
  cm->device_name = val[CLI_MO_DEVICE] ? val[CLI_MO_DEVICE] : WEFT_DEVICE_DEFAULT;
  cm->device_given = val[CLI_MO_DEVICE] != NULL;
  cm->zoo_dir = val[CLI_MO_ZOO] ? val[CLI_MO_ZOO] : cli_zoo_dir();
  cm->dp_given = val[CLI_MO_DP] != NULL;
  WeftParallel *p = &cm->par;
  struct {
    int k;
    int *dst, lo, hi;
  } ints[] = {{CLI_MO_TP, &p->tp, 1, 1 << 24},   {CLI_MO_PP, &p->pp, 1, 1 << 24},
              {CLI_MO_DP, &p->dp, 1, 1 << 24},   {CLI_MO_EP, &p->ep, 1, 1 << 24},
              {CLI_MO_MB, &p->micro_batch, 1, 1 << 24}, {CLI_MO_VP, &p->virtual_stages, 1, 1 << 16},
              {CLI_MO_ZERO, &p->zero_stage, 0, 3},       {CLI_MO_CP, &p->cp, 1, 1 << 24},
              {CLI_MO_ETP, &p->expert_tp, 1, 1 << 24},
              {CLI_MO_OFFLOAD, &p->cpu_offloading_num_layers, 0, 1 << 24},
              {CLI_MO_GA, &p->ga_steps, 1, 1 << 24},
              {CLI_MO_PACK, &p->packed_sample_len, 1, 1 << 24}};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if (val[ints[i].k] &&
        positive(cli_model_opts[ints[i].k].name, val[ints[i].k], ints[i].lo, ints[i].hi,
                 ints[i].dst))
      return -1;
  p->sequence_parallel = val[CLI_MO_SP] != NULL;
  if (cli_opt_fp8(val[CLI_MO_FP8], &p->fp8)) return -1;
  p->cuda_graphs = val[CLI_MO_GRAPHS] != NULL;
  if (cli_opt_graph_scope(val[CLI_MO_GSCOPE], p)) return -1;
  if (cli_opt_overlap(val[CLI_MO_OGR], val[CLI_MO_OPG], val[CLI_MO_BUCKET], p)) return -1;
  p->pp_account_embedding = val[CLI_MO_PPEMB] != NULL;
  p->pp_account_loss = val[CLI_MO_PPLOSS] != NULL;
  p->pp_layout = val[CLI_MO_PPLAYOUT]; /* checked with the model (weft_pp_layout_parse) */
  if (cli_opt_comm_overlap(val[CLI_MO_TPO], val[CLI_MO_P2P], p)) return -1;
  const char *const tpo[4] = {val[CLI_MO_TPOSMS], val[CLI_MO_TPOAGG], val[CLI_MO_TPOMETH],
                              val[CLI_MO_TPOFP8]};
  if (cli_opt_tp_overlap(tpo, p)) return -1;
  if (cli_opt_cp_comm(val[CLI_MO_CPCOMM], p)) return -1;
  if (cli_opt_dropout(val[CLI_MO_ADROP], val[CLI_MO_HDROP], p)) return -1;
  if (cli_opt_moe_fusion(val[CLI_MO_MOEPF], val[CLI_MO_MOERF], p)) return -1;
  if (cli_opt_moe_a2a(val[CLI_MO_MOEA2A], val[CLI_MO_MOEDFP8], p)) return -1;
  if (cli_opt_fp8_amax(val[CLI_MO_AMAX], p)) return -1;
  if (cli_opt_cross_entropy(val[CLI_MO_CE], p)) return -1;
  if (cli_opt_activation_fusion(val[CLI_MO_ACTF], p)) return -1;
  if (cli_opt_fp8_param_gather(val[CLI_MO_FP8PG], p)) return -1;
  if (cli_opt_moe_dispatcher(val[CLI_MO_MOEDISP], p)) return -1;
  if (cli_opt_moe_routing(val[CLI_MO_MOEROUTE], p)) return -1;
  if (cli_opt_layer_impl(val[CLI_MO_LAYERS], p)) return -1;
  if (cli_opt_fsdp(val[CLI_MO_FSDP], p)) return -1;
  if (cli_opt_norm_rope_fusion(val[CLI_MO_NORMF], val[CLI_MO_ROPEF], p)) return -1;
  if (cli_opt_reshard(val[CLI_MO_RESHARD], p)) return -1;
  if (cli_opt_lora(val[CLI_MO_LORA], val[CLI_MO_LORAT], p)) return -1;
  if (val[CLI_MO_ATTN]) {
    WeftError err;
    if (weft_attention_parse(val[CLI_MO_ATTN], &p->attention, &err)) {
      cli_fail("--%s", err.msg); /* "attention 'x': expected standard, flash, fa2 or flex" */
      return -1;
    }
  }
  if (val[CLI_MO_SCHED]) {
    WeftError err;
    if (weft_schedule_parse(val[CLI_MO_SCHED], &p->schedule, &err)) {
      cli_fail("--%s", err.msg);
      return -1;
    }
  }
  p->recompute = val[CLI_MO_RECOMPUTE] ? WEFT_RECOMPUTE_FULL : WEFT_RECOMPUTE_NONE;
  if (val[CLI_MO_RECOMPUTE] && *val[CLI_MO_RECOMPUTE]) {
    WeftError err;
    if (weft_recompute_parse(val[CLI_MO_RECOMPUTE], &p->recompute, &err)) {
      cli_fail("--%s", err.msg);
      return -1;
    }
  }
  if (val[CLI_MO_RCLAYERS] && positive(cli_model_opts[CLI_MO_RCLAYERS].name, val[CLI_MO_RCLAYERS],
                                       1, 1 << 24, &p->recompute_num_layers))
    return -1;
  if (val[CLI_MO_RCMETHOD]) {
    WeftError err;
    if (weft_recompute_method_parse(val[CLI_MO_RCMETHOD], &p->recompute_method, &err)) {
      cli_fail("--recompute-method '%s': expected uniform or block", val[CLI_MO_RCMETHOD]);
      return -1;
    }
  }
  if (val[CLI_MO_RCMODULES]) {
    WeftError err;
    if (weft_recompute_modules_parse(val[CLI_MO_RCMODULES], &p->recompute_modules, &err)) {
      cli_fail("--recompute-modules '%s': expected names among core_attn, mlp, moe, "
               "shared_experts, moe_act, layernorm, mla_up_proj, torchtitan_op", val[CLI_MO_RCMODULES]);
      return -1;
    }
  }
  cm->pp_given = val[CLI_MO_PP] != NULL;
  if (val[CLI_MO_PPL] && stage_list(val[CLI_MO_PPL], cm)) return -1;
  if (val[CLI_MO_ORDER]) {
    WeftError err;
    if (weft_parallel_order_parse(val[CLI_MO_ORDER], p->order, &err)) {
      cli_fail("--order: %s", err.msg);
      return -1;
    }
  }
  if (val[CLI_MO_GRADB] && cli_opt_grad_bytes(val[CLI_MO_GRADB], &p->grad_bytes)) return -1;
  if (val[CLI_MO_MASTER] || val[CLI_MO_OPTSTATES]) {
    WeftError err;
    if (weft_optimizer_precision(val[CLI_MO_MASTER], val[CLI_MO_OPTSTATES], &p->optimizer_bytes,
                                 &err)) {
      int m = !strcmp(err.field, "master_weights");
      cli_fail("%s '%s': expected %s", cli_model_opts[m ? CLI_MO_MASTER : CLI_MO_OPTSTATES].name,
               val[m ? CLI_MO_MASTER : CLI_MO_OPTSTATES], m ? "fp32, bf16, none or remainder" : "fp32 or bf16");
      return -1;
    }
  }
  if (val[CLI_MO_EFF] && cli_opt_efficiency(val[CLI_MO_EFF], &p->efficiency)) return -1;
  return 0;
}

int cli_opt_fp8(const char *v, int *out) {
  *out = WEFT_FP8_OFF;
  if (!v) return 0;
  if (!*v) {
    *out = WEFT_FP8_DELAYED; /* Transformer Engine's and Megatron-Core's default recipe */
    return 0;
  }
  WeftError err;
  if (weft_fp8_parse(v, out, &err)) {
    cli_fail("--%s", err.msg); /* "fp8 'x': expected off, delayed, current, mxfp8, blockwise or nvfp4" */
    return -1;
  }
  return 0;
}

static int on_off(const char *flag, const char *v, int *out) {
  if (!v) return 0;
  if (strcmp(v, "on") && strcmp(v, "off")) {
    cli_fail("%s must be on or off, got '%s'", flag, v);
    return -1;
  }
  *out = !strcmp(v, "on");
  return 0;
}

int cli_opt_overlap(const char *ogr, const char *opg, const char *bucket, WeftParallel *p) {
  if (on_off("--overlap-grad-reduce", ogr, &p->overlap_grad_reduce) ||
      on_off("--overlap-param-gather", opg, &p->overlap_param_gather))
    return -1;
  double x = 0;
  if (bucket && (cli_number(bucket, strlen(bucket), 1, 0, &x) || x > WEFT_MAX_BUCKET_PARAMS)) {
    cli_fail("--ddp-bucket-size must be a number of parameters in [1, 1e15], got '%s'", bucket);
    return -1;
  }
  if (bucket) p->ddp_bucket_params = x;
  return 0;
}

int cli_opt_comm_overlap(const char *tpo, const char *p2p, WeftParallel *p) {
  return on_off("--tp-comm-overlap", tpo, &p->tp_comm_overlap) ||
                 on_off("--overlap-p2p-communication", p2p, &p->overlap_p2p)
             ? -1
             : 0;
}

int cli_opt_tp_overlap(const char *const val[4], WeftParallel *p) {
  static const char *const flag[4] = {"--tp-overlap-sms", "--tp-overlap-aggregate",
                                      "--tp-overlap-method", "--tp-overlap-fp8-buf"};
  for (int i = 0; i < 4; i++) {
    WeftError err;
    if (!val[i]) continue;
    int rc = i == 3   ? weft_tp_overlap_fp8_buf_parse(val[i], &p->tp_overlap_fp8_buf, &err)
             : i == 2 ? weft_tp_overlap_method_parse(val[i], p->tp_overlap_method, &err)
             : i == 1 ? weft_tp_overlap_aggregate_parse(val[i], &p->tp_overlap_aggregate, &err)
                      : weft_tp_overlap_sms_parse(val[i], p->tp_overlap_sms, &err);
    if (rc == WEFT_OK) continue;
    const char *msg = err.msg, *colon = strstr(msg, ": ");
    if (colon && !strncmp(msg, err.field, strlen(err.field))) msg = colon + 2;
    cli_fail("%s '%s': %s", flag[i], val[i], msg);
    return -1;
  }
  return 0;
}

int cli_opt_moe_fusion(const char *permute, const char *router, WeftParallel *p) {
  return on_off("--moe-permute-fusion", permute, &p->moe_permute_fusion) ||
                 on_off("--moe-router-fusion", router, &p->moe_router_fusion)
             ? -1
             : 0;
}

/* A named option's value v (absent: unchanged) into *dst by the library's
 * parser; prints "FLAG 'v': expected EXPECTED" and returns -1 otherwise. */
static int named(const char *flag, const char *v, int (*parse)(const char *, int *, WeftError *),
                 int *dst, const char *expected) {
  WeftError err;
  if (!v || parse(v, dst, &err) == WEFT_OK) return 0;
  cli_fail("%s '%s': expected %s", flag, v, expected);
  return -1;
}

int cli_opt_cp_comm(const char *v, WeftParallel *p) {
  return named("--cp-comm", v, weft_cp_comm_parse, &p->cp_comm,
               "p2p, all_gather, torch_allgather or torch_alltoall");
}

int cli_opt_fp8_amax(const char *v, WeftParallel *p) {
  return named("--fp8-amax-reduce", v, weft_fp8_amax_reduce_parse, &p->fp8_amax_reduce,
               "stage, tp or off");
}

/* An on|off switch, on by default, into *off as its opposite (a fusion into
 * its eager field, resharding into no_reshard); absent: unchanged. */
static int on_by_default(const char *flag, const char *v, int *off) {
  int on = 1;
  if (on_off(flag, v, &on)) return -1;
  if (v) *off = !on;
  return 0;
}

int cli_opt_activation_fusion(const char *v, WeftParallel *p) {
  return on_by_default("--activation-fusion", v, &p->activation_eager);
}

int cli_opt_norm_rope_fusion(const char *norm, const char *rope, WeftParallel *p) {
  return on_by_default("--norm-fusion", norm, &p->norm_eager) ||
                 on_by_default("--rope-fusion", rope, &p->rope_eager)
             ? -1
             : 0;
}

int cli_opt_reshard(const char *v, WeftParallel *p) {
  return on_by_default("--reshard-after-forward", v, &p->no_reshard);
}

int cli_opt_fp8_param_gather(const char *v, WeftParallel *p) {
  return on_off("--fp8-param-gather", v, &p->fp8_param_gather) ? -1 : 0;
}

int cli_opt_moe_dispatcher(const char *v, WeftParallel *p) {
  return named("--moe-dispatcher", v, weft_moe_dispatcher_parse, &p->moe_dispatcher,
               "alltoall, deepep or hybridep");
}

int cli_opt_moe_routing(const char *v, WeftParallel *p) {
  return named("--moe-routing", v, weft_moe_routing_parse, &p->moe_routing, "random or blocked");
}

int cli_opt_layer_impl(const char *v, WeftParallel *p) {
  return named("--layer-impl", v, weft_layer_impl_parse, &p->layer_impl, "megatron or torch");
}

int cli_opt_lora(const char *rank, const char *targets, WeftParallel *p) {
  if (rank && positive("--lora-rank", rank, 1, WEFT_LORA_MAX_RANK, &p->lora_rank)) return -1;
  if (targets) {
    WeftError err;
    if (weft_lora_targets_parse(targets, &p->lora_targets, &err)) {
      cli_fail("--lora-targets '%s': %s", targets, err.msg);
      return -1;
    }
  }
  return 0;
}

int cli_opt_graph_scope(const char *v, WeftParallel *p) {
  WeftError err;
  if (v && weft_cuda_graph_scope_parse(v, &p->cuda_graph_scope, &err)) {
    cli_fail("--cuda-graph-scope '%s': %s", v, err.msg);
    return -1;
  }
  return 0;
}

int cli_opt_fsdp(const char *v, WeftParallel *p) {
  return named("--fsdp", v, weft_fsdp_parse, &p->fsdp, "flat or fsdp2");
}

int cli_opt_cross_entropy(const char *v, WeftParallel *p) {
  return named("--cross-entropy", v, weft_cross_entropy_parse, &p->cross_entropy,
               "fused, megatron, te, torch or torch_nocast");
}

/* --grad-bytes 2|4, read as every integer option is (04 and +4 too, as the
 * files and Python read them). */
int cli_opt_grad_bytes(const char *v, double *out) {
  long long x;
  if (cli_int_value(v, strlen(v), 2, 4, &x) || x == 3) {
    cli_fail("--grad-bytes must be 2 or 4, got '%s'", v);
    return -1;
  }
  *out = (double)x;
  return 0;
}

int cli_opt_dropout(const char *attn, const char *hidden, WeftParallel *p) {
  const char *v[2] = {attn, hidden}, *flag[2] = {"--attention-dropout", "--hidden-dropout"};
  double *dst[2] = {&p->attention_dropout, &p->hidden_dropout};
  for (int i = 0; i < 2; i++) {
    double x;
    if (!v[i]) continue;
    if (cli_number(v[i], strlen(v[i]), 0, 0, &x) || x > 1.0) {
      const char *why = cli_number_why(v[i]); /* 1e-320: a denormal, not out of [0, 1] */
      cli_fail("%s must be a probability in [0, 1], got '%s'%s%s%s", flag[i], v[i],
               why ? " (" : "", why ? why : "", why ? ")" : "");
      return -1;
    }
    *dst[i] = x;
  }
  return 0;
}

int cli_opt_efficiency(const char *v, double *out) {
  double e = 0.0;
  if (cli_number(v, strlen(v), WEFT_MIN_EFFICIENCY, 0, &e) || e > 1.0) {
    cli_fail("--efficiency must be a number in [" CLI_TEXT(WEFT_MIN_EFFICIENCY) ", 1], got '%s'",
             v);
    return -1;
  }
  *out = e;
  return 0;
}

int cli_model_load(CliModel *cm, const WeftNetwork *net, WeftError *err) {
  int rc = weft_zoo_model(cm->zoo_dir, cm->model_name, &cm->model, err);
  if (!cm->device_given && net) cm->device_name = weft_job_device(net, 1, NULL, err);
  if (!rc) rc = weft_zoo_device(cm->zoo_dir, cm->device_name, &cm->device, err);
  if (rc) return rc;
  if (!cm->dp_given && net) {  /* the rest of the NPUs go to data parallelism */
    double n = weft_network_npus_total(net);
    double tp_pp = (double)cm->par.tp * cm->par.cp * cm->par.pp;
    if (n / tp_pp != (double)(long)(n / tp_pp))
      return weft_error_set(err, WEFT_EINPUT, net->file, 0, 0, "tp",
                            cm->par.cp > 1 ? "tp x cp x pp = %.0f does not divide the network's %.0f NPUs"
                                           : "tp x pp = %.0f does not divide the network's %.0f NPUs",
                            tp_pp, n);
    cm->par.dp = (int)(n / tp_pp);
  }
  return WEFT_OK;
}

int cli_opt_moe_a2a(const char *overlap, const char *dispatch_fp8, WeftParallel *p) {
  return on_off("--moe-a2a-overlap", overlap, &p->moe_a2a_overlap) ||
                 on_off("--moe-dispatch-fp8", dispatch_fp8, &p->moe_dispatch_fp8)
             ? -1
             : 0;
}
