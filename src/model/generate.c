/* generate.c — weft_generate: checks the parallelization, maps its groups onto
 * the network, and turns sub-block templates into ASTRA-sim layers (docs/zoo.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/limits.h"
#include "model/gen.h"
#include "model/par_check.h"

#define AUTO_EFFICIENCY 0.5 /* per FLOP, when the device has no per-operator data */

void weft_gen_compute(const Gen *g, int blk, double mult, double flat_ns, double *ns) {
  for (int ph = 0; ph < WEFT_NPHASES; ph++) ns[ph] = g->opcost ? mult * g->oc_ns[blk][ph] : flat_ns;
}

static const char *const KIND_NAME[GEN_NKINDS] = {"tp", "pp",    "dp",  "ep",
                                                   "edp", "world", "emb", "cp"};

_Static_assert(GEN_NKINDS <= WEFT_MAX_GROUPS, "every group kind can become a named group");

/* The knobs named by one word: a table each, one lookup and one message. */
static const char *const RECOMPUTE_NAME[] = {"none", "full", "selective"};
static const char *const ATTENTION_NAME[] = {"standard", "flash"};
static const char *const SCHEDULE_NAME[] = {"1f1b", "dualpipe"};

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
const char *weft_attention_name(int kind) { return name_of(ATTENTION_NAME, 2, kind); }
int weft_attention_parse(const char *text, int *kind, WeftError *err) {
  return name_parse(ATTENTION_NAME, 2, "attention", "standard or flash", text, kind, err);
}
const char *weft_schedule_name(int kind) { return name_of(SCHEDULE_NAME, 2, kind); }
int weft_schedule_parse(const char *text, int *kind, WeftError *err) {
  return name_parse(SCHEDULE_NAME, 2, "schedule", "1f1b or dualpipe", text, kind, err);
}

int weft_stage_layers_balanced(int layers, int pp, int *out, WeftError *err) {
  if (pp < 1 || pp > layers)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "pp",
                          "pp = %d stages for %d layers: every stage needs a layer", pp, layers);
  int q = layers / pp, light = layers % pp ? pp - layers % pp : 0;
  for (int k = 0; k < pp; k++) {
    /* position of k in the order 0, pp-1, 1, pp-2, ...: ends first */
    int pos = k <= pp - 1 - k ? 2 * k : 2 * (pp - 1 - k) + 1;
    out[k] = light ? q + (pos >= light) : q;
  }
  return WEFT_OK;
}

int weft_gen_fail(Gen *g, int code, const char *field, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return weft_error_set(g->err, code, "", 0, 0, field, "%s", msg);
}

