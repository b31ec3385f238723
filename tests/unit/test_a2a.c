/* test_a2a.c — Megatron-Core's MoE all-to-all overlap (moe_a2a_overlap;
 * docs/zoo.md, "MoE all-to-all overlap") on test_gen.c's tiny MoE model by
 * hand: which share of the EP all-to-alls pairs, what each hides under, the
 * iteration time it saves, and the combinations Megatron-Core refuses; the
 * forward dispatch's bytes in FP8 (moe_dispatch_fp8). */
#include <string.h>

#include "gen_fixture.h"
#include "../test.h"

/* tiny-moe (test_gen.c's gen_moe): 4 layers, MoE every 2nd, 4 experts top-2,
 * TP 2, DP 4, EP 2 on 2 x 4 NPUs, batch 8, micro-batch 1: m = 8 / 4 = 2
 * micro-batches, one stage. Flat compute at 1 ns per FLOP (R = 2 micro-
 * batches per block): a MoE block 4352 ns per phase; an attention block 2560
 * forward. A micro-batch's all-to-all: S k / tp = 128 bytes each way. */
static WeftModel tiny_moe(void) { return fx_tiny_moe(2, 4); }

static WeftParallel tiny_par(int overlap) {
  WeftParallel par;
  weft_parallel_default(&par);
  par.ddp_bucket_params = 1;
  par.merged_backward = 1;
  par.tp = 2;
  par.dp = 4;
  par.ep = 2;
  par.moe_a2a_overlap = overlap;
  return par;
}

/* The all-to-all of entry name's phase ph: its bytes, calls and overlap. */
static void a2a_of(const WeftWorkload *wl, const char *name, int ph, double bytes, double calls,
                   double overlap) {
  const WeftLayer *l = fx_layer(wl, name);
  CHECK_EQ_INT(l->phase[ph].coll, WEFT_COLL_ALLTOALL);
  CHECK_NEAR(l->phase[ph].size_bytes, bytes, 0);
  CHECK_NEAR(l->phase[ph].calls, calls, 1e-12);
  CHECK_NEAR(l->phase[ph].overlap_ns, overlap, 0);
}

/* m (gen_tiny: tiny-moe) under p on the 2 x 4 ring (a device with an FP8
 * rate, twice its BF16 one), into wl: weft_generate's status. */
static int gen_model(WeftModel m, const WeftParallel *p, WeftWorkload *wl, WeftError *err) {
  WeftDevice dev = fx_unit_device(1e12);
  dev.peak_fp8_flops = 2 * dev.peak_flops;
  static const int n[2] = {2, 4};
  WeftNetwork net = fx_net(2, n, WEFT_RING);
  WeftCommunicator c;
  WeftGenInfo info;
  return weft_generate(&m, &dev, p, &net, 0, wl, &c, &info, err);
}

static int gen_tiny(const WeftParallel *p, WeftWorkload *wl, WeftError *err) {
  return gen_model(tiny_moe(), p, wl, err);
}

/* p (an MoE option set) on tiny-moe's dense twin (no experts, ep 1):
 * refused, naming field. */
static void refused_on_dense(WeftParallel p, WeftWorkload *wl, const char *field) {
  WeftError err;
  p.ep = 1;
  CHECK_EQ_INT(gen_model(fx_tiny_moe(2, 0), &p, wl, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, field) && strstr(err.msg, "no experts"));
}

/* pp = 1 (combined_1f1b_schedule_for_no_pipelining): the first forward and
 * the last backward run alone, so of m = 2 micro-batches q = 1/2 pair. Off:
 * 2 x 2 x 128 = 512 bytes each pass, 4 calls. On: 256 bytes exposed in 2
 * calls; paired (1 micro-batch, one call each): the forward's dispatch (128)
 * under the backward's experts, (4352 + 4352) / 2 = 4352 ns; its combine
 * under the backward's attention, (IG + WG) / 2; the backward's dispatch
 * under the forward's experts, 4352 / 2 = 2176 ns; its combine under the
 * forward's attention, 2560 / 2 = 1280 ns. */
