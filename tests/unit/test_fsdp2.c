/* test_fsdp2.c — ZeRO-3 as PyTorch's FSDP2 runs it (WeftParallel.fsdp
 * fsdp2; gen_build.c weft_gen_fsdp2_copies): the all-gather copy-out and
 * the reduce-scatter copy-in kernels by hand on a small transformer, their
 * phases, the flat default unchanged, and the refusals. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/opcost.h"
#include "../test.h"

/* 2 layers, h 1024, 16 heads (no GQA), SwiGLU of 4096, RMSNorm, no bias:
 * a layer's attention holds 4 h^2 + h = 4,195,328 parameters (QKV, the
 * projection, its norm), its MLP 3 h 4096 + h = 12,583,936. */
static void model(WeftModel *m) {
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "t");
  m->arch = WEFT_ARCH_TRANSFORMER;
  m->global_batch = 8, m->seq_len = 1024, m->layers = 2, m->hidden = 1024;
  m->heads = m->kv_heads = 16, m->ffn_hidden = 4096, m->ffn_matrices = 3, m->vocab = 32000;
}

static void device(WeftDevice *d) {
  memset(d, 0, sizeof *d);
  d->peak_flops = 312e12, d->peak_vector_flops = 19.5e12, d->hbm_bytes_per_s = 2000e9;
  d->sms = 108, d->tile_m = 256, d->tile_n = 128, d->hbm_bytes = 80e9;
  d->gemm_efficiency = 0.8, d->hbm_efficiency = 0.8, d->attention_efficiency = 0.6;
}

static void network(WeftNetwork *net) {
  memset(net, 0, sizeof *net);
  net->ndims = 1;
  net->npus[0] = 4;
  net->topology[0] = WEFT_SWITCH;
  snprintf(net->cost_dim[0], sizeof net->cost_dim[0], "c");
}

/* compute_ns of layer L1's block named blk ("attn", "mlp") per phase. */
static int block_ns(const WeftWorkload *wl, const char *blk, double ns[WEFT_NPHASES]) {
  char want[32];
  snprintf(want, sizeof want, "L1.%s", blk);
  for (int i = 0; i < wl->nlayers; i++)
    if (!strncmp(wl->layers[i].name, want, strlen(want))) {
      for (int ph = 0; ph < WEFT_NPHASES; ph++) ns[ph] = wl->layers[i].phase[ph].compute_ns;
      return 1;
    }
  return 0;
}

/* The run above with layers, global_batch and npus NPUs (0: the fixture's);
 * its info into *out unless NULL. */
static int gen_with(WeftParallel *p, int layers, int batch, int npus, WeftWorkload *wl,
                    WeftGenInfo *out, WeftError *e) {
  WeftModel m;
  WeftDevice d;
  WeftNetwork net;
  model(&m);
  device(&d);
  network(&net);
  if (layers) m.layers = layers;
  if (batch) m.global_batch = batch;
  if (npus) net.npus[0] = npus;
  WeftCommunicator comm;
  WeftGenInfo info;
  return weft_generate(&m, &d, p, &net, 0, wl, &comm, out ? out : &info, e);
}

static int gen(WeftParallel *p, WeftWorkload *wl, WeftError *e) {
  return gen_with(p, 0, 0, 0, wl, NULL, e);
}

/* p is refused (WEFT_EINPUT) naming field; the error into *e. */
static void refused(WeftParallel *p, const char *field, WeftError *e) {
  WeftWorkload *wl = weft_workload_create();
  memset(e, 0, sizeof *e);
  CHECK(wl != NULL);
  if (!wl) return;
  CHECK_EQ_INT(gen(p, wl, e), WEFT_EINPUT);
  CHECK(!strcmp(e->field, field));
  weft_workload_free(wl);
}

/* A copy kernel of B bytes (read and written) on this device: B / (2000e9 x
 * 0.8) s, plus the launch gap, at least the CPU's launch (eager). */
static double copy_ns(double bytes) {
  double t = bytes / 1600e9 * 1e9 + OC_LAUNCH_GAP_NS;
  return t > OC_LAUNCH_CPU_NS ? t : OC_LAUNCH_CPU_NS;
}