int weft_gen_map(Gen *g) {
  /* the pure groups laid on the dims: TP, CP, PP, EP, EDP (= DP when ep = 1) */
  enum { M_TP, M_CP, M_PP, M_EP, M_EDP, M_N };
  static const char *const mname[M_N] = {"tp", "cp", "pp", "ep", "dp"};
  const WeftParallel *p = g->par;
  int msize[M_N] = {p->tp, p->cp, p->pp, p->ep, p->dp / p->ep};
  int sizes[M_N], kind[M_N], n = 0, mspan[M_N][WEFT_MAX_DIMS];
  const char *names[M_N];
  for (int i = 0; i < 3; i++) {
    int k[2] = {-1, -1};
    switch (p->order[i]) {
      case WEFT_PAR_TP: k[0] = M_TP; k[1] = M_CP; break; /* CP right outside TP */
      case WEFT_PAR_PP: k[0] = M_PP; break;
      case WEFT_PAR_DP: k[0] = M_EP; k[1] = M_EDP; break; /* EP innermost in DP */
    }
    for (int j = 0; j < 2; j++)
      if (k[j] >= 0 && msize[k[j]] > 1) { /* one-NPU groups span nothing */
        sizes[n] = msize[k[j]];
        names[n] = k[j] == M_EDP && p->ep > 1 ? "edp" : mname[k[j]];
        kind[n++] = k[j];
      }
  }
  int D = g->net->ndims, out[M_N][WEFT_MAX_DIMS];
  for (int k = 0; k < M_N; k++)
    for (int d = 0; d < D; d++) mspan[k][d] = -1;
  for (int k = 0; k < GEN_NKINDS; k++)
    for (int d = 0; d < D; d++) g->span[k][d] = -1;
  int rc = n ? weft_map_groups(g->net, sizes, names, n, out, g->err) : WEFT_OK; /* 1 NPU */
  if (rc) return rc;
  for (int i = 0; i < n; i++)
    for (int d = 0; d < D; d++) mspan[kind[i]][d] = out[i][d];
  for (int d = 0; d < D; d++) { /* gradient groups: CP x EP x EDP, CP x EDP, dim by dim */
    int c = mspan[M_CP][d] < 1 ? 1 : mspan[M_CP][d], e = mspan[M_EP][d] < 1 ? 1 : mspan[M_EP][d];
    int r = mspan[M_EDP][d] < 1 ? 1 : mspan[M_EDP][d];
    g->span[GEN_TP][d] = mspan[M_TP][d];
    g->span[GEN_CP][d] = mspan[M_CP][d];
    g->span[GEN_PP][d] = mspan[M_PP][d];
    g->span[GEN_EP][d] = mspan[M_EP][d];
    g->span[GEN_DP][d] = c * e * r > 1 ? c * e * r : -1;
    g->span[GEN_EDP][d] = c * r > 1 ? c * r : -1;
  }
  for (int d = 0; d < D; d++) g->span[GEN_WORLD][d] = g->net->npus[d];
  /* The first and last stage: 2 NPUs on the outermost dim the stages span
   * (the pipeline's two ends are farthest apart there). */
  for (int d = D - 1; d >= 0 && g->size[GEN_EMB] > 1; d--)
    if (g->span[GEN_PP][d] > 1) {
      g->span[GEN_EMB][d] = 2;
      break;
    }
  for (int d = 0; d < D; d++) {
    g->comm->group[WEFT_PHASE_FWD][d] = g->span[GEN_TP][d];
    g->comm->group[WEFT_PHASE_IG][d] = g->span[GEN_TP][d];
    g->comm->group[WEFT_PHASE_WG][d] = g->span[GEN_DP][d];
  }
  return WEFT_OK;
}

void weft_gen_block_clear(GenBlock *b) { memset(b, 0, sizeof *b); }

/* The phase group for kind k: the communicator's own when it is the phase's
 * LIBRA group, else a named group, created on first use. */
static int group_of(Gen *g, WeftPhase ph, GenKind k) {
  if (k == GEN_EDP && g->size[GEN_EP] <= 1) k = GEN_DP; /* EDP = DP */
  if (k == GEN_WORLD && g->size[GEN_DP] == g->npus) k = GEN_DP;
  if ((k == GEN_TP && ph != WEFT_PHASE_WG) || (k == GEN_DP && ph == WEFT_PHASE_WG)) return 0;
  if (!g->named[k]) {
    WeftWorkload *wl = g->wl;
    WeftCommunicator *c = g->comm;
    int j = wl->ngroups; /* at most GEN_NKINDS <= WEFT_MAX_GROUPS */
    snprintf(wl->group_name[j], sizeof wl->group_name[j], "%s", KIND_NAME[k]);
    snprintf(c->extra_name[j], sizeof c->extra_name[j], "%s", KIND_NAME[k]);
    memcpy(c->extra[j], g->span[k], sizeof c->extra[j]);
    c->extra_line[j] = 0;
    wl->ngroups = c->nextra = j + 1;
    g->named[k] = j + 1;
  }
  return g->named[k];
}

/* x merged into b's phase ph collective of the same type and group, or
 * appended; the collective it went to, or NULL when b has no room (overflow). */
static GenColl *merge_coll(Gen *g, GenBlock *b, WeftPhase ph, GenColl x) {
  for (int i = 0; i < b->ncoll[ph]; i++)
    if (b->coll[ph][i].coll == x.coll && b->coll[ph][i].group == x.group) {
      b->coll[ph][i].size_bytes += x.size_bytes;
      b->coll[ph][i].calls += x.calls;
      return &b->coll[ph][i];
    }
  if (b->ncoll[ph] == GEN_MAX_COLLS) {
    g->overflow = 1;
    return NULL;
  }
  b->coll[ph][b->ncoll[ph]] = x;
  return &b->coll[ph][b->ncoll[ph]++];
}

/* weft_gen_add's work; the collective it added to or merged into, or NULL. */
static GenColl *add_coll(Gen *g, GenBlock *b, WeftPhase ph, WeftCollective c, GenKind k,
                         double size_bytes, double calls) {
  GenKind eff = (k == GEN_EDP && g->size[GEN_EP] <= 1) ? GEN_DP : k;
  double s = round(size_bytes);
  if (g->size[eff] <= 1 || s <= 0.0) return NULL;
  return merge_coll(g, b, ph, (GenColl){c, s, calls, group_of(g, ph, eff), 0});
}