static void a2a_pairs(void) {
  WeftModel m = tiny_moe();
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[2] = {2, 4};
  WeftNetwork net = fx_net(2, n, WEFT_RING);
  WeftWorkload *off = weft_workload_create(), *on = weft_workload_create();
  WeftCommunicator c0, c1;
  WeftGenInfo info;
  WeftError err;
  WeftParallel p0 = tiny_par(0), p1 = tiny_par(1);
  CHECK_EQ_INT(weft_generate(&m, &dev, &p0, &net, 0, off, &c0, &info, &err), WEFT_OK);
  CHECK_EQ_INT(weft_generate(&m, &dev, &p1, &net, 0, on, &c1, &info, &err), WEFT_OK);
  a2a_of(off, "L2.moe.2", WEFT_PHASE_FWD, 512, 4, 0);
  a2a_of(off, "L2.moe.2", WEFT_PHASE_IG, 512, 4, 0);
  const WeftLayer *at = fx_layer(on, "L1.attn"), *mo = fx_layer(on, "L2.moe");
  CHECK_NEAR(at->phase[WEFT_PHASE_FWD].compute_ns, 2560, 0);
  CHECK_NEAR(mo->phase[WEFT_PHASE_FWD].compute_ns, 4352, 0);
  CHECK_NEAR(mo->phase[WEFT_PHASE_IG].compute_ns, 4352, 0);
  CHECK_NEAR(mo->phase[WEFT_PHASE_WG].compute_ns, 4352, 0);
  double attn_bwd = at->phase[WEFT_PHASE_IG].compute_ns + at->phase[WEFT_PHASE_WG].compute_ns;
  a2a_of(on, "L2.moe.2", WEFT_PHASE_FWD, 256, 2, 0);
  a2a_of(on, "L2.moe.3", WEFT_PHASE_FWD, 128, 1, 4352);
  a2a_of(on, "L2.moe.4", WEFT_PHASE_FWD, 128, 1, attn_bwd / 2);
  a2a_of(on, "L2.moe.2", WEFT_PHASE_IG, 256, 2, 0);
  a2a_of(on, "L2.moe.3", WEFT_PHASE_IG, 128, 1, 2176);
  a2a_of(on, "L2.moe.4", WEFT_PHASE_IG, 128, 1, 1280);
  /* At 1e-6 GB/s every all-to-all outlasts its partner (128 bytes on a
   * 2-NPU ring: 64 bytes out at 1e-6 B/ns, 64e6 ns >> G), so each hinge
   * exposes c - G and the two MoE layers (L2, L4) save their overlaps:
   * 2 (4352 + attn_bwd / 2 + 2176 + 1280). */
  static const double bw[2] = {1e-6, 1e-6};
  double t0 = fx_eval_time(&net, off, &c0, WEFT_LOOP_NO_OVERLAP, bw);
  double t1 = fx_eval_time(&net, on, &c1, WEFT_LOOP_NO_OVERLAP, bw);
  CHECK(t0 > 1e7);
  CHECK_NEAR(t0 - t1, 2 * (4352 + attn_bwd / 2 + 2176 + 1280), 1e-9 * t0);
  weft_workload_free(off);
  weft_workload_free(on);
}

/* What Megatron-Core's TransformerConfig asserts (transformer_config.py):
 * EP > 1; with a pipeline, interleaving; no full recomputation; refused
 * naming moe_a2a_overlap. */
static void a2a_refusals(void) {
  WeftWorkload *wl = weft_workload_create();
  WeftError err;
  WeftParallel p = tiny_par(1);
  p.ep = 1;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_a2a_overlap"));
  p = tiny_par(1);
  p.recompute = WEFT_RECOMPUTE_FULL;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_a2a_overlap"));
  p = tiny_par(1);
  p.pp = 2;
  p.dp = 2;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_a2a_overlap"));
  weft_workload_free(wl);
}

/* moe_dispatch_fp8 (DeepSeek-V3, Section 3.3.3): with FP8 GEMMs the
 * forward dispatch moves 1 byte an element, half of act_bytes 2: per
 * micro-batch 128 / 2 = 64 dispatched + 128 combined, so 2 x (64 + 128) =
 * 384 bytes forward in the same 4 calls; the backward's all-to-alls
 * (gradients, BF16) stay 512. Off (the default, Megatron-Core's
 * dispatchers), FP8 GEMMs move the same 512 as BF16. Refused without FP8
 * and without expert parallelism, naming the field. */
static void a2a_dispatch_fp8(void) {
  WeftWorkload *wl = weft_workload_create();
  WeftError err;
  WeftParallel p = tiny_par(0);
  p.fp8 = WEFT_FP8_DELAYED;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_OK);
  a2a_of(wl, "L2.moe.2", WEFT_PHASE_FWD, 512, 4, 0);
  a2a_of(wl, "L2.moe.2", WEFT_PHASE_IG, 512, 4, 0);
  p.moe_dispatch_fp8 = 1;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_OK);
  a2a_of(wl, "L2.moe.2", WEFT_PHASE_FWD, 384, 4, 0);
  a2a_of(wl, "L2.moe.2", WEFT_PHASE_IG, 512, 4, 0);
  p.fp8 = WEFT_FP8_OFF;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_dispatch_fp8"));
  p.fp8 = WEFT_FP8_DELAYED;
  p.ep = 1;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_dispatch_fp8"));
  weft_workload_free(wl);
}