/* DP 4, ZeRO-3, micro-batch 1 of a per-replica batch of 2: R = 2 micro-
 * batches a block. bf16 parameters (2 bytes), fp32 gradient reduction (4).
 * The attention block, per micro-batch: forward and backward each copy out
 * its gathered 8,390,656 bytes (split_with_sizes_copy reads and writes
 * them: 16,781,312); the weight-gradient phase copies its 4,195,328 bf16
 * gradients into the fp32 buffer (2 + 4 bytes each: 25,171,968). The MLP
 * block likewise with 12,583,936 parameters. flat: none of them. The
 * workload's layers hold both micro-batches' forward and one's backward;
 * its "accumulation" entry the other's backward, for every block. */
static void copies(void) {
  double ns[2][2][WEFT_NPHASES], acc[2][WEFT_NPHASES], sum[WEFT_NPHASES] = {0, 0, 0};
  for (int f = 0; f < 2; f++) {
    WeftParallel p;
    weft_parallel_default(&p);
    p.dp = 4, p.zero_stage = 3, p.attention = WEFT_ATTENTION_FLASH, p.grad_bytes = 4;
    p.fsdp = f ? WEFT_FSDP_FSDP2 : WEFT_FSDP_FLAT;
    WeftWorkload *wl = weft_workload_create();
    WeftError e;
    CHECK(wl != NULL);
    if (!wl) return;
    int rc = gen(&p, wl, &e);
    if (rc) fprintf(stderr, "  %s: %s\n", e.field, e.msg);
    CHECK_EQ_INT(rc, WEFT_OK);
    CHECK(block_ns(wl, "attn", ns[f][0]));
    CHECK(block_ns(wl, "mlp", ns[f][1]));
    for (int ph = 0; ph < WEFT_NPHASES; ph++) acc[f][ph] = 0;
    for (int i = 0; i < wl->nlayers; i++)
      for (int ph = 0; ph < WEFT_NPHASES; ph++) {
        double c = wl->layers[i].phase[ph].compute_ns;
        if (!strncmp(wl->layers[i].name, "accumulation", 12)) acc[f][ph] += c;
        else if (strcmp(wl->layers[i].name, "optimizer")) sum[ph] += f ? c : -c;
      }
    weft_workload_free(wl);
  }
  const double el[2] = {4195328, 12583936};
  for (int b = 0; b < 2; b++) {
    double out = copy_ns(2 * 2 * el[b]), in = copy_ns(6 * el[b]);
    /* whole ns in the workload */
    CHECK(fabs(ns[1][b][WEFT_PHASE_FWD] - ns[0][b][WEFT_PHASE_FWD] - 2 * out) <= 1.0);
    CHECK(fabs(ns[1][b][WEFT_PHASE_IG] - ns[0][b][WEFT_PHASE_IG] - out) <= 1.0);
    CHECK(fabs(ns[1][b][WEFT_PHASE_WG] - ns[0][b][WEFT_PHASE_WG] - in) <= 1.0);
    CHECK(out > OC_LAUNCH_CPU_NS); /* the bytes, not the launch floor */
  }
  /* the other micro-batch's backward: every block's copies once more */
  for (int ph = WEFT_PHASE_IG; ph <= WEFT_PHASE_WG; ph++)
    CHECK(fabs(acc[1][ph] - acc[0][ph] - sum[ph]) <= 8.0);
  CHECK(sum[WEFT_PHASE_IG] > 0 && sum[WEFT_PHASE_WG] > 0);
}

/* Refused naming fsdp: fsdp2 without ZeRO-3, on a model that is not a
 * transformer; an out-of-range value; the names parse both ways. */