void weft_gen_add(Gen *g, GenBlock *b, WeftPhase ph, WeftCollective c, GenKind k,
                  double size_bytes, double calls) {
  add_coll(g, b, ph, c, k, size_bytes, calls);
}

void weft_gen_add_once(Gen *g, GenBlock *b, WeftCollective c, GenKind k, double size_bytes) {
  GenColl *x = add_coll(g, b, WEFT_PHASE_WG, c, k, size_bytes, 1);
  if (x) x->once = 1;
}

/* ZeRO 0: all-reduce the gradients once per iteration; 1 and 2: reduce-scatter
 * them and all-gather the updated parameters (the per-NPU input of the
 * gather is the shard's 1/n); 3: reduce-scatter per micro-batch. */
void weft_gen_grad_sync(Gen *g, GenBlock *b, GenKind k, double elems, double per_mb) {
  const WeftParallel *p = g->par;
  GenKind eff = (k == GEN_EDP && g->size[GEN_EP] <= 1) ? GEN_DP : k;
  double n = g->size[eff];
  if (p->zero_stage == 0) {
    weft_gen_add_once(g, b, WEFT_COLL_ALLREDUCE, k, elems * p->grad_bytes);
  } else if (p->zero_stage < 3) {
    weft_gen_add_once(g, b, WEFT_COLL_REDUCESCATTER, k, elems * p->grad_bytes);
    weft_gen_add_once(g, b, WEFT_COLL_ALLGATHER, k, elems / n * p->param_bytes);
  } else {
    weft_gen_add(g, b, WEFT_PHASE_WG, WEFT_COLL_REDUCESCATTER, k, per_mb * elems * p->grad_bytes,
                 per_mb);
  }
}

/* Gradient accumulation (docs/zoo.md, "Gradient accumulation"): of R
 * micro-batches, only the last one's backward runs once a gradient is whole,
 * so only it can hide the per-iteration weight-gradient collectives. The
 * block keeps that last share (1/R) of its input- and weight-grad compute,
 * of its input-grad collectives and of its per-micro-batch weight-grad ones
 * (ZeRO-3); the first R - 1 micro-batches' share, times copies, joins acc,
 * emitted after the last layer, so the backward pass meets it first.
 * Compute and bytes stay whole numbers and sum to what they were. */
void weft_gen_split_last(Gen *g, GenBlock *b, double R, double copies, GenBlock *acc) {
  if (!(R > 1.0)) return;
  for (int ph = WEFT_PHASE_IG; ph <= WEFT_PHASE_WG; ph++) {
    double x = round(b->compute_ns[ph]), last = round(x / R);
    b->compute_ns[ph] = last;
    acc->compute_ns[ph] += copies * (x - last);
    for (int i = 0; i < b->ncoll[ph]; i++) {
      GenColl *c = &b->coll[ph][i];
      if (c->once) continue; /* one sync per iteration: after the last micro-batch */
      double s = round(c->size_bytes / R), calls = c->calls / R;
      GenColl rest = {c->coll, copies * (c->size_bytes - s), copies * (c->calls - calls),
                      c->group, 0};
      c->size_bytes = s;
      c->calls = calls;
      if (rest.size_bytes > 0) merge_coll(g, acc, (WeftPhase)ph, rest); /* else no copies */
    }
  }
}

int weft_gen_block_entries(const GenBlock *b) {
  int n = 1;
  for (int p = 0; p < WEFT_NPHASES; p++)
    if (b->ncoll[p] > n) n = b->ncoll[p];
  return n;
}

int weft_gen_reserve(Gen *g, int n) {
  WeftWorkload *wl = g->wl;
  if (wl->nlayers + n <= wl->capacity) return WEFT_OK;
  int cap = wl->nlayers + n;
  WeftLayer *l = realloc(wl->layers, (size_t)cap * sizeof *l);
  if (!l) return weft_gen_fail(g, WEFT_ENOMEM, "", "out of memory for %d workload layers", cap);
  wl->layers = l;
  wl->capacity = cap;
  return WEFT_OK;
}

/* Entry 0 carries the compute and each phase's first collective; entry j the
 * j-th collectives, named "<name>.<j+1>". Per-layer values are whole numbers
 * (rounded before), so count copies sum exactly like count entries. */
