/* scenario_model.c — scenario jobs generated from the model zoo: the
 * workload mapping {model: gpt3-175b, tp: 16, ...} and the function behind
 * it, weft_scenario_add_model_job (also used by `weft optimize --model`). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/limits.h"
#include "io/scenario.h"
#include "io/yaml.h"

static const char *const MODEL_KEYS[] = {
    "model", "device", "tp", "pp", "dp", "ep", "micro_batch|mb", "sequence_parallel|sp", "zero",
    "recompute", "order", "efficiency", "virtual_stages|vp", "cp", "attention", "fp8",
    "pp_layers", "grad_bytes", "schedule", "master_weights", "optimizer_states", "cuda_graphs",
    "overlap_grad_reduce", "overlap_param_gather", "ddp_bucket_size", "pp_account_embedding",
    "pp_account_loss", "recompute_num_layers", "recompute_method", "recompute_modules",
    "tp_comm_overlap", "overlap_p2p_communication", "etp",
    "cpu_offloading_num_layers", "cp_comm", "pp_layout", "attention_dropout", "hidden_dropout",
    "moe_permute_fusion", "moe_router_fusion", "tp_overlap_sms", "tp_overlap_aggregate",
    "tp_overlap_method", "tp_overlap_fp8_buf",
    "moe_a2a_overlap", "moe_dispatch_fp8", "fp8_amax_reduce", "cross_entropy",
    "activation_fusion", "fp8_param_gather", "moe_dispatcher", "fsdp", "norm_fusion",
    "rope_fusion", "reshard_after_forward", "moe_routing", "ga_steps",
    "layer_impl", "lora_rank", "lora_targets", "packed_sample_len", "cuda_graph_scope",
    NULL};

/* The key's spellings in MODEL_KEYS ("micro_batch|mb") for the library's
 * field name (micro_batch), so that its error lands on the key as written. */
static const char *spellings(const char *field) {
  /* fields that are no key: the keys that set what they name */
  static const char *const other[][2] = {
      {"pp_account", "pp_account_embedding|pp_account_loss"},
      {"recompute_num_layers", "recompute_num_layers|recompute_method"},
      {"host_gbps", "cpu_offloading_num_layers"}};
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
    if (!strcmp(field, other[i][0])) return other[i][1];
  size_t n = strlen(field);
  for (int i = 0; MODEL_KEYS[i]; i++)
    if (!strncmp(MODEL_KEYS[i], field, n) && (MODEL_KEYS[i][n] == '|' || !MODEL_KEYS[i][n]))
      return MODEL_KEYS[i];
  return field;
}

#define MAX_STAGE_LIST 1024 /* pp_layers entries (as the CLI's --pp-layers) */

/* The step that failed, so the mapping reader can place the error. */
enum { STEP_CHECK = 0, STEP_MODEL, STEP_DEVICE, STEP_GENERATE };

