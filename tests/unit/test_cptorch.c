/* test_cptorch.c — context parallelism as PyTorch's ring runs it
 * (cp_comm torch_allgather / torch_alltoall; opcost_cp.c, gen_overlap.c):
 * its eager torch ops' bytes by hand from _templated_ring_attention and its
 * backward, K and V at every query head (repeat_kv), the step kernels as
 * Transformer Engine's ring's, the two rotate methods' transfers in the
 * generated workload, and the refusals. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/opcost.h"
#include "oc_fixture.h"
#include "../test.h"

#define EXACT 1e-12

/* CP 2's rank (oc_fixture.h: 2 heads of 64, 1 KV head, repeated to 2 by
 * PyTorch's ring), PyTorch's ring. */
static OcLayer ring2(void) {
  OcLayer l = oc_ring2();
  l.cp_torch = 1;
  return l;
}

static double count(const OcOp *o) { return o->count > 0 ? o->count : 1; }

/* Kernels and bytes of the ops named name in phase on rank kind, summed. */
static void sum(const OcOp *ops, int n, const char *name, int phase, int rank, double *k,
                double *bytes) {
  *k = *bytes = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, name) && ops[i].phase == phase && ops[i].cp_rank == rank) {
      *k += count(&ops[i]);
      *bytes += count(&ops[i]) * ops[i].bytes;
    }
}

/* By hand, each torch op one kernel reading and writing whole tensors.
 * Sizes: the output O and dQ 256 x 2 x 64 = 32,768 elements (bf16 65,536
 * bytes, fp32 131,072); K and V with both heads 32,768 elements each (the
 * KV block 131,072 bytes, twice TE's one-head 65,536); the LSE 512 fp32
 * (2,048 bytes).
 * Forward, every rank: key.contiguous(), value.contiguous() (read + write
 * 65,536 each: 262,144 in 2); one torch.cat of K, V before step 0 (read,
 * write 131,072: 262,144); step 0's output to fp32 (read 65,536, write
 * 131,072) and the result back to bf16 (the same 196,608).
 * The last rank's step 1 (all 256 queries): its output to fp32 (196,608);
 * out - out_b (read two fp32 outputs, write one: 393,216), sigmoid x that
 * (read it and the 2,048-byte sigmoid, write: 264,192), out - it (393,216):
 * 1,050,624 in 3; the LSE: lse_b - lse (6,144), sigmoid (4,096), lse -
 * lse_b (6,144), logsigmoid (4,096), lse - it (6,144): 26,624 in 5.
 * The first rank's step 1 (its second chunk's 128 queries): halves of those
 * (98,304; 525,312 in 3; 13,312 in 5), then _partial_update's torch.cat of
 * the whole fp32 output (262,144) and LSE (4,096).
 * Backward, every rank: fp32 zeros for dQ, dK, dV (131,072 + 2 x 131,072:
 * 393,216 in 3); K, V contiguous (262,144 in 2) and concatenated once
 * (262,144); step 0's dK, dV added into their fp32 sums (read 131,072 and
 * 65,536, write 131,072: 655,360 in 2) and dQ (327,680); the fp32 dK, dV
 * concatenated after each of the 2 steps (read, write 262,144: 1,048,576 in
 * 2); dQ and dK, dV cast to bf16 (196,608 + 393,216: 589,824 in 2).
 * The last rank's step 1 (half the keys): dK, dV halves added into chunks
 * (163,840 each: 327,680 in 2) and each rebuilt by torch.cat (262,144
 * each: 524,288 in 2), dQ whole (327,680).
 * The first rank's step 1 (half the queries): its LSE half made contiguous
 * (read, write 1,024: 2,048), dK, dV whole (655,360 in 2), the dQ half
 * (163,840) and dQ rebuilt (262,144). */
