/* test_gen.c — unit tests (suite gen). */
#include "weft.h"

#include "../test.h"
#include "gen_fixture.h"
#include "oc_fixture.h"

/* ------------------------------------------------------------------ mapping (helper "map")
 * weft_parallel_default, weft_parallel_order_parse, weft_map_groups. Every
 * expected layout is worked by hand in a comment, or checked against the
 * closed form in map_property (prefix products of groups and dims). */
#include <stdio.h>
#include <string.h>

/* out[k][0..ndims) must equal want (row-major, ngroups x ndims). */
static void map_expect(int at, const int (*out)[WEFT_MAX_DIMS], int ngroups, int ndims,
                       const int *want) {
  for (int k = 0; k < ngroups; k++)
    for (int d = 0; d < ndims; d++)
      if (out[k][d] != want[k * ndims + d]) {
        fprintf(stderr, "  %s:%d: group %d dim %d is %d, expected %d\n", __FILE__, at, k + 1,
                d + 1, out[k][d], want[k * ndims + d]);
        test_failures_++;
      }
}
#define MAP_EXPECT(out, ng, nd, ...)                                 \
  do {                                                               \
    static const int want_[] = {__VA_ARGS__};                        \
    map_expect(__LINE__, (const int(*)[WEFT_MAX_DIMS])(out), ng, nd, want_); \
  } while (0)

static WeftNetwork map_net(int ndims, const int *npus) {
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = ndims;
  for (int d = 0; d < ndims; d++) {
    net.npus[d] = npus[d];
    net.topology[d] = WEFT_RING;
  }
  return net;
}

static void map_defaults(void) {
  WeftParallel p;
  memset(&p, 0x5a, sizeof p);  /* every field must be set */
  weft_parallel_default(&p);
  CHECK(p.tp == 1 && p.pp == 1 && p.dp == 1 && p.ep == 1 && p.micro_batch == 1);
  CHECK(p.sequence_parallel == 0 && p.zero_stage == 0 && p.recompute == 0);
  CHECK(p.order[0] == WEFT_PAR_TP && p.order[1] == WEFT_PAR_PP && p.order[2] == WEFT_PAR_DP);
  CHECK(p.efficiency == 0.0 && p.act_bytes == 2.0 && p.param_bytes == 2.0 &&
        p.grad_bytes == 2.0 && p.optimizer_bytes == 12.0);
  weft_parallel_default(NULL);  /* tolerated */
}

static void map_order_parse(void) {
  static const struct {
    const char *text;
    WeftParDim want[3];
  } ok[] = {
      {"TP,PP,DP", {WEFT_PAR_TP, WEFT_PAR_PP, WEFT_PAR_DP}},
      {"tp-dp-pp", {WEFT_PAR_TP, WEFT_PAR_DP, WEFT_PAR_PP}},
      {"tp,dp,pp", {WEFT_PAR_TP, WEFT_PAR_DP, WEFT_PAR_PP}},
      {"Dp, tP ,pp", {WEFT_PAR_DP, WEFT_PAR_TP, WEFT_PAR_PP}},
      {"PP-DP,TP", {WEFT_PAR_PP, WEFT_PAR_DP, WEFT_PAR_TP}},
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    WeftParDim o[3] = {WEFT_PAR_DP, WEFT_PAR_DP, WEFT_PAR_DP};
    WeftError e;
    CHECK_EQ_INT(weft_parallel_order_parse(ok[i].text, o, &e), WEFT_OK);
    CHECK(o[0] == ok[i].want[0] && o[1] == ok[i].want[1] && o[2] == ok[i].want[2]);
  }
  static const struct {
    const char *text;
    int col;  /* column of the offending token; 0 = none */
    const char *msg;
  } bad[] = {
      {"TP,PP", 0, "names 2 of TP, PP, DP"},
      {"TP,TP,DP", 4, "TP appears twice"},
      {"TP,PP,DP,DP", 10, "DP appears twice"},
      {"TP,XP,DP", 4, "unknown group 'XP'"},
      {"TP,PPP,DP", 4, "unknown group 'PPP'"},
      {"TP PP DP", 4, "expected ',' or '-'"},
      {"TP,,DP", 4, "expected TP, PP and DP"},
      {"TP,PP,DP,", 10, "expected TP, PP and DP"},
      {"", 1, "expected TP, PP and DP"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    WeftParDim o[3] = {WEFT_PAR_DP, WEFT_PAR_DP, WEFT_PAR_DP};
    WeftError e;
    weft_error_clear(&e);
    int rc = weft_parallel_order_parse(bad[i].text, o, &e);
    CHECK_EQ_INT(rc, WEFT_EINPUT);
    CHECK_EQ_INT(e.col, bad[i].col);
    CHECK(strcmp(e.field, "order") == 0);
    if (!strstr(e.msg, bad[i].msg)) {
      fprintf(stderr, "  '%s': got \"%s\"\n", bad[i].text, e.msg);
      test_failures_++;
    }
    CHECK(o[0] == WEFT_PAR_DP && o[1] == WEFT_PAR_DP && o[2] == WEFT_PAR_DP);  /* untouched */
  }
  WeftParDim o[3];
  CHECK_EQ_INT(weft_parallel_order_parse(NULL, o, NULL), WEFT_EINVAL);
}

/* LIBRA's GPT-3 and MSFT-1T communicators on its 4x8x4x32 network
 * (shared/libra-format/communicator/GPT_3_4d.yml and MSFT_1T_4d.yml hold
 * the same numbers). */
static void map_libra_examples(void) {
  static const int shape[] = {4, 8, 4, 32};
  WeftNetwork net = map_net(4, shape);
  const char *names[] = {"TP", "DP"};
  int out[2][WEFT_MAX_DIMS];
  WeftError e;
  /* GPT-3 TP-16: all 4 of dim 1 (16/4 = 4 left), 4 of dim 2's 8 (2 left);
   * DP-256: those 2, then dims 3 and 4 whole: 2*4*32 = 256. */
  int gpt3[] = {16, 256};
  CHECK_EQ_INT(weft_map_groups(&net, gpt3, names, 2, out, &e), WEFT_OK);
  MAP_EXPECT(out, 2, 4, 4, 4, -1, -1, /**/ -1, 2, 4, 32);
  /* MSFT-1T TP-128 = 4*8*4 fills dims 1-3; DP-32 is dim 4. */
  int msft[] = {128, 32};
  CHECK_EQ_INT(weft_map_groups(&net, msft, names, 2, out, &e), WEFT_OK);
  MAP_EXPECT(out, 2, 4, 4, 8, 4, -1, /**/ -1, -1, -1, 32);
}

static void map_three_groups(void) {
  static const int shape[] = {4, 8, 4};  /* 128 NPUs */
  WeftNetwork net = map_net(3, shape);
  int out[4][WEFT_MAX_DIMS];
  WeftError e;
  /* TP-2: 2 of dim 1 (2 left). PP-4: those 2, then 2 of dim 2 (4 left).
   * DP-16: those 4, then dim 3's 4. */
  const char *n1[] = {"TP", "PP", "DP"};
  int s1[] = {2, 4, 16};
  CHECK_EQ_INT(weft_map_groups(&net, s1, n1, 3, out, &e), WEFT_OK);
  MAP_EXPECT(out, 3, 3, 2, -1, -1, /**/ 2, 2, -1, /**/ -1, 4, 4);
  /* order DP, TP, PP: DP-16 takes dim 1 (4) and 4 of dim 2 (2 left);
   * TP-2 those 2; PP-4 dim 3. */
  const char *n2[] = {"DP", "TP", "PP"};
  int s2[] = {16, 2, 4};
  CHECK_EQ_INT(weft_map_groups(&net, s2, n2, 3, out, &e), WEFT_OK);
  MAP_EXPECT(out, 3, 3, 4, 4, -1, /**/ -1, 2, -1, /**/ -1, -1, 4);
  /* order PP, DP, TP: PP-4 dim 1; DP-16 dim 2's 8, then 2 of dim 3 (2 left);
   * TP-2 those 2. */
  const char *n3[] = {"PP", "DP", "TP"};
  int s3[] = {4, 16, 2};
  CHECK_EQ_INT(weft_map_groups(&net, s3, n3, 3, out, &e), WEFT_OK);
  MAP_EXPECT(out, 3, 3, 4, -1, -1, /**/ -1, 8, 2, /**/ -1, -1, 2);
  /* a group of 1 spans nothing and moves nothing: TP-1 first, PP-1 between
   * groups, and after dim 1 is used up (DP-4 must go on to dim 2). */
  const char *n4[] = {"TP", "EP", "PP", "DP"};
  int s4[] = {1, 4, 1, 32};
  CHECK_EQ_INT(weft_map_groups(&net, s4, n4, 4, out, &e), WEFT_OK);
  MAP_EXPECT(out, 4, 3, -1, -1, -1, /**/ 4, -1, -1, /**/ -1, -1, -1, /**/ -1, 8, 4);
  /* one group of everything */
  int s5[] = {128};
  CHECK_EQ_INT(weft_map_groups(&net, s5, NULL, 1, out, &e), WEFT_OK);
  MAP_EXPECT(out, 1, 3, 4, 8, 4);
}

/* rc EINPUT, field and message as given. */
static void map_fail(int at, const int *shape, int ndims, const int *sizes,
                     const char *const *names, int ngroups, const char *field,
                     const char *msg) {
  WeftNetwork net = map_net(ndims, shape);
  int out[4][WEFT_MAX_DIMS];
  WeftError e;
  weft_error_clear(&e);
  int rc = weft_map_groups(&net, sizes, names, ngroups, out, &e);
  if (rc != WEFT_EINPUT || e.code != WEFT_EINPUT || strcmp(e.field, field) != 0 ||
      strcmp(e.msg, msg) != 0) {
    fprintf(stderr, "  %s:%d: rc %d field '%s' msg \"%s\"\n    expected field '%s' msg \"%s\"\n",
            __FILE__, at, rc, e.field, e.msg, field, msg);
    test_failures_++;
  }
}

static void map_errors(void) {
  const char *tp_dp[] = {"TP", "DP"};
  const char *tp_pp_dp[] = {"TP", "PP", "DP"};
  /* 4 x 6: TP-6 meets dim 1's 4 NPUs, and 4 and 6 neither divide the other */
  map_fail(__LINE__, (int[]){4, 6}, 2, (int[]){6, 4}, tp_dp, 2, "TP",
           "TP-6 does not factor over the dims: 6 does not divide dim 1's 4 NPUs, nor is a "
           "multiple of them");
  /* 2 x 6 x 4: TP-8 takes dim 1's 2, and the remaining 4 meets dim 2's 6 */
  map_fail(__LINE__, (int[]){2, 6, 4}, 3, (int[]){8, 6}, tp_dp, 2, "TP",
           "TP-8 does not factor over the dims: its remaining 4 does not divide dim 2's 6 "
           "NPUs, nor is a multiple of them");
  /* 4 x 6: TP-2 leaves 2 of dim 1; PP-3 (coprime to 2) cannot skip them */
  map_fail(__LINE__, (int[]){4, 6}, 2, (int[]){2, 3, 4}, tp_pp_dp, 3, "PP",
           "PP-3 does not factor over the dims: 3 does not divide the 2 NPUs left of dim 1 "
           "(of 4), nor is a multiple of them");
  /* products: 4*4 = 16 on 4*8 = 32 NPUs */
  map_fail(__LINE__, (int[]){4, 8}, 2, (int[]){4, 4}, tp_dp, 2, "",
           "the group sizes multiply to 16 (TP-4 x DP-4), the network has 32 NPUs");
  map_fail(__LINE__, (int[]){4, 8}, 2, (int[]){4, 16}, NULL, 2, "",
           "the group sizes multiply to 64 (group 1-4 x group 2-16), the network has 32 NPUs");
  map_fail(__LINE__, (int[]){4, 8}, 2, (int[]){32, 0}, tp_dp, 2, "DP",
           "DP has size 0: must be >= 1");
  map_fail(__LINE__, (int[]){4, 8}, 2, (int[]){-2, -16}, tp_dp, 2, "TP",
           "TP has size -2: must be >= 1");
  WeftNetwork net = map_net(2, (int[]){4, 8});
  int out[2][WEFT_MAX_DIMS], sz[2] = {4, 8};
  WeftError e;
  CHECK_EQ_INT(weft_map_groups(NULL, sz, NULL, 2, out, &e), WEFT_EINVAL);
  CHECK_EQ_INT(weft_map_groups(&net, NULL, NULL, 2, out, &e), WEFT_EINVAL);
  CHECK_EQ_INT(weft_map_groups(&net, sz, NULL, 0, out, &e), WEFT_EINVAL);
  CHECK_EQ_INT(weft_map_groups(&net, sz, NULL, 2, NULL, NULL), WEFT_EINVAL);
}

static unsigned map_rand(unsigned long long *s, unsigned n) {  /* LCG, top bits */
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(*s >> 33) % n;
}

/* Random shapes, random group sizes whose product is N. Oracle: with prefix
 * products P_k of the sizes and Q_d of the dims, the mapping exists iff each
 * P_k and Q_d are comparable by divisibility, and then group k spans
 * min(P_k, Q_d) / max(P_{k-1}, Q_{d-1}) NPUs of dim d when that exceeds 1
 * (the overlap of the two index ranges in mixed radix). On success, also:
 * per dim the counts multiply to its size, per group to the group's size,
 * each group's dims are contiguous and no group starts inside an earlier
 * group's outer range. */
static void map_property(void) {
  static const int choice[] = {2, 3, 4, 5, 6, 8, 9, 12, 16};
  static const int primes[] = {2, 3, 5};
  static const char *const names[] = {"G1", "G2", "G3", "G4", "G5"};
  unsigned long long seed = 12345;
  int ok = 0, failed = 0;
  for (int trial = 0; trial < 4000; trial++) {
    int nd = 1 + (int)map_rand(&seed, 4), ng = 1 + (int)map_rand(&seed, 5);
    int shape[WEFT_MAX_DIMS], sizes[5];
    long long n = 1;
    for (int d = 0; d < nd; d++) n *= shape[d] = choice[map_rand(&seed, 9)];
    for (int k = 0; k < ng; k++) sizes[k] = 1;
    long long rest = n;  /* deal N's prime factors out to random groups */
    for (int i = 0; i < 3; i++)
      while (rest % primes[i] == 0) {
        rest /= primes[i];
        sizes[map_rand(&seed, (unsigned)ng)] *= primes[i];
      }
    WeftNetwork net = map_net(nd, shape);
    int out[5][WEFT_MAX_DIMS];
    WeftError e;
    int rc = weft_map_groups(&net, sizes, names, ng, out, &e);
    long long P[6], Q[WEFT_MAX_DIMS + 1];
    P[0] = Q[0] = 1;  /* shifted: P[k+1] = s_0 ... s_k */
    for (int k = 0; k < ng; k++) P[k + 1] = P[k] * sizes[k];
    for (int d = 0; d < nd; d++) Q[d + 1] = Q[d] * shape[d];
    int expect_ok = 1;
    for (int k = 1; k <= ng; k++)
      for (int d = 1; d <= nd; d++) expect_ok &= P[k] % Q[d] == 0 || Q[d] % P[k] == 0;
    CHECK_EQ_INT(rc, expect_ok ? WEFT_OK : WEFT_EINPUT);
    if (rc != WEFT_OK) {
      failed++;
      CHECK(strstr(e.msg, "does not factor over the dims") != NULL);
      CHECK(strncmp(e.msg, e.field, strlen(e.field)) == 0 && e.field[0] == 'G');
      continue;
    }
    ok++;
    int last = 0;  /* outermost dim used so far */
    for (int k = 0; k < ng; k++) {
      long long gp = 1;
      int first = -1, prev = -1;
      for (int d = 0; d < nd; d++) {
        long long lo = P[k] > Q[d] ? P[k] : Q[d], hi = P[k + 1] < Q[d + 1] ? P[k + 1] : Q[d + 1];
        int want = hi > lo ? (int)(hi / lo) : -1;
        CHECK_EQ_INT(out[k][d], want);
        if (out[k][d] == -1) continue;
        CHECK(out[k][d] >= 2);
        gp *= out[k][d];
        if (first < 0) first = d;
        CHECK(prev < 0 || prev == d - 1);  /* contiguous */
        prev = d;
      }
      CHECK_EQ_INT(gp, sizes[k]);
      if (first >= 0) {
        CHECK(first >= last);
        last = prev;
      }
    }
    for (int d = 0; d < nd; d++) {
      long long dp = 1;
      for (int k = 0; k < ng; k++) dp *= out[k][d] > 0 ? out[k][d] : 1;
      CHECK_EQ_INT(dp, shape[d]);
    }
    if (test_failures_) return;  /* one bad case is enough to read */
  }
  CHECK(ok > 1000 && failed > 200);  /* both branches were exercised */
}

/* ------------------------------------------------------------------ generator (helper "gen")
 * weft_generate. Models are built here (not read from data/zoo). Expected
 * values are worked out by hand in the comments from the formulas of
 * docs/zoo.md, or are closed forms (Megatron's FLOP counts, Korthikanti's
 * activation memory), or properties (compact = full in analytic time). */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

/* GPT-3 175B as in Narayanan et al. 2021: h 12288, 96 layers, 96 heads,
 * s 2048, V 51200 (padded), batch 1536; GeLU MLP 4h (biases, LayerNorm,
 * learned positions, tied output). */
static WeftModel gt_gpt3(void) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "gpt3-175b");
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = 1536;
  m.seq_len = 2048;
  m.layers = 96;
  m.hidden = 12288;
  m.heads = 96;
  m.kv_heads = 96;
  m.ffn_hidden = 4 * 12288;
  m.ffn_matrices = 2;
  m.vocab = 51200;
  m.attention_dropout = m.hidden_dropout = 0.1; /* Megatron's, in Korthikanti's count */
  return m;
}