static int add_job(WeftScenario *sc, const char *zoo_dir, const char *model, const char *device,
                   const WeftParallel *par_in, int *step, WeftError *err) {
  *step = STEP_CHECK;
  if (!sc || !model || !par_in)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "no scenario, model or parallelization");
  if (sc->net.ndims == 0)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "the scenario has no network yet: read it before adding a job");
  int j = sc->njobs, rc;
  if (j == WEFT_MAX_JOBS)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "workloads", "more than %d workloads",
                          WEFT_MAX_JOBS);
  if (!zoo_dir) zoo_dir = WEFT_ZOO_DIR_DEFAULT;
  WeftModel m;
  WeftDevice dev;
  *step = STEP_MODEL;
  if ((rc = weft_zoo_model(zoo_dir, model, &m, err))) return rc;
  *step = STEP_DEVICE;
  device = weft_job_device(&sc->net, 1, device, err);  /* one network: never a clash */
  if ((rc = weft_zoo_device(zoo_dir, device, &dev, err))) return rc;
  if (sc->cost.sys.device_power_w <= 0.0)  /* NpuPowerW when none is given: the first job's */
    sc->cost.sys.device_power_w = dev.power_w;
  *step = STEP_GENERATE;
  WeftParallel par = *par_in;
  if (par.dp <= 0) {  /* the rest of the NPUs */
    double npus = weft_network_npus_total(&sc->net);
    double tpp = (double)par.tp * (double)par.cp * (double)par.pp;
    if (par.tp < 1 || par.pp < 1 || par.cp < 1 || fmod(npus, tpp) != 0.0)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, par.cp > 1 ? "cp" : "tp",
                            par.cp > 1 ? "tp x cp x pp = %.0f does not divide the network's %.0f NPUs"
                                       : "tp x pp = %.0f does not divide the network's %.0f NPUs",
                            tpp, npus);
    par.dp = (int)(npus / tpp);
  }
  WeftWorkload *wl = weft_workload_create();
  if (!wl) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  WeftCommunicator comm;
  WeftGenInfo info;
  memset(&comm, 0, sizeof comm);
  /* full workload: one job, and the overlap loop needs the layer order */
  rc = weft_generate(&m, &dev, &par, &sc->net, 0, wl, &comm, &info, err);
  if (rc) {
    weft_workload_free(wl);
    return rc;
  }
  if (!wl->file[0]) snprintf(wl->file, sizeof wl->file, "%s", m.file[0] ? m.file : sc->file);
  if (!comm.file[0]) snprintf(comm.file, sizeof comm.file, "%s", sc->file);
  sc->workload[j] = wl;
  sc->comm[j] = comm;
  sc->weight[j] = 1.0;
  sc->tokens_per_iteration[j] = info.tokens;
  snprintf(sc->job_name[j], sizeof sc->job_name[j], "%s", m.name[0] ? m.name : model);
  sc->njobs++;
  return WEFT_OK;
}

int weft_scenario_add_model_job(WeftScenario *sc, const char *zoo_dir, const char *model,
                                const char *device, const WeftParallel *par, WeftError *err) {
  int step;
  return add_job(sc, zoo_dir, model, device, par, &step, err);
}

/* ------------------------------------------------------------------ the mapping */

static int int_key(const WeftYamlNode *map, const char *names, const char *file, int lo, int hi,
                   int *out, WeftError *err) {
  const WeftYamlNode *k, *v = weft_yaml_get(map, names, &k);
  if (!v) return WEFT_OK;
  const char *key = k->text; /* as spelled: micro_batch or the CLI's mb */
  int rc = weft_yaml_int(v, file, key, NULL, out, err);
  if (rc) return rc;
  if (*out >= lo && *out <= hi) return WEFT_OK;
  if (hi == 1 << 30)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key, "%s must be >= %d, got %s",
                          key, lo, v->text);
  return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key,
                        "%s must be %d to %d, got %s", key, lo, hi, v->text);
}

/* An optional boolean key. */
static int bool_key(const WeftYamlNode *map, const char *names, const char *file, int *out,
                    WeftError *err) {
  const WeftYamlNode *k, *v = weft_yaml_get(map, names, &k);
  return v ? weft_yaml_bool(v, file, k->text, out, err) : WEFT_OK;
}

/* A switch on by default (a fusion: the fused kernels; resharding after
 * the forward) into *eager (*off) as its opposite; absent: unchanged. */
static int fusion_key(const WeftYamlNode *map, const char *key, const char *file, int *eager,
                      WeftError *err) {
  int on = 1, rc = bool_key(map, key, file, &on, err);
  if (!rc && weft_yaml_get(map, key, NULL)) *eager = !on;
  return rc;
}

/* A name (model, device, order) as text. */
static int text_key(const WeftYamlNode *map, const char *key, const char *file,
                    const WeftYamlNode **node, WeftError *err) {
  const WeftYamlNode *v = *node = weft_yaml_get(map, key, NULL);
  if (!v || (v->kind == WEFT_YAML_SCALAR && v->len > 0 && v->len < WEFT_PATH_LEN))
    return WEFT_OK;
  char got[96];
  weft_yaml_describe(v, got, sizeof got);
  return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key, "%s must be a name, got %s",
                        key, got);
}