static void passes(void) {
  OcLayer l = ring2();
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  CHECK(n <= OC_MAX_OPS);
  CHECK_NEAR(weft_opcost_cp_block_bytes(&l), 131072, EXACT);
  const int F = WEFT_PHASE_FWD, B = WEFT_PHASE_IG, A = OC_CP_ALL, X = OC_CP_LAST,
            Y = OC_CP_FIRST;
  struct {
    const char *name;
    int phase, rank;
    double kernels, bytes;
  } want[] = {
      {"cp_kv_contig", F, A, 2, 262144},     {"cp_kv_cat", F, A, 1, 262144},
      {"cp_out_f32", F, A, 1, 196608},       {"cp_out_bf16", F, A, 1, 196608},
      {"cp_out_f32", F, X, 1, 196608},       {"cp_out_merge", F, X, 3, 1050624},
      {"cp_lse_merge", F, X, 5, 26624},      {"cp_out_f32", F, Y, 1, 98304},
      {"cp_out_merge", F, Y, 3, 525312},     {"cp_lse_merge", F, Y, 5, 13312},
      {"cp_out_cat", F, Y, 1, 262144},       {"cp_lse_cat", F, Y, 1, 4096},
      {"cp_grad_zero", B, A, 3, 393216},     {"cp_kv_contig", B, A, 2, 262144},
      {"cp_kv_cat", B, A, 1, 262144},        {"cp_dkv_add", B, A, 2, 655360},
      {"cp_dq_add", B, A, 1, 327680},        {"cp_dkv_cat", B, A, 2, 1048576},
      {"cp_grad_bf16", B, A, 2, 589824},     {"cp_dkv_add", B, X, 2, 327680},
      {"cp_dkv_chunk_cat", B, X, 2, 524288}, {"cp_dq_add", B, X, 1, 327680},
      {"cp_lse_half", B, Y, 1, 2048},        {"cp_dkv_add", B, Y, 2, 655360},
      {"cp_dq_add", B, Y, 1, 163840},        {"cp_dq_chunk_cat", B, Y, 1, 262144},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    double k, by;
    sum(ops, n, want[i].name, want[i].phase, want[i].rank, &k, &by);
    if (fabs(k - want[i].kernels) > EXACT || fabs(by - want[i].bytes) > EXACT)
      fprintf(stderr, "  %s phase %d rank %d: %g kernels, %g bytes\n", want[i].name,
              want[i].phase, want[i].rank, k, by);
    CHECK_NEAR(k, want[i].kernels, EXACT);
    CHECK_NEAR(by, want[i].bytes, EXACT);
  }
  /* no Transformer Engine pass left in */
  double k, by;
  sum(ops, n, "cp_kv_pack", F, A, &k, &by);
  CHECK_NEAR(k, 0, EXACT);
  sum(ops, n, "cp_lse_init", F, A, &k, &by);
  CHECK_NEAR(k, 0, EXACT);
}

/* The step kernels are Transformer Engine's ring's (shapes, counts, FLOPs),
 * reading K and V at both heads: the diagonal step's forward reads Q and
 * both heads' K, V (256 x 2 x 128 x 2 twice: 262,144 bytes; TE's ring with
 * its one KV head 196,608). At CP 4 the merges count per step: 3 off-
 * diagonal steps, 9 output-merge kernels on each end rank, the K, V cat
 * before 3 steps, the dK, dV cat after all 4. */
static void kernels(void) {
  OcLayer t = ring2(), te = ring2();
  te.cp_torch = 0;
  OcOp a[OC_MAX_OPS], b[OC_MAX_OPS];
  int na = weft_opcost_ops(&t, OC_ATTN, a, OC_MAX_OPS), nb = weft_opcost_ops(&te, OC_ATTN, b,
                                                                            OC_MAX_OPS);
  int ka = 0, kb = 0;
  for (int i = 0; i < na; i++)
    if (a[i].kind == OC_FUSED) {
      ka++;
      int found = 0;
      for (int j = 0; j < nb; j++)
        if (b[j].kind == OC_FUSED && b[j].phase == a[i].phase && b[j].cp_rank == a[i].cp_rank &&
            b[j].cp_role == a[i].cp_role) {
          found = 1;
          CHECK(a[i].m == b[j].m && a[i].n == b[j].n && a[i].causal == b[j].causal);
          CHECK_NEAR(a[i].flops, b[j].flops, EXACT);
          CHECK_NEAR(count(&a[i]), count(&b[j]), EXACT);
          if (a[i].cp_role == OC_CP_DIAGONAL && a[i].phase == WEFT_PHASE_FWD) {
            CHECK_NEAR(a[i].bytes, 262144, EXACT);
            CHECK_NEAR(b[j].bytes, 196608, EXACT);
          }
        }
      CHECK(found);
    }
  for (int j = 0; j < nb; j++) kb += b[j].kind == OC_FUSED;
  CHECK_EQ_INT(ka, kb);
  CHECK_EQ_INT(ka, 6);
  OcLayer l4 = ring2();
  l4.cp = 4, l4.kv_len = 1024;
  int n4 = weft_opcost_ops(&l4, OC_ATTN, a, OC_MAX_OPS);
  double k, by;
  sum(a, n4, "cp_out_merge", WEFT_PHASE_FWD, OC_CP_LAST, &k, &by);
  CHECK_NEAR(k, 9, EXACT);
  sum(a, n4, "cp_out_merge", WEFT_PHASE_FWD, OC_CP_FIRST, &k, &by);
  CHECK_NEAR(k, 9, EXACT);
  sum(a, n4, "cp_kv_cat", WEFT_PHASE_FWD, OC_CP_ALL, &k, &by);
  CHECK_NEAR(k, 3, EXACT);
  sum(a, n4, "cp_dkv_cat", WEFT_PHASE_IG, OC_CP_ALL, &k, &by);
  CHECK_NEAR(k, 4, EXACT);
  sum(a, n4, "cp_attn", WEFT_PHASE_FWD, OC_CP_LAST, &k, &by);
  CHECK_NEAR(k, 3, EXACT);
}