void weft_gen_emit(Gen *g, const char *name, const GenBlock *b, double count) {
  int n = weft_gen_block_entries(b);
  for (int j = 0; j < n; j++) {
    WeftLayer *l = &g->wl->layers[g->wl->nlayers++];
    memset(l, 0, sizeof *l);
    if (j == 0)
      snprintf(l->name, sizeof l->name, "%s", name);
    else
      snprintf(l->name, sizeof l->name, "%s.%d", name, j + 1);
    for (int p = 0; p < WEFT_NPHASES; p++) {
      WeftPhaseSpec *s = &l->phase[p];
      if (j == 0) s->compute_ns = count * round(b->compute_ns[p]);
      if (j < b->ncoll[p]) {
        s->coll = b->coll[p][j].coll;
        s->size_bytes = count * b->coll[p][j].size_bytes;
        s->calls = count * b->coll[p][j].calls;
        s->group = b->coll[p][j].group;
      }
    }
  }
}

void weft_gen_memory_states(Gen *g, double dense_elems, double zdp, double expert_elems,
                            double zedp, WeftMemory *mem) {
  const WeftParallel *p = g->par;
  int z = p->zero_stage;
  mem->params_bytes =
      (dense_elems / (z >= 3 ? zdp : 1) + expert_elems / (z >= 3 ? zedp : 1)) * p->param_bytes;
  mem->grads_bytes =
      (dense_elems / (z >= 2 ? zdp : 1) + expert_elems / (z >= 2 ? zedp : 1)) * p->grad_bytes;
  mem->optimizer_bytes =
      (dense_elems / (z >= 1 ? zdp : 1) + expert_elems / (z >= 1 ? zedp : 1)) * p->optimizer_bytes;
}

int weft_par_device_check(const WeftParallel *p, const WeftDevice *dev, WeftError *err) {
  if (!(p->efficiency == 0.0 || (p->efficiency >= WEFT_MIN_EFFICIENCY && p->efficiency <= 1.0)))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "efficiency",
                          "efficiency must be in [" WEFT_LIMIT_TEXT(WEFT_MIN_EFFICIENCY)
                          ", 1] (0: the per-operator model), got %g",
                          p->efficiency);
  if (p->fp8 && !(dev->peak_fp8_flops > 0.0)) /* else FP8 would change memory, not time */
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "fp8",
                          "fp8: device '%s' has no FP8 rate (fp8_tflops): its GEMMs cannot run "
                          "in FP8",
                          dev->name);
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
  if (p->recompute < WEFT_RECOMPUTE_NONE || p->recompute > WEFT_RECOMPUTE_SELECTIVE)
    return weft_gen_fail(g, WEFT_EINPUT, "recompute", "recompute must be 0..2, got %d",
                         p->recompute);
  if (p->recompute == WEFT_RECOMPUTE_SELECTIVE && g->m->arch != WEFT_ARCH_TRANSFORMER)
    return weft_gen_fail(g, WEFT_EINPUT, "recompute",
                         "selective recomputation (the attention core) needs a transformer");
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
  if (p->attention < WEFT_ATTENTION_STANDARD || p->attention > WEFT_ATTENTION_FLASH)
    return weft_gen_fail(g, WEFT_EINPUT, "attention", "attention must be 0..1, got %d",
                         p->attention);
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
  if (g->opcost) { /* once per generation: every layer of a block costs the same */
    OcLayer l;
    weft_opcost_layer(g->m, p, &l);
    memset(g->oc_ns, 0, sizeof g->oc_ns);
    for (int b = 0; b < OC_NBLOCKS; b++) /* only the blocks the workload has */
      if (b != OC_MOE || g->m->experts > 0) /* the embedding too: stage 0 may be critical */
        weft_opcost_block(g->dev, &l, (OcBlock)b, g->oc_ns[b]);
  }
  g->size[GEN_TP] = p->tp;
  g->size[GEN_PP] = p->pp;
  g->size[GEN_DP] = p->dp * p->cp; /* CP ranks hold the same weights: gradients over both */
  g->size[GEN_EP] = p->ep;
  g->size[GEN_EDP] = p->dp / p->ep * p->cp; /* ep | dp: checked by the architecture */
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
  wl->nlayers = 0;
  wl->ngroups = 0;
  wl->policy[0] = '\0';
  wl->file[0] = '\0';
  memset(comm, 0, sizeof *comm);
  comm->ndims = net->ndims;
  int rc = check_common(&g);
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
