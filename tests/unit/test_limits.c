/* test_limits.c — what every reader refuses (io/limits.h): files that are
 * not regular or too big, numbers outside their documented ranges, denormals,
 * hex; the traffic CSV's header, sums and repeated members. Each error's
 * message, line and column are asserted. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test.h"
#include "io/limits.h"
#include "weft.h"

static char dir[64];

static const char *path_of(const char *name) {
  static char path[WEFT_PATH_LEN];
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "/tmp/weft-limits-XXXXXX");
    if (!mkdtemp(dir)) {
      fprintf(stderr, "  cannot create a temporary directory\n");
      exit(2);
    }
  }
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return path;
}

static const char *put(const char *name, const char *text) {
  const char *p = path_of(name);
  FILE *f = fopen(p, "wb");
  if (!f) {
    fprintf(stderr, "  cannot write %s\n", p);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
  return p;
}

/* Removes what put() and mkfifo made; the directory holds nothing else. */
static void cleanup(void) {
  static const char *const names[] = {"w.txt", "net.yml", "cost.yml", "comm.yml", "sc.yml",
                                      "m.yml", "devices.yml", "t.csv", "p.yml", "fifo", "big"};
  if (!dir[0]) return;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) remove(path_of(names[i]));
  rmdir(dir);
  dir[0] = '\0';
}

/* rc, line, col and a part of the message. */
static void expect(int at, int rc, const WeftError *e, int code, int line, int col,
                   const char *msg) {
  if (rc == code && e->code == code && e->line == line && e->col == col && strstr(e->msg, msg))
    return;
  fprintf(stderr, "  %s:%d: got rc %d at %d:%d \"%s\", expected %d at %d:%d \"%s\"\n", __FILE__,
          at, rc, e->line, e->col, e->msg, code, line, col, msg);
  test_failures_++;
}
#define EXPECT(rc, e, code, line, col, msg) expect(__LINE__, rc, e, code, line, col, msg)

/* ------------------------------------------------------------------ files */

static void test_not_regular_or_too_big(void) {
  WeftNetwork net;
  WeftError e;
  int rc = weft_network_read("/dev/zero", &net, &e);
  EXPECT(rc, &e, WEFT_EIO, 0, 0, "not a regular file (a character device)");
  CHECK(!strcmp(e.file, "/dev/zero"));
  rc = weft_network_read("tests", &net, &e);
  EXPECT(rc, &e, WEFT_EIO, 0, 0, "not a regular file (a directory)");
  /* a fifo with no writer: refused at once, not waited on */
  const char *fifo = path_of("fifo");
  CHECK(mkfifo(fifo, 0600) == 0);
  WeftWorkload *wl = NULL;
  rc = weft_workload_read(fifo, &wl, &e);
  EXPECT(rc, &e, WEFT_EIO, 0, 0, "not a regular file (a fifo)");
  CHECK(wl == NULL);
  /* one byte over the cap (a sparse file: nothing is written) */
  const char *big = path_of("big");
  FILE *f = fopen(big, "wb");
  CHECK(f && fseek(f, WEFT_MAX_INPUT_BYTES, SEEK_SET) == 0 && fputc('x', f) == 'x');
  if (f) fclose(f);
  rc = weft_workload_read(big, &wl, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 0, 0, "larger than 256 MiB, the most an input file may be");
  /* exactly at the cap is read (then fails as a workload, at line 1) */
  CHECK(truncate(big, WEFT_MAX_INPUT_BYTES) == 0);
  rc = weft_workload_read(big, &wl, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 1, 0, "binary data (a nul byte)");
  cleanup();
}

/* ------------------------------------------------------------------ numbers */