static void model(WeftModel *m) {
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "t");
  m->arch = WEFT_ARCH_TRANSFORMER;
  m->global_batch = 4, m->seq_len = 1024, m->layers = 2, m->hidden = 1024;
  m->heads = 16, m->kv_heads = 4, m->ffn_hidden = 4096, m->ffn_matrices = 3, m->vocab = 32000;
}

static void device(WeftDevice *d) {
  memset(d, 0, sizeof *d);
  d->peak_flops = 312e12, d->peak_vector_flops = 19.5e12, d->hbm_bytes_per_s = 2039e9;
  d->sms = 108, d->tile_m = 256, d->tile_n = 128, d->hbm_bytes = 80e9;
  d->gemm_efficiency = 0.8, d->hbm_efficiency = 0.9, d->attention_efficiency = 0.6;
}

/* Two NPUs on a ring: the CP group. */
static void ring_net(WeftNetwork *net) {
  memset(net, 0, sizeof *net);
  net->ndims = 1;
  net->npus[0] = 2;
  net->topology[0] = WEFT_RING;
  snprintf(net->cost_dim[0], sizeof net->cost_dim[0], "c");
}

/* The cp collectives of layer L1's attention: per phase, up to two (the
 * all-gather variant's backward has an all-gather and a send-recv). */
typedef struct {
  int coll;
  double size, calls, overlap;
} Cp;

static int cp_entries(const WeftWorkload *wl, int phase, Cp *out) {
  int n = 0;
  for (int i = 0; i < wl->nlayers; i++) {
    if (strncmp(wl->layers[i].name, "L1.attn", 7)) continue;
    const WeftPhaseSpec *s = &wl->layers[i].phase[phase];
    if (s->group <= 0 || strcmp(wl->group_name[s->group - 1], "cp")) continue;
    if (n < 2) out[n] = (Cp){s->coll, s->size_bytes, s->calls, s->overlap_ns};
    n++;
  }
  return n;
}

/* The generated workload (CP 2 on a 2-NPU ring, 4 micro-batches, whole
 * layers, 16 heads and 4 KV heads of 64): the block is 512 local tokens x
 * 16 heads (repeat_kv) x 128 x 2 bytes = 2,097,152 (4 times the 4 KV
 * heads'); the fp32 dK, dV twice that. torch_allgather: forward one
 * all-gather of the block a micro-batch (4 calls), hidden behind the
 * diagonal kernel alone; backward the all-gather again behind the
 * diagonal backward kernel, and cp = 2 send-recvs of the fp32 dK, dV a
 * micro-batch behind the one off-diagonal step (the faster rank's).
 * torch_alltoall: forward cp - 1 send-recvs of the block behind the
 * diagonal kernel; backward the block and both dK, dV sends (3 calls a
 * micro-batch) behind both steps' kernels. */