/* A knob named by one word or a boolean (true = on_mode, false = mode 0):
 * `recompute` none | selective | full (true = full), `fp8` off | delayed |
 * current | mxfp8 | blockwise | nvfp4 (true = delayed). */
static int switch_key(const WeftYamlNode *map, const char *key, const char *expected,
                      int (*parse)(const char *, int *, WeftError *), int on_mode,
                      const char *file, int *out, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  if (!v) return WEFT_OK;
  if (v->kind == WEFT_YAML_SCALAR && parse(v->text, out, NULL) == WEFT_OK) return WEFT_OK;
  int on = 0;
  if (v->kind == WEFT_YAML_SCALAR && weft_yaml_bool(v, file, key, &on, NULL) == WEFT_OK) {
    *out = on ? on_mode : 0;
    return WEFT_OK;
  }
  char got[96];
  weft_yaml_describe(v, got, sizeof got);
  return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key, "%s must be %s, got %s",
                        key, expected, got);
}

/* A knob named by one word (`attention`: standard | flash, `schedule`:
 * 1f1b | dualpipe), read by its parser. */
static int word_key(const WeftYamlNode *map, const char *key, const char *expected,
                    int (*parse)(const char *, int *, WeftError *), const char *file, int *out,
                    WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  if (!v || (v->kind == WEFT_YAML_SCALAR && parse(v->text, out, NULL) == WEFT_OK)) return WEFT_OK;
  char got[96];
  weft_yaml_describe(v, got, sizeof got);
  return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key, "%s must be %s, got %s",
                        key, expected, got);
}

/* A probability in [0, 1] (dropout) under key; unchanged when absent. */
static int prob_key(const WeftYamlNode *map, const char *key, const char *file, double *out,
                    WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  if (!v) return WEFT_OK;
  WeftRange range = WEFT_RANGE_PROB;
  return weft_yaml_double_in(v, file, key, NULL, &range, out, err);
}

/* A list of names, `key: [a, b]` or "a, b", into a mask by parse (the
 * CLI's rule for the same option): recompute_modules (core_attn, mlp, ...),
 * tp_overlap_aggregate (qkv_fprop, fc2_dgrad, ...); what names an entry. */
static int names_key(const WeftYamlNode *map, const char *file, const char *key, const char *what,
                     int (*parse)(const char *, int *, WeftError *), int *out, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  char text[256] = "";
  if (!v) return WEFT_OK;
  if (v->kind == WEFT_YAML_SCALAR) {
    snprintf(text, sizeof text, "%s", v->text);
  } else if (v->kind == WEFT_YAML_SEQUENCE) {
    for (int i = 0; i < v->n; i++) {
      const WeftYamlNode *e = v->child[i];
      if (e->kind != WEFT_YAML_SCALAR || strlen(text) + e->len + 2 > sizeof text)
        return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, key,
                              "%s entry %d: expected %s", key, i + 1, what);
      strcat(text, ",");
      strcat(text, e->text);
    }
  }
  WeftError e;
  if (parse(text, out, &e) == WEFT_OK) return WEFT_OK;
  return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key, "%s", e.msg);
}

/* A per-GEMM key, `tp_overlap_sms: {proj_fprop: 24, fc2_fprop: 20}` or
 * "proj_fprop=24, fc2_fprop=20" (tp_overlap_method likewise with TE's
 * method names): each entry by the CLI's rule (parse), placed at its line;
 * form and what: a value's name and kind, for the messages. */