/* peak 312 TFLOP/s, HBM in GiB (2^30 bytes). */
static WeftDevice gt_a100(double hbm_gib) {
  WeftDevice d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "a100");
  snprintf(d.title, sizeof d.title, "A100");
  d.peak_flops = 312e12;
  d.hbm_bytes = hbm_gib * 1073741824.0;
  d.hbm_bytes_per_s = 2.039e12;
  return d;
}

static WeftNetwork gt_net(int ndims, const int *npus) {
  static const WeftTopology topo[4] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_RING, WEFT_SWITCH};
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = ndims;
  for (int d = 0; d < ndims; d++) {
    net.npus[d] = npus[d];
    net.topology[d] = topo[d % 4];
    snprintf(net.cost_dim[d], sizeof net.cost_dim[d], "c");
  }
  return net;
}

static WeftNetwork gt_libra_net(void) { /* LIBRA's 4-dim network: 4 x 8 x 4 x 32 */
  static const int n[4] = {4, 8, 4, 32};
  return gt_net(4, n);
}

/* Analytic no-overlap iteration time at bw (weft_problem_evaluate). */
static double gt_time(const WeftNetwork *net, const WeftWorkload *wl, const WeftCommunicator *comm,
                      const double *bw) {
  return fx_eval_time(net, wl, comm, WEFT_LOOP_NO_OVERLAP, bw);
}

#define GT_PHASE(l, ph, comp, type, size, grp)          \
  do {                                                  \
    CHECK_NEAR((l)->phase[ph].compute_ns, comp, 0);     \
    CHECK_EQ_INT((l)->phase[ph].coll, type);            \
    CHECK_NEAR((l)->phase[ph].size_bytes, size, 0);     \
    CHECK_EQ_INT((l)->phase[ph].group, grp);            \
  } while (0)

/* Run weft_generate; rc expected. */
static int gt_gen(const WeftModel *m, const WeftDevice *dev, const WeftParallel *par,
                  const WeftNetwork *net, int compact, WeftWorkload *wl, WeftCommunicator *comm,
                  WeftGenInfo *info, WeftError *err) {
  int rc = weft_generate(m, dev, par, net, compact, wl, comm, info, err);
  if (rc && rc != WEFT_EMODEL) fprintf(stderr, "  weft_generate: %s\n", err->msg);
  return rc;
}

/* GPT-3 TP-16 DP-256 on LIBRA's network, micro-batch 1: m = 1536/256 = 6.
 * S = b*s*h*2 = 2048*12288*2 = 50,331,648 bytes; per iteration 6*S = 301,989,888.
 * Attention forward FLOPs per micro-batch 8bsh^2 + 4bs^2h
 *   = 8*2048*12288^2 + 4*2048^2*12288 = 2,473,901,162,496 + 206,158,430,208
 *   = 2,680,059,592,704; /16 = 167,503,724,544; x6 = 1,005,022,347,264 FLOPs
 *   at 312e12*0.5 FLOP/s: 6,442,450.94 ns -> 6,442,451.
 * MLP 16bsh^2 = 4,947,802,324,992; /16 x6 = 1,855,425,871,872 -> 11,893,755.59 -> 11,893,756.
 * Attention shard: (4h^2 + 4h)/16 + 2h (LayerNorm, replicated)
 *   = (603,979,776 + 49,152)/16 + 24,576 = 37,776,384 elements -> 75,552,768 bytes.
 * MLP shard: (8h^2 + 5h)/16 + 2h = (1,207,959,552 + 61,440)/16 + 24,576 = 75,525,888
 *   -> 151,051,776 bytes.
 * Embedding: V*h/16 + s*h = 39,321,600 + 25,165,824 = 64,487,424 -> 128,974,848 bytes.
 * Logits (tied): the final LayerNorm 2h = 24,576 -> 49,152 bytes; compute
 *   2bshV/16 x6 = 966,367,641,600 FLOPs -> 6,194,664.37 -> 6,194,664 ns. */
static void gen_gpt3_libra(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1000);
  WeftNetwork net = gt_libra_net();
  WeftParallel par;
  weft_parallel_default(&par);
  par.ddp_bucket_params = 1; /* a bucket per layer entry, as derived by hand (docs/zoo.md) */
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 16;
  par.dp = 256;
  par.optimizer_step = 0; /* LIBRA's workload has none */
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  static const int tp[4] = {4, 4, -1, -1}, dp[4] = {-1, 2, 4, 32};  /* LIBRA's GPT_3_4d */
  CHECK_EQ_INT(comm.ndims, 4);
  for (int d = 0; d < 4; d++) {
    CHECK_EQ_INT(comm.group[WEFT_PHASE_FWD][d], tp[d]);
    CHECK_EQ_INT(comm.group[WEFT_PHASE_IG][d], tp[d]);
    CHECK_EQ_INT(comm.group[WEFT_PHASE_WG][d], dp[d]);
  }
  CHECK_EQ_INT(comm.nextra, 0);
  CHECK_EQ_INT(wl->ngroups, 0);
  CHECK(!strcmp(wl->policy, "HYBRID_TRANSFORMER model_parallel_NPU_group: 16"));
  CHECK_EQ_INT(wl->nlayers, 1 + 2 * 96 + 1);
  CHECK(!strcmp(wl->layers[0].name, "embedding") && !strcmp(wl->layers[193].name, "logits"));
  const double S6 = 301989888, attn_ns = 6442451, mlp_ns = 11893756;
  for (int i = 1; i <= 96; i += 95) {
    char name[32];
    snprintf(name, sizeof name, "L%d.attn", i);
    const WeftLayer *a = fx_layer(wl, name);
    GT_PHASE(a, WEFT_PHASE_FWD, attn_ns, WEFT_COLL_ALLREDUCE, S6, 0);
    GT_PHASE(a, WEFT_PHASE_IG, attn_ns, WEFT_COLL_ALLREDUCE, S6, 0);
    GT_PHASE(a, WEFT_PHASE_WG, attn_ns, WEFT_COLL_ALLREDUCE, 75552768, 0);
    snprintf(name, sizeof name, "L%d.mlp", i);
    const WeftLayer *f = fx_layer(wl, name);
    GT_PHASE(f, WEFT_PHASE_FWD, mlp_ns, WEFT_COLL_ALLREDUCE, S6, 0);
    GT_PHASE(f, WEFT_PHASE_IG, mlp_ns, WEFT_COLL_ALLREDUCE, S6, 0);
    GT_PHASE(f, WEFT_PHASE_WG, mlp_ns, WEFT_COLL_ALLREDUCE, 151051776, 0);
  }
  const WeftLayer *e = fx_layer(wl, "embedding");
  GT_PHASE(e, WEFT_PHASE_FWD, 0, WEFT_COLL_ALLREDUCE, S6, 0);
  GT_PHASE(e, WEFT_PHASE_IG, 0, WEFT_COLL_NONE, 0, 0);
  GT_PHASE(e, WEFT_PHASE_WG, 0, WEFT_COLL_ALLREDUCE, 128974848, 0);
  const WeftLayer *lg = fx_layer(wl, "logits");
  GT_PHASE(lg, WEFT_PHASE_FWD, 6194664, WEFT_COLL_NONE, 0, 0);
  GT_PHASE(lg, WEFT_PHASE_IG, 6194664, WEFT_COLL_ALLREDUCE, S6, 0);
  GT_PHASE(lg, WEFT_PHASE_WG, 6194664, WEFT_COLL_ALLREDUCE, 49152, 0);
  /* Megatron (Narayanan et al. 2021, eq. 3): 72*B*s*l*h^2*(1 + s/(6h) + V/(12lh)). */
  double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
  CHECK_NEAR(info.model_flops, 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h)),
             1e-12);
  CHECK_NEAR(info.hw_flops, info.model_flops, 1e-15);
  CHECK_EQ_INT(info.microbatches, 6);
  CHECK_EQ_INT(info.layers_per_stage, 96);
  CHECK_NEAR(info.bubble_fraction, 0, 0);
  CHECK_NEAR(info.samples, 1536, 0);
  CHECK_NEAR(info.tokens, 1536.0 * 2048, 0);
  /* The per-layer compute summed (ns) equals model FLOPs / cluster / rate up to
   * rounding: 3*model_flops/(4096 NPUs * 156e12) s; 194 entries x 3 phases
   * of rounding, each < 0.5 ns. Dividing the whole cluster's FLOPs by 4096
   * holds because TP divides exactly and DP splits the batch. */
  double sum = 0;
  for (int i = 0; i < wl->nlayers; i++)
    for (int ph = 0; ph < 3; ph++) sum += wl->layers[i].phase[ph].compute_ns;
  CHECK(fabs(sum - info.model_flops / 4096 / 156e12 * 1e9) <= 194 * 3 * 0.5);
  weft_workload_free(wl);
}