static void refusals(void) {
  for (int zero = 0; zero < 3; zero++) {
    WeftParallel p;
    weft_parallel_default(&p);
    p.dp = 4, p.zero_stage = zero, p.fsdp = WEFT_FSDP_FSDP2;
    WeftError e;
    refused(&p, "fsdp", &e);
    CHECK(strstr(e.msg, "zero 3") != NULL);
  }
  WeftParallel p;
  weft_parallel_default(&p);
  p.dp = 4, p.zero_stage = 3, p.fsdp = 2;
  WeftError e;
  refused(&p, "fsdp", &e);
  int kind = -1;
  CHECK_EQ_INT(weft_fsdp_parse("fsdp2", &kind, &e), WEFT_OK);
  CHECK_EQ_INT(kind, WEFT_FSDP_FSDP2);
  CHECK_EQ_INT(weft_fsdp_parse("flat", &kind, &e), WEFT_OK);
  CHECK_EQ_INT(kind, WEFT_FSDP_FLAT);
  CHECK_EQ_INT(weft_fsdp_parse("FSDP2", &kind, &e), WEFT_EINPUT);
  CHECK(!strcmp(weft_fsdp_name(WEFT_FSDP_FSDP2), "fsdp2"));
}

/* reshard_after_forward off (no_reshard) on the same run, fsdp2, R = 2:
 * - memory: the model's 2 layers (2 x (4,195,328 + 12,583,936) =
 *   33,558,528), the embedding and the output layer (32,768,000 each) and
 *   the final norm (1,024), 99,095,552 parameters in all, kept gathered at
 *   2 bytes and their fp32 sums at 4: 594,573,312 bytes more than resharding
 *   (whose states are the same otherwise);
 * - the first layer's collectives: one all-gather a step, in the forward,
 *   of its attention's 8,390,656 bytes and its MLP's 25,167,872 over DP 4
 *   (2,097,664 + 6,291,968 bytes, a call each: FSDP's unit is the layer),
 *   none in the backward, and one reduce-scatter a step of the attention's
 *   fp32 gradients (16,781,312);
 * - its FSDP2 kernels: the copy-out once (16,781,312 bytes) in the forward;
 *   after the backwards, the first micro-batch's gradients cast to fp32
 *   (2 + 4 bytes), the second's added in (2 + 4 + 4), the sums copied into
 *   the reduce-scatter buffer (4 + 4). */
static void kept(void) {
  WeftGenInfo info[2];
  double ns[2][WEFT_NPHASES];
  WeftWorkload *w[2];
  for (int f = 0; f < 2; f++) {
    WeftParallel p;
    weft_parallel_default(&p);
    p.dp = 4, p.zero_stage = 3, p.attention = WEFT_ATTENTION_FLASH, p.grad_bytes = 4;
    p.fsdp = WEFT_FSDP_FSDP2, p.no_reshard = f;
    w[f] = weft_workload_create();
    WeftError e;
    CHECK(w[f] != NULL);
    if (!w[f]) return;
    CHECK_EQ_INT(gen_with(&p, 0, 0, 0, w[f], &info[f], &e), WEFT_OK);
    CHECK(block_ns(w[f], "attn", ns[f]));
  }
  double dmem = info[1].mem.total_bytes - info[0].mem.total_bytes;
  CHECK_NEAR(dmem, 99095552.0 * 6, 1.0);
  CHECK_NEAR(info[1].mem.params_bytes - info[0].mem.params_bytes, 99095552.0 * 2, 1.0);
  int ag = 0, rs = 0;
  for (int i = 0; i < w[1]->nlayers; i++) {
    if (strncmp(w[1]->layers[i].name, "L1.attn", 7)) continue;
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      const WeftPhaseSpec *s = &w[1]->layers[i].phase[ph];
      if (s->coll == WEFT_COLL_ALLGATHER) {
        ag++;
        CHECK_EQ_INT(ph, WEFT_PHASE_FWD);
        CHECK(s->group > 0 && !strcmp(w[1]->group_name[s->group - 1], "dp"));
        CHECK_NEAR(s->size_bytes, 2097664 + 6291968, 1.0); /* the layer's: attention and MLP */
        CHECK_NEAR(s->calls, 2, 1e-12);
      } else if (s->coll == WEFT_COLL_REDUCESCATTER) { /* the weight-grad stream's DP group */
        CHECK_EQ_INT(ph, WEFT_PHASE_WG);
        rs++;
        CHECK_NEAR(s->size_bytes, 16781312, 1.0);
        CHECK_NEAR(s->calls, 1, 1e-12);
      }
    }
  }
  CHECK_EQ_INT(ag, 1);
  CHECK_EQ_INT(rs, 1);
  double el = 4195328, out = copy_ns(2 * 2 * el);
  double in = copy_ns(6 * el) + copy_ns(10 * el) + copy_ns(8 * el);
  double f0 = ns[0][WEFT_PHASE_FWD] - 2 * out; /* without the resharding run's copies */
  CHECK(fabs(ns[1][WEFT_PHASE_FWD] - f0 - out) <= 1.0);
  CHECK(fabs(ns[1][WEFT_PHASE_IG] - (ns[0][WEFT_PHASE_IG] - out)) <= 1.0);
  /* the layer entry keeps the last micro-batch's share (1/R) of the weight-
   * gradient phase, the three kernels' included; the resharding run's one
   * copy-in there */
  CHECK(fabs(ns[1][WEFT_PHASE_WG] - (ns[0][WEFT_PHASE_WG] - copy_ns(6 * el)) - in / 2) <= 1.0);
  weft_workload_free(w[0]);
  weft_workload_free(w[1]);
  /* refused without ZeRO-3, naming the entry points' option */
  WeftParallel p;
  weft_parallel_default(&p);
  p.dp = 4, p.zero_stage = 1, p.no_reshard = 1;
  WeftError e;
  refused(&p, "reshard_after_forward", &e);
}

