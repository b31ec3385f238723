/* test_astra.c — `--like astra-sim` (ASTRA-sim 1.0 analytical semantics)
 * against times worked out by hand from that simulator's rules, the
 * ASTRA-sim 1.0 export read back, and what it refuses. (The comparison with
 * ASTRA-sim's own runs is tests/golden/astra_sim_compare.) */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_fixture.h"

#define SIZE 8000004.0  /* a chunk whose messages never divide the bandwidth evenly */

/* Set up one forward collective of SIZE on a 1-dim network under ASTRA-sim
 * semantics: endpoint delay 10 ns, one chunk. The loop adds 3 ns: the
 * collective ends, +1 to the backward pass, +1 input grad to weight grad,
 * +1 to the end of the pass. */
static void one_dim(Sim *s, WeftTopology t, int n, double bw, WeftCollective c, WeftAlgorithm a,
                    double step_ns) {
  sim_init(s, 1, &n, &t, &bw);
  sim_one(s, c, SIZE);
  s->set.like = WEFT_LIKE_ASTRA1;
  s->set.endpoint_delay_ns = 10;
  s->set.algorithm[0] = a;
  s->set.latency_ns[0] = step_ns;
}

/* Ring all-reduce on a Ring of 4 at 100 GB/s: 2(n-1) messages of S/4 =
 * 2000001 bytes, trunc(20000.01) = 20000 ns each; E before every message
 * and at the end; the n-1 reducing steps add a write and two reads of the
 * message at 500000 bytes/ns, 3 x 4 ns:
 * 10 + 6 x (20000 + 10) + 3 x 12 = 120106, + 3 = 120109. */
static void test_ring_allreduce(void) {
  Sim s;
  WeftSimResult r;
  one_dim(&s, WEFT_RING, 4, 100, WEFT_COLL_ALLREDUCE, WEFT_ALG_RING, 0);
  CHECK_NEAR(sim_run(&s, &r), 120109, 0);
  WeftSimWork w;
  CHECK_EQ_INT(weft_sim_estimate(&s.spec, &s.set, &w, NULL), 0);
  CHECK_NEAR(w.events, (double)r.events, 0);
  sim_free(&s);
}

/* Halving-doubling all-reduce on a Switch of 4 at 99 GB/s, 100 ns per step
 * (50 per hop, 2 hops a message): messages S/2 = 4000002 to the member 1
 * away, S/4 = 2000001 to 2 away, then back: 2000001 / 2 rounds down to
 * 1000000, doubled 2000000, then 4000000. trunc(100 + b / 99): 40504,
 * 20302, 20302, 40504. Five E (four messages and the end), one reducing
 * step with the 2000001-byte message (12 ns): 121674, + 3 = 121677. */
static void test_hd_allreduce(void) {
  Sim s;
  WeftSimResult r;
  one_dim(&s, WEFT_SWITCH, 4, 99, WEFT_COLL_ALLREDUCE, WEFT_ALG_HD, 100);
  CHECK_NEAR(sim_run(&s, &r), 121677, 0);
  sim_free(&s);
}

/* Direct all-reduce on a Ring of 4 at 100 GB/s, 500 ns per hop: S/4 to
 * every other member, 1 or 2 hops: 20500 or 21000 ns. Every member has all
 * three at E + 21000 = 21010, reduces the last by 21010 + E + 12 = 21032,
 * sends the three results then; the far one arrives 21000 later: 42032, and
 * E ends the phase: 42042, + 3 = 42045. */
static void test_direct_allreduce_hops(void) {
  Sim s;
  WeftSimResult r;
  one_dim(&s, WEFT_RING, 4, 100, WEFT_COLL_ALLREDUCE, WEFT_ALG_DIRECT, 500);
  CHECK_NEAR(sim_run(&s, &r), 42045, 0);
  sim_free(&s);
}

/* A ring on a FullyConnected dim of 4 at 99 GB/s sends one way over one
 * link of 99/3 GB/s: reduce-scatter, 3 messages of 2000001 bytes,
 * trunc(60606.09) = 60606 ns, each reducing (12 ns):
 * 10 + 3 x (60606 + 10 + 12) = 181894, + 3. */
static void test_ring_on_fully_connected(void) {
  Sim s;
  WeftSimResult r;
  one_dim(&s, WEFT_FULLY_CONNECTED, 4, 99, WEFT_COLL_REDUCESCATTER, WEFT_ALG_RING, 0);
  CHECK_NEAR(sim_run(&s, &r), 181897, 0);
  sim_free(&s);
}

