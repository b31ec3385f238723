/* gen_fixture.h — the generator suites' shared fixtures (test_gen.c,
 * test_attention.c, test_recompute.c, test_fold.c, test_a2a.c): the tiny
 * GeLU and MoE models, a device whose
 * flat model charges 1 ns per FLOP, a network built in code, and lookups of
 * a workload's entries and groups by name. */
#ifndef WEFT_TEST_GEN_FIXTURE_H
#define WEFT_TEST_GEN_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "../test.h"
#include "weft.h"

/* GeLU model: h 4, 2 heads (head dim 2), ffn 16, V 8; dropout 0.1 on the
 * attention probabilities and the sub-blocks' outputs, as Megatron's GPT
 * runs (Korthikanti et al.'s activation count, with its dropout masks). */
static inline WeftModel fx_tiny(int seq_len, int layers, int global_batch) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "tiny");
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = global_batch;
  m.seq_len = seq_len;
  m.layers = layers;
  m.hidden = 4;
  m.heads = 2;
  m.kv_heads = 2;
  m.ffn_hidden = 16;
  m.ffn_matrices = 2;
  m.vocab = 8;
  m.attention_dropout = m.hidden_dropout = 0.1;
  return m;
}

/* The tiny MoE model (test_gen.c, test_fold.c, test_a2a.c): h 8, heads
 * heads (head width 8 / heads), seq 4, 4 layers, V 16, ffn 16 (GeLU),
 * experts experts top-2, MoE every 2nd layer (layers 2 and 4), batch 8; an
 * expert 2 x 8 x 16 + 16 + 8 = 280 parameters. */
static inline WeftModel fx_tiny_moe(int heads, int experts) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "tiny-moe");
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = 8;
  m.seq_len = 4;
  m.layers = 4;
  m.hidden = 8;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn_hidden = 16;
  m.ffn_matrices = 2;
  m.vocab = 16;
  m.experts = experts;
  m.top_k = 2;
  m.moe_every = 2;
  return m;
}

/* 1 FLOP = 1 ns at the flat efficiency 0.5, HBM 1 byte/ns. */
static inline WeftDevice fx_unit_device(double hbm_bytes) {
  WeftDevice d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "unit");
  d.peak_flops = 2e9;
  d.hbm_bytes = hbm_bytes;
  d.hbm_bytes_per_s = 1e9;
  return d;
}

/* A small Llama-shaped transformer for the per-operator model: 2 layers,
 * h 1024, 16 heads (no GQA), SwiGLU of 4096, vocab 32000, seq 1024. */
static inline WeftModel fx_llm(int global_batch) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "t");
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = global_batch, m.seq_len = 1024, m.layers = 2, m.hidden = 1024;
  m.heads = m.kv_heads = 16, m.ffn_hidden = 4096, m.ffn_matrices = 3, m.vocab = 32000;
  return m;
}

/* An A100-like device with the shape model's figures, so the per-operator
 * model prices it: 312 TFLOP/s, 19.5 vector, HBM at hbm_bps (hbm_eff of
 * it), 108 SMs, 256 x 128 tiles, 80 GB. */
static inline WeftDevice fx_oc_device(double hbm_bps, double hbm_eff) {
  WeftDevice d;
  memset(&d, 0, sizeof d);
  d.peak_flops = 312e12, d.peak_vector_flops = 19.5e12, d.hbm_bytes_per_s = hbm_bps;
  d.sms = 108, d.tile_m = 256, d.tile_n = 128, d.hbm_bytes = 80e9;
  d.gemm_efficiency = 0.8, d.hbm_efficiency = hbm_eff, d.attention_efficiency = 0.6;
  return d;
}

/* ndims dims of npus[d] NPUs, every one of topology topo, cost class "c". */
static inline WeftNetwork fx_net(int ndims, const int *npus, WeftTopology topo) {
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = ndims;
  for (int d = 0; d < ndims; d++) {
    net.npus[d] = npus[d];
    net.topology[d] = topo;
    snprintf(net.cost_dim[d], sizeof net.cost_dim[d], "c");
  }
  return net;
}