/* Sum of the all-to-all (coll) bytes in phase ph over wl's entries. */
static double coll_bytes(const WeftWorkload *wl, int ph, WeftCollective coll) {
  return fx_coll_bytes(wl, NULL, ph, coll, -1);
}
/* The flex dispatcher (moe_dispatcher deepep, hybridep; docs/zoo.md, "MoE
 * dispatchers") on tiny-moe with the experts folded to etp 1 (4 experts on
 * EP 2, top 2): a token reaches 5/3 of the 2 ranks on average, so the EP
 * all-to-alls move 5/6 of the all-to-all dispatcher's bytes, forward and
 * backward (each entry rounded to a byte). HybridEP adds, forward only, the
 * routing map's all-gather over EP: a rank's routed tokens x 4 experts bool
 * bytes a micro-batch (its 2 tokens of the sequence shard: 8 bytes), in
 * each of the 2 MoE layers (L2, L4) for each of 2 micro-batches: 32. Refused, naming moe_dispatcher: without EP, with the
 * experts on TP (etp 2), with moe_dispatch_fp8, on a dense model. */
static void a2a_dispatchers(void) {
  WeftWorkload *wl = weft_workload_create();
  WeftError err;
  WeftParallel p = tiny_par(0);
  p.expert_tp = 1;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_OK);
  double f = coll_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL);
  double b = coll_bytes(wl, WEFT_PHASE_IG, WEFT_COLL_ALLTOALL);
  double ag = coll_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER);
  CHECK(f > 0 && b > 0);
  for (int d = WEFT_MOE_DEEPEP; d <= WEFT_MOE_HYBRIDEP; d++) {
    p.moe_dispatcher = d;
    CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_OK);
    CHECK_NEAR(coll_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL), f * 5 / 6, 1);
    CHECK_NEAR(coll_bytes(wl, WEFT_PHASE_IG, WEFT_COLL_ALLTOALL), b * 5 / 6, 1);
    CHECK_NEAR(coll_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER) - ag,
               d == WEFT_MOE_HYBRIDEP ? 2 * 2 * 8 : 0, 0);
  }
  p.ep = 1;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_dispatcher") && strstr(err.msg, "ep > 1"));
  p = tiny_par(0);
  p.moe_dispatcher = WEFT_MOE_DEEPEP;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_dispatcher") && strstr(err.msg, "etp = 2"));
  p.expert_tp = 1;
  p.fp8 = WEFT_FP8_DELAYED;
  p.moe_dispatch_fp8 = 1;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_dispatcher") && strstr(err.msg, "moe_dispatch_fp8"));
  p = tiny_par(0);
  p.moe_dispatcher = WEFT_MOE_HYBRIDEP;
  refused_on_dense(p, wl, "moe_dispatcher");
  weft_workload_free(wl);
}

/* Blocked routing (moe_routing blocked; docs/zoo.md, "MoE routing") on
 * tiny-moe with the experts folded to etp 1 (4 experts on EP 2, top 2):
 * token t goes to experts 2t and 2t + 1 (mod 4), both on one rank, so the
 * flex dispatcher sends 1 copy of each token, half the all-to-all
 * dispatcher's 2 (random routing: 5/3, a2a_dispatchers); the all-to-all
 * dispatcher moves its k copies whatever the routing. Refused, naming
 * moe_routing: a value past blocked, blocked on a dense model. */
static void a2a_routing(void) {
  WeftWorkload *wl = weft_workload_create();
  WeftError err;
  WeftParallel p = tiny_par(0);
  p.expert_tp = 1;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_OK);
  double f = coll_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL);
  double b = coll_bytes(wl, WEFT_PHASE_IG, WEFT_COLL_ALLTOALL);
  p.moe_routing = WEFT_ROUTING_BLOCKED;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_OK);
  CHECK_NEAR(coll_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL), f, 0);
  for (int d = WEFT_MOE_DEEPEP; d <= WEFT_MOE_HYBRIDEP; d++) {
    p.moe_dispatcher = d;
    CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_OK);
    CHECK_NEAR(coll_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL), f / 2, 1);
    CHECK_NEAR(coll_bytes(wl, WEFT_PHASE_IG, WEFT_COLL_ALLTOALL), b / 2, 1);
  }
  for (int k = WEFT_ROUTING_RANDOM; k <= WEFT_ROUTING_BLOCKED; k++) { /* names round trip */
    int back = -1;
    CHECK_EQ_INT(weft_moe_routing_parse(weft_moe_routing_name(k), &back, &err), WEFT_OK);
    CHECK_EQ_INT(back, k);
  }
  CHECK_EQ_INT(weft_moe_routing_parse("Blocked", &p.moe_routing, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_routing"));
  p.moe_routing = 2;
  CHECK_EQ_INT(gen_tiny(&p, wl, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_routing") && strstr(err.msg, "expected 0 (random) or 1"));
  p = tiny_par(0);
  p.moe_routing = WEFT_ROUTING_BLOCKED;
  refused_on_dense(p, wl, "moe_routing");
  weft_workload_free(wl);
}

const TestCase suite_a2a[] = {{"a2a_pairs", a2a_pairs},
                              {"a2a_refusals", a2a_refusals},
                              {"a2a_dispatch_fp8", a2a_dispatch_fp8},
                              {"a2a_dispatchers", a2a_dispatchers},
                              {"a2a_routing", a2a_routing},
                              {NULL, NULL}};