static void test_number_grammar(void) {
  static const struct {
    const char *s;
    int ok;
    double v;
    const char *why;
  } cases[] = {
      {"12", 1, 12.0, NULL},
      {"-0.5", 1, -0.5, NULL},
      {"1e-6", 1, 1e-6, NULL},
      {"1e12", 1, 1e12, NULL},
      {"2.2250738585072014e-308", 1, DBL_MIN, NULL},
      {"0", 1, 0.0, NULL},
      {"0e-400", 1, 0.0, NULL},  /* a written zero is no underflow... */
      {"1e-400", 0, 0, "a denormal number"},  /* ...but this is */
      {"1e-310", 0, 0, "a denormal number"},
      {"-4.9e-324", 0, 0, "a denormal number"},
      {"1e999", 0, 0, "not a finite number"},
      {"inf", 0, 0, "not a finite number"},
      {".nan", 0, 0, "not a finite number"},
      {"0x10", 0, 0, "not a number"},
      {"0x1p10", 0, 0, "not a number"},
      {" 1", 0, 0, "not a number"},
      {"1_000", 0, 0, "not a number"},
      {"", 0, 0, "not a number"},
      /* 64 characters and more are numbers too (they were "not a number"):
       * 1e70 and 1e-71 written out, and 1e400 written out overflows */
      {"10000000000000000000000000000000000000000000000000000000000000000000000", 1, 1e70, NULL},
      {"0.00000000000000000000000000000000000000000000000000000000000000000000001", 1, 1e-71,
       NULL},
      {"1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
       "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
       "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
       "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
       "000000000000000000000000000000000000000000000000",
       0, 0, "not a finite number"},
      {"1000000000000000000000000000000000000000000000000000000000000000000000x", 0, 0,
       "not a number"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double v = -1.0;
    const char *why = "unset";
    int rc = weft_number_parse(cases[i].s, strlen(cases[i].s), &v, &why);
    if (cases[i].ok) {
      CHECK(rc == WEFT_OK && v == cases[i].v && why == NULL);
    } else {
      CHECK(rc == WEFT_EINPUT && why && strstr(why, cases[i].why));
      if (rc != WEFT_EINPUT) fprintf(stderr, "  accepted '%s'\n", cases[i].s);
    }
  }
}

/* ------------------------------------------------------------------ workload text */

static void test_workload_ranges(void) {
  static const struct {
    const char *text;
    int col;
    const char *msg;
  } cases[] = {
      {"a -1 1e308 NONE 0 0 NONE 0 0 NONE 0 0\n", 6, "fwd_compute must be <= 1e18, got 1e308"},
      {"a -1 0 ALLREDUCE 1.0000001e18 0 NONE 0 0 NONE 0 0\n", 18,
       "fwd_size must be <= 1e18, got 1.0000001e18"},
      {"a -1 0 NONE 0 0 NONE 0 0 NONE 0 1e-310\n", 33, "update_time must not be a denormal"},
      {"a -1 0 NONE 0 0 ALLGATHER 0x10 0 NONE 0 0\n", 27, "ig_size must be a number, got '0x10'"},
      {"a -1 0 NONE 0 -1e-6 NONE 0 0 NONE 0 0\n", 15, "ig_compute must be >= 0, got -1e-6"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    WeftWorkload *wl = NULL;
    WeftError e;
    int rc = weft_workload_parse(cases[i].text, "w.txt", &wl, &e);
    EXPECT(rc, &e, WEFT_EINPUT, 1, cases[i].col, cases[i].msg);
    CHECK(wl == NULL);
  }
  /* both ends of the range are accepted */
  WeftWorkload *wl = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_workload_parse("a -1 1e-6 ALLREDUCE 1e18 1e18 NONE 0 0 NONE 0 0\n", "w.txt",
                                   &wl, &e),
               WEFT_OK);
  if (wl) CHECK(wl->layers[0].phase[0].size_bytes == 1e18 && wl->layers[0].phase[0].compute_ns == 1e-6);
  weft_workload_free(wl);
}

/* ------------------------------------------------------------------ LIBRA files */

static void test_libra_ranges(void) {
  WeftNetwork net;
  WeftCostModel cm;
  WeftCommunicator comm;
  WeftError e;
  int rc = weft_network_read(
      put("net.yml", "Topology: [Ring, Ring]\nNpusCount: [65536, 32768]\nCostDimension: [a, a]\n"),
      &net, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 2, 20, "more than 1073741824 NPUs (NpusCount entries 1 to 2 "
                                     "multiply to 2147483648)");
  rc = weft_network_read(
      put("net.yml", "Topology: [Ring]\nNpusCount: [2147483647]\nCostDimension: [a]\n"), &net, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 2, 13, "NpusCount entry 1 must be <= 1073741824, got 2147483647");
  /* 2^15 x 2^15 = 2^30: the cap itself is fine */
  rc = weft_network_read(
      put("net.yml", "Topology: [Ring, Ring]\nNpusCount: [32768, 32768]\nCostDimension: [a, a]\n"),
      &net, &e);
  CHECK_EQ_INT(rc, WEFT_OK);

  rc = weft_cost_model_read(put("cost.yml", "a:\n  Link: 2\n  Switch: 1.5e12\n"), &cm, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 3, 11, "a Switch must be <= 1e12, got 1.5e12");
  CHECK(!strcmp(e.field, "Switch"));
  rc = weft_cost_model_read(put("cost.yml", "a:\n  Link: 1e-320\n"), &cm, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 2, 9, "a Link must not be a denormal number");
  rc = weft_cost_model_read(put("cost.yml", "a:\n  Link: 1e-6\n  Nic: 1e12\n"), &cm, &e);
  CHECK_EQ_INT(rc, WEFT_OK);

  rc = weft_communicator_read(
      put("comm.yml", "Forward: [2, -1]\nInputGrad: [2, 2147483647]\nWeightGrad: [-1, 2]\n"),
      &comm, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 2, 16, "InputGrad entry 2 must be <= 1073741824, got 2147483647");
  cleanup();
}

/* ------------------------------------------------------------------ scenario */

static void test_scenario_weight(void) {
  put("net.yml", "Topology: [Ring]\nNpusCount: [4]\nCostDimension: [a]\n");
  put("cost.yml", "a:\n  Link: 2\n");
  put("comm.yml", "Forward: [4]\nInputGrad: [4]\nWeightGrad: [4]\n");
  put("w.txt", "a -1 10 ALLREDUCE 1000 10 NONE 0 10 NONE 0 0\n");
  static const struct {
    const char *weight;
    const char *msg;
  } cases[] = {{"2e12", "weight must be <= 1e12, got 2e12"},
               {"1e-310", "weight must not be a denormal number"},
               {"0", "weight must be > 0, got 0"},
               {"0x1p3", "weight must be a number, got '0x1p3'"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[512];
    snprintf(text, sizeof text,
             "network: net.yml\ncost_model: cost.yml\nworkloads:\n"
             "  - {workload: w.txt, communicator: comm.yml, weight: %s}\n",
             cases[i].weight);
    WeftScenario *sc = weft_scenario_create();
    WeftError e;
    int rc = weft_scenario_read(put("sc.yml", text), sc, &e);
    EXPECT(rc, &e, WEFT_EINPUT, 4, 55, cases[i].msg);
    weft_scenario_free(sc);
  }
  cleanup();
}

/* ------------------------------------------------------------------ zoo */

static void test_zoo_ranges(void) {
  WeftModel *m = malloc(sizeof *m);
  WeftError e;
  CHECK(m != NULL);
  if (!m) return;
#define MODEL(layers) \
  "arch: transformer\nglobal_batch: 8\nseq_len: 16\nlayers: " layers "\nhidden: 8\nheads: 1\nvocab: 16\n"
  char text[256];
  snprintf(text, sizeof text, "%s", MODEL("100001"));
  int rc = weft_model_read(put("m.yml", text), m, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 4, 9, "layers must be <= 100000, got 100001");
  snprintf(text, sizeof text, "%s", MODEL("100000"));
  CHECK_EQ_INT(weft_model_read(put("m.yml", text), m, &e), WEFT_OK);
  /* the generator refuses it too, before allocating, for a model built in code */
  m->layers = 100000000;
  WeftDevice dev;
  memset(&dev, 0, sizeof dev);
  dev.peak_flops = 1e15;
  dev.hbm_bytes = 1e12;
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 1;
  net.npus[0] = 2;
  WeftParallel par;
  weft_parallel_default(&par);
  par.dp = 2;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  rc = weft_generate(m, &dev, &par, &net, 0, wl, &comm, NULL, &e);
  CHECK_EQ_INT(rc, WEFT_EINPUT);
  CHECK(strstr(e.msg, "layers must be <= 100000, got 100000000") != NULL);
  CHECK(wl && wl->nlayers == 0);
  weft_workload_free(wl);
  free(m);

  WeftDevice d;
  put("devices.yml", "x:\n  peak_tflops: 312\n  hbm_gib: 1e13\n  hbm_gbps: 2039\n");
  rc = weft_zoo_device(dir, "x", &d, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 3, 12, "hbm_gib must be <= 1e12, got 1e13");
  put("devices.yml", "x:\n  peak_tflops: 1e-320\n  hbm_gib: 80\n  hbm_gbps: 2039\n");
  rc = weft_zoo_device(dir, "x", &d, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 2, 16, "peak_tflops must not be a denormal number");
  cleanup();
}

/* ------------------------------------------------------------------ traffic CSV, prices */

static void test_traffic_csv(void) {
  static const struct {
    const char *text;
    int line, col;
    const char *msg;
  } cases[] = {
      /* only the exact header is skipped: these are records, and bad ones */
      {"srcx,dst,bytes\n0,1,5\n", 1, 1, "expected a server id in [0, 4), got 'srcx'"},
      {"src,dst\n", 1, 1, "expected src,dst,bytes or allreduce"},
      {"src,dst,bytes,more\n", 1, 1, "expected src,dst,bytes or allreduce"},
      /* the header only as the first record */
      {"0,1,5\nsrc,dst,bytes\n", 2, 1, "expected a server id in [0, 4), got 'src'"},
      /* sums of a pair past the cap name the line that crosses it */
      {"0,1,6e17\n1,0,9e17\n0,1,5e17\n", 3, 5,
       "the bytes from 0 to 1 add up to 1.1e+18 here, more than 1e18"},
      {"0,1,2e18\n", 1, 5, "bytes must be <= 1e18, got '2e18'"},
      {"0,1,1e-310\n", 1, 5, "bytes must not be a denormal number"},
      {"0,1,0x10\n", 1, 5, "bytes must be a number, got '0x10'"},
      {"compute_ns,1e19\n", 1, 12, "compute_ns must be <= 1e18, got '1e19'"},
      {"allreduce,100,0,2,1,0\n", 1, 21, "member 0 is listed twice"},
      {"allreduce,100,3, 3\n", 1, 18, "member 3 is listed twice"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    WeftTraffic *t = NULL;
    WeftError e;
    int rc = weft_traffic_read_csv(put("t.csv", cases[i].text), 4, &t, &e);
    EXPECT(rc, &e, WEFT_EINPUT, cases[i].line, cases[i].col, cases[i].msg);
    CHECK(t == NULL);
  }
  /* the header with blanks around its names is the header; a pair may reach the cap */
  WeftTraffic *t = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_traffic_read_csv(put("t.csv", " src , dst ,bytes\n0,1,6e17\n0,1,4e17\n"), 4,
                                     &t, &e),
               WEFT_OK);
  if (t) CHECK(weft_traffic_demand(t, 0, 1) == 1e18);
  weft_traffic_free(t);
  cleanup();
}

static void test_prices(void) {
  WeftPrices p;
  WeftError e;
  int rc = weft_topo_prices_read(put("p.yml", "fiber_usd: 30\nocs_port_usd: 1e13\n"), &p, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 2, 15, "ocs_port_usd must be <= 1e12, got 1e13");
  rc = weft_topo_prices_read(put("p.yml", "nic_port_usd_per_gbps: 5e-324\n"), &p, &e);
  EXPECT(rc, &e, WEFT_EINPUT, 1, 24, "nic_port_usd_per_gbps must not be a denormal number");
  cleanup();
}

const TestCase suite_limits[] = {
    {"limits/not_regular_or_too_big", test_not_regular_or_too_big},
    {"limits/number_grammar", test_number_grammar},
    {"limits/workload_ranges", test_workload_ranges},
    {"limits/libra_ranges", test_libra_ranges},
    {"limits/scenario_weight", test_scenario_weight},
    {"limits/zoo_ranges", test_zoo_ranges},
    {"limits/traffic_csv", test_traffic_csv},
    {"limits/prices", test_prices},
    {0},
};
