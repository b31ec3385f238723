/* generate.c — weft_generate: checks the parallelization, then has the
 * builder (gen_build.c) map its groups onto the network and the model's
 * generator (gen_transformer.c, gen_other.c) emit its layers (docs/zoo.md);
 * the one-word knobs' names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/limits.h"
#include "model/gen.h"
#include "model/par_check.h"
#include "model/zoo.h"

#define AUTO_EFFICIENCY 0.5 /* per FLOP, when the device has no per-operator data */

/* Every kind can become a named group but TP: generators send over it only
 * in the forward and input-gradient phases, whose phase group it is. */
_Static_assert(GEN_NKINDS - 1 <= WEFT_MAX_GROUPS, "every group kind can become a named group");

/* The knobs named by one word: a table each, one lookup and one message. */
static const char *const RECOMPUTE_NAME[] = {"none", "full", "selective"};
static const char *const ATTENTION_NAME[] = {"standard", "flash", "fa2", "flex"};
static const char *const SCHEDULE_NAME[] = {"1f1b", "dualpipe"};
static const char *const CP_COMM_NAME[] = {"p2p", "all_gather", "torch_allgather",
                                            "torch_alltoall"};
static const char *const FP8_NAME[] = {"off", "delayed", "current", "mxfp8", "blockwise", "nvfp4"};
static const char *const AMAX_NAME[] = {"stage", "tp", "off"};
static const char *const CE_NAME[] = {"fused", "megatron", "te", "torch", "torch_nocast"};
static const char *const FSDP_NAME[] = {"flat", "fsdp2"};
static const char *const DISPATCHER_NAME[] = {"alltoall", "deepep", "hybridep"};
static const char *const ROUTING_NAME[] = {"random", "blocked"};
static const char *const LAYERS_NAME[] = {"megatron", "torch"};

static const char *name_of(const char *const *names, int n, int kind) {
  return kind >= 0 && kind < n ? names[kind] : "unknown";
}

static int name_parse(const char *const *names, int n, const char *field, const char *expected,
                      const char *text, int *kind, WeftError *err) {
  for (int i = 0; i < n; i++)
    if (text && !strcmp(text, names[i])) {
      *kind = i;
      return WEFT_OK;
    }
  return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field, "%s '%s': expected %s", field,
                        text ? text : "", expected);
}

const char *weft_recompute_name(int mode) { return name_of(RECOMPUTE_NAME, 3, mode); }
int weft_recompute_parse(const char *text, int *mode, WeftError *err) {
  return name_parse(RECOMPUTE_NAME, 3, "recompute", "none, selective or full", text, mode, err);
}
static const char *const RC_METHOD_NAME[] = {"uniform", "block"};
const char *weft_recompute_method_name(int method) { return name_of(RC_METHOD_NAME, 2, method); }
int weft_recompute_method_parse(const char *text, int *method, WeftError *err) {
  return name_parse(RC_METHOD_NAME, 2, "recompute_method", "uniform or block", text, method, err);
}
/* A list of names (separated by commas or spaces) into *mask, bit i for
 * names[i]; field, what (one name's kind) and expected (the names, for
 * the message) name the error: an unknown name, or none. *mask unchanged
 * then. */
static int name_list(const char *text, const char *const *names, size_t n, const char *field,
                     const char *what, const char *expected, int *mask, WeftError *err) {
  int m = 0;
  for (const char *s = text ? text : ""; *s;) {
    s += strspn(s, ", \t");
    if (!*s) break;
    size_t len = strcspn(s, ", \t"), i = 0;
    while (i < n && !(strlen(names[i]) == len && !strncmp(s, names[i], len))) i++;
    if (i == n)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field,
                            "%s: unknown %s '%.*s' (expected %s)", field, what, (int)len, s,
                            expected);
    m |= 1 << i;
    s += len;
  }
  if (!m) return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field, "%s: no %s named", field, what);
  *mask = m;
  return WEFT_OK;
}

int weft_recompute_modules_parse(const char *text, int *mask, WeftError *err) {
  static const char *const names[] = {"core_attn", "mlp",       "moe",         "shared_experts",
                                      "moe_act",   "layernorm", "mla_up_proj", "torchtitan_op"};
  return name_list(text, names, sizeof names / sizeof names[0], "recompute_modules", "module",
                   "core_attn, mlp, moe, shared_experts, moe_act, layernorm, mla_up_proj or "
                   "torchtitan_op",
                   mask, err);
}

int weft_lora_targets_parse(const char *text, int *mask, WeftError *err) {
  static const char *const names[] = {"qkv", "proj", "fc1", "fc2"};
  int m = 0;
  for (const char *s = text ? text : ""; *s;) {
    s += strspn(s, ", \t");
    if (!*s) break;
    size_t len = strcspn(s, ", \t"), i = 0, n = sizeof names / sizeof names[0];
    const char *w = s;
    size_t wl = len;
    if (wl > 7 && !strncmp(w, "linear_", 7)) w += 7, wl -= 7; /* Megatron's module names */
    while (i < n && !(strlen(names[i]) == wl && !strncmp(w, names[i], wl))) i++;
    if (i < n)
      m |= 1 << i;
    else if (wl == 3 && !strncmp(w, "all", 3) && w == s)
      m |= WEFT_LORA_ALL;
    else
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "lora_targets",
                            "lora_targets: unknown layer '%.*s' (expected qkv, proj, fc1, fc2 "
                            "or all)",
                            (int)len, s);
    s += len;
  }
  if (!m)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "lora_targets",
                          "lora_targets: no layer named");
  *mask = m;
  return WEFT_OK;
}