static int gemm_map_key(const WeftYamlNode *map, const char *file, const char *key,
                        const char *form, const char *what,
                        int (*parse)(const char *, int *, WeftError *), int *out,
                        WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  WeftError e;
  char text[160];
  if (!v) return WEFT_OK;
  int n = v->kind == WEFT_YAML_MAPPING ? v->n : 1;
  if (v->kind == WEFT_YAML_SEQUENCE || (v->kind == WEFT_YAML_MAPPING && n == 0))
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key,
                          "%s: expected a mapping {GEMM: %s, ...} or GEMM=%s,...", key, form,
                          form);
  for (int i = 0; i < n; i++) {
    const WeftYamlNode *at = v, *val = v;
    if (v->kind == WEFT_YAML_MAPPING) {
      at = weft_yaml_key(v, i);
      val = weft_yaml_value(v, i);
      if (val->kind != WEFT_YAML_SCALAR)
        return weft_error_set(err, WEFT_EINPUT, file, val->line, val->col, key,
                              "%s: %s: expected %s", key, at->text, what);
      snprintf(text, sizeof text, "%.60s=%.60s", at->text, val->text);
    }
    if (parse(v->kind == WEFT_YAML_MAPPING ? text : v->text, out, &e))
      return weft_error_set(err, WEFT_EINPUT, file, at->line, at->col, key, "%s", e.msg);
  }
  return WEFT_OK;
}

/* `pp_layers: [5, 6, 6, 5]`: layers per stage (>= 1 each) into stages[];
 * pp is the list's length unless the mapping gives it. */
static int stages_key(const WeftYamlNode *map, const char *file, int *stages, WeftParallel *par,
                      WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, "pp_layers", NULL);
  int n = 0, rc;
  if (!v) return WEFT_OK;
  if (v->kind == WEFT_YAML_SEQUENCE && v->n > MAX_STAGE_LIST)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, "pp_layers",
                          "pp_layers has %d entries, at most %d", v->n, MAX_STAGE_LIST);
  if ((rc = weft_yaml_ints(v, file, "pp_layers", stages, MAX_STAGE_LIST, &n, err))) return rc;
  for (int i = 0; i < n; i++)
    if (stages[i] < 1) {
      const WeftYamlNode *e = v->child[i];
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, "pp_layers",
                            "pp_layers entry %d must be >= 1, got %d", i + 1, stages[i]);
    }
  par->stage_layers = stages;
  par->nstage_layers = n;
  if (!weft_yaml_get(map, "pp", NULL)) par->pp = n;
  return WEFT_OK;
}

/* The knobs of the mapping over weft_parallel_default; dp 0 when absent.
 * par->stage_layers points into stages[MAX_STAGE_LIST] when pp_layers is
 * given. */