/* Two chunks through dims 1, 2, 1 (reduce-scatter, all-reduce, all-gather)
 * of a Ring 4 x Ring 2 network at 100 and 99 GB/s, no latency: 8000012
 * bytes, chunks of 4000006. Dim 1 reduce-scatter: 3 messages of 1000001
 * (10000 ns), each reducing (6 ns): 10 + 3 x 10016 = 30058. Dim 2
 * all-reduce of 1000001: 2 messages of 500000 (5050 ns), one reducing
 * (3 ns): 3 x 10 + 3 + 10100 = 10133. Dim 1 all-gather of 1000001: 3
 * messages of it: 10 + 3 x 10010 = 30040. Dim 1 serves in arrival order:
 * RS1 [0, 30058], RS2 [30058, 60116], AG1 (ready at 40191) [60116, 90156],
 * AG2 (ready at 70249) [90156, 120196]; + 3. */
static void test_pipeline_fifo(void) {
  Sim s;
  WeftSimResult r;
  int npus[2] = {4, 2};
  WeftTopology t[2] = {WEFT_RING, WEFT_RING};
  double bw[2] = {100, 99};
  sim_init(&s, 2, npus, t, bw);
  sim_one(&s, WEFT_COLL_ALLREDUCE, 8000012);
  s.set.like = WEFT_LIKE_ASTRA1;
  s.set.endpoint_delay_ns = 10;
  s.set.chunks = 2;
  CHECK_NEAR(sim_run(&s, &r), 120199, 0);
  CHECK_NEAR(r.job[0].dim_busy_ns[0], 30058 * 2 + 30040 * 2, 0);
  sim_free(&s);
}

