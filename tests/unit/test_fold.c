/* test_fold.c — unit tests (suite fold): MoE parallel folding
 * (WeftParallel.expert_tp, Megatron-Core's expert_tensor_parallel_size):
 * the experts laid as ETP x EP x EDP over the TP x CP x DP ranks of a
 * stage, every figure worked by hand in the comments. */
#include <stdio.h>
#include <string.h>

#include "weft.h"

#include "../test.h"
#include "gen_fixture.h"

/* tiny-moe of test_gen.c's gen_moe with 8 experts: 4 layers, h 8, heads
 * (2 or 4, head width h / heads), s 4, V 16, ffn 16 (GeLU), top-2, MoE every
 * 2nd layer (layers 2 and 4), batch 8. An expert: 2 x 8 x 16 + 16 + 8 = 280
 * parameters. 1 FLOP = 1 ns (fx_unit_device: 2e9 x 0.5). */
static WeftModel fold_model(int heads, int experts) { return fx_tiny_moe(heads, experts); }

static WeftNetwork fold_net(int ndims, const int *npus) {
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = ndims;
  for (int d = 0; d < ndims; d++) {
    net.npus[d] = npus[d];
    net.topology[d] = WEFT_SWITCH;
    snprintf(net.cost_dim[d], sizeof net.cost_dim[d], "c");
  }
  return net;
}

static WeftParallel fold_par(int tp, int cp, int dp, int ep, int etp) {
  WeftParallel par;
  weft_parallel_default(&par);
  par.ddp_bucket_params = 1; /* a bucket per layer entry */
  par.merged_backward = 1;   /* whole layers, as derived by hand */
  par.tp = tp;
  par.cp = cp;
  par.dp = dp;
  par.ep = ep;
  par.expert_tp = etp;
  return par;
}

/* The bytes of collective c on group grp in phase ph over the entries of
 * layer 2's MoE block (L2.moe, L2.moe.2, ...). */
static double moe_bytes(const WeftWorkload *wl, int ph, WeftCollective c, int grp) {
  return fx_coll_bytes(wl, "L2.moe", ph, c, grp);
}

static int span_is(const WeftCommunicator *comm, const char *name, int nd, const int *want) {
  const int *g = weft_communicator_find(comm, name);
  if (!g) return 0;
  for (int d = 0; d < nd; d++)
    if (g[d] != want[d]) return 0;
  return 1;
}

/* 2 TP x 4 DP on a [2, 4] network (TP dim 1, DP dim 2), 8 experts, EP 8,
 * ETP 1: EP 8 does not divide DP 4, it folds over the 2 TP x 4 DP ranks:
 * the all-to-all group is every NPU, spans [2, 4]; EDP = 8 / (1 x 8) = 1:
 * no expert gradient reduction and no "edp" group; no ETP collective.
 * b 1, m = 8 / 4 = 2 micro-batches, S = b s h 2 = 64 bytes.
 * - without SP, each TP rank dispatches 1/2 of its replicated tokens: the
 *   all-to-all, dispatch + combine forward: 2 x m x (S / tp) x top-2 =
 *   2 x 2 x 32 x 2 = 256 bytes, as much backward; the MoE outputs (and
 *   input gradients) all-gathered over TP: m x S / tp = 64 bytes a phase;
 * - compute as before folding: per micro-batch and rank (4 tokens / tp 2) x
 *   (top-2 x 2 x 8 x 16 x 2 + router 2 x 8 x 8) = 2 x 1152 = 2304 FLOPs,
 *   x m = 4608 ns a phase;
 * - the router and norm (8 x 8 + 16 = 80) reduced over DP: 160 bytes;
 * - parameters per NPU: experts/8 = one whole expert per MoE layer (280, not
 *   split: ETP 1), attention 160 x 4, MLP 156 x 2, router + norm 80 x 2,
 *   embedding 96, final norm 16 (test_gen.c's gen_moe): 640 + 312 + 160 +
 *   96 + 16 + 560 = 1784 elements; ZeRO-1: the optimizer's dense 1224 over
 *   DP 4 and the experts' 560 over EDP 1, 12 bytes each. */