static int read_parallel(const WeftYamlNode *wv, const char *file, WeftParallel *par, int *stages,
                         WeftError *err) {
  const int big = 1 << 30;
  const WeftYamlNode *ov, *ev;
  int rc;
  weft_parallel_default(par);
  par->dp = 0;
  if ((rc = int_key(wv, "tp", file, 1, big, &par->tp, err)) ||
      (rc = int_key(wv, "pp", file, 1, big, &par->pp, err)) ||
      (rc = int_key(wv, "dp", file, 1, big, &par->dp, err)) ||
      (rc = int_key(wv, "ep", file, 1, big, &par->ep, err)) ||
      (rc = int_key(wv, "etp", file, 1, big, &par->expert_tp, err)) ||
      (rc = int_key(wv, "cp", file, 1, big, &par->cp, err)) ||
      (rc = int_key(wv, "micro_batch|mb", file, 1, big, &par->micro_batch, err)) ||
      (rc = int_key(wv, "virtual_stages|vp", file, 1, big, &par->virtual_stages, err)) ||
      (rc = int_key(wv, "zero", file, 0, 3, &par->zero_stage, err)) ||
      (rc = bool_key(wv, "sequence_parallel|sp", file, &par->sequence_parallel, err)) ||
      (rc = bool_key(wv, "cuda_graphs", file, &par->cuda_graphs, err)) ||
      (rc = bool_key(wv, "overlap_grad_reduce", file, &par->overlap_grad_reduce, err)) ||
      (rc = bool_key(wv, "overlap_param_gather", file, &par->overlap_param_gather, err)) ||
      (rc = bool_key(wv, "tp_comm_overlap", file, &par->tp_comm_overlap, err)) ||
      (rc = bool_key(wv, "overlap_p2p_communication", file, &par->overlap_p2p, err)) ||
      (rc = bool_key(wv, "moe_permute_fusion", file, &par->moe_permute_fusion, err)) ||
      (rc = fusion_key(wv, "activation_fusion", file, &par->activation_eager, err)) ||
      (rc = fusion_key(wv, "norm_fusion", file, &par->norm_eager, err)) ||
      (rc = fusion_key(wv, "rope_fusion", file, &par->rope_eager, err)) ||
      (rc = fusion_key(wv, "reshard_after_forward", file, &par->no_reshard, err)) ||
      (rc = bool_key(wv, "fp8_param_gather", file, &par->fp8_param_gather, err)) ||
      (rc = bool_key(wv, "moe_router_fusion", file, &par->moe_router_fusion, err)) ||
      (rc = bool_key(wv, "moe_a2a_overlap", file, &par->moe_a2a_overlap, err)) ||
      (rc = bool_key(wv, "moe_dispatch_fp8", file, &par->moe_dispatch_fp8, err)) ||
      (rc = switch_key(wv, "fp8",
                       "off, delayed, current, mxfp8, blockwise, nvfp4 or a boolean (true = delayed)",
                       weft_fp8_parse, WEFT_FP8_DELAYED, file, &par->fp8, err)) ||
      (rc = switch_key(wv, "recompute", "none, selective, full or a boolean (true = full)",
                       weft_recompute_parse, WEFT_RECOMPUTE_FULL, file, &par->recompute, err)) ||
      (rc = bool_key(wv, "pp_account_embedding", file, &par->pp_account_embedding, err)) ||
      (rc = bool_key(wv, "pp_account_loss", file, &par->pp_account_loss, err)) ||
      (rc = word_key(wv, "attention", "standard, flash, fa2 or flex", weft_attention_parse, file,
                     &par->attention, err)) ||
      (rc = word_key(wv, "schedule", "1f1b or dualpipe", weft_schedule_parse, file,
                     &par->schedule, err)) ||
      (rc = word_key(wv, "cp_comm", "p2p, all_gather, torch_allgather or torch_alltoall",
                     weft_cp_comm_parse, file, &par->cp_comm, err)) ||
      (rc = word_key(wv, "fp8_amax_reduce", "stage, tp or off", weft_fp8_amax_reduce_parse,
                     file, &par->fp8_amax_reduce, err)) ||
      (rc = word_key(wv, "cross_entropy", "fused, megatron, te, torch or torch_nocast",
                     weft_cross_entropy_parse, file, &par->cross_entropy, err)) ||
      (rc = word_key(wv, "moe_dispatcher", "alltoall, deepep or hybridep",
                     weft_moe_dispatcher_parse, file, &par->moe_dispatcher, err)) ||
      (rc = word_key(wv, "moe_routing", "random or blocked", weft_moe_routing_parse, file,
                     &par->moe_routing, err)) ||
      (rc = word_key(wv, "layer_impl", "megatron or torch", weft_layer_impl_parse, file,
                     &par->layer_impl, err)) ||
      (rc = word_key(wv, "fsdp", "flat or fsdp2", weft_fsdp_parse, file, &par->fsdp, err)) ||
      (rc = int_key(wv, "recompute_num_layers", file, 1, big, &par->recompute_num_layers, err)) ||
      (rc = int_key(wv, "cpu_offloading_num_layers", file, 0, big,
                    &par->cpu_offloading_num_layers, err)) ||
      (rc = int_key(wv, "ga_steps", file, 1, big, &par->ga_steps, err)) ||
      (rc = int_key(wv, "lora_rank", file, 1, WEFT_LORA_MAX_RANK, &par->lora_rank, err)) ||
      (rc = int_key(wv, "packed_sample_len", file, 1, big, &par->packed_sample_len, err)) ||
      (rc = names_key(wv, file, "lora_targets", "a layer name", weft_lora_targets_parse,
                      &par->lora_targets, err)) ||
      (rc = names_key(wv, file, "cuda_graph_scope", "a sub-block name",
                      weft_cuda_graph_scope_parse, &par->cuda_graph_scope, err)) ||
      (rc = word_key(wv, "recompute_method", "uniform or block", weft_recompute_method_parse,
                     file, &par->recompute_method, err)) ||
      (rc = names_key(wv, file, "recompute_modules", "a module name",
                           weft_recompute_modules_parse, &par->recompute_modules, err)) ||
      (rc = gemm_map_key(wv, file, "tp_overlap_sms", "SMS", "a whole number of SMs",
                         weft_tp_overlap_sms_parse, par->tp_overlap_sms, err)) ||
      (rc = gemm_map_key(wv, file, "tp_overlap_method", "METHOD", "a method",
                         weft_tp_overlap_method_parse, par->tp_overlap_method, err)) ||
      (rc = names_key(wv, file, "tp_overlap_aggregate", "a GEMM name",
                           weft_tp_overlap_aggregate_parse, &par->tp_overlap_aggregate, err)) ||
      (rc = names_key(wv, file, "tp_overlap_fp8_buf", "a GEMM name",
                      weft_tp_overlap_fp8_buf_parse, &par->tp_overlap_fp8_buf, err)) ||
      (rc = prob_key(wv, "attention_dropout", file, &par->attention_dropout, err)) ||
      (rc = prob_key(wv, "hidden_dropout", file, &par->hidden_dropout, err)) ||
      (rc = stages_key(wv, file, stages, par, err)) ||
      (rc = text_key(wv, "order", file, &ov, err)))
    return rc;
  if (ov && (rc = weft_parallel_order_parse(ov->text, par->order, err))) {
    if (err) {
      snprintf(err->file, sizeof err->file, "%s", file);
      err->line = ov->line;
      err->col = ov->col;
      snprintf(err->field, sizeof err->field, "order");
    }
    return rc;
  }
  const WeftYamlNode *lv = weft_yaml_get(wv, "pp_layout", NULL); /* Megatron's layout */
  if (lv && (lv->kind != WEFT_YAML_SCALAR || lv->len == 0)) {
    char got[96];
    weft_yaml_describe(lv, got, sizeof got);
    return weft_error_set(err, WEFT_EINPUT, file, lv->line, lv->col, "pp_layout",
                          "pp_layout must be a layout string (quoted, e.g. 'Et|(tt|)*30mL'), "
                          "got %s", got);
  }
  if (lv) par->pp_layout = lv->text; /* the tree outlives the job's generation */
  int gb = 0;
  if ((rc = int_key(wv, "grad_bytes", file, 2, 4, &gb, err))) return rc;
  if (gb == 3) {
    const WeftYamlNode *v = weft_yaml_get(wv, "grad_bytes", NULL);
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, "grad_bytes",
                          "grad_bytes must be 2 (bf16/fp16) or 4 (fp32), got 3");
  }
  if (gb) par->grad_bytes = gb;
  const WeftYamlNode *mw, *os;  /* master weights and Adam moments: fp32 | bf16 (| none) */
  if ((rc = text_key(wv, "master_weights", file, &mw, err)) ||
      (rc = text_key(wv, "optimizer_states", file, &os, err)))
    return rc;
  if ((mw || os) && (rc = weft_optimizer_precision(mw ? mw->text : NULL, os ? os->text : NULL,
                                                   &par->optimizer_bytes, err))) {
    const WeftYamlNode *at = err && !strcmp(err->field, "master_weights") ? mw : os;
    if (err) {
      snprintf(err->file, sizeof err->file, "%s", file);
      err->line = at->line;
      err->col = at->col;
    }
    return rc;
  }
  const WeftYamlNode *bv = weft_yaml_get(wv, "ddp_bucket_size", NULL);
  if (bv) {
    if ((rc = weft_yaml_double(bv, file, "ddp_bucket_size", NULL, &par->ddp_bucket_params, err)))
      return rc;
    if (!(par->ddp_bucket_params >= 1.0 && par->ddp_bucket_params <= WEFT_MAX_BUCKET_PARAMS))
      return weft_error_set(err, WEFT_EINPUT, file, bv->line, bv->col, "ddp_bucket_size",
                            "ddp_bucket_size must be in [1, 1e15] parameters, got %s", bv->text);
  }
  if ((ev = weft_yaml_get(wv, "efficiency", NULL))) {
    if ((rc = weft_yaml_double(ev, file, "efficiency", NULL, &par->efficiency, err))) return rc;
    if (!(par->efficiency >= WEFT_MIN_EFFICIENCY && par->efficiency <= 1.0))
      return weft_error_set(err, WEFT_EINPUT, file, ev->line, ev->col, "efficiency",
                            "efficiency must be in [" WEFT_LIMIT_TEXT(WEFT_MIN_EFFICIENCY)
                            ", 1], got %s", ev->text);
  }
  return WEFT_OK;
}