/* Tiny model, every entry by hand. 2 layers, h 4, s 2, 2 heads, V 8, ffn 16
 * (GeLU), batch 4; TP-2 x DP-2 on a 2 x 2 ring network; peak 2e9 x 0.5 = 1e9
 * FLOP/s (1 FLOP = 1 ns). b = 1, m = 4/(2*1) = 2, S = b*s*h*2 = 16 bytes.
 * attention FLOPs 2bsh(h+2kv) + 4bs^2h + 2bsh^2 = 192 + 64 + 64 = 320;
 *   /tp x m = 320 ns. MLP 2bsh*ffn*2 = 512 -> 512 ns. logits 2bshV = 128 -> 128 ns.
 * attention shard (2h^2 + 2h*kv + 2h + 2kv)/2 + 2h = 80/2 + 8 = 48 -> 96 bytes;
 * MLP (2*h*ffn + ffn + h)/2 + 2h = 148/2 + 8 = 82 -> 164 bytes;
 * embedding V*h/2 + s*h = 16 + 8 = 24 -> 48 bytes; logits (tied): 2h = 8 -> 16 bytes.
 * TP all-reduces: 2 micro-batches x 16 = 32 bytes. */
static void gen_tiny_by_hand(void) {
  WeftModel m = fx_tiny(2, 2, 4);
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[2] = {2, 2};
  WeftNetwork net = gt_net(2, n);
  WeftParallel par;
  weft_parallel_default(&par);
  par.ddp_bucket_params = 1; /* a bucket per layer entry, as derived by hand (docs/zoo.md) */
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 2;
  par.dp = 2;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK(comm.group[0][0] == 2 && comm.group[0][1] == -1 && comm.group[2][0] == -1 &&
        comm.group[2][1] == 2);
  enum { NO = WEFT_COLL_NONE, AR = WEFT_COLL_ALLREDUCE };
  static const struct {
    const char *name;
    double c[3];
    int t[3];
    double s[3];
  } want[7] = {
      {"embedding", {0, 0, 0}, {AR, NO, AR}, {32, 0, 48}},
      {"L1.attn", {320, 320, 320}, {AR, AR, AR}, {32, 32, 96}},
      {"L1.mlp", {512, 512, 512}, {AR, AR, AR}, {32, 32, 164}},
      {"L2.attn", {320, 320, 320}, {AR, AR, AR}, {32, 32, 96}},
      {"L2.mlp", {512, 512, 512}, {AR, AR, AR}, {32, 32, 164}},
      {"logits", {128, 128, 128}, {NO, AR, AR}, {0, 32, 16}},
      /* the optimizer step: 292 elements (below) x (2 grad + 2 x 12 states
       * + 2 param) bytes = 8176 bytes at 1 byte/ns */
      {"optimizer", {0, 0, 8176}, {NO, NO, NO}, {0, 0, 0}},
  };
  CHECK_EQ_INT(wl->nlayers, 7);
  for (int i = 0; i < 7 && i < wl->nlayers; i++) {
    CHECK(!strcmp(wl->layers[i].name, want[i].name));
    for (int ph = 0; ph < 3; ph++)
      GT_PHASE(&wl->layers[i], ph, want[i].c[ph], want[i].t[ph], want[i].s[ph], 0);
  }
  /* Time at B = [1, 1] GB/s: compute 2*(3*320 + 3*512) + 3*128 = 5376 ns;
   * TP all-reduces on [2, -1]: 2*S*(1/2) = S per byte on dim 1, 10 of 32
   * bytes = 320 ns; DP all-reduces on [-1, 2]: 48 + 2*(96 + 164) + 16 = 584 ns;
   * the optimizer step 8176 ns. Total 14456 ns. */
  static const double bw[2] = {1, 1};
  CHECK_NEAR(gt_time(&net, wl, &comm, bw), 14456, 1e-12);
  CHECK_NEAR(info.optimizer_ns, 8176, 1e-12);
  /* Calls: a TP all-reduce per micro-batch (2) and pass, one DP all-reduce
   * per iteration. With 100 ns per step on dim 1 (2 steps per all-reduce of
   * 2 NPUs): 20 TP calls (embedding 2, 4 sub-blocks x (2 + 2), logits 2)
   * x 200 ns = 4000 ns more. */
  static const double calls[7][3] = {{2, 0, 1}, {2, 2, 1}, {2, 2, 1}, {2, 2, 1},
                                     {2, 2, 1}, {0, 2, 1}, {0, 0, 0}};
  for (int i = 0; i < 7 && i < wl->nlayers; i++)
    for (int ph = 0; ph < 3; ph++)
      if (wl->layers[i].phase[ph].coll != WEFT_COLL_NONE)
        CHECK_NEAR(wl->layers[i].phase[ph].calls, calls[i][ph], 0);
  net.latency_ns[0] = 100;
  CHECK_NEAR(gt_time(&net, wl, &comm, bw), 14456 + 4000, 1e-12);
  net.latency_ns[0] = 0;
  /* Megatron's count: 72*B*s*l*h^2*(1 + s/(6h) + V/(12lh))
   * = 72*4*2*2*16*(1 + 1/12 + 1/12) = 21504. */
  CHECK_NEAR(info.model_flops, 21504, 1e-12);
  /* Memory: 2*(48 + 82) + 24 + 8 = 292 elements: params 584, grads 584,
   * optimizer 12*292 = 3504 bytes. Activations per layer (Korthikanti, t = 2):
   * sbh(10 + 24/t) + 5as^2b/t = 8*22 + 5*2*4/2 = 196 bytes; 2 layers x 1 micro-batch,
   * + the fp32 logits b s V / t x 4 = 2*8/2*4 = 32 bytes. */
  CHECK_NEAR(info.mem.params_bytes, 584, 1e-12);
  CHECK_NEAR(info.mem.grads_bytes, 584, 1e-12);
  CHECK_NEAR(info.mem.optimizer_bytes, 3504, 1e-12);
  CHECK_NEAR(info.mem.activations_bytes, 392 + 32, 1e-12);
  CHECK_NEAR(info.mem.total_bytes, 584 + 584 + 3504 + 424, 1e-12);
  CHECK_NEAR(info.mem.capacity_bytes, 1e12, 0);
  CHECK(info.mem.fits);
  /* DP-4 (no TP): each NPU holds the whole model, as weft_model_params
   * counts it (the zoo's convention: GeLU models with biases, LayerNorm,
   * learned positions, tied output): 2*(80 + 148 + 2*8) + 8*4 + 2*4 + 8 = 536. */
  par.tp = 1;
  par.dp = 4;
  m.global_batch = 8;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.mem.params_bytes / 2, 536, 1e-12);
  CHECK_NEAR(info.mem.params_bytes / 2, weft_model_params(&m), 1e-12);
  weft_workload_free(wl);
}

/* The family's traits (zoo_family.c) in the generator: for every mix of
 * biases, norm, positions and tied output, a DP-only NPU holds the whole
 * model as weft_model_params counts it (the tiny GeLU model, h 4, V 8, s
 * 2, 1 layer); turning the tie off adds the output layer, V h = 32. The
 * per-operator layer: rotary positions add the fused RoPE kernels, learned
 * ones the table's read to the embedding (2 -> 3 tensors of b s h). */
static void gen_family_traits(void) {
  WeftModel m = fx_tiny(2, 1, 4);
  m.attention_dropout = m.hidden_dropout = 0;
  FxRun r;
  fx_run_init(&r, 4, 1e15);
  double tied = 0;
  for (int mix = 0; mix < 16; mix++) {
    m.linear_bias = mix & 1 ? -1 : 0;
    m.layernorm = mix & 2 ? -1 : 0;
    m.rotary = mix & 4 ? 1 : 0;
    m.tied_embeddings = mix & 8 ? -1 : 0;
    CHECK_EQ_INT(fx_run(&r, &m), WEFT_OK);
    CHECK_NEAR(r.info.mem.params_bytes / 2, weft_model_params(&m), 1e-9);
    if (mix == 0) tied = weft_model_params(&m);
    if (mix == 8) CHECK_NEAR(weft_model_params(&m) - tied, 8 * 4, 0);
  }
  OcLayer l;
  OcOp ops[OC_MAX_OPS];
  m.rotary = 1;
  weft_opcost_layer(&m, &r.par, &l);
  int k = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  CHECK(oc_find(ops, k, "rope_q", WEFT_PHASE_FWD, 0) != NULL);
  k = weft_opcost_ops(&l, OC_EMB, ops, OC_MAX_OPS);
  CHECK_NEAR(oc_need(ops, k, "embedding", WEFT_PHASE_FWD)->bytes, 2 * 2 * 4 * 2, 0);
  m.rotary = -1;
  weft_opcost_layer(&m, &r.par, &l);
  k = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  CHECK(oc_find(ops, k, "rope_q", WEFT_PHASE_FWD, 0) == NULL);
  k = weft_opcost_ops(&l, OC_EMB, ops, OC_MAX_OPS);
  CHECK_NEAR(oc_need(ops, k, "embedding", WEFT_PHASE_FWD)->bytes, 3 * 2 * 4 * 2, 0);
  fx_run_free(&r);
}

/* An eager SwiGLU (activation_fusion off) keeps silu's output for the
 * product's backward: one tensor of the FFN width more a layer, 2 bytes x
 * s b f = 2 x 2 x 1 x 16 = 64 on the tiny model made SwiGLU (1 layer, one
 * micro-batch in flight); nothing changes for GeLU, whose eager kernels
 * keep what the fused one does. */
static void gen_eager_activation_memory(void) {
  WeftModel m = fx_tiny(2, 1, 1);
  FxRun r;
  fx_run_init(&r, 1, 1e15);
  for (int fm = 2; fm <= 3; fm++) {
    m.ffn_matrices = fm;
    double act[2];
    for (int eager = 0; eager <= 1; eager++) {
      r.par.activation_eager = eager;
      CHECK_EQ_INT(fx_run(&r, &m), WEFT_OK);
      act[eager] = r.info.mem.activations_bytes;
    }
    CHECK_NEAR(act[1] - act[0], fm == 3 ? 64 : 0, 1e-9);
  }
  fx_run_free(&r);
}

/* Compact and full workloads have the same analytic time, for a spread of
 * configurations (pp, sp, ZeRO, recompute, MoE). */
static void gen_compact_same_time(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1e6);
  WeftNetwork net = gt_libra_net();
  static const struct {
    int tp, pp, dp, sp, zero, rc, mb;
  } cfg[] = {{16, 1, 256, 0, 0, 0, 1}, {16, 4, 64, 1, 1, 0, 2}, {8, 8, 64, 0, 3, 1, 1},
             {32, 2, 64, 1, 2, 1, 4}, {8, 1, 512, 0, 0, 0, 1}};
  static const double bw[4] = {400, 200, 100, 25};
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    WeftParallel par;
    weft_parallel_default(&par);
    par.merged_backward = 1; /* whole layers, as derived by hand */
    par.tp = cfg[i].tp;
    par.pp = cfg[i].pp;
    par.dp = cfg[i].dp;
    par.sequence_parallel = cfg[i].sp;
    par.zero_stage = cfg[i].zero;
    par.recompute = cfg[i].rc;
    par.micro_batch = cfg[i].mb;
    WeftWorkload *full = weft_workload_create(), *cmp = weft_workload_create();
    WeftCommunicator cf, cc;
    WeftGenInfo inf, inc;
    WeftError err;
    CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, full, &cf, &inf, &err), WEFT_OK);
    CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, cmp, &cc, &inc, &err), WEFT_OK);
    CHECK(cmp->nlayers <= 12 && full->nlayers >= 96 / cfg[i].pp * 2);
    double tf = gt_time(&net, full, &cf, bw), tc = gt_time(&net, cmp, &cc, bw);
    CHECK(tf > 0);
    CHECK_NEAR(tc, tf, 1e-12);
    /* with a latency per step, merged entries keep every call's latency */
    for (int d = 0; d < 4; d++) net.latency_ns[d] = 1000.0 * (d + 1);
    double lf = gt_time(&net, full, &cf, bw), lc = gt_time(&net, cmp, &cc, bw);
    for (int d = 0; d < 4; d++) net.latency_ns[d] = 0.0;
    CHECK(lf > tf);
    CHECK_NEAR(lc, lf, 1e-12);
    /* field by field: the struct has padding, which memcmp would read */
    CHECK(inf.microbatches == inc.microbatches && inf.layers_per_stage == inc.layers_per_stage);
    CHECK(inf.bubble_fraction == inc.bubble_fraction && inf.samples == inc.samples);
    CHECK(inf.tokens == inc.tokens && inf.model_flops == inc.model_flops);
    CHECK(inf.hw_flops == inc.hw_flops && inf.mem.total_bytes == inc.mem.total_bytes);
    CHECK(inf.mem.activations_bytes == inc.mem.activations_bytes && inf.mem.fits == inc.mem.fits);
    /* Every compute time and size is a whole number (the text form is exact). */
    for (int l = 0; l < full->nlayers; l++)
      for (int ph = 0; ph < 3; ph++) {
        CHECK(full->layers[l].phase[ph].compute_ns == floor(full->layers[l].phase[ph].compute_ns));
        CHECK(full->layers[l].phase[ph].size_bytes == floor(full->layers[l].phase[ph].size_bytes));
      }
    weft_workload_free(full);
    weft_workload_free(cmp);
  }
}

/* GPT-3 TP-16 PP-4 DP-64 with v chunks a stage, whole layers (as derived by
 * hand): gen_pipeline's, gen_interleaved's and gen_ga_steps' parallelization. */
static WeftParallel gpt3_pp4(int v) {
  WeftParallel par;
  weft_parallel_default(&par);
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 16;
  par.pp = 4;
  par.dp = 64;
  par.virtual_stages = v;
  return par;
}