static void generated(void) {
  WeftModel m;
  WeftDevice d;
  model(&m);
  device(&d);
  WeftNetwork net;
  ring_net(&net);
  double blk = 512.0 * 16 * 128 * 2;
  for (int which = 0; which < 2; which++) {
    WeftParallel p;
    weft_parallel_default(&p);
    p.merged_backward = 1;
    p.attention = WEFT_ATTENTION_FLASH;
    p.cp = 2;
    p.cp_comm = which ? WEFT_CP_TORCH_ALLTOALL : WEFT_CP_TORCH_ALLGATHER;
    WeftWorkload *wl = weft_workload_create();
    WeftCommunicator comm;
    WeftGenInfo info;
    WeftError e;
    CHECK(wl != NULL);
    if (!wl) return;
    CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_OK);
    OcLayer l;
    weft_opcost_layer(&m, &p, &l);
    CHECK_EQ_INT(l.cp_torch, 1);
    double diag[2], off[2];
    oc_ring_kernels(&d, &l, diag, off);
    Cp f[2], g[2];
    int nf = cp_entries(wl, WEFT_PHASE_FWD, f), ng = cp_entries(wl, WEFT_PHASE_IG, g);
    CHECK_EQ_INT(nf, 1);
    CHECK_NEAR(f[0].overlap, round(4 * diag[0]), EXACT);
    if (!which) {
      CHECK_EQ_INT(f[0].coll, WEFT_COLL_ALLGATHER);
      CHECK_NEAR(f[0].size, 4 * blk, EXACT);
      CHECK_NEAR(f[0].calls, 4, EXACT);
      CHECK_EQ_INT(ng, 2);
      for (int i = 0; i < ng && i < 2; i++) {
        if (g[i].coll == WEFT_COLL_ALLGATHER) {
          CHECK_NEAR(g[i].size, 4 * blk, EXACT);
          CHECK_NEAR(g[i].calls, 4, EXACT);
          CHECK_NEAR(g[i].overlap, round(4 * diag[1]), EXACT);
        } else {
          CHECK_EQ_INT(g[i].coll, WEFT_COLL_SENDRECV);
          CHECK_NEAR(g[i].size, 4 * 2 * 2 * blk, EXACT);
          CHECK_NEAR(g[i].calls, 8, EXACT);
          CHECK_NEAR(g[i].overlap, round(4 * off[1]), EXACT);
        }
      }
      CHECK(g[0].coll != g[1].coll);
    } else {
      CHECK_EQ_INT(f[0].coll, WEFT_COLL_SENDRECV);
      CHECK_NEAR(f[0].size, 4 * blk, EXACT);
      CHECK_NEAR(f[0].calls, 4, EXACT);
      CHECK_EQ_INT(ng, 1);
      CHECK_EQ_INT(g[0].coll, WEFT_COLL_SENDRECV);
      CHECK_NEAR(g[0].size, 4 * (blk + 2 * 2 * blk), EXACT);
      CHECK_NEAR(g[0].calls, 12, EXACT);
      CHECK_NEAR(g[0].overlap, round(4 * (diag[1] + off[1])), EXACT);
    }
    weft_workload_free(wl);
  }
}

/* Refused naming cp_comm: standard attention (no SDPA kernel to ring), a
 * bidirectional model (PyTorch's load balancing raises without is_causal)
 * and a sliding window; CP 1 takes any. The names parse both ways. */
static void refusals(void) {
  WeftModel m;
  WeftDevice d;
  model(&m);
  device(&d);
  WeftNetwork net;
  ring_net(&net);
  for (int c = 0; c < 4; c++) {
    WeftParallel p;
    weft_parallel_default(&p);
    p.attention = WEFT_ATTENTION_FLASH;
    p.cp = 2;
    p.cp_comm = WEFT_CP_TORCH_ALLGATHER;
    WeftModel mm = m;
    if (c == 0) p.attention = WEFT_ATTENTION_STANDARD;
    if (c == 1) mm.bidirectional = 1;
    if (c == 2) mm.window = 128;
    if (c == 3) p.cp = 1, p.dp = 2, p.attention = WEFT_ATTENTION_STANDARD;
    WeftWorkload *wl = weft_workload_create();
    WeftCommunicator comm;
    WeftGenInfo info;
    WeftError e;
    memset(&e, 0, sizeof e);
    int rc = weft_generate(&mm, &d, &p, &net, 0, wl, &comm, &info, &e);
    if (c < 3) {
      CHECK_EQ_INT(rc, WEFT_EINPUT);
      CHECK(!strcmp(e.field, "cp_comm"));
      CHECK(strstr(e.msg, "torch_allgather") != NULL);
    } else {
      CHECK_EQ_INT(rc, WEFT_OK);
    }
    weft_workload_free(wl);
  }
  const char *names[] = {"p2p", "all_gather", "torch_allgather", "torch_alltoall"};
  for (int k = 0; k < 4; k++) {
    int kind = -1;
    WeftError e;
    CHECK_EQ_INT(weft_cp_comm_parse(names[k], &kind, &e), WEFT_OK);
    CHECK_EQ_INT(kind, k);
    CHECK(!strcmp(weft_cp_comm_name(k), names[k]));
  }
  int kind = -1;
  WeftError e;
  CHECK_EQ_INT(weft_cp_comm_parse("torch", &kind, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "torch_alltoall") != NULL);
}

const TestCase suite_cptorch[] = {{"cp_torch_passes", passes},
                                  {"cp_torch_kernels", kernels},
                                  {"cp_torch_generated", generated},
                                  {"cp_torch_refusals", refusals},
                                  {0}};