int weft_cuda_graph_scope_parse(const char *text, int *mask, WeftError *err) {
  static const char *const names[] = {"attn", "mlp", "moe"}; /* WeftGraphScope's order */
  return name_list(text, names, 3, "cuda_graph_scope", "sub-block", "attn, mlp or moe", mask,
                   err);
}

/* Bytes of a master weight (fp32, bf16, none, remainder) and of an Adam
 * moment (fp32, bf16). remainder: apex's DistributedFusedAdam with
 * store_param_remainders (NeMo's distributed_fused_adam with fp32 state and
 * bf16 parameters): the fp32 master is the bf16 parameter (its high 16 bits)
 * and an int16 shard of the low 16 bits, 2 bytes. */
static const char *const MASTER_NAME[] = {"fp32", "bf16", "none", "remainder"};
static const double MASTER_BYTES[] = {4.0, 2.0, 0.0, 2.0};
#define ADAM_MOMENTS 2.0 /* first and second moment per parameter */

int weft_optimizer_precision(const char *master, const char *moments, double *bytes,
                             WeftError *err) {
  int m = 0, s = 0, rc;
  if (!bytes) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no output given");
  if ((master && (rc = name_parse(MASTER_NAME, 4, "master_weights", "fp32, bf16, none or remainder",
                                  master, &m, err))) ||
      (moments && (rc = name_parse(MASTER_NAME, 2, "optimizer_states", "fp32 or bf16", moments,
                                   &s, err))))
    return rc;
  *bytes = MASTER_BYTES[m] + ADAM_MOMENTS * MASTER_BYTES[s];
  return WEFT_OK;
}

const char *weft_attention_name(int kind) { return name_of(ATTENTION_NAME, 4, kind); }
int weft_attention_parse(const char *text, int *kind, WeftError *err) {
  return name_parse(ATTENTION_NAME, 4, "attention", "standard, flash, fa2 or flex", text, kind,
                    err);
}
const char *weft_cp_comm_name(int kind) { return name_of(CP_COMM_NAME, 4, kind); }
int weft_cp_comm_parse(const char *text, int *kind, WeftError *err) {
  return name_parse(CP_COMM_NAME, 4, "cp_comm", "p2p, all_gather, torch_allgather or torch_alltoall",
                    text, kind, err);
}
const char *weft_fp8_amax_reduce_name(int kind) { return name_of(AMAX_NAME, 3, kind); }
int weft_fp8_amax_reduce_parse(const char *text, int *kind, WeftError *err) {
  return name_parse(AMAX_NAME, 3, "fp8_amax_reduce", "stage, tp or off", text, kind, err);
}
const char *weft_cross_entropy_name(int kind) { return name_of(CE_NAME, 5, kind); }
int weft_cross_entropy_parse(const char *text, int *kind, WeftError *err) {
  return name_parse(CE_NAME, 5, "cross_entropy", "fused, megatron, te, torch or torch_nocast",
                    text, kind, err);
}
const char *weft_fsdp_name(int kind) { return name_of(FSDP_NAME, 2, kind); }
int weft_fsdp_parse(const char *text, int *kind, WeftError *err) {
  return name_parse(FSDP_NAME, 2, "fsdp", "flat or fsdp2", text, kind, err);
}
const char *weft_moe_dispatcher_name(int kind) { return name_of(DISPATCHER_NAME, 3, kind); }
int weft_moe_dispatcher_parse(const char *text, int *kind, WeftError *err) {
  return name_parse(DISPATCHER_NAME, 3, "moe_dispatcher", "alltoall, deepep or hybridep", text,
                    kind, err);
}
const char *weft_moe_routing_name(int kind) { return name_of(ROUTING_NAME, 2, kind); }
int weft_moe_routing_parse(const char *text, int *kind, WeftError *err) {
  return name_parse(ROUTING_NAME, 2, "moe_routing", "random or blocked", text, kind, err);
}
const char *weft_layer_impl_name(int kind) { return name_of(LAYERS_NAME, 2, kind); }
int weft_layer_impl_parse(const char *text, int *kind, WeftError *err) {
  return name_parse(LAYERS_NAME, 2, "layer_impl", "megatron or torch", text, kind, err);
}
const char *weft_schedule_name(int kind) { return name_of(SCHEDULE_NAME, 2, kind); }
int weft_schedule_parse(const char *text, int *kind, WeftError *err) {
  return name_parse(SCHEDULE_NAME, 2, "schedule", "1f1b or dualpipe", text, kind, err);
}