/* Pipeline: TP-16 x PP-4 x DP-64 on 4 x 8 x 4 x 32: TP [4,4,-1,-1], PP takes
 * the other 2 of dim 2 and 2 of dim 3: [-1,2,2,-1], DP [-1,-1,2,32].
 * m = 1536/64 = 24. The last stage (layers 73..96 + logits) is the slowest;
 * the three before it take W each (forward + backward of 24 layers), it takes
 * W_L = W + the logits'. 1F1B: the first forward reaches it after the others'
 * forwards, it never waits after that, and the last backward returns through
 * the others: T = 3 W + m W_L, so its work repeats R = T / W_L = 24 + 3 W/W_L
 * times (W/W_L = 24 x 7,627,861,917,696 / (that + 2,576,980,377,600) forward
 * FLOPs). SENDRECV of b*s*h*2/tp = 3,145,728 x R; forward AR R x 50,331,648;
 * DP gradients once (75,552,768 for attention as with pp = 1); logits hold an
 * embedding copy: (V*h/16 + 2h)*2 = (39,321,600 + 24,576)*2 = 78,692,352, and
 * its gradient V*h/16*2 = 78,643,200 bytes is all-reduced with the first
 * stage's over "emb" (2 NPUs on dim 3, the outermost PP dim). */
static void gen_pipeline(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1000);
  WeftNetwork net = gt_libra_net();
  WeftParallel par = gpt3_pp4(1);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  static const int pp[4] = {-1, 2, 2, -1}, dp[4] = {-1, -1, 2, 32};
  const double W = 24 * 7627861917696.0, R = 24 + 3 * W / (W + 2576980377600.0);
  const double sr = round(R * 3145728);
  int g = fx_group(wl, "pp"), ge = fx_group(wl, "emb");
  CHECK_EQ_INT(wl->ngroups, 2);
  CHECK_EQ_INT(g, 1);
  CHECK_EQ_INT(ge, 2);
  const int *eg = weft_communicator_find(&comm, "emb");
  CHECK(eg && eg[0] == -1 && eg[1] == -1 && eg[2] == 2 && eg[3] == -1);
  CHECK_NEAR(info.pipeline_repeats, R, 1e-12);
  CHECK_EQ_INT(info.critical_stage, 3);
  CHECK_EQ_INT(info.memory_stage, 0);
  const int *ppg = weft_communicator_find(&comm, "pp");
  CHECK(ppg != NULL);
  for (int d = 0; d < 4 && ppg; d++) CHECK_EQ_INT(ppg[d], pp[d]);
  for (int d = 0; d < 4; d++) CHECK_EQ_INT(comm.group[WEFT_PHASE_WG][d], dp[d]);
  CHECK_EQ_INT(wl->nlayers, 1 + 2 * 24 + 2 + 1); /* + logits.2 (emb) + optimizer */
  const WeftLayer *p = fx_layer(wl, "pipeline");
  GT_PHASE(p, WEFT_PHASE_FWD, 0, WEFT_COLL_SENDRECV, sr, g);
  GT_PHASE(p, WEFT_PHASE_IG, 0, WEFT_COLL_SENDRECV, sr, g);
  GT_PHASE(p, WEFT_PHASE_WG, 0, WEFT_COLL_NONE, 0, 0);
  CHECK_NEAR(p->phase[WEFT_PHASE_FWD].calls, R, 1e-12); /* a send per stage step */
  CHECK_NEAR(fx_layer(wl, "L73.attn")->phase[WEFT_PHASE_FWD].calls, R, 1e-12);
  CHECK_NEAR(fx_layer(wl, "L73.attn")->phase[WEFT_PHASE_WG].calls, 1, 0);
  /* attention compute: 167,503,724,544 FLOPs x R / 156e12 */
  const double attn_ns = round(R * 167503724544.0 / 156e12 * 1e9);
  const WeftLayer *a = fx_layer(wl, "L73.attn");
  GT_PHASE(a, WEFT_PHASE_FWD, attn_ns, WEFT_COLL_ALLREDUCE, round(R * 50331648), 0);
  GT_PHASE(a, WEFT_PHASE_WG, attn_ns, WEFT_COLL_ALLREDUCE, 75552768, 0);
  fx_layer(wl, "L96.mlp");
  /* logits 2bshV/16 = 161,061,273,600 FLOPs x R / 156e12 */
  const double lg_ns = round(R * 161061273600.0 / 156e12 * 1e9);
  GT_PHASE(fx_layer(wl, "logits"), WEFT_PHASE_WG, lg_ns, WEFT_COLL_ALLREDUCE, 78692352, 0);
  GT_PHASE(fx_layer(wl, "logits.2"), WEFT_PHASE_WG, 0, WEFT_COLL_ALLREDUCE, 78643200, ge);
  CHECK_EQ_INT(info.microbatches, 24);
  CHECK_EQ_INT(info.layers_per_stage, 24);
  CHECK_NEAR(info.bubble_fraction, (R - 24) / 24, 1e-15);
  /* Memory: the first stage (4 micro-batches in flight, 1F1B) is the larger:
   * 24 layers x (37,776,384 + 75,525,888) + embedding 64,487,424 = 2,783,741,952
   * elements; activations 24 x 4 x sbh(10 + 24/16 + 5as/(ht)) with
   * sbh = 25,165,824, 5as/(ht) = 5*96*2048/(12288*16) = 5: 415,236,096 per
   * layer -> 39,862,665,216 bytes. */
  CHECK_NEAR(info.mem.params_bytes, 2783741952.0 * 2, 1e-12);
  CHECK_NEAR(info.mem.optimizer_bytes, 2783741952.0 * 12, 1e-12);
  CHECK_NEAR(info.mem.activations_bytes, 39862665216.0, 1e-12);
  /* Time of the pipeline entry alone at B: SENDRECV puts the 2 x 84,934,656
   * bytes on dims 2 and 3 (the ones PP spans): max(S/B2, S/B3). Checked as
   * the difference against the same workload without it. */
  static const double bw[4] = {400, 200, 100, 25};
  double t = gt_time(&net, wl, &comm, bw);
  wl->layers[0].phase[0].coll = wl->layers[0].phase[1].coll = WEFT_COLL_NONE;
  double t0 = gt_time(&net, wl, &comm, bw);
  CHECK_NEAR(t - t0, 2 * sr / 100, 1e-9);
  weft_workload_free(wl);
}

/* Gradient accumulation under a pipeline (ga_steps; docs/zoo.md): gen_pipeline's
 * GPT-3 TP-16 PP-4 DP-64, m = 24, as ga schedules of 24 / ga micro-batches one
 * after another: each fills and drains, so the stage's work repeats ga (24 /
 * ga + 3 W / W_L) times (ga 1: 24 + 3 W / W_L; ga 2: 24 + 6 W / W_L); with
 * 2 chunks (gen_interleaved's 24 + 3/2 = 25.5), ga 2: 2 (12 + 3/2) = 27, ga 3:
 * 3 (8 + 3/2) = 28.5. The first stage holds min(pp, 24 / ga) micro-batches
 * in flight: ga 8 (3 a schedule) keeps 3/4 of ga 1's activations; the
 * micro-batches an iteration stay 24. Refused, naming the field: ga 5 (24
 * micro-batches do not split in 5), and with 2 chunks ga 4 (pp 4 does not
 * divide its schedules' 6: naming virtual_stages). */
static void gen_ga_steps(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1000);
  WeftNetwork net = gt_libra_net();
  WeftParallel par = gpt3_pp4(1);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  const double W = 24 * 7627861917696.0, r = W / (W + 2576980377600.0);
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.pipeline_repeats, 24 + 3 * r, 1e-12);
  double act1 = info.mem.activations_bytes;
  par.ga_steps = 2;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.pipeline_repeats, 24 + 6 * r, 1e-12);
  CHECK_EQ_INT(info.microbatches, 24);
  CHECK_NEAR(info.mem.activations_bytes, act1, 0);
  par.ga_steps = 8;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.pipeline_repeats, 8 * (3 + 3 * r), 1e-12);
  CHECK_NEAR(info.mem.activations_bytes, act1 * 3 / 4, 1e-3);
  par.ga_steps = 5;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "ga_steps") && strstr(err.msg, "24 micro-batches"));
  par.virtual_stages = 2;
  static const double want[4] = {25.5, 27, 28.5, 0};
  for (int ga = 1; ga <= 3; ga++) {
    par.ga_steps = ga;
    CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
    CHECK_NEAR(info.pipeline_repeats, want[ga - 1], 1e-12);
  }
  par.ga_steps = 4;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "virtual_stages"));
  weft_workload_free(wl);
}

/* Interleaved 1F1B, GPT-3 TP-16 PP-4 DP-64 with 2 chunks per stage: m = 24,
 * the stage's work repeats m + (pp-1)/v = 24 + 3/2 = 25.5 times (plain 1F1B:
 * 27) and each micro-batch crosses v = 2 times as many stage boundaries.
 * SENDRECV: 25.5 x 2 x S/16 = 51 x 3,145,728 = 160,432,128 bytes.
 * Attention compute: 167,503,724,544 x 25.5 = 4,271,344,975,872 FLOPs at
 * 156e12 FLOP/s = 27,380,416.51 ns -> 27,380,417. Its TP all-reduce:
 * 25.5 x 50,331,648 = 1,283,457,024 bytes. Bubble (pp-1)/(v m) = 3/48. */
static void gen_interleaved(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1000);
  WeftNetwork net = gt_libra_net();
  WeftParallel def;
  weft_parallel_default(&def);
  CHECK_EQ_INT(def.virtual_stages, 1);
  WeftParallel par = gpt3_pp4(2);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  int g = fx_group(wl, "pp");
  /* Megatron's P2P overlap (on by default with interleaving): of the 51
   * transfers each way the first receive blocks (3,145,728 bytes), the other
   * 50 (157,286,400) run under 50/51 of the stage's forward (backward)
   * compute: every layer entry's but the optimizer step's. */
  const WeftLayer *p = fx_layer(wl, "pipeline"), *p2 = fx_layer(wl, "pipeline.2");
  GT_PHASE(p, WEFT_PHASE_FWD, 0, WEFT_COLL_SENDRECV, 3145728, g);
  GT_PHASE(p, WEFT_PHASE_IG, 0, WEFT_COLL_SENDRECV, 3145728, g);
  GT_PHASE(p2, WEFT_PHASE_FWD, 0, WEFT_COLL_SENDRECV, 157286400, g);
  GT_PHASE(p2, WEFT_PHASE_IG, 0, WEFT_COLL_SENDRECV, 157286400, g);
  double fwd = 0.0, bwd = 0.0;
  for (int i = 0; i < wl->nlayers; i++)
    if (strcmp(wl->layers[i].name, "optimizer")) {
      fwd += wl->layers[i].phase[WEFT_PHASE_FWD].compute_ns;
      bwd += wl->layers[i].phase[WEFT_PHASE_IG].compute_ns +
             wl->layers[i].phase[WEFT_PHASE_WG].compute_ns;
    }
  /* within the entries' rounding to whole ns (at most 0.5 ns each) */
  CHECK_NEAR(p2->phase[WEFT_PHASE_FWD].overlap_ns, 50.0 / 51 * fwd, 1e-8);
  CHECK_NEAR(p2->phase[WEFT_PHASE_IG].overlap_ns, 50.0 / 51 * bwd, 1e-8);
  CHECK_NEAR(p->phase[WEFT_PHASE_FWD].overlap_ns, 0.0, 0);
  par.overlap_p2p = 0; /* all 51 block, in one entry */
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  p = fx_layer(wl, "pipeline");
  GT_PHASE(p, WEFT_PHASE_FWD, 0, WEFT_COLL_SENDRECV, 160432128, g);
  GT_PHASE(p, WEFT_PHASE_IG, 0, WEFT_COLL_SENDRECV, 160432128, g);
  CHECK(fx_find_layer(wl, "pipeline.2") == NULL);
  const WeftLayer *a = fx_layer(wl, "L73.attn");
  GT_PHASE(a, WEFT_PHASE_FWD, 27380417, WEFT_COLL_ALLREDUCE, 1283457024, 0);
  CHECK_NEAR(info.bubble_fraction, 3.0 / 48, 1e-15);
  /* 5 chunks: 4 x 5 = 20 does not divide 96 layers */
  par.virtual_stages = 5;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "virtual_stages"));
  /* no pipeline, nothing to interleave */
  par.virtual_stages = 2;
  par.pp = 1;
  par.dp = 256;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  weft_workload_free(wl);
}

/* DualPipe, GPT-3 TP-16 PP-4 DP-64 (m = 24), flat 0.5 x 312 TFLOP/s. Per
 * layer and micro-batch: forward f = 167,503,724,544 (attention) +
 * 309,237,645,312 (MLP) = 476,741,369,856 FLOPs, of which the weights' part
 * (all but the score and context GEMMs, 4 b s^2 h / 16 = 12,884,901,888) is
 * w = 463,856,467,968. A stage of 24 layers: F_s = 11,441,792,876,544,
 * B_s = 2 F_s, W_s = 11,132,555,231,232; the last stage adds the logits
 * Lg = 161,061,273,600 forward (2 Lg backward, Lg of weights). Rank 0 runs
 * stages 0 and 3, rank 1 stages 1 and 2: rank 0 is the busier, with
 * F = F_s + Lg/2, B = 2 F_s + Lg, W = W_s + Lg/2, its work 24 (F + B) and
 * bubble (4/2 - 1)(F + 2B - 3W) = 5 F_s - 3 W_s + Lg. R is that over the
 * slowest stage's (the last's) 3 F_s + 3 Lg. Memory, rank 0: stages 0 and 3,
 * 2 x 24 x 113,302,272 elements + the embedding 64,487,424 + the tied copy
 * and final norm 39,346,176 = 5,542,342,656; ZeRO-1 shards the optimizer
 * over 2 x 64 ranks (rank 3 holds the same stages); activations of pp + 1 =
 * 5 micro-batches of 24 layers (415,236,096 bytes each, gen_pipeline) and
 * the logits' fp32 copy 4 x 2048 x 51200 / 16 = 26,214,400. */