/* What ASTRA-sim 1.0 cannot express is refused, naming the group. */
static void test_refuses(void) {
  Sim s;
  WeftSimResult r;
  WeftError e;
  int npus[2] = {4, 4};
  WeftTopology t[2] = {WEFT_RING, WEFT_SWITCH};
  double bw[2] = {100, 100};
  sim_init(&s, 2, npus, t, bw);
  sim_one(&s, WEFT_COLL_ALLREDUCE, SIZE);
  s.set.like = WEFT_LIKE_ASTRA1;
  s.comm.group[WEFT_PHASE_FWD][0] = -1; /* the outer dim only: not the innermost NPUs */
  CHECK_EQ_INT(weft_simulate(&s.spec, s.bw, &s.set, &r, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "Forward"));
  int mp;
  CHECK_EQ_INT(weft_astra1_mp_npus(&s.net, s.wl, &s.comm, &mp, &e), WEFT_EINPUT);
  s.comm.group[WEFT_PHASE_FWD][0] = 4;
  s.comm.group[WEFT_PHASE_FWD][1] = 2; /* TP 8: weight-grad must be [-1, 2] */
  CHECK_EQ_INT(weft_astra1_mp_npus(&s.net, s.wl, &s.comm, &mp, &e), 0);
  CHECK_EQ_INT(mp, 8);
  WeftCollective c[3] = {WEFT_COLL_NONE, WEFT_COLL_NONE, WEFT_COLL_ALLREDUCE};
  double b[3] = {0, 0, 1e6};
  sim_layer(&s, NULL, c, b);
  CHECK_EQ_INT(weft_astra1_mp_npus(&s.net, s.wl, &s.comm, &mp, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "WeightGrad"));
  s.comm.group[WEFT_PHASE_WG][0] = -1;
  s.comm.group[WEFT_PHASE_WG][1] = 2;
  CHECK_EQ_INT(weft_astra1_mp_npus(&s.net, s.wl, &s.comm, &mp, &e), 0);
  s.set.like = WEFT_LIKE_ASTRA1;
  s.set.fidelity = WEFT_FIDELITY_LINK;
  CHECK_EQ_INT(weft_simulate(&s.spec, s.bw, &s.set, &r, &e), WEFT_EINVAL);
  s.set.fidelity = WEFT_FIDELITY_DIM;
  s.set.chunks = 2000000; /* ASTRA-sim's chunk size would round to 0 bytes */
  CHECK_EQ_INT(weft_simulate(&s.spec, s.bw, &s.set, &r, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "chunks"));
  sim_free(&s);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* The export read back: the network file carries the design (per-link
 * bandwidth in 2^30 bytes/s back to per-NPU GB/s) and the latency per step,
 * the system file the settings; simulating what was read gives the same
 * time as simulating the original. */
static void test_export_round_trip(void) {
  Sim s;
  WeftSimResult r1, r2;
  WeftError e;
  int npus[3] = {4, 4, 2};
  WeftTopology t[3] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_SWITCH};
  double bw[3] = {300, 90, 25.5};
  sim_init(&s, 3, npus, t, bw);
  WeftCollective c[3] = {WEFT_COLL_ALLREDUCE, WEFT_COLL_ALLGATHER, WEFT_COLL_REDUCESCATTER};
  double comp[3] = {1000.4, 2000.6, 3000}, b[3] = {1e6, 2e5 + 0.3, 4e6};
  sim_layer(&s, comp, c, b);
  s.comm.group[WEFT_PHASE_FWD][1] = s.comm.group[WEFT_PHASE_IG][1] = 2; /* TP 8 */
  s.comm.group[WEFT_PHASE_FWD][2] = s.comm.group[WEFT_PHASE_IG][2] = -1;
  s.comm.group[WEFT_PHASE_WG][0] = -1;
  s.comm.group[WEFT_PHASE_WG][1] = 2;
  s.set.like = WEFT_LIKE_ASTRA1;
  s.set.endpoint_delay_ns = 7;
  s.set.chunks = 8;
  s.set.in_flight = 2;
  s.set.latency_ns[0] = 300;
  s.set.latency_ns[1] = 200;
  s.set.latency_ns[2] = 900;
  s.set.algorithm[0] = WEFT_ALG_DIRECT;
  s.set.algorithm[1] = WEFT_ALG_RING;
  double t1 = sim_run(&s, &r1);
  char dir[] = "/tmp/weft_astra_XXXXXX", path[64];
  CHECK(mkdtemp(dir) != NULL);
  CHECK_EQ_INT(weft_astra1_export(dir, &s.spec, s.bw, &s.set, &e), 0);
  snprintf(path, sizeof path, "%s/network.json", dir);
  WeftNetwork net;
  CHECK_EQ_INT(weft_network_read(path, &net, &e), 0);
  CHECK(strstr(slurp(path), "\"links-count\": [2, 3, 1]") != NULL);
  for (int d = 0; d < 3; d++) {
    CHECK_NEAR(net.design_gbps[d], bw[d], 1e-14);
    CHECK_NEAR(net.latency_ns[d], s.set.latency_ns[d], 0);
    CHECK_EQ_INT(net.npus[d], npus[d]);
  }
  WeftSimSettings back;
  weft_sim_settings_default(&back);
  snprintf(path, sizeof path, "%s/system.txt", dir);
  CHECK_EQ_INT(weft_astra1_system_read(path, &net, &back, &e), 0);
  CHECK_EQ_INT(back.like, WEFT_LIKE_ASTRA1);
  CHECK_EQ_INT(back.chunks, 8);
  CHECK_EQ_INT(back.in_flight, 2);
  CHECK_NEAR(back.endpoint_delay_ns, 7, 0);
  CHECK_EQ_INT(back.algorithm[0], WEFT_ALG_DIRECT);
  CHECK_EQ_INT(back.algorithm[1], WEFT_ALG_RING);
  CHECK_EQ_INT(back.algorithm[2], WEFT_ALG_HD); /* the default, resolved */
  snprintf(path, sizeof path, "%s/workload.txt", dir);
  WeftWorkload *wl = NULL;
  CHECK_EQ_INT(weft_workload_read(path, &wl, &e), 0);
  CHECK(wl && !strcmp(wl->policy, "HYBRID_TRANSFORMER model_parallel_NPU_group: 8"));
  CHECK(wl && wl->layers[0].phase[0].compute_ns == 1000 && wl->layers[0].phase[1].size_bytes == 200000);
  if (wl) {
    memcpy(back.latency_ns, net.latency_ns, sizeof back.latency_ns);
    s.spec.net = &net;
    s.spec.jobs[0].workload = wl;
    double t2 = weft_simulate(&s.spec, net.design_gbps, &back, &r2, &e) ? -1 : r2.time_ns;
    CHECK_NEAR(t2, t1, 0);
  }
  weft_workload_free(wl);
  const char *names[3] = {"network.json", "system.txt", "workload.txt"};
  for (int k = 0; k < 3; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    unlink(path);
  }
  rmdir(dir);
  sim_free(&s);
}