/* Index of the first entry named name (a prefix), -1 when none. */
static int entry(const WeftWorkload *wl, const char *name) {
  for (int i = 0; i < wl->nlayers; i++)
    if (!strncmp(wl->layers[i].name, name, strlen(name))) return i;
  return -1;
}

/* Kept gathered under a pipeline (torch.distributed.pipelining): the
 * stage's reduce-scatters run after its last backward, all at once, on an
 * entry of their own that the backward pass meets after the chunk's layers.
 * Layers 2 x vp, pp 2, DP 4, fp32 gradients (4 bytes), 4 micro-batches a
 * replica: a layer's 16,779,264 parameters (attention 4,195,328 + MLP
 * 12,583,936) reduce 67,117,056 bytes; the first stage also the embedding's
 * 32,768,000 parameters (131,072,000 bytes), the last the output layer's
 * and the final norm's 32,769,024 (131,076,096). vp 1: one "stage.reduce"
 * entry, first of all, with the stage's layer and its end (3 calls: the
 * layer's two blocks and the end); vp 2 (a layer a chunk): "chunk1.reduce"
 * first (the first chunk's layer, the embedding if it is stage 1) and
 * "chunk2.reduce" right before the second chunk's layer (its layer, the
 * output layer if it is the last stage). No other entry reduce-scatters
 * in the weight-gradient phase. pp 1: each block's entry keeps its own, as
 * FSDP's post-backward hooks reduce it (the layers' and the two ends'). */
