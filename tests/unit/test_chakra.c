/* test_chakra.c — Chakra execution traces: the framing and encoding against
 * bytes worked out by hand from the protobuf wire format (field number << 3 |
 * wire type, varints), the group layout against member lists by hand, a
 * round trip through the writer and the reader, and the reader's refusals on
 * hand-built traces. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/chakra.h"
#include "../test.h"
#include "weft.h"

/* 300 = 0b10_0101100: low 7 bits 0x2c with the continuation bit, then 0x02. */
static void test_varint(void) {
  uint8_t b[10];
  CHECK_EQ_INT((int)chakra_varint_put(b, 300), 2);
  CHECK(b[0] == 0xac && b[1] == 0x02);
  CHECK_EQ_INT((int)chakra_varint_put(b, 7), 1);
  CHECK(b[0] == 7);
  CHECK_EQ_INT((int)chakra_varint_put(b, UINT64_MAX), 10);
  CHECK(b[9] == 0x01);
}

static void net2(WeftNetwork *net, int n0, int n1) {
  memset(net, 0, sizeof *net);
  net->ndims = 2;
  net->topology[0] = WEFT_RING;
  net->topology[1] = WEFT_SWITCH;
  net->npus[0] = n0;
  net->npus[1] = n1;
}

/* Ring 8 x Switch 4 (rank = c0 + 8 c1). A block of 4 on dim 1 holding rank
 * 5: 4..7. A group of 2 on dim 0 going on to dim 1 takes dim 0's outer part,
 * 8/2 = 4 apart: rank 5 (c0 = 5) with 1 and 5 on every c1. Whole dim 1:
 * 5, 13, 21, 29. */
static void test_members(void) {
  WeftNetwork net;
  net2(&net, 8, 4);
  long long m[32];
  int g1[2] = {4, -1}, g2[2] = {2, 4}, g3[2] = {-1, 4};
  CHECK_EQ_INT(chakra_members(&net, g1, 5, m), 4);
  CHECK(m[0] == 4 && m[1] == 5 && m[2] == 6 && m[3] == 7);
  CHECK_EQ_INT(chakra_members(&net, g2, 5, m), 8);
  long long want2[8] = {1, 5, 9, 13, 17, 21, 25, 29};
  CHECK(!memcmp(m, want2, sizeof want2));
  CHECK_EQ_INT(chakra_members(&net, g3, 5, m), 4);
  CHECK(m[0] == 5 && m[1] == 13 && m[2] == 21 && m[3] == 29);
  CHECK(chakra_whole_dims(&net, g3) && !chakra_whole_dims(&net, g1));
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *b = malloc(1 << 16);
  *len = fread(b, 1, 1 << 16, f);
  fclose(f);
  return b;
}

/* One layer on a Switch of 2 (loop no-overlap): forward compute 2500 ns and
 * an all-reduce of 1000 bytes over the dim. */
static WeftWorkload *tiny(WeftNetwork *net, WeftCommunicator *comm) {
  memset(net, 0, sizeof *net);
  net->ndims = 1;
  net->topology[0] = WEFT_SWITCH;
  net->npus[0] = 2;
  memset(comm, 0, sizeof *comm);
  comm->ndims = 1;
  for (int p = 0; p < WEFT_NPHASES; p++) comm->group[p][0] = 2;
  WeftWorkload *wl = weft_workload_create();
  WeftLayer L;
  memset(&L, 0, sizeof L);
  strcpy(L.name, "L");
  L.phase[WEFT_PHASE_FWD].compute_ns = 2500;
  L.phase[WEFT_PHASE_FWD].coll = WEFT_COLL_ALLREDUCE;
  L.phase[WEFT_PHASE_FWD].size_bytes = 1000;
  L.phase[WEFT_PHASE_WG].compute_ns = 1234.5;
  L.phase[WEFT_PHASE_WG].coll = WEFT_COLL_ALLREDUCE;
  L.phase[WEFT_PHASE_WG].size_bytes = 3000;
  L.phase[WEFT_PHASE_WG].calls = 3;
  weft_workload_add(wl, &L);
  return wl;
}

