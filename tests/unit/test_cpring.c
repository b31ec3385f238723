/* test_cpring.c — context parallelism's attention as Transformer Engine's
 * P2P ring (opcost_cp.c, gen_overlap.c): the step kernels' shapes and
 * FLOPs by hand, the merge passes' bytes by hand, the slower rank's pace,
 * the ring's transfers in the generated workload, and CP 1 and
 * cp_comm all_gather left as they were. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/opcost.h"
#include "gen_fixture.h"
#include "oc_fixture.h"
#include "../test.h"

#define EXACT 1e-12

/* CP 2's rank (oc_fixture.h): Transformer Engine's ring. */
static OcLayer ring2(void) { return oc_ring2(); }

static const OcOp *find(const OcOp *ops, int n, const char *name, int phase, int rank) {
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, name) && ops[i].phase == phase && ops[i].cp_rank == rank)
      return &ops[i];
  return NULL;
}

static double count(const OcOp *o) { return o->count > 0 ? o->count : 1; }

/* Kernels by hand. Rank 0 (OC_CP_FIRST) and rank 1 (OC_CP_LAST) both run
 * the diagonal step: 256 x 256 causal, (n + 1) / 2n = 3/4 of its 2 x 2
 * blocks of 128: 2 heads x 65,536 x 3/4 = 98,304 pairs. Step 1: rank 0
 * its second chunk's 128 queries against the whole received block (256
 * keys), rank 1 its 256 queries against the block's first chunk (128): no
 * mask, 2 x 32,768 = 65,536 pairs either way. Forward FLOPs 2 x pairs x
 * (64 + 64); backward 2 x pairs x (3 x 64 + 2 x 64). Both ranks' kernels
 * sum to the one 512-token causal kernel of CP 1: 2 heads x 262,144 x
 * (4 + 1) / 8 = 327,680 pairs. */
static void kernels(void) {
  OcLayer l = ring2();
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  CHECK(n <= OC_MAX_OPS);
  int k[2][3] = {{0, 0, 0}, {0, 0, 0}}; /* kernels per phase (fwd, ig) and rank kind */
  double fl[2][3] = {{0, 0, 0}, {0, 0, 0}};
  for (int i = 0; i < n; i++) {
    if (ops[i].kind != OC_FUSED) continue;
    CHECK(ops[i].cp_role != OC_CP_NONE);
    CHECK(!strcmp(ops[i].name, "cp_attn"));
    k[ops[i].phase][ops[i].cp_rank] += (int)count(&ops[i]);
    fl[ops[i].phase][ops[i].cp_rank] += count(&ops[i]) * ops[i].flops;
  }
  for (int ph = 0; ph < 2; ph++) { /* one diagonal kernel for all, one step 1 each */
    CHECK_EQ_INT(k[ph][OC_CP_ALL], 1);
    CHECK_EQ_INT(k[ph][OC_CP_FIRST], 1);
    CHECK_EQ_INT(k[ph][OC_CP_LAST], 1);
  }
  const OcOp *d = NULL, *first = NULL, *last = NULL;
  for (int i = 0; i < n; i++)
    if (ops[i].kind == OC_FUSED && ops[i].phase == WEFT_PHASE_FWD) {
      if (ops[i].cp_role == OC_CP_DIAGONAL) d = &ops[i];
      else if (ops[i].cp_rank == OC_CP_FIRST) first = &ops[i];
      else last = &ops[i];
    }
  CHECK(d && first && last);
  if (!d || !first || !last) return;
  CHECK(d->m == 256 && d->n == 256 && d->causal && d->batch == 2 && d->k == 64);
  CHECK(first->m == 128 && first->n == 256 && !first->causal);
  CHECK(last->m == 256 && last->n == 128 && !last->causal);
  CHECK_NEAR(d->flops, 2 * 98304.0 * 128, EXACT);
  CHECK_NEAR(first->flops, 2 * 65536.0 * 128, EXACT);
  CHECK_NEAR(last->flops, 2 * 65536.0 * 128, EXACT);
  CHECK_NEAR(fl[WEFT_PHASE_IG][OC_CP_ALL], 2 * 98304.0 * 320, EXACT);
  CHECK_NEAR(fl[WEFT_PHASE_IG][OC_CP_LAST], 2 * 65536.0 * 320, EXACT);
  /* the two ranks together = the causal total of the unsplit sequence */
  double total = 2 * fl[WEFT_PHASE_FWD][OC_CP_ALL] + fl[WEFT_PHASE_FWD][OC_CP_FIRST] +
                 fl[WEFT_PHASE_FWD][OC_CP_LAST];
  CHECK_NEAR(total, 2 * 327680.0 * 128, EXACT);
  OcLayer one = ring2();
  one.s = 512, one.cp = 1, one.cp_ring = 0;
  OcOp o1[OC_MAX_OPS];
  int n1 = weft_opcost_ops(&one, OC_ATTN, o1, OC_MAX_OPS);
  double fused = 0;
  for (int i = 0; i < n1; i++)
    if (o1[i].kind == OC_FUSED && o1[i].phase == WEFT_PHASE_FWD) fused += o1[i].flops;
  CHECK_NEAR(fused, total, EXACT);
}