static void stage_reduce(void) {
  for (int vp = 1; vp <= 2; vp++)
    for (int pp = 1; pp <= 2; pp++) {
      WeftParallel p;
      weft_parallel_default(&p);
      p.dp = 4, p.pp = pp, p.virtual_stages = pp > 1 ? vp : 1, p.zero_stage = 3;
      p.attention = WEFT_ATTENTION_FLASH, p.grad_bytes = 4, p.fsdp = WEFT_FSDP_FSDP2;
      p.no_reshard = 1;
      WeftWorkload *wl = weft_workload_create();
      WeftError e;
      CHECK(wl != NULL);
      if (!wl) return;
      CHECK_EQ_INT(gen_with(&p, 2 * vp, 16, 4 * pp, wl, NULL, &e), WEFT_OK);
      double layer = 16779264.0 * 4, end = entry(wl, "embedding") >= 0 ? 131072000 : 131076096;
      int nrs = 0;
      for (int i = 0; i < wl->nlayers; i++) {
        const WeftPhaseSpec *s = &wl->layers[i].phase[WEFT_PHASE_WG];
        if (s->coll != WEFT_COLL_REDUCESCATTER) continue;
        nrs++;
        const char *n = wl->layers[i].name;
        if (pp == 1) {
          CHECK(!strncmp(n, "L", 1) || !strcmp(n, "embedding") || !strcmp(n, "logits"));
          continue;
        }
        int first = entry(wl, "embedding") >= 0;
        if (vp == 1) {
          CHECK(!strcmp(n, "stage.reduce") && i == 0);
          CHECK_NEAR(s->size_bytes, layer + end, 1.0);
          CHECK_NEAR(s->calls, 3, 1e-12);
        } else if (!strcmp(n, "chunk1.reduce")) {
          CHECK_EQ_INT(i, 0);
          CHECK_NEAR(s->size_bytes, layer + (first ? end : 0), 1.0);
        } else {
          CHECK(!strcmp(n, "chunk2.reduce"));
          CHECK_EQ_INT(i + 1, entry(wl, "L4") >= 0 ? entry(wl, "L4") : entry(wl, "L2"));
          CHECK_EQ_INT(i - 1, entry(wl, "chunk1.accumulation"));
          CHECK_NEAR(s->size_bytes, layer + (first ? 0 : end), 1.0);
        }
      }
      CHECK_EQ_INT(nrs, pp == 1 ? 2 * 2 * vp + 2 : vp); /* pp 1: a layer's blocks, the ends */
      weft_workload_free(wl);
    }
}

/* Kept gathered under a pipeline with ga_steps 2 (two schedules a step):
 * torch's PipelineStage runs FSDP's post-backward at each schedule's last
 * backward and the next schedule gathers again, so the stage's
 * reduce-scatter entry moves twice stage_reduce's bytes in two calls a
 * block (vp 1: 2 (layer + end), 6 calls), and the parameters' once-a-step
 * all-gather (forward, over DP) twice; without a pipeline ga_steps moves
 * nothing. */
static void schedules(void) {
  for (int pp = 1; pp <= 2; pp++) {
    double rs[2] = {0, 0}, ag[2] = {0, 0}, calls[2] = {0, 0};
    for (int ga = 1; ga <= 2; ga++) {
      WeftParallel p;
      weft_parallel_default(&p);
      p.dp = 4, p.pp = pp, p.zero_stage = 3, p.attention = WEFT_ATTENTION_FLASH;
      p.grad_bytes = 4, p.fsdp = WEFT_FSDP_FSDP2, p.no_reshard = 1, p.ga_steps = ga;
      WeftWorkload *wl = weft_workload_create();
      WeftError e;
      CHECK(wl != NULL);
      if (!wl) return;
      CHECK_EQ_INT(gen_with(&p, 2, 16, 4 * pp, wl, NULL, &e), WEFT_OK);
      for (int i = 0; i < wl->nlayers; i++) {
        const WeftPhaseSpec *w = &wl->layers[i].phase[WEFT_PHASE_WG];
        const WeftPhaseSpec *f = &wl->layers[i].phase[WEFT_PHASE_FWD];
        if (w->coll == WEFT_COLL_REDUCESCATTER) {
          rs[ga - 1] += w->size_bytes;
          calls[ga - 1] += w->calls;
        }
        if (f->coll == WEFT_COLL_ALLGATHER) ag[ga - 1] += f->size_bytes;
      }
      weft_workload_free(wl);
    }
    CHECK(rs[0] > 0 && ag[0] > 0);
    CHECK_NEAR(rs[1], (pp > 1 ? 2 : 1) * rs[0], 1.0);
    CHECK_NEAR(calls[1], (pp > 1 ? 2 : 1) * calls[0], 1e-12);
    CHECK_NEAR(ag[1], (pp > 1 ? 2 : 1) * ag[0], 1.0);
    if (pp > 1) CHECK_NEAR(calls[0], 3, 1e-12);
  }
}

const TestCase suite_fsdp2[] = {{"fsdp2_copies", copies},
                                {"fsdp2_refusals", refusals},
                                {"fsdp2_kept_gathered", kept},
                                {"fsdp2_stage_reduce", stage_reduce},
                                {"fsdp2_schedules", schedules},
                                {0}};