static void fold_tp_dp(void) {
  WeftModel m = fold_model(2, 8);
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[2] = {2, 4}, all[2] = {2, 4};
  WeftNetwork net = fold_net(2, n);
  WeftParallel par = fold_par(2, 1, 4, 8, 1);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  int ep = fx_group(wl, "ep");
  CHECK(ep > 0 && wl->ngroups == 1); /* no edp, no etp */
  CHECK(span_is(&comm, "ep", 2, all));
  CHECK(fx_group(wl, "edp") < 0 && fx_group(wl, "etp") < 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL, ep), 256, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_IG, WEFT_COLL_ALLTOALL, ep), 256, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, 0), 64, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_IG, WEFT_COLL_ALLGATHER, 0), 64, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLREDUCE, 0), 0, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_WG, WEFT_COLL_ALLREDUCE, 0), 160, 0);
  CHECK_NEAR(fx_layer(wl, "L2.moe")->phase[WEFT_PHASE_FWD].compute_ns, 4608, 0);
  CHECK_NEAR(info.mem.params_bytes, 2 * 1784.0, 1e-12);
  par.zero_stage = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.mem.optimizer_bytes, 12 * (1224.0 / 4 + 560.0 / 1), 1e-12);
  /* with SP the tokens are each rank's own shard: no TP collective at all */
  par.zero_stage = 0;
  par.sequence_parallel = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  ep = fx_group(wl, "ep");
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, 0), 0, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_REDUCESCATTER, 0), 0, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL, ep), 256, 0);
  /* a shared expert stays on the attention's TP, every token: a dense MLP's
   * SP all-gather (m x S / tp = 64 bytes in) and reduce-scatter (m x S = 128) */
  m.shared_experts = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, 0), 64, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_REDUCESCATTER, 0), 128, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER, 0), 128, 0);
  weft_workload_free(wl);
}

/* 4 TP x 2 DP on [4, 2] (heads 4), 8 experts, EP 4, ETP 2, SP: EDP =
 * 8 / (2 x 4) = 1. ETP takes the innermost 2 of TP's 4 on dim 1, EP the
 * other 2 and DP's 2 on dim 2: ETP [2, -], EP [2, 2]. m = 8 / 2 = 4,
 * S = 64: a rank dispatches S / tp x top-2 = 32 bytes; all-to-all forward
 * 2 x 4 x 32 = 256; the experts' tokens all-gathered over ETP (m x 32 = 128
 * bytes in) and their outputs reduce-scattered (m x 32 x 2 = 256). Expert
 * parameters per NPU: 8/4 experts x 280 / 2 = 280 per MoE layer. */
static void fold_etp(void) {
  WeftModel m = fold_model(4, 8);
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[2] = {4, 2}, e_span[2] = {2, 2}, t_span[2] = {2, -1};
  WeftNetwork net = fold_net(2, n);
  WeftParallel par = fold_par(4, 1, 2, 4, 2);
  par.sequence_parallel = 1;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info, tp4;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  int ep = fx_group(wl, "ep"), etp = fx_group(wl, "etp");
  CHECK(ep > 0 && etp > 0 && fx_group(wl, "edp") < 0);
  CHECK(span_is(&comm, "ep", 2, e_span) && span_is(&comm, "etp", 2, t_span));
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL, ep), 256, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, etp), 128, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_REDUCESCATTER, etp), 256, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_IG, WEFT_COLL_ALLGATHER, etp), 128, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, 0), 0, 0);
  /* ETP = TP = 4 (the default) instead: ETP 4 x EP 4 = 16 NPUs, more than
   * the stage's 8: refused */
  par.expert_tp = 0;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &tp4, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "ep"));
  /* ETP 1, EP 4, EDP 2: EP takes TP's 4 on dim 1, EDP DP's 2 on dim 2;
   * 2 whole experts per NPU, 560 per MoE layer where ETP 2 held 280: 2
   * layers x 280 x 2 bytes more */
  par.expert_tp = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &tp4, &err), WEFT_OK);
  CHECK_NEAR(tp4.mem.params_bytes - info.mem.params_bytes, 2 * 280 * 2.0, 1e-9);
  static const int x_span[2] = {4, -1}, d_span[2] = {-1, 2};
  CHECK(span_is(&comm, "ep", 2, x_span) && span_is(&comm, "edp", 2, d_span));
  weft_workload_free(wl);
}