/* The merge passes' bytes by hand: LSE L = 2 heads x 256 queries x 4 bytes
 * = 2,048; output O = 256 x 2 x 64 x 2 bytes = 65,536; K, V block = 256 x
 * 1 x 128 x 2 = 65,536. Forward: K, V packed (read, write: 131,072), step
 * 0's LSE cloned (4,096), step 0's output scaled in (read it and both
 * LSEs, write the output: 2 O + 2 L = 135,168); step 1 on rank 1 (all
 * rows): LSE merged (read two, write one: 6,144), output merged (read the
 * output and step 1's, both LSEs, write: 3 O + 2 L = 200,704); on rank 0
 * half the rows: 3,072 and 100,352. Backward (dQ as Q = 256 x 2 x 64 x 2
 * = 65,536): rank 1 copies step 0's dQ (2 Q) and adds the diagonal's (3 Q);
 * rank 0 copies its second chunk's half of both (2 kernels of Q) and adds
 * the diagonal's first half (1.5 Q) after copying its LSE's second half
 * out (L); rank 1's dK, dV first halves are copied (2 kernels of 32,768)
 * and, on the diagonal step, added whole (2 kernels of 98,304). */
static void passes(void) {
  OcLayer l = ring2();
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  CHECK_NEAR(weft_opcost_cp_block_bytes(&l), 65536, EXACT);
  struct {
    const char *name;
    int phase, rank;
    double bytes, count;
  } want[] = {
      {"cp_kv_pack", WEFT_PHASE_FWD, OC_CP_ALL, 131072, 1},
      {"cp_lse_init", WEFT_PHASE_FWD, OC_CP_ALL, 4096, 1},
      {"cp_out_init", WEFT_PHASE_FWD, OC_CP_ALL, 135168, 1},
      {"cp_lse_merge", WEFT_PHASE_FWD, OC_CP_LAST, 6144, 1},
      {"cp_out_merge", WEFT_PHASE_FWD, OC_CP_LAST, 200704, 1},
      {"cp_lse_merge", WEFT_PHASE_FWD, OC_CP_FIRST, 3072, 1},
      {"cp_out_merge", WEFT_PHASE_FWD, OC_CP_FIRST, 100352, 1},
      {"cp_kv_pack", WEFT_PHASE_IG, OC_CP_ALL, 131072, 1},
      {"cp_lse_half", WEFT_PHASE_IG, OC_CP_FIRST, 2048, 1},
      {"cp_dq_copy", WEFT_PHASE_IG, OC_CP_LAST, 131072, 1},
      {"cp_dq_add", WEFT_PHASE_IG, OC_CP_LAST, 196608, 1},
      {"cp_dq_copy", WEFT_PHASE_IG, OC_CP_FIRST, 65536, 2},
      {"cp_dq_add", WEFT_PHASE_IG, OC_CP_FIRST, 98304, 1},
      {"cp_dkv_copy", WEFT_PHASE_IG, OC_CP_LAST, 32768, 2},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const OcOp *o = find(ops, n, want[i].name, want[i].phase, want[i].rank);
    CHECK(o != NULL);
    if (!o) {
      fprintf(stderr, "  missing %s\n", want[i].name);
      continue;
    }
    CHECK_NEAR(o->bytes, want[i].bytes, EXACT);
    CHECK_NEAR(count(o), want[i].count, EXACT);
  }
  /* dK, dV on the last rank: step 0 copies the halves (2 x 32,768), the
   * diagonal step adds them whole (2 x 3 x 32,768); no middle steps at CP 2 */
  double dkv = 0;
  int kernels = 0;
  for (int i = 0; i < n; i++)
    if (!strncmp(ops[i].name, "cp_dkv", 6) && ops[i].cp_rank == OC_CP_LAST) {
      dkv += count(&ops[i]) * ops[i].bytes;
      kernels += (int)count(&ops[i]);
    }
  CHECK_NEAR(dkv, 2 * 32768 + 2 * 98304, EXACT);
  CHECK_EQ_INT(kernels, 4);
}