const char *weft_fp8_name(int mode) { return name_of(FP8_NAME, 6, mode); }
int weft_fp8_parse(const char *text, int *mode, WeftError *err) {
  return name_parse(FP8_NAME, 6, "fp8", "off, delayed, current, mxfp8, blockwise or nvfp4", text,
                    mode, err);
}

int weft_par_device_check(const WeftParallel *p, const WeftDevice *dev, WeftError *err) {
  if (!(p->efficiency == 0.0 || (p->efficiency >= WEFT_MIN_EFFICIENCY && p->efficiency <= 1.0)))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "efficiency",
                          "efficiency must be in [" WEFT_LIMIT_TEXT(WEFT_MIN_EFFICIENCY)
                          ", 1] (0: the per-operator model), got %g",
                          p->efficiency);
  if (!(p->ddp_bucket_params == 0.0 ||
        (p->ddp_bucket_params >= 1.0 && p->ddp_bucket_params <= WEFT_MAX_BUCKET_PARAMS)))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "ddp_bucket_size",
                          "ddp_bucket_size must be 0 (Megatron's default) or in [1, 1e15] "
                          "parameters, got %g",
                          p->ddp_bucket_params);
  if (p->tp_comm_overlap && p->tp > 1 && !p->sequence_parallel) /* Megatron asserts it too */
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "tp_comm_overlap",
                          "tp_comm_overlap needs sequence parallelism with tp = %d (the "
                          "overlapped collectives are its all-gathers and reduce-scatters)",
                          p->tp);
  int rc = weft_tp_overlap_check(p, dev, err);
  if (rc) return rc;
  if (p->fp8_amax_reduce < WEFT_AMAX_STAGE || p->fp8_amax_reduce > WEFT_AMAX_OFF)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "fp8_amax_reduce",
                          "fp8_amax_reduce %d: expected 0 (stage), 1 (tp) or 2 (off)",
                          p->fp8_amax_reduce);
  if (p->fp8_amax_reduce != WEFT_AMAX_STAGE && p->fp8 != WEFT_FP8_DELAYED)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "fp8_amax_reduce",
                          "fp8_amax_reduce %s needs fp8 delayed (got %s): only delayed "
                          "scaling reduces an FP8 region's amaxes",
                          weft_fp8_amax_reduce_name(p->fp8_amax_reduce), weft_fp8_name(p->fp8));
  if (p->fp8_param_gather != 0 && p->fp8_param_gather != 1)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "fp8_param_gather",
                          "fp8_param_gather %d: expected 0 (off) or 1 (on)", p->fp8_param_gather);
  if (p->fp8_param_gather && (p->fp8 < WEFT_FP8_DELAYED || p->fp8 > WEFT_FP8_BLOCKWISE))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "fp8_param_gather",
                          "fp8_param_gather needs fp8 delayed, current, mxfp8 or blockwise (got "
                          "%s): the parameters are kept in the FP8 GEMMs' format",
                          weft_fp8_name(p->fp8));
  if (p->no_reshard != 0 && p->no_reshard != 1)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "reshard_after_forward",
                          "no_reshard %d: expected 0 (reshard after forward) or 1 (keep gathered)",
                          p->no_reshard);
  if (p->fsdp != WEFT_FSDP_FLAT && p->fsdp != WEFT_FSDP_FSDP2)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "fsdp",
                          "fsdp %d: expected 0 (flat) or 1 (fsdp2)", p->fsdp);
  if (p->moe_dispatcher < WEFT_MOE_ALLTOALL || p->moe_dispatcher > WEFT_MOE_HYBRIDEP)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "moe_dispatcher",
                          "moe_dispatcher %d: expected 0 (alltoall), 1 (deepep) or 2 (hybridep)",
                          p->moe_dispatcher);
  if (p->ga_steps < 0 || p->ga_steps > (1 << 24))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "ga_steps",
                          "ga_steps %d: expected 1..%d (0: one)", p->ga_steps, 1 << 24);
  if (p->layer_impl != WEFT_LAYERS_MEGATRON && p->layer_impl != WEFT_LAYERS_TORCH)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "layer_impl",
                          "layer_impl %d: expected 0 (megatron) or 1 (torch)", p->layer_impl);
  if (p->lora_rank < 0 || p->lora_rank > WEFT_LORA_MAX_RANK)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "lora_rank",
                          "lora_rank %d: expected 1..%d (0: every parameter trains)", p->lora_rank,
                          WEFT_LORA_MAX_RANK);
  if (p->lora_targets < 0 || p->lora_targets > WEFT_LORA_ALL)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "lora_targets",
                          "lora_targets %d: expected a set of the layers LoRA adapts, 0..%d",
                          p->lora_targets, WEFT_LORA_ALL);
  if (p->lora_targets && !p->lora_rank)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "lora_targets",
                          "lora_targets choose the layers LoRA adapts: they need a lora_rank");
  if (p->cuda_graph_scope < 0 || p->cuda_graph_scope > 7)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "cuda_graph_scope",
                          "cuda_graph_scope %d: expected a set of attn (1), mlp (2), moe (4)",
                          p->cuda_graph_scope);
  if (p->cuda_graph_scope && !p->cuda_graphs)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "cuda_graph_scope",
                          "cuda_graph_scope chooses the sub-blocks CUDA graphs replay: it "
                          "needs cuda_graphs");
  if (p->cuda_graph_scope && p->layer_impl == WEFT_LAYERS_TORCH)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "cuda_graph_scope",
                          "cuda_graph_scope: Megatron-Core's graph scopes; torch layers "
                          "(layer_impl torch) have none");
  if (p->packed_sample_len < 0)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "packed_sample_len",
                          "packed_sample_len %d: expected 1..seq_len (0: one sample a sequence)",
                          p->packed_sample_len);
  if (p->moe_routing != WEFT_ROUTING_RANDOM && p->moe_routing != WEFT_ROUTING_BLOCKED)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "moe_routing",
                          "moe_routing %d: expected 0 (random) or 1 (blocked)", p->moe_routing);
  if (p->cross_entropy < WEFT_CE_FUSED || p->cross_entropy > WEFT_CE_TORCH_NOCAST)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "cross_entropy",
                          "cross_entropy %d: expected 0 (fused), 1 (megatron), 2 (te), 3 "
                          "(torch) or 4 (torch_nocast)",
                          p->cross_entropy);
  if (p->cp_comm < WEFT_CP_P2P || p->cp_comm > WEFT_CP_TORCH_ALLTOALL)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "cp_comm",
                          "cp_comm %d: expected 0 (p2p), 1 (all_gather), 2 (torch_allgather) or "
                          "3 (torch_alltoall)",
                          p->cp_comm);
  if (p->fp8 < WEFT_FP8_OFF || p->fp8 > WEFT_FP8_NVFP4)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "fp8",
                          "fp8 %d: expected 0..5 (off, delayed, current, mxfp8, blockwise, nvfp4)",
                          p->fp8);
  if (p->fp8 && !(dev->peak_fp8_flops > 0.0)) /* else FP8 would change memory, not time */
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "fp8",
                          "fp8: device '%s' has no FP8 rate (fp8_tflops): its GEMMs cannot run "
                          "in FP8",
                          dev->name);
  /* MX block scales need block-scaled tensor cores; in the zoo they come with
   * the FP4 ones (Blackwell, CDNA 4): Transformer Engine's MXFP8 recipe runs on
   * Blackwell only */
  if (p->fp8 == WEFT_FP8_MXFP8 && !(dev->peak_fp4_flops > 0.0))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "fp8",
                          "fp8 mxfp8: device '%s' has no block-scaled (MX) tensor cores "
                          "(no fp4_tflops): use delayed or current",
                          dev->name);
  if (p->fp8 == WEFT_FP8_NVFP4 && !(dev->peak_fp4_flops > 0.0))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "fp8",
                          "fp8 nvfp4: device '%s' has no FP4 rate (fp4_tflops): its GEMMs cannot "
                          "run in FP4",
                          dev->name);
  if (p->cpu_offloading_num_layers > 0 && !(dev->host_bytes_per_s > 0.0))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "host_gbps",
                          "cpu_offloading_num_layers: device '%s' has no host link (host_gbps "
                          "in devices.yml): the offloaded activations' copies cannot be timed",
                          dev->name);
  return WEFT_OK;
}