/* NeMo's Mixtral 8x22B pattern, scaled: TP 2, CP 2, DP 2 on [2, 2, 2], EP 4
 * (divides CP x DP = 4, not DP = 2), ETP = TP (default): EP folds over the
 * CP and DP ranks: [-, 2, 2]; EDP = 8 / (2 x 4) = 1. The dense gradients
 * stay over CP x DP [-, 2, 2]. With EP 2 (divides DP) still folded, as
 * Megatron-Core 0.10's expert rank generator lays it (cp = 1 in it, EP right
 * after the expert TP): EP over the CP ranks [-, 2, -], EDP the DP ranks
 * [-, -, 2] (0.9 carved EP out of DP: [-, -, 2], EDP over CP). */
static void fold_cp(void) {
  WeftModel m = fold_model(2, 8);
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[3] = {2, 2, 2}, cpdp[3] = {-1, 2, 2}, dp[3] = {-1, -1, 2}, cpo[3] = {-1, 2, -1};
  /* folded EP 2: EP the CP ranks, EDP the DP ranks */
  WeftNetwork net = fold_net(3, n);
  WeftParallel par = fold_par(2, 2, 2, 4, 0);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK(span_is(&comm, "ep", 3, cpdp) && fx_group(wl, "edp") < 0 && fx_group(wl, "etp") < 0);
  CHECK(comm.group[WEFT_PHASE_WG][0] == -1 && comm.group[WEFT_PHASE_WG][1] == 2 &&
        comm.group[WEFT_PHASE_WG][2] == 2);
  par.ep = 2;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK(span_is(&comm, "ep", 3, cpo) && span_is(&comm, "edp", 3, dp));
  weft_workload_free(wl);
}

/* Experts on the attention's TP (etp = tp, not folded: EP 4 divides DP 4, cp
 * 1) with SP: Megatron-Core 0.10's all-to-all dispatcher
 * (token_dispatcher.py, MoEAlltoAllTokenDispatcher: permute -> A2A over EP
 * -> AG over the expert TP group -> experts -> RS -> A2A). 2 TP x 4 DP on
 * [2, 4], EP [-, 4]; m = 8 / 4 = 2, S = 64 bytes. A rank dispatches its own
 * sequence shard: S / tp x top-2 = 64 bytes, dispatch + combine forward
 * 2 x m x 64 = 256 bytes (before: every TP rank all the tokens, 2 x m x S x
 * 2 = 512), as much backward; over TP the tokens all-gathered (m x 64 = 128
 * bytes in) and the experts' outputs reduce-scattered (m x 64 x 2 = 256), no
 * dense MLP's S-sized pair (m x S / tp = 64 + m x S = 128 before); the same
 * in input-grad. Without SP (Megatron refuses it in training): the upper
 * bound as before, a TP all-reduce of m x S = 128 and all-to-all 512. */
static void fold_tp_sp_dispatch(void) {
  WeftModel m = fold_model(2, 8);
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[2] = {2, 4}, e_span[2] = {-1, 4};
  WeftNetwork net = fold_net(2, n);
  WeftParallel par = fold_par(2, 1, 4, 4, 0);
  par.sequence_parallel = 1;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  int ep = fx_group(wl, "ep");
  CHECK(ep > 0 && span_is(&comm, "ep", 2, e_span) && fx_group(wl, "etp") < 0);
  for (int ph = WEFT_PHASE_FWD; ph <= WEFT_PHASE_IG; ph++) {
    CHECK_NEAR(moe_bytes(wl, ph, WEFT_COLL_ALLTOALL, ep), 256, 0);
    CHECK_NEAR(moe_bytes(wl, ph, WEFT_COLL_ALLGATHER, 0), 128, 0);
    CHECK_NEAR(moe_bytes(wl, ph, WEFT_COLL_REDUCESCATTER, 0), 256, 0);
    CHECK_NEAR(moe_bytes(wl, ph, WEFT_COLL_ALLREDUCE, 0), 0, 0);
  }
  par.sequence_parallel = 0;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  ep = fx_group(wl, "ep");
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL, ep), 512, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLREDUCE, 0), 128, 0);
  CHECK_NEAR(moe_bytes(wl, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, 0), 0, 0);
  weft_workload_free(wl);
}