/* ASTRA-sim 1.0's scheduling-policy decides the priority forward
 * collectives take from the counter: LIFO adds one, FIFO subtracts one
 * (input-grad collectives always add, weight-grad ones always subtract).
 * Forward collectives are blocking, so in the one pass simulated none waits
 * beside another: the counter's base shifts, every backward priority keeps
 * its place relative to the others, and both policies give the same time to
 * the ns, on a job whose weight-grad collectives queue behind input-grad
 * ones (three layers, each phase an all-reduce, TP 4 x DP 2, 4 chunks, one
 * in flight). The system file says FIFO or LIFO, read and written back;
 * anything else is refused naming the key. */
static void test_scheduling_policy(void) {
  Sim s;
  WeftSimResult r;
  WeftError e;
  int npus[2] = {4, 2};
  WeftTopology t[2] = {WEFT_RING, WEFT_SWITCH};
  double bw[2] = {100, 40};
  sim_init(&s, 2, npus, t, bw);
  WeftCollective c[3] = {WEFT_COLL_ALLREDUCE, WEFT_COLL_ALLREDUCE, WEFT_COLL_ALLREDUCE};
  double comp[3] = {3000, 2000, 1000}, b[3] = {2e6, 3e6, 8e6};
  for (int l = 0; l < 3; l++) sim_layer(&s, comp, c, b);
  s.comm.group[WEFT_PHASE_FWD][1] = s.comm.group[WEFT_PHASE_IG][1] = -1; /* TP 4 on dim 1 */
  s.comm.group[WEFT_PHASE_WG][0] = -1;                                  /* DP 2 on dim 2 */
  s.set.like = WEFT_LIKE_ASTRA1;
  s.set.endpoint_delay_ns = 10;
  s.set.chunks = 4;
  s.set.latency_ns[0] = 100;
  s.set.latency_ns[1] = 300;
  double lifo = sim_run(&s, &r);
  s.set.astra_policy = WEFT_ASTRA_FIFO;
  double fifo = sim_run(&s, &r);
  CHECK(lifo > 0);
  CHECK_NEAR(fifo, lifo, 0);
  s.set.astra_policy = (WeftAstraPolicy)2;
  CHECK_EQ_INT(weft_simulate(&s.spec, s.bw, &s.set, &r, &e), WEFT_EINVAL);
  s.set.astra_policy = WEFT_ASTRA_FIFO;
  char dir[] = "/tmp/weft_astra_XXXXXX", path[64];
  CHECK(mkdtemp(dir) != NULL);
  CHECK_EQ_INT(weft_astra1_export(dir, &s.spec, s.bw, &s.set, &e), 0);
  snprintf(path, sizeof path, "%s/system.txt", dir);
  const char *text = slurp(path);
  CHECK(text && !strncmp(text, "scheduling-policy: FIFO\n", 24));
  WeftSimSettings back;
  weft_sim_settings_default(&back);
  CHECK_EQ_INT(weft_astra1_system_read(path, &s.net, &back, &e), 0);
  CHECK_EQ_INT(back.astra_policy, WEFT_ASTRA_FIFO);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs("all-reduce-implementation: ring_ring\nscheduling-policy: SJF\n", f);
    fclose(f);
  }
  CHECK_EQ_INT(weft_astra1_system_read(path, &s.net, &back, &e), WEFT_EINPUT);
  CHECK(e.line == 2 && !strcmp(e.field, "scheduling-policy:") &&
        strstr(e.msg, "expected LIFO or FIFO") != NULL);
  static const char *const names[4] = {"network.json", "system.txt", "workload.txt", ""};
  for (int k = 0; names[k][0]; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    unlink(path);
  }
  rmdir(dir);
  sim_free(&s);
}

/* An ASTRA-sim 1.0 network.json with one key replaced: each number out of
 * range says so, with the range, at its entry (links-count 2^31 read as "no
 * usable link" before); a bandwidth of 0 is refused when read (it failed at
 * the solve); the keys weft ignores still hold numbers (1e999 was read past). */