/* Megatron-Core's activation offloading (TransformerConfig.__post_init__
 * refuses the rest): transformers, pp 1, no recomputation, N < layers. */
static int check_offload(Gen *g) {
  const WeftParallel *p = g->par;
  int n = p->cpu_offloading_num_layers;
  if (n == 0) return WEFT_OK;
  if (n < 0 || g->m->arch != WEFT_ARCH_TRANSFORMER || n >= g->m->layers)
    return weft_gen_fail(g, WEFT_EINPUT, "cpu_offloading_num_layers",
                         "cpu_offloading_num_layers %d: needs a transformer and 0 <= N < its "
                         "layers (%d; Transformer Engine keeps the last layer's activations)",
                         n, g->m->layers);
  if (p->pp > 1 || p->recompute != WEFT_RECOMPUTE_NONE)
    return weft_gen_fail(g, WEFT_EINPUT, "cpu_offloading_num_layers",
                         "cpu_offloading_num_layers needs pp 1 and no recomputation (got pp %d, "
                         "recompute %s), as Megatron-Core",
                         p->pp, weft_recompute_name(p->recompute));
  return WEFT_OK;
}

/* Checks common to every architecture. */
static int check_common(Gen *g) {
  const WeftParallel *p = g->par;
  const WeftNetwork *net = g->net;
  if (net->ndims < 1 || net->ndims > WEFT_MAX_DIMS)
    return weft_gen_fail(g, WEFT_EINVAL, "ndims", "the network has %d dims: must be 1..%d",
                         net->ndims, WEFT_MAX_DIMS);
  long long n = 1;
  for (int d = 0; d < net->ndims; d++) {
    if (net->npus[d] < 1)
      return weft_gen_fail(g, WEFT_EINVAL, "npus", "dim %d has %d NPUs", d + 1, net->npus[d]);
    n *= net->npus[d];
    if (n > 1000000000LL)
      return weft_gen_fail(g, WEFT_EINPUT, "npus", "the network has more than 1e9 NPUs");
  }
  g->npus = (int)n;
  static const struct {
    const char *name;
    size_t off;
  } deg[] = {{"tp", offsetof(WeftParallel, tp)},
             {"pp", offsetof(WeftParallel, pp)},
             {"dp", offsetof(WeftParallel, dp)},
             {"ep", offsetof(WeftParallel, ep)},
             {"cp", offsetof(WeftParallel, cp)},
             {"micro_batch", offsetof(WeftParallel, micro_batch)}};
  for (size_t i = 0; i < sizeof deg / sizeof deg[0]; i++) {
    int v;
    memcpy(&v, (const char *)p + deg[i].off, sizeof v);
    if (v < 1)
      return weft_gen_fail(g, WEFT_EINPUT, deg[i].name, "%s must be >= 1, got %d", deg[i].name, v);
  }
  if (p->expert_tp < 0)
    return weft_gen_fail(g, WEFT_EINPUT, "etp", "etp must be >= 1 (0: tp), got %d",
                         p->expert_tp);
  if (p->recompute < WEFT_RECOMPUTE_NONE || p->recompute > WEFT_RECOMPUTE_SELECTIVE)
    return weft_gen_fail(g, WEFT_EINPUT, "recompute", "recompute must be 0..2, got %d",
                         p->recompute);
  if (p->recompute == WEFT_RECOMPUTE_SELECTIVE && g->m->arch != WEFT_ARCH_TRANSFORMER)
    return weft_gen_fail(g, WEFT_EINPUT, "recompute",
                         "selective recomputation (the attention core) needs a transformer");
  if (p->recompute_num_layers < 0 || p->recompute_method < WEFT_RECOMPUTE_UNIFORM ||
      p->recompute_method > WEFT_RECOMPUTE_BLOCK)
    return weft_gen_fail(g, WEFT_EINPUT, "recompute_num_layers",
                         "recompute_num_layers must be >= 0 and recompute_method 0..1, got %d, %d",
                         p->recompute_num_layers, p->recompute_method);
  if ((p->recompute_num_layers > 0 || p->recompute_method != WEFT_RECOMPUTE_UNIFORM) &&
      (p->recompute != WEFT_RECOMPUTE_FULL || g->m->arch != WEFT_ARCH_TRANSFORMER))
    return weft_gen_fail(g, WEFT_EINPUT, "recompute_num_layers",
                         "recompute_num_layers and recompute_method choose the layers of full "
                         "recomputation: they need recompute full and a transformer");
  if (p->recompute_modules < 0 || p->recompute_modules > 255 ||
      (p->recompute_modules && p->recompute != WEFT_RECOMPUTE_SELECTIVE))
    return weft_gen_fail(g, WEFT_EINPUT, "recompute_modules",
                         "recompute_modules (bits 0..255, got %d) choose what selective "
                         "recomputation runs again: they need recompute selective",
                         p->recompute_modules);
  if (p->recompute_modules & WEFT_RC_TORCHTITAN_OP) {
    if (p->recompute_modules != WEFT_RC_TORCHTITAN_OP)
      return weft_gen_fail(g, WEFT_EINPUT, "recompute_modules",
                           "recompute_modules: torchtitan_op is torchtitan's whole policy and "
                           "stands alone (got it with Megatron-Core's modules)");
    if (g->m->experts > 0 || g->m->kv_lora_rank > 0)
      return weft_gen_fail(g, WEFT_EINPUT, "recompute_modules",
                           "recompute_modules: torchtitan_op is modelled on dense layers with "
                           "standard attention (torchtitan's Llama block); model '%s' has %s",
                           g->m->name, g->m->experts > 0 ? "experts" : "MLA");
  }
  if (p->recompute_method == WEFT_RECOMPUTE_BLOCK && p->recompute_num_layers < 1)
    return weft_gen_fail(g, WEFT_EINPUT, "recompute_num_layers",
                         "recompute_method block needs recompute_num_layers >= 1 (the layers of "
                         "each chunk recomputed)");
  if (p->zero_stage < 0 || p->zero_stage > 3)
    return weft_gen_fail(g, WEFT_EINPUT, "zero_stage", "zero_stage must be 0..3, got %d",
                         p->zero_stage);
  const double bytes[4] = {p->act_bytes, p->param_bytes, p->grad_bytes, p->optimizer_bytes};
  static const char *const bname[4] = {"act_bytes", "param_bytes", "grad_bytes", "optimizer_bytes"};
  for (int i = 0; i < 4; i++)
    if (!(bytes[i] > 0.0 || (i == 3 && bytes[i] == 0.0)) || !isfinite(bytes[i]))
      return weft_gen_fail(g, WEFT_EINPUT, bname[i], "%s must be %s, got %g", bname[i],
                           i == 3 ? ">= 0" : "> 0", bytes[i]);
  int seen = 0;
  for (int i = 0; i < 3; i++)
    if (p->order[i] >= WEFT_PAR_TP && p->order[i] <= WEFT_PAR_DP) seen |= 1 << p->order[i];
  if (seen != 7)
    return weft_gen_fail(g, WEFT_EINPUT, "order", "order must be a permutation of TP, PP, DP");
  if (p->cp > 1 && g->m->arch != WEFT_ARCH_TRANSFORMER)
    return weft_gen_fail(g, WEFT_EINPUT, "cp", "cp = %d: context parallelism needs a transformer",
                         p->cp);
  if (p->attention < WEFT_ATTENTION_STANDARD || p->attention > WEFT_ATTENTION_FLEX)
    return weft_gen_fail(g, WEFT_EINPUT, "attention", "attention must be 0..3, got %d",
                         p->attention);
  if (p->attention == WEFT_ATTENTION_FLEX && p->cp > 1)
    return weft_gen_fail(g, WEFT_EINPUT, "attention",
                         "attention flex with cp = %d: weft models context parallelism's ring "
                         "with SDPA's or Transformer Engine's kernels, not FlexAttention's",
                         p->cp);
  double adrop = p->attention == WEFT_ATTENTION_FLEX ? weft_dropout(g->m, p, 0) : 0;
  if (adrop > 0)
    return weft_gen_fail(g, WEFT_EINPUT, "attention",
                         "attention flex with attention dropout %g: FlexAttention has no dropout "
                         "(set attention_dropout 0)",
                         adrop);
  if (p->cp > 1 && p->cp_comm >= WEFT_CP_TORCH_ALLGATHER) { /* torch's _templated_ring_attention */
    const char *cn = weft_cp_comm_name(p->cp_comm);
    if (p->attention == WEFT_ATTENTION_STANDARD)
      return weft_gen_fail(g, WEFT_EINPUT, "cp_comm",
                           "cp_comm %s: PyTorch's ring runs SDPA's fused kernels, not attention "
                           "standard",
                           cn);
    if (g->m->bidirectional)
      return weft_gen_fail(g, WEFT_EINPUT, "cp_comm",
                           "cp_comm %s: PyTorch's load-balanced ring needs a causal mask (it "
                           "raises 'Load balancing requires `is_causal=True`')",
                           cn);
    if (g->m->window > 0 && weft_opcost_window_share(g->m) > 0)
      return weft_gen_fail(g, WEFT_EINPUT, "cp_comm",
                           "cp_comm %s: PyTorch's ring has no sliding window (its SDPA steps are "
                           "causal or whole)",
                           cn);
  }
  long long npar = (long long)p->tp * p->cp * p->pp * p->dp;
  if (npar != n) {
    if (p->cp > 1)
      return weft_gen_fail(g, WEFT_EINPUT, "dp",
                           "tp*cp*pp*dp = %d*%d*%d*%d = %lld, the network has %lld NPUs", p->tp,
                           p->cp, p->pp, p->dp, npar, n);
    return weft_gen_fail(g, WEFT_EINPUT, "dp",
                         "tp*pp*dp = %d*%d*%d = %lld, the network has %lld NPUs", p->tp, p->pp,
                         p->dp, npar, n);
  }
  if (!(g->dev->peak_flops > 0.0) || !isfinite(g->dev->peak_flops))
    return weft_gen_fail(g, WEFT_EINPUT, "peak_flops", "device '%s': peak_flops must be > 0",
                         g->dev->name);
  int rc = weft_par_device_check(p, g->dev, g->err);
  if (rc) return rc;
  if (p->no_reshard && p->zero_stage != 3) /* per point: codesign sweeps zero */
    return weft_gen_fail(g, WEFT_EINPUT, "reshard_after_forward",
                         "reshard_after_forward off needs zero 3 (got %d): only ZeRO-3 reshards "
                         "its parameters",
                         p->zero_stage);
  if (p->fsdp == WEFT_FSDP_FSDP2 && p->zero_stage != 3) /* per point: codesign sweeps zero */
    return weft_gen_fail(g, WEFT_EINPUT, "fsdp",
                         "fsdp fsdp2 needs zero 3 (got %d): FSDP2 shards the parameters",
                         p->zero_stage);
  if (p->packed_sample_len > 0) { /* docs/zoo.md, "Packed samples" */
    const char *why = g->m->arch != WEFT_ARCH_TRANSFORMER          ? "a transformer"
                      : p->packed_sample_len > g->m->seq_len       ? "at most seq_len tokens"
                      : p->attention == WEFT_ATTENTION_STANDARD    ? "a fused attention kernel (flash, fa2 "
                                                                     "or flex: the unfused one scores the "
                                                                     "whole sequence under its mask)"
                      : p->cp > 1                                  ? "cp 1 (weft's context-parallel "
                                                                     "rings run whole sequences)"
                                                                   : NULL;
    if (why)
      return weft_gen_fail(g, WEFT_EINPUT, "packed_sample_len",
                           "packed_sample_len %d (seq_len %d): packed samples need %s",
                           p->packed_sample_len, g->m->seq_len, why);
  }
  if (p->lora_rank > 0) { /* docs/zoo.md, "LoRA" */
    const char *why = g->m->arch != WEFT_ARCH_TRANSFORMER ? "a transformer"
                      : g->m->experts > 0                 ? "dense layers (no experts)"
                      : g->m->kv_lora_rank > 0            ? "standard attention (no MLA)"
                      : g->m->mtp_layers > 0              ? "no MTP layers"
                      : p->layer_impl != WEFT_LAYERS_MEGATRON ? "layer_impl megatron"
                      : p->zero_stage > 2                 ? "zero 0..2 (not 3)"
                      : p->schedule == WEFT_SCHEDULE_DUALPIPE ? "schedule 1f1b"
                                                          : NULL;
    if (why) /* per point: codesign sweeps zero */
      return weft_gen_fail(g, WEFT_EINPUT, "lora_rank",
                           "lora_rank %d: weft models LoRA (Megatron-Bridge's adapters) on %s; "
                           "model '%s'",
                           p->lora_rank, why, g->m->name);
    /* a column-parallel target's linear_in splits its r outputs over TP
     * (Megatron-Core's ColumnParallelLinear: divide(output_size, tp)) */
    if (weft_lora_targets_of(p) & (WEFT_LORA_QKV | WEFT_LORA_FC1) && p->lora_rank % p->tp)
      return weft_gen_fail(g, WEFT_EINPUT, "lora_rank",
                           "lora_rank %d on qkv or fc1 splits its rank over tp = %d: it must "
                           "divide it (Megatron's ColumnParallelLinear)",
                           p->lora_rank, p->tp);
  }
  if (p->fp8_param_gather && p->zero_stage < 1) /* per point: codesign sweeps zero */
    return weft_gen_fail(g, WEFT_EINPUT, "fp8_param_gather",
                         "fp8_param_gather needs zero >= 1 (got 0): FP8 parameters are "
                         "all-gathered by the distributed optimizer or FSDP, as Megatron asserts");
  if (!(g->dev->hbm_bytes > 0.0))
    return weft_gen_fail(g, WEFT_EINPUT, "hbm_bytes", "device '%s': hbm_bytes must be > 0",
                         g->dev->name);
  if (g->m->global_batch < 1)
    return weft_gen_fail(g, WEFT_EINPUT, "global_batch", "model '%s': global_batch must be >= 1",
                         g->m->name);
  /* efficiency 0 (auto): the device's per-operator model for transformers,
   * else every FLOP at AUTO_EFFICIENCY */
  double eff = p->efficiency > 0 ? p->efficiency : AUTO_EFFICIENCY;
  g->ns_per_flop = 1e9 / (g->dev->peak_flops * eff);
  g->opcost = p->efficiency == 0.0 && g->m->arch == WEFT_ARCH_TRANSFORMER &&
              weft_opcost_ready(g->dev) && g->m->heads > 0;
  g->oc_rc_skip_ns = 0; /* the flat model: FLOPs, no kernels to leave out */
  if (g->opcost) { /* once per generation: every layer of a block costs the same */
    OcLayer l;
    weft_opcost_layer(g->m, p, &l);
    memset(g->oc_ns, 0, sizeof g->oc_ns);
    memset(g->oc_once_ns, 0, sizeof g->oc_once_ns);
    memset(g->oc_titan_ns, 0, sizeof g->oc_titan_ns);
    if (p->recompute == WEFT_RECOMPUTE_FULL) /* what its recomputation leaves out */
      g->oc_rc_skip_ns = weft_opcost_torch_rc_skip_ns(g->dev, &l, OC_MLP);
    for (int b = 0; b < OC_NBLOCKS; b++) /* only the blocks the workload has */
      if (b != OC_MOE || g->m->experts > 0) { /* the embedding too: stage 0 may be critical */
        weft_opcost_block(g->dev, &l, (OcBlock)b, g->oc_ns[b]);
        if (l.fp8) g->oc_once_ns[b] = weft_opcost_block_once_ns(g->dev, &l, (OcBlock)b);
        if (p->recompute_modules & WEFT_RC_TORCHTITAN_OP)
          g->oc_titan_ns[b] = weft_opcost_block_titan_rc_ns(g->dev, &l, (OcBlock)b);
      }
  }
  g->cp_ring = 0;
  if (p->cp > 1 && g->m->arch == WEFT_ARCH_TRANSFORMER && g->m->heads > 0) weft_gen_cp_setup(g);
  g->size[GEN_TP] = p->tp;
  g->size[GEN_PP] = p->pp;
  g->size[GEN_DP] = p->dp * p->cp; /* CP ranks hold the same weights: gradients over both */
  weft_gen_fold_of(p, &g->fold, &g->etp);
  g->size[GEN_EP] = p->ep;
  /* ep | dp, etp ep | tp cp dp: checked by the architecture */
  g->size[GEN_EDP] = g->fold ? (int)(npar / p->pp / ((long long)g->etp * p->ep))
                             : p->dp / p->ep * p->cp;
  g->size[GEN_ETP] = g->fold && g->etp != p->tp ? g->etp : 1; /* else the experts use TP */
  g->size[GEN_CP] = p->cp;
  g->size[GEN_WORLD] = g->npus;
  return WEFT_OK;
}