/* The first bytes of rank 0's trace, by hand: the GlobalMetadata (length 7:
 * field 1 string, 0x0a, length 5, "1.0.0"), then the compute node's length
 * and its first fields: id 0 (proto3 leaves it out), name (field 2: 0x12,
 * length 5, "L/fwd"), type COMP_NODE (field 3 varint: 0x18 0x04),
 * duration_micros 2500 ns -> 3 us (field 7: 0x38 0x03). */
static void test_encoding(void) {
  WeftNetwork net;
  WeftCommunicator comm;
  WeftWorkload *wl = tiny(&net, &comm);
  char dir[] = "/tmp/weft_chakra_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  WeftError err;
  CHECK_EQ_INT(weft_chakra_export(dir, "t", &net, wl, &comm, WEFT_LOOP_NO_OVERLAP, NULL, NULL, &err),
               WEFT_OK);
  char path[256];
  size_t len = 0;
  snprintf(path, sizeof path, "%s/t.0.et", dir);
  char *b = read_all(path, &len);
  static const uint8_t md[] = {0x07, 0x0a, 0x05, '1', '.', '0', '.', '0'};
  static const uint8_t node[] = {0x12, 0x05, 'L', '/', 'f', 'w', 'd', 0x18, 0x04, 0x38, 0x03};
  CHECK(b && len > 30 && !memcmp(b, md, sizeof md));
  CHECK(b && !memcmp(b + sizeof md + 1, node, sizeof node));
  /* every message's length prefix adds up to the file's length */
  size_t pos = 0, msgs = 0;
  while (b && pos < len) {
    uint64_t v = 0;
    int s = 0;
    uint8_t c;
    do {
      c = (uint8_t)b[pos++];
      v |= (uint64_t)(c & 0x7f) << s;
      s += 7;
    } while (c & 0x80);
    pos += v;
    msgs++;
  }
  /* metadata, fwd compute, fwd all-reduce, wg compute, 3 wg all-reduces */
  CHECK(pos == len);
  CHECK_EQ_INT((int)msgs, 7);
  free(b);
  snprintf(path, sizeof path, "%s/t.comm_groups.json", dir);
  b = read_all(path, &len);
  CHECK(b && len == 4 && !memcmp(b, "{\n}\n", 4)); /* a whole-dim group: involved_dim */
  free(b);
  for (int r = 0; r < 2; r++) {
    snprintf(path, sizeof path, "%s/t.%d.et", dir, r);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/t.comm_groups.json", dir);
  unlink(path);
  rmdir(dir);
  weft_workload_free(wl);
}

/* Written and read back: the same compute (exact, from weft_duration_ns),
 * collectives, sizes, calls and groups. */
static void test_round_trip(void) {
  WeftNetwork net;
  WeftCommunicator comm, back;
  WeftWorkload *wl = tiny(&net, &comm), *rd = NULL;
  char dir[] = "/tmp/weft_chakra_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  WeftError err;
  CHECK_EQ_INT(weft_chakra_export(dir, "t", &net, wl, &comm, WEFT_LOOP_TP_DP_OVERLAP, NULL, NULL,
                                  &err),
               WEFT_OK);
  CHECK(weft_chakra_is_trace(dir));
  CHECK_EQ_INT(weft_chakra_read(dir, &net, &rd, &back, &err), WEFT_OK);
  CHECK(rd && rd->nlayers == 1);
  if (rd && rd->nlayers == 1) {
    const WeftLayer *L = &rd->layers[0];
    CHECK(!strcmp(L->name, "L"));
    CHECK_NEAR(L->phase[WEFT_PHASE_FWD].compute_ns, 2500, 0);
    CHECK_NEAR(L->phase[WEFT_PHASE_WG].compute_ns, 1234.5, 0);
    CHECK(L->phase[WEFT_PHASE_FWD].coll == WEFT_COLL_ALLREDUCE);
    CHECK_NEAR(L->phase[WEFT_PHASE_FWD].size_bytes, 1000, 0);
    CHECK_NEAR(weft_phase_calls(&L->phase[WEFT_PHASE_WG]), 3, 0);
    CHECK_NEAR(L->phase[WEFT_PHASE_WG].size_bytes, 3000, 0);
    CHECK(L->phase[WEFT_PHASE_IG].coll == WEFT_COLL_NONE);
    CHECK_EQ_INT(back.group[WEFT_PHASE_WG][0], 2);
  }
  weft_workload_free(rd);
  weft_workload_free(wl);
  char path[256];
  for (int r = 0; r < 2; r++) {
    snprintf(path, sizeof path, "%s/t.%d.et", dir, r);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/t.comm_groups.json", dir);
  unlink(path);
  rmdir(dir);
}

/* Hand-built traces: a GlobalMetadata, then one node {id 7, type t, attrs}. */
static void write_trace(const char *path, const uint8_t *node, size_t n) {
  FILE *f = fopen(path, "wb");
  static const uint8_t md[] = {0x07, 0x0a, 0x05, '1', '.', '0', '.', '0'};
  fwrite(md, 1, sizeof md, f);
  fputc((int)n, f);
  fwrite(node, 1, n, f);
  fclose(f);
}

static void refused(const uint8_t *node, size_t n, const char *field, const char *msg) {
  WeftNetwork net;
  WeftCommunicator comm;
  WeftWorkload *wl = tiny(&net, &comm), *rd = NULL;
  char dir[] = "/tmp/weft_chakra_XXXXXX", p0[256], p1[256];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(p0, sizeof p0, "%s/x.0.et", dir);
  snprintf(p1, sizeof p1, "%s/x.1.et", dir);
  write_trace(p0, node, n);
  write_trace(p1, node, n);
  WeftError err;
  CHECK_EQ_INT(weft_chakra_read(dir, &net, &rd, &comm, &err), WEFT_EINPUT);
  CHECK(rd == NULL);
  CHECK(!strcmp(err.field, field));
  CHECK(strstr(err.msg, msg) != NULL);
  CHECK(strstr(err.file, "x.0.et") != NULL);
  if (!strstr(err.msg, msg)) printf("    got: %s\n", err.msg);
  unlink(p0);
  unlink(p1);
  rmdir(dir);
  weft_workload_free(wl);
}

static void test_refuses(void) {
  /* MEM_LOAD_NODE: id 7 (0x08 0x07), type 2 (0x18 0x02) */
  static const uint8_t mem[] = {0x08, 0x07, 0x18, 0x02};
  refused(mem, sizeof mem, "type", "node 7 (''): type MEM_LOAD_NODE (2)");
  /* COMM_COLL_NODE with attr {name "comm_type", int64_val 5 (BROADCAST)} and
   * {name "comm_size", int64_val 8}: field 10, length-delimited (0x52). */
  static const uint8_t bcast[] = {0x08, 0x07, 0x18, 0x07,
                                  0x52, 0x0d, 0x0a, 0x09, 'c', 'o', 'm', 'm', '_', 't', 'y', 'p', 'e', 0x48, 0x05,
                                  0x52, 0x0d, 0x0a, 0x09, 'c', 'o', 'm', 'm', '_', 's', 'i', 'z', 'e', 0x48, 0x08};
  refused(bcast, sizeof bcast, "comm_type", "comm_type 5");
}

/* With a design, network.yml carries B x efficiency per link: a Switch of 2
 * at 100 GB/s, efficiency 0.5 -> 50 GB/s = 50 / 1.073741824 of ASTRA-sim's
 * GB/s (2^30 bytes/s); system.json the chunks and one chunk in flight. */
static void test_design_files(void) {
  WeftNetwork net;
  WeftCommunicator comm;
  WeftWorkload *wl = tiny(&net, &comm);
  net.efficiency[0] = 0.5;
  double bw[1] = {100.0};
  WeftSimSettings s;
  weft_sim_settings_default(&s);
  s.chunks = 3;
  char dir[] = "/tmp/weft_chakra_XXXXXX", path[256];
  CHECK(mkdtemp(dir) != NULL);
  WeftError err;
  CHECK_EQ_INT(weft_chakra_export(dir, "t", &net, wl, &comm, WEFT_LOOP_NO_OVERLAP, bw, &s, &err),
               WEFT_OK);
  snprintf(path, sizeof path, "%s/network.yml", dir);
  size_t len = 0;
  char *b = read_all(path, &len);
  const char *at = b ? strstr(b, "\nbandwidth: [ ") : NULL;
  CHECK(at != NULL);
  if (at) CHECK_NEAR(strtod(at + 14, NULL), 50.0 / 1.073741824, 1e-12);
  free(b);
  snprintf(path, sizeof path, "%s/system.json", dir);
  b = read_all(path, &len);
  CHECK(b && strstr(b, "\"preferred-dataset-splits\": 3,") && strstr(b, "\"active-chunks-per-dimension\": 1,"));
  free(b);
  const char *files[] = {"t.0.et", "t.1.et", "t.comm_groups.json", "network.yml", "system.json", "memory.json"};
  for (int i = 0; i < 6; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    CHECK(unlink(path) == 0);
  }
  CHECK(rmdir(dir) == 0);
  weft_workload_free(wl);
}

/* codesign over a trace (weft_codesign_trace_read): the tiny workload's
 * trace (2 ranks) on Switch 2, Switch 4 and Ring 2 is laid on the two of 2
 * NPUs (Switch 4 wants t.2.et, t.3.et: left out, its reason kept); each is
 * one point, par's degrees 0, solved as the one-job problem of the workload
 * it was written from on that network (weft_problem_create and solve): the
 * same time and cost. A degree list with a trace is refused. */
static void test_codesign(void) {
  WeftNetwork net, nets[3];
  WeftCommunicator comm;
  WeftWorkload *wl = tiny(&net, &comm);
  char dir[] = "/tmp/weft_chakra_XXXXXX", path[256];
  CHECK(mkdtemp(dir) != NULL);
  WeftError err, why;
  CHECK_EQ_INT(weft_chakra_export(dir, "t", &net, wl, &comm, WEFT_LOOP_NO_OVERLAP, NULL, NULL,
                                  &err),
               WEFT_OK);
  CHECK_EQ_INT(weft_chakra_ranks(dir), 2);
  CHECK_EQ_INT(weft_chakra_ranks("/nonexistent/weft"), 0);
  for (int i = 0; i < 3; i++) {
    nets[i] = net;
    snprintf(nets[i].cost_dim[0], sizeof nets[i].cost_dim[0], "A");
  }
  nets[1].npus[0] = 4;
  nets[2].topology[0] = WEFT_RING;
  int n = 3, dropped = 0;
  WeftWorkload **wls = NULL;
  WeftCommunicator *comms = NULL;
  CHECK_EQ_INT(weft_codesign_trace_read(dir, nets, &n, &wls, &comms, &dropped, &why, &err),
               WEFT_OK);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_INT(dropped, 1);
  CHECK(strstr(why.file, "t.2.et") != NULL);
  CHECK(nets[0].topology[0] == WEFT_SWITCH && nets[1].topology[0] == WEFT_RING &&
        nets[1].npus[0] == 2);
  WeftCostModel cm;
  memset(&cm, 0, sizeof cm);
  cm.nclasses = 1;
  snprintf(cm.cls[0].name, sizeof cm.cls[0].name, "A");
  cm.cls[0].link_usd_per_gbps = 1.0;
  cm.cls[0].switch_usd_per_gbps = 2.0;
  cm.cls[0].nic_usd_per_gbps = 3.0;
  cm.cls[0].has_link = cm.cls[0].has_switch = cm.cls[0].has_nic = 1;
  WeftConstraints cons;
  memset(&cons, 0, sizeof cons);
  CHECK_EQ_INT(weft_constraints_parse(&cons, "sum = 100", 1, &err), WEFT_OK);
  WeftDevice dev;
  memset(&dev, 0, sizeof dev);
  WeftCodesignSpec sp;
  memset(&sp, 0, sizeof sp);
  sp.device = &dev;
  weft_parallel_default(&sp.base);
  sp.nnets = n;
  sp.nets = nets;
  sp.cost = &cm;
  sp.cons = &cons;
  weft_settings_default(&sp.settings);
  sp.workloads = wls;
  sp.comms = comms;
  WeftDesignPoint *pts = NULL;
  size_t np = 0;
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &np, &err), WEFT_OK);
  CHECK_EQ_INT(np, 2);
  for (size_t i = 0; i < np && pts; i++) {
    CHECK(pts[i].net == (int)i && pts[i].par.tp == 0 && pts[i].par.dp == 0);
    weft_codesign_eval(&sp, &pts[i]);
    CHECK_EQ_INT(pts[i].status, WEFT_POINT_OK);
    WeftSpec ws;
    memset(&ws, 0, sizeof ws);
    ws.net = &nets[i];
    ws.cost = &cm;
    ws.njobs = 1;
    ws.jobs[0].workload = wl;
    ws.jobs[0].comm = &comm;
    ws.jobs[0].weight = 1.0;
    ws.cons = &cons;
    WeftProblem *p = NULL;
    WeftResult res;
    CHECK_EQ_INT(weft_problem_create(&ws, &p, &err), WEFT_OK);
    CHECK_EQ_INT(weft_problem_solve(p, &sp.settings, &res), WEFT_OK);
    CHECK(res.status == WEFT_STATUS_SOLVED && res.eval.time_ns > 0);
    CHECK_NEAR(pts[i].time_ns, res.eval.time_ns, 1e-9 * res.eval.time_ns);
    CHECK_NEAR(pts[i].cost_usd, res.eval.cost_usd, 1e-9 * res.eval.cost_usd);
    weft_problem_free(p);
  }
  free(pts);
  sp.ntp = 1;
  sp.tp[0] = 1;
  CHECK_EQ_INT(weft_codesign_count(&sp, &np, &err), WEFT_EINVAL);
  weft_codesign_trace_free(wls, comms, n);
  weft_workload_free(wl);
  for (int r = 0; r < 2; r++) {
    snprintf(path, sizeof path, "%s/t.%d.et", dir, r);
    CHECK(unlink(path) == 0);
  }
  snprintf(path, sizeof path, "%s/t.comm_groups.json", dir);
  unlink(path);
  CHECK(rmdir(dir) == 0);
}