/* etp = tp given, or 0: the same workload, byte for byte (EP inside DP). */
static void fold_default_same(void) {
  WeftModel m = fold_model(2, 8);
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[2] = {2, 4};
  WeftNetwork net = fold_net(2, n);
  WeftParallel a = fold_par(2, 1, 4, 2, 0), b = fold_par(2, 1, 4, 2, 2);
  WeftWorkload *x = weft_workload_create(), *y = weft_workload_create();
  WeftCommunicator cx, cy;
  WeftGenInfo ix, iy;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &a, &net, 0, x, &cx, &ix, &err), WEFT_OK);
  CHECK_EQ_INT(weft_generate(&m, &dev, &b, &net, 0, y, &cy, &iy, &err), WEFT_OK);
  CHECK_EQ_INT(x->nlayers, y->nlayers);
  CHECK(x->nlayers == y->nlayers &&
        !memcmp(x->layers, y->layers, (size_t)x->nlayers * sizeof x->layers[0]));
  CHECK(!memcmp(&cx, &cy, sizeof cx) && !memcmp(&ix, &iy, sizeof ix));
  weft_workload_free(x);
  weft_workload_free(y);
}

/* Impossible folds: WEFT_EINPUT naming the field, with the numbers. */
static void fold_errors(void) {
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[2] = {2, 4}, odd[2] = {4, 3};
  WeftNetwork net = fold_net(2, n), net43 = fold_net(2, odd);
  static const struct {
    int heads, experts, tp, dp, ep, etp, odd;
    const char *field, *msg;
  } bad[] = {
      {2, 16, 2, 4, 16, 0, 0, "ep",
       "etp x ep = 2 x 16 must divide tp x cp x dp = 2 x 1 x 4 (the experts fold over the ranks "
       "of a stage; etp defaults to tp)"},
      {2, 16, 2, 4, 16, 1, 0, "ep",
       "etp x ep = 1 x 16 must divide tp x cp x dp = 2 x 1 x 4 (the experts fold over the ranks "
       "of a stage; etp defaults to tp)"},
      {2, 8, 2, 4, 3, 1, 0, "ep", "ep = 3 must divide the 8 experts"},
      {2, 0, 2, 4, 1, 1, 0, "etp", "etp = 1 but tiny-moe has no experts"},
      /* ETP 1 x EP 6 x EDP 2 over TP 4 (dim 1) x DP 3 (dim 2): EP's 6 takes
       * dim 1's 4, which does not divide 6 */
      {4, 6, 4, 3, 6, 1, 1, "ep",
       "folded experts: etp = 1, ep = 6, edp = 2 do not factor over the tp x cp x dp = 4 x 1 x 3 "
       "ranks on the network's dims (4 of them on dim 1)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    WeftModel m = fold_model(bad[i].heads, bad[i].experts);
    if (!bad[i].experts) m.top_k = 0, m.moe_every = 0;
    if (bad[i].odd) m.global_batch = 12;
    WeftParallel par = fold_par(bad[i].tp, 1, bad[i].dp, bad[i].ep, bad[i].etp);
    WeftWorkload *wl = weft_workload_create();
    WeftCommunicator comm;
    WeftGenInfo info;
    WeftError err;
    CHECK_EQ_INT(weft_generate(&m, &dev, &par, bad[i].odd ? &net43 : &net, 0, wl, &comm, &info,
                               &err),
                 WEFT_EINPUT);
    CHECK(!strcmp(err.field, bad[i].field));
    if (strcmp(err.msg, bad[i].msg)) {
      fprintf(stderr, "  case %zu: '%s'\n", i, err.msg);
      test_failures_++;
    }
    weft_workload_free(wl);
  }
}

const TestCase suite_fold[] = {
    {"fold_tp_dp", fold_tp_dp},
    {"fold_etp", fold_etp},
    {"fold_cp", fold_cp},
    {"fold_tp_sp_dispatch", fold_tp_sp_dispatch},
    {"fold_default_same", fold_default_same},
    {"fold_errors", fold_errors},
    {0, 0},
};