/* A block's phase: the ops every rank runs, plus the slower rank's own:
 * on a roofline device (each op's time its own), with launches. */
static void slower_rank(void) {
  WeftDevice d;
  memset(&d, 0, sizeof d);
  d.peak_flops = 312e12, d.peak_vector_flops = 19.5e12, d.hbm_bytes_per_s = 2039e9;
  d.sms = 108, d.tile_m = 256, d.tile_n = 128;
  d.gemm_efficiency = 0.8, d.hbm_efficiency = 0.9, d.attention_efficiency = 0.6;
  OcLayer l = ring2();
  l.s = 4096, l.kv_len = 8192, l.heads = 32, l.kv_heads = 8, l.h = 4096, l.cp = 4;
  for (int graphs = 0; graphs < 2; graphs++) {
    l.graphs = graphs;
    OcOp ops[OC_MAX_OPS];
    int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
    double all[WEFT_NPHASES] = {0, 0, 0}, rk[WEFT_NPHASES][3] = {{0}}, ns[WEFT_NPHASES];
    for (int i = 0; i < n; i++) {
      double t = count(&ops[i]) * weft_opcost_launch_ns(weft_opcost_op_ns(&d, &ops[i], 2), graphs);
      if (ops[i].cp_rank) rk[ops[i].phase][ops[i].cp_rank] += t;
      else all[ops[i].phase] += t;
    }
    weft_opcost_block(&d, &l, OC_ATTN, ns);
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      double slow = rk[ph][1] > rk[ph][2] ? rk[ph][1] : rk[ph][2];
      CHECK_NEAR(ns[ph], all[ph] + slow, 1e-12);
    }
    CHECK(rk[WEFT_PHASE_FWD][1] > 0 && rk[WEFT_PHASE_FWD][2] > 0);
  }
}

/* CP 1, and cp_comm all_gather, keep the one flash kernel over the s / cp
 * queries and all s keys; a window, or standard attention, no ring. */
static void no_ring(void) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.seq_len = 1024, m.layers = 2, m.hidden = 1024, m.heads = m.kv_heads = 16;
  m.ffn_hidden = 4096, m.ffn_matrices = 3, m.vocab = 32000;
  WeftParallel p;
  weft_parallel_default(&p);
  p.attention = WEFT_ATTENTION_FLASH;
  OcLayer l;
  weft_opcost_layer(&m, &p, &l);
  CHECK_EQ_INT(l.cp_ring, 0);
  p.cp = 2;
  weft_opcost_layer(&m, &p, &l);
  CHECK_EQ_INT(l.cp_ring, 1);
  p.cp_comm = WEFT_CP_ALLGATHER;
  weft_opcost_layer(&m, &p, &l);
  CHECK_EQ_INT(l.cp_ring, 0);
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS), fused = 0;
  for (int i = 0; i < n; i++)
    if (ops[i].kind == OC_FUSED) {
      fused++;
      CHECK(!strcmp(ops[i].name, "flash_attn") && ops[i].m == 512 && ops[i].n == 1024);
      CHECK(ops[i].cp_role == OC_CP_NONE && ops[i].count == 0);
    }
  CHECK_EQ_INT(fused, 2);
  p.cp_comm = WEFT_CP_P2P;
  p.attention = WEFT_ATTENTION_STANDARD;
  weft_opcost_layer(&m, &p, &l);
  CHECK_EQ_INT(l.cp_ring, 0);
  p.attention = WEFT_ATTENTION_FLASH;
  m.window = 128;
  weft_opcost_layer(&m, &p, &l);
  CHECK_EQ_INT(l.cp_ring, 0);
  WeftError e;
  int kind = -1;
  CHECK_EQ_INT(weft_cp_comm_parse("all_gather", &kind, &e), WEFT_OK);
  CHECK_EQ_INT(kind, WEFT_CP_ALLGATHER);
  CHECK_EQ_INT(weft_cp_comm_parse("allgather", &kind, &e), WEFT_EINPUT);
  CHECK(!strcmp(weft_cp_comm_name(WEFT_CP_P2P), "p2p"));
}

/* The generated workload (CP 2 on a 2-NPU ring, 4 micro-batches, whole
 * layers): the attention's only cp collectives are send-recvs; forward 4
 * micro-batches x (cp - 1) blocks of 512 tokens x 16 KV heads x 128 x 2
 * bytes (2,097,152) in 4 calls, hidden behind the diagonal step's kernel
 * (the one beside step 1's transfer); backward 4 x 2 (cp - 1) blocks in 4 x
 * cp calls behind both steps' kernels (the off-diagonal one at the faster
 * rank's time). */