/* Trace directories that are not one set for the network: an empty one is
 * no trace; one holding two sets (a, b) is read as traces (not as a text
 * workload) and refused saying so; a Switch-2 set (2 ranks) on Ring 2 x
 * Switch 2 (4 NPUs) is refused by its count, naming the first missing rank
 * a.2.et, not by rank 0's first node (its involved_dim has one dim). */
static void test_trace_dirs(void) {
  WeftNetwork net, net4;
  WeftCommunicator comm, back;
  WeftWorkload *wl = tiny(&net, &comm), *rd = NULL;
  char dir[] = "/tmp/weft_chakra_XXXXXX", path[256];
  CHECK(mkdtemp(dir) != NULL);
  WeftError err;
  CHECK(!weft_chakra_is_trace(dir));
  CHECK_EQ_INT(weft_chakra_read(dir, &net, &rd, &back, &err), WEFT_EINPUT);
  CHECK(strstr(err.msg, "no PREFIX.0.et") != NULL);
  CHECK_EQ_INT(weft_chakra_export(dir, "a", &net, wl, &comm, WEFT_LOOP_NO_OVERLAP, NULL, NULL, &err),
               WEFT_OK);
  net2(&net4, 2, 2);
  CHECK_EQ_INT(weft_chakra_read(dir, &net4, &rd, &back, &err), WEFT_EINPUT);
  CHECK(rd == NULL);
  snprintf(path, sizeof path, "%s/a.2.et", dir);
  CHECK(!strcmp(err.file, path));
  CHECK(strstr(err.msg, "4 NPUs") != NULL && strstr(err.msg, "2 here") != NULL);
  CHECK_EQ_INT(weft_chakra_export(dir, "b", &net, wl, &comm, WEFT_LOOP_NO_OVERLAP, NULL, NULL, &err),
               WEFT_OK);
  CHECK(weft_chakra_is_trace(dir));
  CHECK_EQ_INT(weft_chakra_read(dir, &net, &rd, &back, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.file, dir));
  CHECK(strstr(err.msg, "2 Chakra trace sets") != NULL);
  snprintf(path, sizeof path, "%s/b", dir);
  CHECK_EQ_INT(weft_chakra_read(path, &net, &rd, &back, &err), WEFT_OK);
  weft_workload_free(rd);
  /* a leftover b.2.et (of a set of more ranks) in the directory: b written
   * again for 2 NPUs would leave a set of 3 that is not the one written;
   * refused naming it, b's traces left as they were */
  snprintf(path, sizeof path, "%s/b.2.et", dir);
  write_trace(path, (const uint8_t *)"\x18\x04", 2);
  CHECK_EQ_INT(weft_chakra_export(dir, "b", &net, wl, &comm, WEFT_LOOP_NO_OVERLAP, NULL, NULL, &err),
               WEFT_EINPUT);
  CHECK(!strcmp(err.file, path));
  CHECK(unlink(path) == 0);
  /* b.1.et a FIFO (or a link to /dev/null): never written through (a FIFO
   * without a reader would block) nor removed; refused naming it */
  snprintf(path, sizeof path, "%s/b.1.et", dir);
  CHECK(unlink(path) == 0);
  for (int k = 0; k < 2; k++) {
    CHECK(k ? symlink("/dev/null", path) == 0 : mkfifo(path, 0600) == 0);
    CHECK_EQ_INT(weft_chakra_export(dir, "b", &net, wl, &comm, WEFT_LOOP_NO_OVERLAP, NULL, NULL,
                                    &err),
                 WEFT_EINPUT);
    CHECK(!strcmp(err.file, path));
    CHECK(strstr(err.msg, "not a regular file") != NULL);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && (k ? S_ISLNK(st.st_mode) : S_ISFIFO(st.st_mode)));
    CHECK(unlink(path) == 0);
  }
  CHECK_EQ_INT(weft_chakra_export(dir, "b", &net, wl, &comm, WEFT_LOOP_NO_OVERLAP, NULL, NULL, &err),
               WEFT_OK);
  snprintf(path, sizeof path, "%s/b", dir);
  CHECK_EQ_INT(weft_chakra_read(path, &net, &rd, &back, &err), WEFT_OK);
  weft_workload_free(rd);
  for (int k = 0; k < 2; k++) {
    const char *p = k ? "b" : "a";
    for (int r = 0; r < 2; r++) {
      snprintf(path, sizeof path, "%s/%s.%d.et", dir, p, r);
      CHECK(unlink(path) == 0);
    }
    snprintf(path, sizeof path, "%s/%s.comm_groups.json", dir, p);
    CHECK(unlink(path) == 0);
  }
  CHECK(rmdir(dir) == 0);
  weft_workload_free(wl);
}