/* Number the named groups in order of first use, entry by entry and phase by
 * phase, as a workload text reader meets them: the written text then reads
 * back as exactly this workload and communicator. */
static void renumber_groups(Gen *g) {
  WeftWorkload *wl = g->wl;
  WeftCommunicator *c = g->comm, old = *c;
  char names[WEFT_MAX_GROUPS][16];
  int map[WEFT_MAX_GROUPS + 1] = {0}, n = 0;
  memcpy(names, wl->group_name, sizeof names);
  for (int i = 0; i < wl->nlayers; i++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      int *k = &wl->layers[i].phase[ph].group;
      if (*k <= 0) continue;
      if (!map[*k]) map[*k] = ++n;
      *k = map[*k];
    }
  for (int k = 1; k <= wl->ngroups; k++) {
    int j = map[k] - 1;
    if (j < 0) continue;
    memcpy(wl->group_name[j], names[k - 1], sizeof names[0]);
    memcpy(c->extra_name[j], old.extra_name[k - 1], sizeof old.extra_name[0]);
    memcpy(c->extra[j], old.extra[k - 1], sizeof old.extra[0]);
    c->extra_line[j] = 0;
  }
  wl->ngroups = c->nextra = n;
}

int weft_generate(const WeftModel *m, const WeftDevice *dev, const WeftParallel *par,
                  const WeftNetwork *net, int compact, WeftWorkload *wl, WeftCommunicator *comm,
                  WeftGenInfo *info, WeftError *err) {
  WeftGenInfo local;
  if (!info) info = &local;
  memset(info, 0, sizeof *info);
  if (!m || !dev || !par || !net || !wl || !comm)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "weft_generate: a NULL argument");
  Gen g = {.m = m,
           .dev = dev,
           .par = par,
           .net = net,
           .compact = compact,
           .wl = wl,
           .comm = comm,
           .info = info,
           .err = err};
  g.lin_gather_bytes = par->fp8_param_gather ? weft_opcost_fp8_copy_bytes(par->fp8, 1)
                                             : par->param_bytes;
  wl->nlayers = 0;
  wl->ngroups = 0;
  wl->policy[0] = '\0';
  wl->file[0] = '\0';
  memset(comm, 0, sizeof *comm);
  comm->ndims = net->ndims;
  int rc = check_common(&g);
  if (!rc) rc = check_offload(&g);
  /* Up front, before any allocation proportional to it: a workload has a
   * few entries per layer of a stage (zoo files are held to this already). */
  if (!rc && m->arch == WEFT_ARCH_TRANSFORMER && m->layers > WEFT_MAX_TRANSFORMER_LAYERS)
    rc = weft_gen_fail(&g, WEFT_EINPUT, "layers", "model '%s': layers must be <= %d, got %d",
                       m->name, WEFT_MAX_TRANSFORMER_LAYERS, m->layers);
  if (!rc) {
    switch (m->arch) {
      case WEFT_ARCH_TRANSFORMER: rc = weft_gen_transformer(&g); break;
      case WEFT_ARCH_CNN: rc = weft_gen_cnn(&g); break;
      case WEFT_ARCH_DLRM: rc = weft_gen_dlrm(&g); break;
      default: rc = weft_gen_fail(&g, WEFT_EINPUT, "arch", "unknown architecture %d", (int)m->arch);
    }
  }
  if (!rc && g.overflow)
    rc = weft_gen_fail(&g, WEFT_EINVAL, "", "internal: a sub-block carries too many collectives");
  if (rc) {
    wl->nlayers = 0;
    wl->ngroups = 0;
    comm->nextra = 0;
    return rc;
  }
  renumber_groups(&g);
  WeftMemory *mem = &info->mem;
  mem->total_bytes =
      mem->params_bytes + mem->grads_bytes + mem->optimizer_bytes + mem->activations_bytes;
  mem->capacity_bytes = dev->hbm_bytes;
  mem->fits = mem->total_bytes <= mem->capacity_bytes;
  if (!mem->fits) { /* GiB, the unit devices are sold in ("80GB" HBM is 80 GiB) */
    const double gib = 1024.0 * 1024.0 * 1024.0;
    return weft_error_set(err, WEFT_EMODEL, "", 0, 0, "hbm_bytes",
                          "needs %.1f GiB per NPU (params %.1f + grads %.1f + optimizer %.1f + "
                          "activations %.1f), the %s has %.1f GiB",
                          mem->total_bytes / gib, mem->params_bytes / gib, mem->grads_bytes / gib,
                          mem->optimizer_bytes / gib, mem->activations_bytes / gib,
                          dev->title[0] ? dev->title : dev->name, mem->capacity_bytes / gib);
  }
  return WEFT_OK;
}