static void gen_dualpipe(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1000);
  WeftNetwork net = gt_libra_net();
  WeftParallel par;
  weft_parallel_default(&par);
  par.merged_backward = 1; /* whole layers, as derived by hand */
  CHECK_EQ_INT(par.schedule, WEFT_SCHEDULE_1F1B);
  par.tp = 16;
  par.pp = 4;
  par.dp = 64;
  par.zero_stage = 1;
  par.schedule = WEFT_SCHEDULE_DUALPIPE;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  const double Fs = 11441792876544.0, Ws = 11132555231232.0, Lg = 161061273600.0;
  const double work = 24 * (3 * Fs + 1.5 * Lg), bubble = 5 * Fs - 3 * Ws + Lg;
  const double R = (work + bubble) / (3 * Fs + 3 * Lg);
  CHECK_NEAR(info.pipeline_repeats, R, 1e-12);
  CHECK_NEAR(info.bubble_fraction, bubble / work, 1e-12);
  CHECK(info.bubble_fraction < 3.0 / 24 / 2); /* under half of 1F1B's (pp-1)/m */
  CHECK_EQ_INT(info.critical_stage, 3);
  const double attn_ns = round(R * 167503724544.0 / 156e12 * 1e9);
  CHECK_NEAR(fx_layer(wl, "L73.attn")->phase[WEFT_PHASE_FWD].compute_ns, attn_ns, 0);
  CHECK_EQ_INT(info.memory_stage, 0);
  CHECK_NEAR(info.mem.params_bytes, 5542342656.0 * 2, 1e-12);
  CHECK_NEAR(info.mem.grads_bytes, 5542342656.0 * 2, 1e-12);
  CHECK_NEAR(info.mem.optimizer_bytes, 5542342656.0 * 12 / 128, 1e-12);
  CHECK_NEAR(info.mem.activations_bytes, 5 * 24 * 415236096.0 + 26214400.0, 1e-12);
  /* pp = 2: no bubble, and rank 0 runs both stages for half the micro-batches
   * each: the whole model's compute per micro-batch over 2, as pp = 1 runs it
   * (the tied copy's compute is none; only the layout differs). */
  par.pp = 2;
  par.dp = 128;
  par.zero_stage = 0;
  m.global_batch = 1536; /* m = 12 >= 2 pp */
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.bubble_fraction, 0, 0);
  const double whole = 96 * 3 * 476741369856.0 + 3 * Lg; /* fwd + bwd per micro-batch */
  CHECK_NEAR(info.pipeline_repeats * (48 * 3 * 476741369856.0 + 3 * Lg), 12 * whole / 2, 1e-9);
  /* refused: no pipeline (pp 1), too few (7 < 2 pp) and odd micro-batches, interleaving */
  static const struct { int pp, dp, vp, batch; } bad[] = {
      {1, 256, 1, 1536}, {4, 64, 1, 448}, {4, 64, 2, 1536}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    par.pp = bad[i].pp;
    par.dp = bad[i].dp;
    par.virtual_stages = bad[i].vp;
    m.global_batch = bad[i].batch;
    CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
    CHECK(!strcmp(err.field, "schedule"));
  }
  par.virtual_stages = 1;
  par.schedule = 7;
  par.pp = 4;
  m.global_batch = 1536;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINVAL);
  int kind = -1;
  CHECK_EQ_INT(weft_schedule_parse("dualpipe", &kind, &err), WEFT_OK);
  CHECK_EQ_INT(kind, WEFT_SCHEDULE_DUALPIPE);
  CHECK(!strcmp(weft_schedule_name(kind), "dualpipe"));
  CHECK_EQ_INT(weft_schedule_parse("DualPipe", &kind, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "schedule"));
  weft_workload_free(wl);
}

/* Sequence parallelism: with pp > 1 (no embedding on the critical stage) the
 * traffic is the same as without (AR = RS + AG per dim in LIBRA's model)
 * while the entries differ; with pp = 1 SP saves the embedding's all-gather:
 * the forward reduce-scatter replaces its all-reduce. */
static void gen_seq_parallel(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1e6);
  WeftNetwork net = gt_libra_net();
  static const double bw[4] = {400, 200, 100, 25};
  for (int pp = 1; pp <= 2; pp++) {
    WeftParallel par;
    weft_parallel_default(&par);
    par.merged_backward = 1; /* whole layers, as derived by hand */
    par.tp = 16;
    par.pp = pp;
    par.dp = 256 / pp;
    WeftWorkload *a = weft_workload_create(), *b = weft_workload_create();
    WeftCommunicator ca, cb;
    WeftGenInfo ia, ib;
    WeftError err;
    CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, a, &ca, &ia, &err), WEFT_OK);
    par.sequence_parallel = 1;
    CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, b, &cb, &ib, &err), WEFT_OK);
    int Ls = 96 / pp;
    /* + optimizer; pp = 2: + logits.2 (the tied embedding's all-reduce) */
    CHECK_EQ_INT(a->nlayers, 2 * Ls + 3 + (pp == 2));
    CHECK_EQ_INT(b->nlayers, 4 * Ls + 3 + (pp == 2)); /* each sub-block: AG entry + RS entry */
    /* pp = 2: R = m + W/W_L (see gen_pipeline), W = 48 layers */
    const double W = 48 * 7627861917696.0;
    double R = 1536 / par.dp + (pp == 2 ? W / (W + 2576980377600.0) : 0);
    const double S = 50331648;
    const WeftLayer *l = fx_layer(b, pp == 1 ? "L1.attn" : "L49.attn");
    CHECK_EQ_INT(l->phase[0].coll, WEFT_COLL_ALLGATHER);
    CHECK_NEAR(l->phase[0].size_bytes, round(R * S / 16), 0);
    l = fx_layer(b, pp == 1 ? "L1.attn.2" : "L49.attn.2");
    CHECK_EQ_INT(l->phase[0].coll, WEFT_COLL_REDUCESCATTER);
    CHECK_NEAR(l->phase[0].size_bytes, round(R * S), 0);
    CHECK_EQ_INT(l->phase[1].coll, WEFT_COLL_REDUCESCATTER);
    double ta = gt_time(&net, a, &ca, bw), tb = gt_time(&net, b, &cb, bw);
    if (pp == 2) { /* equal up to the sizes' rounding to whole bytes (< 1 byte each) */
      CHECK_NEAR(tb, ta, 1e-9);
    } else { /* saved: one AG of R*S/16 on TP [4,4,-1,-1]: outermost first,
              * dim 2: (R*S/16)*3, dim 1: (R*S/4)*3 -> max(3RS/16/200, 3RS/4/400) */
      double ag = 3.0 * R * S / 4 / 400;
      CHECK_NEAR(ta - tb, ag, 1e-9);
    }
    /* Activations per layer with SP: sbh/t*(34 + 5as/h) = 1,572,864*(34 + 80);
     * pp = 1: + the fp32 logits 4 b s V / t = 26,214,400 bytes; pp = 2: the
     * first stage (2 micro-batches in flight) is the most loaded. */
    double lg = pp == 1 ? 26214400.0 : 0;
    CHECK_NEAR((ib.mem.activations_bytes - lg) / (Ls * (pp == 1 ? 1 : 2)), 1572864.0 * 114, 1e-12);
    weft_workload_free(a);
    weft_workload_free(b);
  }
}

/* FP8 parameters (docs/zoo.md, "FP8 parameters") on GPT-3 TP-16 DP-256 (the
 * shard of gen_zero: P = 10,941,530,112 elements per NPU). Of a layer's
 * parameters the FP8 GEMMs' weights are L1 = 12 h^2 / 16 = 113,246,208
 * (attention 4 h^2 / 16 = 37,748,736 of its 37,776,384; MLP 8 h^2 / 16 =
 * 75,497,472 of 75,525,888: the rest biases and norms), L = 96 L1 =
 * 10,871,635,968; the embedding and the output layer are not FP8. ZeRO-1:
 * FP8 GEMMs add Transformer Engine's two FP8 copies of each weight (2 L
 * bytes; blockwise 2 L (1 + 4 / 128^2)); with fp8_param_gather the copies
 * replace the bf16 weights (2 P - 2 L + 2 L), and the attention entry's
 * all-gather moves ((37,776,384 - 37,748,736) 2 + 37,748,736) / 256 =
 * 147,672 bytes a layer instead of 295,128, the MLP's (28,416 x 2 +
 * 75,497,472) / 256 = 295,134 instead of 590,046. ZeRO-3: the shard keeps
 * its FP8 weights at 1 byte, (2 P - L) / 256; its gathers move the same
 * bytes as ZeRO-1's, per micro-batch (6) in forward and input-grad. */
static void gen_fp8_params(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1e6);
  dev.peak_fp8_flops = 2 * dev.peak_flops;
  WeftNetwork net = gt_libra_net();
  const double P = 10941530112.0, L = 10871635968.0, n = 256;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  WeftParallel par;
  weft_parallel_default(&par);
  par.merged_backward = 1;
  par.tp = 16;
  par.dp = 256;
  par.zero_stage = 1;
  static const struct { int fp8, pg; double params; } k[] = {
      {WEFT_FP8_OFF, 0, 2 * P},
      {WEFT_FP8_DELAYED, 0, 2 * P + 2 * L},
      {WEFT_FP8_CURRENT, 0, 2 * P + 2 * L},
      {WEFT_FP8_BLOCKWISE, 0, 2 * P + 2 * L * (1 + 4 / 16384.0)},
      {WEFT_FP8_DELAYED, 1, 2 * P},
      {WEFT_FP8_BLOCKWISE, 1, 2 * P - 2 * L + 2 * L * (1 + 4 / 16384.0)},
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    par.fp8 = k[i].fp8;
    par.fp8_param_gather = k[i].pg;
    CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_OK);
    CHECK_NEAR(info.mem.params_bytes, k[i].params, 1e-12);
    CHECK_NEAR(info.mem.grads_bytes, 2 * P, 1e-12); /* gradients and states as before */
    CHECK_NEAR(info.mem.optimizer_bytes, 12 * P / n, 1e-12);
    const WeftLayer *a2 = fx_layer(wl, "L1-96.attn.2"), *m2 = fx_layer(wl, "L1-96.mlp.2");
    CHECK_EQ_INT(a2->phase[2].coll, WEFT_COLL_ALLGATHER);
    double ga = k[i].pg ? (k[i].fp8 == WEFT_FP8_DELAYED ? 147672.0
                                                        : (55296 + 37748736 * (1 + 4 / 16384.0)) / n)
                        : 295128.0;
    double gm = k[i].pg ? (k[i].fp8 == WEFT_FP8_DELAYED ? 295134.0
                                                        : (56832 + 75497472 * (1 + 4 / 16384.0)) / n)
                        : 590046.0;
    CHECK_NEAR(a2->phase[2].size_bytes, round(96 * ga), 0);
    CHECK_NEAR(m2->phase[2].size_bytes, round(96 * gm), 0);
  }
  /* ZeRO-3, blocking gathers (as gen_zero derives them) */
  par.zero_stage = 3;
  par.overlap_grad_reduce = par.overlap_param_gather = 0;
  par.fp8 = WEFT_FP8_DELAYED;
  par.fp8_param_gather = 0;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.mem.params_bytes, 2 * P / n, 1e-12); /* the FP8 copies come per layer */
  CHECK_NEAR(fx_layer(wl, "L1-96.attn.2")->phase[0].size_bytes, 6 * 96 * 295128.0, 0);
  par.fp8_param_gather = 1;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.mem.params_bytes, (2 * P - L) / n, 1e-12);
  CHECK_NEAR(fx_layer(wl, "L1-96.attn.2")->phase[0].size_bytes, 6 * 96 * 147672.0, 0);
  CHECK_NEAR(fx_layer(wl, "L1-96.attn.2")->phase[1].size_bytes, 6 * 96 * 147672.0, 0);
  CHECK_NEAR(fx_layer(wl, "L1-96.mlp.2")->phase[0].size_bytes, 6 * 96 * 295134.0, 0);
  /* refused, naming the field: no FP8 GEMMs, ZeRO 0, NVFP4, not a boolean */
  static const struct { int fp8, zero, pg; } bad[] = {
      {WEFT_FP8_OFF, 1, 1}, {WEFT_FP8_DELAYED, 0, 1}, {WEFT_FP8_NVFP4, 1, 1}, {WEFT_FP8_DELAYED, 1, 2}};
  dev.peak_fp4_flops = 4 * dev.peak_flops;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    par.fp8 = bad[i].fp8;
    par.zero_stage = bad[i].zero;
    par.fp8_param_gather = bad[i].pg;
    weft_error_clear(&err);
    CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_EINPUT);
    CHECK(strcmp(err.field, "fp8_param_gather") == 0);
  }
  weft_workload_free(wl);
}

/* ZeRO stages on GPT-3 TP-16 DP-256: the shard per NPU is
 * P = 96*(37,776,384 + 75,525,888) + 64,487,424 + 24,576 = 10,941,530,112
 * elements. ZeRO-1 divides the optimizer states by 256, ZeRO-2 also the
 * gradients, ZeRO-3 also the parameters; activations do not change. ZeRO-1/2
 * traffic equals ZeRO-0's (RS + AG = AR per dim when grad and param bytes
 * match, the optimizer step left out); ZeRO-3 reduce-scatters every
 * micro-batch (6 x) and gathers the parameters on the "dp" group in forward
 * and input-grad. The optimizer step reads and writes P x (2 + 2 x 12 + 2)
 * bytes at 2.039e12 B/s, / 256 with ZeRO >= 1 (the states' shard). */