/* A comm group listing a rank twice ({"1": [0, 1, 0]} on 2 NPUs) is
 * refused naming the file, line and group: it is no group weft lays out,
 * and its members overran the layout check's room of 2 x NPUs (found by
 * fuzz_chakra, regress_dup_group_rank). */
static void test_group_twice(void) {
  char path[] = "/tmp/weft_chakra_groups_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  static const char text[] = "{\n  \"2\": [0, 1],\n  \"1\": [0, 1, 0]\n}\n";
  CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
  close(fd);
  ChakraGroups *g = calloc(1, sizeof *g);
  WeftError err;
  CHECK_EQ_INT(chakra_groups_read(g, path, 2, &err), WEFT_EINPUT);
  CHECK_EQ_INT(err.line, 3);
  CHECK(!strcmp(err.field, "1"));
  CHECK(strstr(err.msg, "rank 0 twice") != NULL);
  free(g->members);
  /* every rank of a Switch of 2048 is one group: the whole dim (its
   * coordinates were counted up to 1024 only: refused as no group) */
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 1;
  net.topology[0] = WEFT_SWITCH;
  net.npus[0] = 2048;
  memset(g, 0, sizeof *g);
  g->n = 1;
  g->count[0] = 2048;
  g->members = malloc(sizeof *g->members * 2048);
  long long *scratch = malloc(sizeof *scratch * (2 * 2048 + 2));
  for (int r = 0; r < 2048; r++) g->members[r] = 2047 - r;
  int shape[1] = {0};
  CHECK_EQ_INT(chakra_group_shape(g, 0, &net, scratch, shape, &err), WEFT_OK);
  CHECK_EQ_INT(shape[0], 2048);
  free(scratch);
  free(g->members);
  free(g);
  unlink(path);
}

const TestCase suite_chakra[] = {
    {"chakra_codesign", test_codesign},
    {"chakra_design_files", test_design_files},
    {"chakra_varint", test_varint},
    {"chakra_members", test_members},
    {"chakra_encoding", test_encoding},
    {"chakra_round_trip", test_round_trip},
    {"chakra_refuses", test_refuses},
    {"chakra_trace_dirs", test_trace_dirs},
    {"chakra_group_twice", test_group_twice},
    {0, 0},
};