/* Move err to node `at` of file, keeping the message; a file it named
 * before (the model's, say) goes in front of the message. */
static void place(WeftError *err, const char *file, const WeftYamlNode *at, int keep_file) {
  if (!err) return;
  if (keep_file && err->file[0] && strcmp(err->file, file) != 0) {
    char msg[sizeof err->file + sizeof err->msg + 2];
    snprintf(msg, sizeof msg, "%s: %s", err->file, err->msg);
    memcpy(err->msg, msg, sizeof err->msg - 1);  /* truncated to fit */
    err->msg[sizeof err->msg - 1] = '\0';
  }
  snprintf(err->file, sizeof err->file, "%s", file);
  err->line = at->line;
  err->col = at->col;
}

int weft_scenario_model_job(const WeftYamlNode *wv, const char *file, const char *zoo_dir,
                            WeftScenario *sc, WeftError *err) {
  const WeftYamlNode *mv, *dv;
  WeftParallel par;
  int rc, step, stages[MAX_STAGE_LIST];
  if ((rc = weft_yaml_check_keys(wv, MODEL_KEYS, file, err)) ||
      (rc = text_key(wv, "model", file, &mv, err)) ||
      (rc = text_key(wv, "device", file, &dv, err)))
    return rc;
  if (!mv)
    return weft_error_set(err, WEFT_EINPUT, file, wv->line, wv->col, "model",
                          "missing key 'model' (a model workload names a model of the zoo)");
  if ((rc = read_parallel(wv, file, &par, stages, err))) return rc;
  char model[WEFT_PATH_LEN];
  size_t n = mv->len;
  if (strchr(mv->text, '/') || (n > 4 && strcmp(mv->text + n - 4, ".yml") == 0)) {
    if ((rc = weft_scenario_resolve(file, mv, "model", model, err))) return rc;
  } else {
    snprintf(model, sizeof model, "%s", mv->text);  /* a zoo name */
  }
  rc = add_job(sc, zoo_dir, model, dv ? dv->text : NULL, &par, &step, err);
  if (!rc || !err) return rc;
  if (step == STEP_MODEL || step == STEP_DEVICE) {
    /* not found (no line): at the name in the scenario; else inside the zoo's file */
    if (err->line == 0) place(err, file, step == STEP_MODEL ? mv : dv ? dv : wv, 1);
  } else {
    /* the generator's complaint, at the key it names, else at the mapping */
    const WeftYamlNode *at = err->field[0] ? weft_yaml_get(wv, spellings(err->field), NULL) : NULL;
    place(err, file, at ? at : wv, 0);
  }
  return rc;
}