static void gen_zero(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1e6);
  WeftNetwork net = gt_libra_net();
  static const double bw[4] = {400, 200, 100, 25};
  const double P = 10941530112.0, n = 256;
  double t[4] = {0}, act = 0;
  for (int z = 0; z <= 3; z++) {
    WeftParallel par;
    weft_parallel_default(&par);
    par.merged_backward = 1; /* whole layers, as derived by hand */
    par.tp = 16;
    par.dp = 256;
    par.zero_stage = z;
    /* ZeRO-3 blocking, as derived by hand (its prefetch: below) */
    if (z == 3) par.overlap_grad_reduce = par.overlap_param_gather = 0;
    WeftWorkload *wl = weft_workload_create();
    WeftCommunicator comm;
    WeftGenInfo info;
    WeftError err;
    CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_OK);
    CHECK_NEAR(info.optimizer_ns, P * 28 / (z >= 1 ? n : 1) / 2.039e12 * 1e9, 1e-12);
    par.optimizer_step = 0;
    CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_OK);
    CHECK_NEAR(info.optimizer_ns, 0, 0);
    CHECK_NEAR(info.mem.params_bytes, 2 * P / (z >= 3 ? n : 1), 1e-12);
    CHECK_NEAR(info.mem.grads_bytes, 2 * P / (z >= 2 ? n : 1), 1e-12);
    CHECK_NEAR(info.mem.optimizer_bytes, 12 * P / (z >= 1 ? n : 1), 1e-12);
    if (z == 0) act = info.mem.activations_bytes;
    CHECK_NEAR(info.mem.activations_bytes, act, 0);
    t[z] = gt_time(&net, wl, &comm, bw);
    const WeftLayer *a = fx_layer(wl, "L1-96.attn");
    if (z == 1 || z == 2) { /* RS of 96 x 75,552,768; AG of 96 x 37,776,384/256*2 = 96 x 295,128 */
      const WeftLayer *a2 = fx_layer(wl, "L1-96.attn.2");
      CHECK_EQ_INT(a->phase[2].coll, WEFT_COLL_REDUCESCATTER);
      CHECK_NEAR(a->phase[2].size_bytes, 96 * 75552768.0, 0);
      CHECK_EQ_INT(a2->phase[2].coll, WEFT_COLL_ALLGATHER);
      CHECK_NEAR(a2->phase[2].size_bytes, 96 * 295128.0, 0);
      CHECK_EQ_INT(wl->ngroups, 0);
    }
    if (z == 3) { /* per micro-batch: 6 x; the "dp" group = DP's dims */
      int g = fx_group(wl, "dp");
      CHECK_EQ_INT(wl->ngroups, 1);
      CHECK_EQ_INT(a->phase[2].coll, WEFT_COLL_REDUCESCATTER);
      CHECK_NEAR(a->phase[2].size_bytes, 6 * 96 * 75552768.0, 0);
      const WeftLayer *a2 = fx_layer(wl, "L1-96.attn.2");
      CHECK_EQ_INT(a2->phase[0].coll, WEFT_COLL_ALLGATHER);
      CHECK_EQ_INT(a2->phase[0].group, g);
      CHECK_NEAR(a2->phase[0].size_bytes, 6 * 96 * 295128.0, 0);
      CHECK_NEAR(a2->phase[1].size_bytes, 6 * 96 * 295128.0, 0);
      const int *dpg = weft_communicator_find(&comm, "dp");
      CHECK(dpg && dpg[0] == -1 && dpg[1] == 2 && dpg[2] == 4 && dpg[3] == 32);
      const WeftLayer *m0 = fx_layer(wl, "L1-96.mlp"), *m2 = fx_layer(wl, "L1-96.mlp.2");
      double gat = a2->phase[0].size_bytes + m2->phase[0].size_bytes; /* blocking: the sums */
      double rsb = a->phase[2].size_bytes + m0->phase[2].size_bytes;
      double wgc = a->phase[2].compute_ns + m0->phase[2].compute_ns;
      /* prefetch on (the default): the last micro-batch's reduce-scatter in
       * weight-grad, the other 5 hidden in input-grad under 5/6 of the
       * weight-grad compute; the gathers hidden under their phase's compute */
      par.overlap_grad_reduce = par.overlap_param_gather = 1;
      CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_OK);
      a = fx_layer(wl, "L1-96.attn");
      a2 = fx_layer(wl, "L1-96.attn.2");
      const WeftLayer *ml = fx_layer(wl, "L1-96.mlp");
      CHECK_EQ_INT(a->phase[2].coll, WEFT_COLL_REDUCESCATTER);
      CHECK_NEAR(a->phase[2].size_bytes, 96 * 75552768.0, 0);
      CHECK_NEAR(a->phase[2].size_bytes + ml->phase[2].size_bytes, rsb / 6, 0);
      int found = 0;
      for (int i = 0; i < wl->nlayers; i++) {
        const WeftPhaseSpec *q = &wl->layers[i].phase[1];
        if (strncmp(wl->layers[i].name, "L1-96.attn", 10) || q->coll != WEFT_COLL_REDUCESCATTER)
          continue;
        found = 1;
        CHECK_NEAR(q->size_bytes, 5.0 / 6 * rsb, 0); /* the layer's: attention's and the MLP's */
        CHECK_NEAR(q->overlap_ns, 5.0 / 6 * wgc, 1);
      }
      CHECK(found);
      /* the layer's gathers (attention's and the MLP's) ride on the attention's
       * entry, hidden under the layer's compute (FSDP's unit) */
      CHECK_NEAR(a2->phase[0].size_bytes, gat, 0);
      CHECK_NEAR(a2->phase[0].overlap_ns, a->phase[0].compute_ns + ml->phase[0].compute_ns, 1);
      CHECK_NEAR(a2->phase[1].overlap_ns, a->phase[1].compute_ns + ml->phase[1].compute_ns, 1);
      CHECK(gt_time(&net, wl, &comm, bw) < t[3]);
    }
    weft_workload_free(wl);
  }
  CHECK_NEAR(t[1], t[0], 1e-12);
  CHECK_NEAR(t[2], t[0], 1e-12);
  CHECK(t[3] > t[0]);
}

/* Not fitting: GPT-3 TP-16 DP-256 on 80 GiB. Per NPU (see gen_zero) params
 * 2P = 21,883,060,224 bytes = 20.38 GiB, grads the same, optimizer 12P =
 * 131,298,361,344 = 122.28 GiB, activations 96 x 415,236,096 = 39,862,665,216
 * + the fp32 logits 4 b s V / t = 26,214,400 = 37.15 GiB: total
 * 214,953,361,408 bytes = 200.19 GiB. */
static void gen_no_fit(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(80);
  WeftNetwork net = gt_libra_net();
  WeftParallel par;
  weft_parallel_default(&par);
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 16;
  par.dp = 256;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_EMODEL);
  CHECK_EQ_INT(err.code, WEFT_EMODEL);
  const char *want = "needs 200.2 GiB per NPU (params 20.4 + grads 20.4 + optimizer 122.3 + "
                     "activations 37.1), the A100 has 80.0 GiB";
  if (strcmp(err.msg, want)) {
    fprintf(stderr, "  got '%s'\n", err.msg);
    test_failures_++;
  }
  CHECK_EQ_INT(info.mem.fits, 0);
  CHECK_NEAR(info.mem.activations_bytes, 96 * 415236096.0 + 26214400, 1e-12);
  CHECK_NEAR(info.mem.capacity_bytes, 80 * 1073741824.0, 0);
  CHECK_NEAR(info.mem.total_bytes, 214953361408.0, 1e-12);
  CHECK_EQ_INT(info.microbatches, 6);
  CHECK(wl->nlayers > 0);  /* the workload is there for what-if use */
  /* ZeRO-3 + recompute fits: 16P/256 = 0.684 GB of states; activations
   * 96 x 2sbh + one layer + logits = 96 x 50,331,648 + 415,236,096 + 26,214,400
   * = 5.273 GB. */
  par.zero_stage = 3;
  par.recompute = 1;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_OK);
  const double act = 96 * 50331648.0 + 415236096.0 + 26214400;
  CHECK_NEAR(info.mem.activations_bytes, act, 1e-12);
  CHECK_NEAR(info.mem.total_bytes, 16 * 10941530112.0 / 256 + act, 1e-12);
  CHECK(info.mem.fits);
  weft_workload_free(wl);
}

/* Full recompute: input-grad compute of a layer = 2 x forward (the logits
 * are not recomputed), the forward's TP all-reduce runs again in input-grad;
 * Megatron's hardware FLOPs 96*B*s*l*h^2*(1 + s/(6h) + V/(16lh)). */
static void gen_recompute(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1e6);
  WeftNetwork net = gt_libra_net();
  WeftParallel par;
  weft_parallel_default(&par);
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 16;
  par.dp = 256;
  par.recompute = 1;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  /* 2 x 6,442,450.94 = 12,884,901.89 -> 12,884,902 */
  const WeftLayer *a = fx_layer(wl, "L5.attn");
  GT_PHASE(a, WEFT_PHASE_FWD, 6442451, WEFT_COLL_ALLREDUCE, 301989888, 0);
  GT_PHASE(a, WEFT_PHASE_IG, 12884902, WEFT_COLL_ALLREDUCE, 2 * 301989888.0, 0);
  GT_PHASE(fx_layer(wl, "logits"), WEFT_PHASE_IG, 6194664, WEFT_COLL_ALLREDUCE, 301989888, 0);
  double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
  CHECK_NEAR(info.hw_flops, 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h)), 1e-12);
  CHECK_NEAR(info.model_flops, 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h)),
             1e-12);
  weft_workload_free(wl);
}

/* MoE by hand: 4 layers, h 8, 2 heads, s 4, V 16, ffn 16 (GeLU), 4 experts,
 * top-2, every 2nd layer (layers 2 and 4); batch 8. 8 NPUs as 2 x 4, TP-2,
 * DP-4 with EP-2: TP [2,-1], EP [-1,2], EDP [-1,2], DP = EP x EDP = [-1,4].
 * b = 1, m = 8/4 = 2, S = b*s*h*2 = 64 bytes; 1 FLOP = 1 ns.
 * FLOPs: attention 2bsh(h+2kv) + 4bs^2h + 2bsh^2 = 1536 + 512 + 512 = 2560;
 *   MLP 2bsh*16*2 = 2048; MoE 2*2048 + router 2bsh*4 = 4352; logits 2bshV = 1024.
 *   Per layer /tp x m: the same numbers in ns.
 * MoE: all-to-all over "ep", dispatch + combine: 2*m*S*top_k = 512 bytes;
 *   router + LayerNorm (8*4 + 16 = 48) over DP: 96 bytes; experts per NPU
 *   4/2 x (2*8*16 + 16 + 8)/2 = 280 elements over "edp": 560 bytes. */
static void gen_moe(void) {
  WeftModel m = fx_tiny_moe(2, 4);
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[2] = {2, 4};
  WeftNetwork net = gt_net(2, n);
  WeftParallel par;
  weft_parallel_default(&par);
  par.ddp_bucket_params = 1; /* a bucket per layer entry, as derived by hand (docs/zoo.md) */
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 2;
  par.dp = 4;
  par.ep = 2;
  WeftWorkload *wl = weft_workload_create(), *cw = weft_workload_create();
  WeftCommunicator comm, cc;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  /* a MoE block: TP AR and EP A2A: 2 entries; + optimizer */
  CHECK_EQ_INT(wl->nlayers, 1 + 4 + 2 + 2 * 2 + 1 + 1);
  int ep = fx_group(wl, "ep"), edp = fx_group(wl, "edp");
  CHECK(ep > 0 && edp > 0 && wl->ngroups == 2);
  const int *e = weft_communicator_find(&comm, "ep"), *f = weft_communicator_find(&comm, "edp");
  CHECK(e && e[0] == -1 && e[1] == 2 && f && f[0] == -1 && f[1] == 2);
  CHECK(comm.group[2][0] == -1 && comm.group[2][1] == 4);
  GT_PHASE(fx_layer(wl, "L1.attn"), WEFT_PHASE_FWD, 2560, WEFT_COLL_ALLREDUCE, 128, 0);
  GT_PHASE(fx_layer(wl, "L1.mlp"), WEFT_PHASE_FWD, 2048, WEFT_COLL_ALLREDUCE, 128, 0);
  const WeftLayer *x = fx_layer(wl, "L2.moe"), *x2 = fx_layer(wl, "L2.moe.2");
  GT_PHASE(x, WEFT_PHASE_FWD, 4352, WEFT_COLL_ALLREDUCE, 128, 0);
  GT_PHASE(x, WEFT_PHASE_IG, 4352, WEFT_COLL_ALLREDUCE, 128, 0);
  GT_PHASE(x, WEFT_PHASE_WG, 4352, WEFT_COLL_ALLREDUCE, 96, 0);
  GT_PHASE(x2, WEFT_PHASE_FWD, 0, WEFT_COLL_ALLTOALL, 512, ep);
  GT_PHASE(x2, WEFT_PHASE_IG, 0, WEFT_COLL_ALLTOALL, 512, ep);
  GT_PHASE(x2, WEFT_PHASE_WG, 0, WEFT_COLL_ALLREDUCE, 560, edp);
  /* 3 x 8 sequences x (4*2560 + 2*2048 + 2*4352 + 1024) = 577,536 */
  CHECK_NEAR(info.model_flops, 577536, 1e-12);
  /* Parameters per NPU: attention (2*64 + 2*64 + 16 + 16)/2 + 16 = 160 x 4,
   * MLP 280/2 + 16 = 156 x 2, MoE dense 48 x 2, embedding 16*8/2 + 4*8 = 96,
   * final norm 16; experts 280 x 2: 640 + 312 + 96 + 96 + 16 + 560 = 1720. */
  CHECK_NEAR(info.mem.params_bytes, 2 * 1720.0, 1e-12);
  /* ZeRO-1: optimizer over DP (1160 dense / 4) and EDP (560 / 2) x 12 bytes. */
  par.zero_stage = 1;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, cw, &cc, &info, &err), WEFT_OK);
  CHECK_NEAR(info.mem.optimizer_bytes, 12 * (1160.0 / 4 + 560.0 / 2), 1e-12);
  par.zero_stage = 0;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, cw, &cc, &info, &err), WEFT_OK);
  CHECK_EQ_INT(cw->nlayers, 1 + 1 + 1 + 2 + 1 + 1);
  fx_layer(cw, "L1-4.attn");
  fx_layer(cw, "L1-3.mlp");
  GT_PHASE(fx_layer(cw, "L2-4.moe.2"), WEFT_PHASE_FWD, 0, WEFT_COLL_ALLTOALL, 1024, ep);
  static const double bw[2] = {3, 7};
  CHECK_NEAR(gt_time(&net, cw, &cc, bw), gt_time(&net, wl, &comm, bw), 1e-12);
  weft_workload_free(wl);
  weft_workload_free(cw);
}