static void generated(void) {
  WeftModel m = fx_llm(4);
  WeftDevice d = fx_oc_device(2039e9, 0.9);
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 1;
  net.npus[0] = 2;
  net.topology[0] = WEFT_RING;
  snprintf(net.cost_dim[0], sizeof net.cost_dim[0], "c");
  WeftParallel p;
  weft_parallel_default(&p);
  p.merged_backward = 1;
  p.attention = WEFT_ATTENTION_FLASH;
  p.cp = 2;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError e;
  CHECK(wl != NULL);
  if (!wl) return;
  CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_OK);
  OcLayer l;
  weft_opcost_layer(&m, &p, &l);
  double diag[2], off[2];
  oc_ring_kernels(&d, &l, diag, off);
  double blk = 512.0 * 16 * 128 * 2;
  int found = 0;
  for (int i = 0; i < wl->nlayers; i++) {
    if (strncmp(wl->layers[i].name, "L1.attn", 7)) continue;
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      const WeftPhaseSpec *s = &wl->layers[i].phase[ph];
      if (s->group <= 0 || strcmp(wl->group_name[s->group - 1], "cp")) continue;
      CHECK_EQ_INT(s->coll, WEFT_COLL_SENDRECV);
      if (ph == WEFT_PHASE_FWD) {
        found |= 1;
        CHECK_NEAR(s->size_bytes, 4 * blk, EXACT);
        CHECK_NEAR(s->calls, 4, EXACT);
        CHECK_NEAR(s->overlap_ns, round(4 * diag[0]), EXACT); /* whole ns */
      } else {
        found |= 2;
        CHECK_EQ_INT(ph, WEFT_PHASE_IG);
        CHECK_NEAR(s->size_bytes, 4 * 2 * blk, EXACT);
        CHECK_NEAR(s->calls, 8, EXACT);
        CHECK_NEAR(s->overlap_ns, round(4 * (diag[1] + off[1])), EXACT);
      }
    }
  }
  CHECK_EQ_INT(found, 3);
  weft_workload_free(wl);
}

/* A ring step's unmasked m x n kernel from the square rows (the fixture
 * tables of tests/fixtures/mzoo, Transformer Engine = cuDNN, head width
 * 128, no mask: 360 TFLOP/s at seq 1024, 540 at 4096 forward; 288 and 432
 * backward): the forward at the row of its keys' length (each thread
 * block's loop): 4096 queries against 1024 keys at 1024's rate, 1024
 * against 4096 at 4096's; the backward at the square of the same area,
 * seq sqrt(4096 x 1024) = 2048 either way: halfway in ln(seq) between 1024
 * and 4096, 360. FLOPs as the script counts them: 4 x 16 x 4096 x 1024 x
 * 128, 2.5 times that backward. */
static void measured_shape(void) {
  WeftDevice d;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("tests/fixtures/mzoo", "fix", &d, &e), WEFT_OK);
  double fl = 4.0 * 16 * 4096 * 1024 * 128;
  OcOp o = {"cp_attn", WEFT_PHASE_FWD, OC_FUSED, 16, 4096, 1024, 128, 0, 0, 0, 0, 0, 0, 0, 1,
            OC_CP_OFF_DIAGONAL, OC_CP_LAST};
  CHECK_NEAR(weft_opcost_op_ns(&d, &o, 2), fl / 360e12 * 1e9, 1e-9);
  o.phase = WEFT_PHASE_IG;
  CHECK_NEAR(weft_opcost_op_ns(&d, &o, 2), 2.5 * fl / 360e12 * 1e9, 1e-9);
  o.m = 1024, o.n = 4096, o.cp_rank = OC_CP_FIRST;
  CHECK_NEAR(weft_opcost_op_ns(&d, &o, 2), 2.5 * fl / 360e12 * 1e9, 1e-9);
  o.phase = WEFT_PHASE_FWD;
  CHECK_NEAR(weft_opcost_op_ns(&d, &o, 2), fl / 540e12 * 1e9, 1e-9);
}

const TestCase suite_cpring[] = {{"cp_kernels", kernels},
                                 {"cp_passes", passes},
                                 {"cp_slower_rank", slower_rank},
                                 {"cp_no_ring", no_ring},
                                 {"cp_generated", generated},
                                 {"cp_measured_shape", measured_shape},
                                 {0}};