static void test_network_json_ranges(void) {
  static const struct {
    const char *key, *value, *field, *msg;
  } cases[] = {
      {"links-count", "[2147483648, 1]", "links-count",
       "links-count entry 1 is out of range: must be a number from 0 to 2147483647, got "
       "2147483648"},
      {"link-bandwidth", "[0, 5]", "link-bandwidth",
       "link-bandwidth entry 1 is out of range: must be a number from 1e-6 to 1e12, got 0"},
      {"link-bandwidth", "[5, 1e13]", "link-bandwidth", "entry 2 is out of range"},
      {"link-latency", "[1e19, 0]", "link-latency", "from 0 to 1e18, got 1e19"},
      {"hbm-bandwidth", "[1e999]", "hbm-bandwidth", "hbm-bandwidth entry 1 must be a finite number"},
      {"hbm-latency", "[\"x\", 0]", "hbm-latency", "hbm-latency entry 1 must be a number"},
      {"dimensions-count", "9223372036854775807", "dimensions-count",
       "dimensions-count is out of range: must be an integer from -2147483648 to 2147483647"},
      {NULL, NULL, NULL, NULL}, /* the file as it is: read */
  };
  char dir[] = "/tmp/weft_astra_XXXXXX", path[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/network.json", dir);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    static const char *const keys[] = {"dimensions-count", "links-count",   "link-latency",
                                       "link-bandwidth",   "hbm-latency",   "hbm-bandwidth"};
    static const char *const vals[] = {"2", "[2, 1]", "[0.0, 0.0]", "[93.1, 46.5]",
                                       "[500.0, 500.0]", "[370.0, 370.0]"};
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) break;
    fprintf(f, "{\n  \"topology-name\": \"Hierarchical\",\n"
               "  \"topologies-per-dim\": [\"Ring\", \"Switch\"],\n"
               "  \"units-count\": [8, 4]");
    for (int k = 0; k < 6; k++)
      fprintf(f, ",\n  \"%s\": %s", keys[k],
              cases[i].key && !strcmp(cases[i].key, keys[k]) ? cases[i].value : vals[k]);
    fprintf(f, "\n}\n");
    fclose(f);
    WeftNetwork net;
    WeftError e;
    int rc = weft_network_read(path, &net, &e);
    if (!cases[i].key) {
      CHECK_EQ_INT(rc, WEFT_OK);
      continue;
    }
    CHECK_EQ_INT(rc, WEFT_EINPUT);
    CHECK(!strcmp(e.field, cases[i].field) && strstr(e.msg, cases[i].msg) != NULL);
    if (rc != WEFT_EINPUT || !strstr(e.msg, cases[i].msg)) fprintf(stderr, "  got: %s\n", e.msg);
  }
  unlink(path);
  rmdir(dir);
}

/* system.txt's keys weft ignores (the shared-bus model's L, o, g, G, ...)
 * still hold numbers: 1e999 or a word there is refused at its line, where
 * it was read past; a number is accepted. */
static void test_system_ignored_numbers(void) {
  static const struct {
    const char *value, *msg;
  } cases[] = {{"1e999", "L: must be a finite number, got '1e999'"},
               {"fast", "L: must be a number, got 'fast'"},
               {"0x10", "L: must be a number, got '0x10'"},
               {"2.5", NULL}};
  static const char *const coll[4] = {"all-reduce", "all-gather", "reduce-scatter", "all-to-all"};
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 1;
  net.topology[0] = WEFT_RING;
  net.npus[0] = 4;
  char dir[] = "/tmp/weft_astra_XXXXXX", path[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/system.txt", dir);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) break;
    fprintf(f, "scheduling-policy: LIFO\nL: %s\npreferred-dataset-splits: 4\n", cases[i].value);
    for (int k = 0; k < 4; k++) fprintf(f, "%s-implementation: ring\n", coll[k]);
    fclose(f);
    WeftSimSettings s;
    weft_sim_settings_default(&s);
    WeftError e;
    int rc = weft_astra1_system_read(path, &net, &s, &e);
    if (!cases[i].msg) {
      CHECK_EQ_INT(rc, WEFT_OK);
      continue;
    }
    CHECK_EQ_INT(rc, WEFT_EINPUT);
    CHECK(e.line == 2 && strstr(e.msg, cases[i].msg) != NULL);
  }
  unlink(path);
  rmdir(dir);
}

const TestCase suite_astra[] = {
    {"astra_ring_allreduce", test_ring_allreduce},
    {"astra_hd_allreduce", test_hd_allreduce},
    {"astra_direct_allreduce_hops", test_direct_allreduce_hops},
    {"astra_ring_on_fully_connected", test_ring_on_fully_connected},
    {"astra_pipeline_fifo", test_pipeline_fifo},
    {"astra_refuses", test_refuses},
    {"astra_export_round_trip", test_export_round_trip},
    {"astra_network_json_ranges", test_network_json_ranges},
    {"astra_system_ignored_numbers", test_system_ignored_numbers},
    {"astra_scheduling_policy", test_scheduling_policy},
    {0, 0},
};