/* One cost class "c" costing 1 $ per GB/s of link, switch and NIC. */
static inline void fx_unit_cost(WeftCostModel *cm) {
  memset(cm, 0, sizeof *cm);
  cm->nclasses = 1;
  snprintf(cm->cls[0].name, sizeof cm->cls[0].name, "c");
  cm->cls[0].link_usd_per_gbps = cm->cls[0].switch_usd_per_gbps = cm->cls[0].nic_usd_per_gbps = 1;
  cm->cls[0].has_link = cm->cls[0].has_switch = cm->cls[0].has_nic = 1;
}

/* One job's iteration time under loop at bw[ndims] (weft_problem_evaluate),
 * on the unit cost model; -1 (and the reason on stderr) when it fails. */
static inline double fx_eval_time(const WeftNetwork *net, const WeftWorkload *wl,
                                  const WeftCommunicator *comm, WeftLoop loop, const double *bw) {
  WeftCostModel cm;
  fx_unit_cost(&cm);
  WeftSpec spec;
  memset(&spec, 0, sizeof spec);
  spec.net = net;
  spec.cost = &cm;
  spec.njobs = 1;
  spec.jobs[0].workload = wl;
  spec.jobs[0].comm = comm;
  spec.jobs[0].weight = 1;
  spec.objective = WEFT_OBJ_PERF;
  spec.loop = loop;
  WeftProblem *p = NULL;
  WeftError err;
  WeftEval ev;
  if (weft_problem_create(&spec, &p, &err) || weft_problem_evaluate(p, bw, &ev)) {
    fprintf(stderr, "  eval: %s\n", err.msg);
    weft_problem_free(p);
    return -1;
  }
  weft_problem_free(p);
  return ev.time_ns;
}

/* A generator run's inputs and outputs around a model: the unit device
 * (flat, 1 ns a FLOP, HBM hbm_bytes), one ring of npus NPUs, the default
 * parallelization with dp npus. fx_run generates into it; fx_run_free. */
typedef struct {
  WeftDevice dev;
  WeftNetwork net;
  WeftParallel par;
  WeftWorkload *wl;
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
} FxRun;

static inline void fx_run_init(FxRun *r, int npus, double hbm_bytes) {
  memset(r, 0, sizeof *r);
  r->dev = fx_unit_device(hbm_bytes);
  r->net = fx_net(1, &npus, WEFT_RING);
  weft_parallel_default(&r->par);
  r->par.dp = npus;
  r->wl = weft_workload_create();
}

static inline int fx_run(FxRun *r, const WeftModel *m) {
  return weft_generate(m, &r->dev, &r->par, &r->net, 0, r->wl, &r->comm, &r->info, &r->err);
}

static inline void fx_run_free(FxRun *r) { weft_workload_free(r->wl); }

/* The entry named name, or NULL. */
static inline const WeftLayer *fx_find_layer(const WeftWorkload *wl, const char *name) {
  for (int i = 0; i < wl->nlayers; i++)
    if (!strcmp(wl->layers[i].name, name)) return &wl->layers[i];
  return NULL;
}

/* The entry named name; a test failure (and an empty entry) without it. */
static inline const WeftLayer *fx_layer(const WeftWorkload *wl, const char *name) {
  const WeftLayer *l = fx_find_layer(wl, name);
  if (l) return l;
  fprintf(stderr, "  no layer '%s'\n", name);
  test_failures_++;
  static const WeftLayer none;
  return &none;
}

/* The bytes of phase ph's collective coll summed over the entries of one
 * block (prefix "L2.moe": that entry and its "L2.moe.*" parts; NULL: every
 * entry), on group index grp (< 0: any group). */
static inline double fx_coll_bytes(const WeftWorkload *wl, const char *prefix, int ph,
                                   WeftCollective coll, int grp) {
  double s = 0;
  size_t n = prefix ? strlen(prefix) : 0;
  for (int i = 0; i < wl->nlayers; i++) {
    const WeftLayer *l = &wl->layers[i];
    if (prefix && (strncmp(l->name, prefix, n) || (l->name[n] && l->name[n] != '.'))) continue;
    if (l->phase[ph].coll == coll && (grp < 0 || l->phase[ph].group == grp))
      s += l->phase[ph].size_bytes;
  }
  return s;
}

/* The WeftPhaseSpec.group index of the named group, -1 without it. */
static inline int fx_group(const WeftWorkload *wl, const char *name) {
  for (int k = 0; k < wl->ngroups; k++)
    if (!strcmp(wl->group_name[k], name)) return k + 1;
  return -1;
}

#endif