/* CNN by hand: conv1 (100 FLOPs/sample, 10 params, 5 activations), conv2 and
 * conv3 (200, 20, 6) on a 4-NPU ring, DP-4, micro-batch 2, batch 16: m = 2.
 * conv1: 2 x 2 x 100 = 400 ns per phase, AR 10*2 = 20 bytes; conv2: 800, 40.
 * Memory: 50 params: 100 + 100 + 600 bytes; activations 2 x 17 x 2 = 68. */
static void gen_cnn(void) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "tiny-cnn");
  m.arch = WEFT_ARCH_CNN;
  m.global_batch = 16;
  m.nlayers = 3;
  static const double f[3] = {100, 200, 200}, p[3] = {10, 20, 20}, a[3] = {5, 6, 6};
  for (int i = 0; i < 3; i++) {
    snprintf(m.layer[i].name, sizeof m.layer[i].name, "conv%d", i + 1);
    m.layer[i].fwd_flops = f[i];
    m.layer[i].params = p[i];
    m.layer[i].act_elems = a[i];
  }
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[1] = {4};
  WeftNetwork net = gt_net(1, n);
  WeftParallel par;
  weft_parallel_default(&par);
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.dp = 4;
  par.micro_batch = 2;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK(!strcmp(wl->policy, "DATA"));
  CHECK(comm.group[0][0] == -1 && comm.group[2][0] == 4);
  CHECK_EQ_INT(wl->nlayers, 3);
  GT_PHASE(fx_layer(wl, "conv1"), WEFT_PHASE_WG, 400, WEFT_COLL_ALLREDUCE, 20, 0);
  GT_PHASE(fx_layer(wl, "conv1"), WEFT_PHASE_FWD, 400, WEFT_COLL_NONE, 0, 0);
  GT_PHASE(fx_layer(wl, "conv3"), WEFT_PHASE_WG, 800, WEFT_COLL_ALLREDUCE, 40, 0);
  CHECK_NEAR(info.mem.params_bytes, 100, 1e-12);
  CHECK_NEAR(info.mem.optimizer_bytes, 600, 1e-12);
  CHECK_NEAR(info.mem.activations_bytes, 68, 1e-12);
  CHECK_NEAR(info.model_flops, 3 * 16 * 500, 1e-12);
  CHECK_EQ_INT(info.microbatches, 2);
  WeftWorkload *cw = weft_workload_create();
  WeftCommunicator cc;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, cw, &cc, &info, &err), WEFT_OK);
  CHECK_EQ_INT(cw->nlayers, 2);
  GT_PHASE(fx_layer(cw, "conv2(x2)"), WEFT_PHASE_IG, 1600, WEFT_COLL_NONE, 0, 0);
  GT_PHASE(fx_layer(cw, "conv2(x2)"), WEFT_PHASE_WG, 1600, WEFT_COLL_ALLREDUCE, 80, 0);
  static const double bw[1] = {2};
  CHECK_NEAR(gt_time(&net, cw, &cc, bw), gt_time(&net, wl, &comm, bw), 1e-12);
  par.tp = 2;
  par.dp = 2;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(strstr(err.msg, "data-parallel only") && strstr(err.msg, "tp = 2"));
  /* the MoE all-to-all options on a model without experts: refused, named */
  par.tp = 1;
  par.dp = 4;
  par.moe_a2a_overlap = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_a2a_overlap") && strstr(err.msg, "no experts"));
  par.moe_a2a_overlap = 0;
  par.moe_dispatch_fp8 = 1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "moe_dispatch_fp8") && strstr(err.msg, "no experts"));
  /* FP8 parameters are a transformer's (Transformer Engine's linear layers) */
  par.moe_dispatch_fp8 = 0;
  par.fp8_param_gather = 1;
  par.fp8 = WEFT_FP8_DELAYED;
  par.zero_stage = 1;
  dev.peak_fp8_flops = 2 * dev.peak_flops;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "fp8_param_gather") && strstr(err.msg, "no Transformer Engine"));
  weft_workload_free(wl);
  weft_workload_free(cw);
}

/* DLRM by hand: 3 tables of 100 rows, dim 2, pooling 5; bottom MLP bot0
 * (10 FLOPs, 4 params, 2 activations per sample), top MLP top0 (20, 6, 1);
 * batch 8 on 2 x 2 NPUs, TP-2 (tables) x DP-2, micro-batch 1: m = 8/4 = 2.
 * The busiest NPU holds ceil(3/2) = 2 tables. Lookups: tp*b*2*5*2 elements
 * x 2 bytes = 80 bytes per micro-batch at 1 byte/ns: 160 ns (forward and
 * weight-grad). All-to-all of pooled embeddings m*b*3*2*2 = 24 bytes over TP.
 * Touched rows per table min(100, 8/2*5) = 20: AR over DP of 2*20*2*2 = 160 B.
 * Interaction: T(T+1)*dim = 24 FLOPs per sample: 48 ns forward and input-grad.
 * MLPs over the "world" group (TP x DP = [2, 2]): bot0 20 ns, AR 8 bytes;
 * top0 40 ns, AR 12 bytes. */
static void gen_dlrm(void) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "tiny-dlrm");
  m.arch = WEFT_ARCH_DLRM;
  m.global_batch = 8;
  m.tables = 3;
  m.emb_dim = 2;
  m.pooling = 5;
  m.table_rows = 100;
  m.nbottom = 1;
  m.nlayers = 2;
  snprintf(m.layer[0].name, sizeof m.layer[0].name, "bot0");
  m.layer[0].fwd_flops = 10;
  m.layer[0].params = 4;
  m.layer[0].act_elems = 2;
  snprintf(m.layer[1].name, sizeof m.layer[1].name, "top0");
  m.layer[1].fwd_flops = 20;
  m.layer[1].params = 6;
  m.layer[1].act_elems = 1;
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[2] = {2, 2};
  WeftNetwork net = gt_net(2, n);
  WeftParallel par;
  weft_parallel_default(&par);
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 2;
  par.dp = 2;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK(!strcmp(wl->policy, "HYBRID_DLRM"));
  CHECK_EQ_INT(wl->nlayers, 4);
  static const char *const order[4] = {"embedding", "bot0", "interaction", "top0"};
  for (int i = 0; i < 4 && i < wl->nlayers; i++) CHECK(!strcmp(wl->layers[i].name, order[i]));
  int w = fx_group(wl, "world");
  CHECK(w > 0 && wl->ngroups == 1);
  const int *wg = weft_communicator_find(&comm, "world");
  CHECK(wg && wg[0] == 2 && wg[1] == 2);
  const WeftLayer *e = fx_layer(wl, "embedding");
  GT_PHASE(e, WEFT_PHASE_FWD, 160, WEFT_COLL_ALLTOALL, 24, 0);
  GT_PHASE(e, WEFT_PHASE_IG, 0, WEFT_COLL_ALLTOALL, 24, 0);
  GT_PHASE(e, WEFT_PHASE_WG, 160, WEFT_COLL_ALLREDUCE, 160, 0);
  const WeftLayer *it = fx_layer(wl, "interaction");
  GT_PHASE(it, WEFT_PHASE_FWD, 48, WEFT_COLL_NONE, 0, 0);
  GT_PHASE(it, WEFT_PHASE_IG, 48, WEFT_COLL_NONE, 0, 0);
  GT_PHASE(it, WEFT_PHASE_WG, 0, WEFT_COLL_NONE, 0, 0);
  GT_PHASE(fx_layer(wl, "bot0"), WEFT_PHASE_WG, 20, WEFT_COLL_ALLREDUCE, 8, w);
  GT_PHASE(fx_layer(wl, "top0"), WEFT_PHASE_FWD, 40, WEFT_COLL_NONE, 0, 0);
  GT_PHASE(fx_layer(wl, "top0"), WEFT_PHASE_WG, 40, WEFT_COLL_ALLREDUCE, 12, w);
  /* Memory: MLP 10 params (20 B) + tables 2*100*2 x 2 B = 820; grads 20 + touched
   * rows 2*20*2 x 2 = 180; optimizer 10 x 12 + row-wise 2*100 x 4 = 920;
   * activations (b*(3 + 3*2 + 6 + 2) + tp*b*2*2) x 2 = (17 + 8) x 2 = 50. */
  CHECK_NEAR(info.mem.params_bytes, 820, 1e-12);
  CHECK_NEAR(info.mem.grads_bytes, 180, 1e-12);
  CHECK_NEAR(info.mem.optimizer_bytes, 920, 1e-12);
  CHECK_NEAR(info.mem.activations_bytes, 50, 1e-12);
  CHECK_NEAR(info.model_flops, 8 * (3 * 30 + 2 * 24), 1e-12);
  CHECK_EQ_INT(info.microbatches, 2);
  par.tp = 4;  /* DP = 1: the MLPs' group is the whole network, tables have no replicas */
  par.dp = 1;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(fx_layer(wl, "embedding")->phase[2].coll, WEFT_COLL_NONE);
  CHECK_EQ_INT(fx_layer(wl, "bot0")->phase[2].group, fx_group(wl, "world"));
  par.tp = 1;  /* TP = 1: the world is the DP group, no named group */
  par.dp = 4;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(wl->ngroups, 0);
  GT_PHASE(fx_layer(wl, "bot0"), WEFT_PHASE_WG, 20, WEFT_COLL_ALLREDUCE, 8, 0);
  weft_workload_free(wl);
}

/* Invalid parallelizations: WEFT_EINPUT with the numbers in the message. */
static void gen_errors(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1e6);
  WeftNetwork net = gt_libra_net();
  static const struct {
    int tp, pp, dp, ep, mb;
    const char *field, *msg;
  } bad[] = {
      {16, 1, 128, 1, 1, "dp", "tp*pp*dp = 16*1*128 = 2048, the network has 4096 NPUs"},
      {16, 1, 256, 1, 4, "micro_batch",
       "global batch 1536 is not a multiple of dp*micro_batch = 256*4 = 1024"},
      {16, 256, 1, 1, 1, "pp", "pp = 256 stages for the 96 layers of gpt3-175b: every stage needs a layer"},
      {64, 1, 64, 1, 1, "tp", "tp = 64 does not divide the 96 heads of gpt3-175b"},
      {16, 1, 256, 2, 1, "ep", "ep = 2 but gpt3-175b has no experts"},
      {16, 1, 256, 1, 0, "micro_batch", "micro_batch must be >= 1, got 0"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    WeftParallel par;
    weft_parallel_default(&par);
    par.merged_backward = 1; /* whole layers, as derived by hand */
    par.tp = bad[i].tp;
    par.pp = bad[i].pp;
    par.dp = bad[i].dp;
    par.ep = bad[i].ep;
    par.micro_batch = bad[i].mb;
    WeftWorkload *wl = weft_workload_create();
    WeftCommunicator comm;
    WeftGenInfo info;
    WeftError err;
    CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
    CHECK(!strcmp(err.field, bad[i].field));
    if (strcmp(err.msg, bad[i].msg)) {
      fprintf(stderr, "  case %zu: '%s'\n", i, err.msg);
      test_failures_++;
    }
    CHECK_EQ_INT(wl->nlayers, 0);
    weft_workload_free(wl);
  }
  /* A group that does not factor over the dims: TP-6 on 4 x 6 (24 NPUs),
   * heads 96 = 16 x 6; weft_map_groups names the group. */
  static const int n[2] = {4, 6};
  WeftNetwork odd = gt_net(2, n);
  WeftParallel par;
  weft_parallel_default(&par);
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 6;
  par.dp = 4;
  m.global_batch = 8;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &odd, 0, wl, &comm, NULL, &err), WEFT_EINPUT);
  CHECK(strstr(err.msg, "tp-6") != NULL);
  weft_workload_free(wl);
}

/* SwiGLU + GQA (LLaMA family: no biases, RMSNorm h, untied output), fp32
 * activations. 2 layers, h 8, 4 heads, 2 KV heads (kv = 8*2/4 = 4), ffn 12,
 * V 10, s 4, batch 4; TP-2 x DP-2 on 2 x 2; b = 1, m = 4/2 = 2, 1 FLOP = 1 ns,
 * S = b*s*h*4 = 128 bytes: TP all-reduces 2 x 128 = 256.
 * FLOPs: attention 2bsh(h + 2kv) + 4bs^2h + 2bsh^2 = 1024 + 512 + 512 = 2048;
 *   MLP 2bsh*12*3 = 2304; logits 2bshV = 640; /tp x m: the same in ns.
 * Shards: attention (2h^2 + 2h*kv)/2 + h = 192/2 + 8 = 104 -> 208 bytes;
 *   MLP 3*8*12/2 + 8 = 152 -> 304; embedding V*h/2 = 40 -> 80; output (its
 *   own) V*h/2 + h = 48 -> 96.
 * Activations per layer at 2 bytes (generalised Korthikanti): sbh = 32,
 *   32*8 + 32*(4 + 4*4/8 + 2*3*12/8)/2 + 2*4*16/2 = 256 + 240 + 64 = 560
 *   (no dropout: no masks, the softmax's output alone; the MLP keeps F f =
 *   36 elements a token: gate and up outputs, the fused SwiGLU's output);
 *   x 4/2 for fp32 = 1120; 2 layers: 2240. */
static void gen_swiglu_gqa(void) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "tiny-llama");
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = 4;
  m.seq_len = 4;
  m.layers = 2;
  m.hidden = 8;
  m.heads = 4;
  m.kv_heads = 2;
  m.ffn_hidden = 12;
  m.ffn_matrices = 3;
  m.vocab = 10;
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[2] = {2, 2};
  WeftNetwork net = gt_net(2, n);
  WeftParallel par;
  weft_parallel_default(&par);
  par.ddp_bucket_params = 1; /* a bucket per layer entry, as derived by hand (docs/zoo.md) */
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 2;
  par.dp = 2;
  par.act_bytes = 4;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(wl->nlayers, 6 + 1); /* + optimizer */
  GT_PHASE(fx_layer(wl, "embedding"), WEFT_PHASE_WG, 0, WEFT_COLL_ALLREDUCE, 80, 0);
  GT_PHASE(fx_layer(wl, "L1.attn"), WEFT_PHASE_FWD, 2048, WEFT_COLL_ALLREDUCE, 256, 0);
  GT_PHASE(fx_layer(wl, "L1.attn"), WEFT_PHASE_WG, 2048, WEFT_COLL_ALLREDUCE, 208, 0);
  GT_PHASE(fx_layer(wl, "L2.mlp"), WEFT_PHASE_IG, 2304, WEFT_COLL_ALLREDUCE, 256, 0);
  GT_PHASE(fx_layer(wl, "L2.mlp"), WEFT_PHASE_WG, 2304, WEFT_COLL_ALLREDUCE, 304, 0);
  GT_PHASE(fx_layer(wl, "logits"), WEFT_PHASE_WG, 640, WEFT_COLL_ALLREDUCE, 96, 0);
  /* + the fp32 logits: b s V / t x 4 = 4*10/2*4 = 80 bytes */
  CHECK_NEAR(info.mem.activations_bytes, 2240 + 80, 1e-12);
  /* 2*(104 + 152) + 40 + 48 = 600 parameters */
  CHECK_NEAR(info.mem.params_bytes, 2 * 600.0, 1e-12);
  /* 3 x 4 sequences x (2*(2048 + 2304) + 640) = 112,128 */
  CHECK_NEAR(info.model_flops, 112128, 1e-12);
  /* DP-4: the whole model on each NPU, as the zoo counts it: 2*((192 + 8) +
   * (288 + 8)) + 80 + 80 + 8 = 1160. */
  par.tp = 1;
  par.dp = 4;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.mem.params_bytes / 2, 1160, 1e-12);
  CHECK_NEAR(info.mem.params_bytes / 2, weft_model_params(&m), 1e-12);
  weft_workload_free(wl);
}

/* MoE without expert parallelism (ep = 1): every NPU holds all 4 experts,
 * EDP is DP, so the router/norm and expert gradients are one all-reduce over
 * the WeightGrad group: (48 + 4 x 280/2) x 2 = 1216 bytes; no all-to-all, no
 * named group. Same model as gen_moe: TP-2 x DP-4. */
static void gen_moe_no_ep(void) {
  WeftModel m = fx_tiny_moe(2, 4);
  WeftDevice dev = fx_unit_device(1e12);
  static const int n[2] = {2, 4};
  WeftNetwork net = gt_net(2, n);
  WeftParallel par;
  weft_parallel_default(&par);
  par.ddp_bucket_params = 1; /* a bucket per layer entry, as derived by hand (docs/zoo.md) */
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 2;
  par.dp = 4;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_EQ_INT(wl->ngroups, 0);
  CHECK_EQ_INT(comm.nextra, 0);
  CHECK_EQ_INT(wl->nlayers, 1 + 8 + 1 + 1); /* + optimizer */
  const WeftLayer *x = fx_layer(wl, "L4.moe");
  GT_PHASE(x, WEFT_PHASE_FWD, 4352, WEFT_COLL_ALLREDUCE, 128, 0);
  GT_PHASE(x, WEFT_PHASE_WG, 4352, WEFT_COLL_ALLREDUCE, 1216, 0);
  weft_workload_free(wl);
}

/* The written text is the workload: every size and time is a whole number
 * and named groups are numbered in order of first use, so writing the
 * workload and communicator and reading them back gives the same layers,
 * groups and spans (pp and dp named groups, SP, ZeRO-3, recompute). */
static void gen_text_round_trip(void) {
  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1e6);
  WeftNetwork net = gt_libra_net();
  WeftParallel par;
  weft_parallel_default(&par);
  par.merged_backward = 1; /* whole layers, as derived by hand */
  par.tp = 16;
  par.pp = 4;
  par.dp = 64;
  par.sequence_parallel = 1;
  par.zero_stage = 3;
  par.recompute = 1;
  char dir[] = "/tmp/weft-gen-XXXXXX", wpath[64], cpath[64];
  if (!mkdtemp(dir)) {
    CHECK(!"mkdtemp");
    return;
  }
  snprintf(wpath, sizeof wpath, "%s/wl.txt", dir);
  snprintf(cpath, sizeof cpath, "%s/comm.yml", dir);
  WeftWorkload *wl = weft_workload_create(), *back = NULL;
  WeftCommunicator comm, cb;
  WeftError err;
  for (int compact = 0; compact <= 1; compact++) {
    CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, compact, wl, &comm, NULL, &err), WEFT_OK);
    CHECK_EQ_INT(wl->ngroups, 3); /* pp, dp, emb */
    CHECK_EQ_INT(wl->layers[0].phase[0].group, 1);  /* "pp": the pipeline entry comes first */
    int rc = weft_workload_write(wpath, wl, &err);
    if (!rc) rc = weft_communicator_write(cpath, &comm, &err);
    if (!rc) rc = weft_workload_read(wpath, &back, &err);
    if (!rc) rc = weft_communicator_read(cpath, &cb, &err);
    CHECK_EQ_INT(rc, WEFT_OK);
    if (rc) {
      fprintf(stderr, "  %s\n", err.msg);
      break;
    }
    CHECK_EQ_INT(back->nlayers, wl->nlayers);
    CHECK(!strcmp(back->policy, wl->policy));
    CHECK_EQ_INT(back->ngroups, wl->ngroups);
    for (int k = 0; k < wl->ngroups && k < back->ngroups; k++)
      CHECK(!strcmp(back->group_name[k], wl->group_name[k]));
    for (int i = 0; i < wl->nlayers && i < back->nlayers; i++) {
      CHECK(!strcmp(back->layers[i].name, wl->layers[i].name));
      for (int ph = 0; ph < 3; ph++) {
        const WeftPhaseSpec *a = &wl->layers[i].phase[ph], *b = &back->layers[i].phase[ph];
        CHECK(a->compute_ns == b->compute_ns && a->coll == b->coll &&
              a->size_bytes == b->size_bytes && a->group == b->group);
      }
    }
    CHECK(!memcmp(cb.group, comm.group, sizeof comm.group));
    CHECK_EQ_INT(cb.nextra, comm.nextra);
    for (int k = 0; k < comm.nextra && k < cb.nextra; k++) {
      CHECK(!strcmp(cb.extra_name[k], comm.extra_name[k]));
      CHECK(!memcmp(cb.extra[k], comm.extra[k], sizeof comm.extra[k]));
    }
    weft_workload_free(back);
    back = NULL;
  }
  remove(wpath);
  remove(cpath);
  rmdir(dir);
  weft_workload_free(wl);
}

/* The optimizer's precision (--master-weights, --optimizer-states): bytes
 * per parameter are master (fp32 4, bf16 2, none 0, remainder 2: apex's
 * int16 low halves of the fp32 master) + 2 Adam moments (fp32 4, bf16 2
 * each), by hand: 12 (default), 8 (DeepSeek-V3: fp32 master, bf16 moments),
 * 6, 4 (NeMo's distributed_fused_adam with dtype bf16), 10 (with fp32 state
 * and bf16 parameters: remainder + 2 x 4); on GPT-3 TP-16 DP-256 ZeRO-1 (P = 10,941,530,112
 * elements per NPU, gen_zero) the states are that x P / 256 and the
 * optimizer step reads and writes P x (2 + 2 x bytes + 2) / 256 at
 * 2.039e12 B/s; parameters, gradients and activations do not move. */
static void gen_optimizer_precision(void) {
  static const struct {
    const char *master, *moments;
    double bytes;
  } ok[] = {{NULL, NULL, 12}, {"fp32", "fp32", 12}, {"fp32", "bf16", 8}, {"bf16", "bf16", 6},
            {"none", "bf16", 4}, {"none", NULL, 8}, {"bf16", NULL, 10}, {NULL, "bf16", 8},
            {"remainder", NULL, 10}, {"remainder", "fp32", 10}, {"remainder", "bf16", 6}};
  WeftError err;
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    double b = -1;
    CHECK_EQ_INT(weft_optimizer_precision(ok[i].master, ok[i].moments, &b, &err), WEFT_OK);
    CHECK_NEAR(b, ok[i].bytes, 0);
  }
  double b = 7;
  CHECK_EQ_INT(weft_optimizer_precision("fp16", NULL, &b, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "master_weights") && strstr(err.msg, "'fp16'") && b == 7);
  CHECK_EQ_INT(weft_optimizer_precision("fp32", "none", &b, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "optimizer_states") && strstr(err.msg, "fp32 or bf16") && b == 7);
  CHECK_EQ_INT(weft_optimizer_precision(NULL, NULL, NULL, &err), WEFT_EINVAL);

  WeftModel m = gt_gpt3();
  WeftDevice dev = gt_a100(1e6);
  WeftNetwork net = gt_libra_net();
  const double P = 10941530112.0, n = 256;
  WeftGenInfo base;
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    WeftParallel par;
    weft_parallel_default(&par);
    par.tp = 16;
    par.dp = 256;
    par.zero_stage = 1;
    CHECK_EQ_INT(weft_optimizer_precision(ok[i].master, ok[i].moments, &par.optimizer_bytes,
                                          &err), WEFT_OK);
    WeftWorkload *wl = weft_workload_create();
    WeftCommunicator comm;
    WeftGenInfo info;
    CHECK_EQ_INT(gt_gen(&m, &dev, &par, &net, 1, wl, &comm, &info, &err), WEFT_OK);
    CHECK_NEAR(info.mem.optimizer_bytes, ok[i].bytes * P / n, 1e-12);
    CHECK_NEAR(info.optimizer_ns, P * (2 + 2 * ok[i].bytes + 2) / n / 2.039e12 * 1e9, 1e-12);
    if (i == 0) base = info;
    CHECK_NEAR(info.mem.params_bytes, base.mem.params_bytes, 0);
    CHECK_NEAR(info.mem.grads_bytes, base.mem.grads_bytes, 0);
    CHECK_NEAR(info.mem.activations_bytes, base.mem.activations_bytes, 0);
    CHECK_NEAR(info.mem.total_bytes - base.mem.total_bytes, (ok[i].bytes - 12) * P / n, 1e-12);
    weft_workload_free(wl);
  }
}

const TestCase suite_gen[] = {
    {"gen/optimizer_precision", gen_optimizer_precision},
    {"gen/map_defaults", map_defaults},
    {"gen/map_order_parse", map_order_parse},
    {"gen/map_libra_examples", map_libra_examples},
    {"gen/map_three_groups", map_three_groups},
    {"gen/map_errors", map_errors},
    {"gen/map_property", map_property},
    {"gen/gpt3_libra", gen_gpt3_libra},
    {"gen/tiny_by_hand", gen_tiny_by_hand},
    {"gen/compact_same_time", gen_compact_same_time},
    {"gen/family_traits", gen_family_traits},
    {"gen/eager_activation_memory", gen_eager_activation_memory},
    {"gen/pipeline", gen_pipeline},
    {"gen/interleaved", gen_interleaved},
    {"gen/ga_steps", gen_ga_steps},
    {"gen/dualpipe", gen_dualpipe},
    {"gen/seq_parallel", gen_seq_parallel},
    {"gen/zero", gen_zero},
    {"gen/fp8_params", gen_fp8_params},
    {"gen/no_fit", gen_no_fit},
    {"gen/recompute", gen_recompute},
    {"gen/moe", gen_moe},
    {"gen/cnn", gen_cnn},
    {"gen/dlrm", gen_dlrm},
    {"gen/errors", gen_errors},
    {"gen/swiglu_gqa", gen_swiglu_gqa},
    {"gen/moe_no_ep", gen_moe_no_ep},
    {"gen/text_round_trip", gen_text_round_trip},
    {0, 0},
};
