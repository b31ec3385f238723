/* chakra_write.c — a workload as a Chakra execution-trace set for ASTRA-sim
 * 2.0/3.0: one trace per rank (PREFIX.RANK.et: a GlobalMetadata, then the
 * Nodes of one training iteration, each message prefixed by its length as a
 * varint), the comm groups ASTRA-sim's --comm-group-configuration reads
 * (PREFIX.comm_groups.json) and, with a design, network.yml, system.json and
 * memory.json. Every file whole or none (weft_out_commit_all). The schema is
 * weft's own src/io/chakra.proto (Chakra's field numbers), packed by
 * protobuf-c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chakra.pb-c.h"
#include "io/chakra.h"
#include "io/util.h"

typedef ChakraProtoMsg__Node Node;
typedef ChakraProtoMsg__AttributeProto Attr;

/* One rank's trace being written. */
typedef struct {
  FILE *f;
  const WeftNetwork *net;
  const WeftCommunicator *comm;
  const WeftWorkload *wl;
  const int *gid;      /* per distinct group shape (index k) and rank: its comm group id */
  long long rank, npus;
  long long *members;  /* scratch, npus */
  uint64_t next_id;
  uint64_t main_tail[2], stream_tail[2];
  size_t nmain, nstream;
  uint8_t *buf;
  size_t cap;
  int failed;  /* out of memory */
} Trace;

static const char *const phase_key[WEFT_NPHASES] = {"fwd", "ig", "wg"};

/* Chakra's CollectiveCommType for weft's collective. */
static int comm_type(WeftCollective c) {
  switch (c) {
    case WEFT_COLL_ALLREDUCE: return CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE;
    case WEFT_COLL_REDUCESCATTER: return CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER;
    case WEFT_COLL_ALLGATHER: return CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER;
    case WEFT_COLL_ALLTOALL: return CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL;
    default: return -1;
  }
}

/* The per-dim group a phase entry's collective spans. */
static const int *entry_group(const Trace *t, const WeftPhaseSpec *ps, int phase) {
  if (ps->group >= 1) return weft_communicator_find(t->comm, t->wl->group_name[ps->group - 1]);
  return t->comm->group[phase];
}

static void write_msg(Trace *t, const ProtobufCMessage *m) {
  size_t n = protobuf_c_message_get_packed_size(m);
  if (n + 10 > t->cap) {
    size_t cap = (n + 10) * 2;
    uint8_t *b = realloc(t->buf, cap);
    if (!b) {
      t->failed = 1;
      return;
    }
    t->buf = b;
    t->cap = cap;
  }
  size_t h = chakra_varint_put(t->buf, n);
  protobuf_c_message_pack(m, t->buf + h);
  fwrite(t->buf, 1, h + n, t->f);
}

static void attr_i64(Attr *a, const char *name, int64_t v) {
  chakra_proto_msg__attribute_proto__init(a);
  a->name = (char *)(uintptr_t)name;
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
  a->int64_val = v;
}
static void attr_i32(Attr *a, const char *name, int32_t v) {
  chakra_proto_msg__attribute_proto__init(a);
  a->name = (char *)(uintptr_t)name;
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
  a->int32_val = v;
}
static void attr_f64(Attr *a, const char *name, double v) {
  chakra_proto_msg__attribute_proto__init(a);
  a->name = (char *)(uintptr_t)name;
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_VAL;
  a->double_val = v;
}
static void attr_bool(Attr *a, const char *name, int v) {
  chakra_proto_msg__attribute_proto__init(a);
  a->name = (char *)(uintptr_t)name;
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
  a->bool_val = v != 0;
}
static void attr_str(Attr *a, const char *name, const char *v) {
  chakra_proto_msg__attribute_proto__init(a);
  a->name = (char *)(uintptr_t)name;
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
  a->string_val = (char *)(uintptr_t)v;
}

/* Write a node depending on deps[0..ndeps) (data deps: what ASTRA-sim's
 * feeder waits for); returns its id. */
static uint64_t emit(Trace *t, Node *n, const uint64_t *deps, size_t ndeps, Attr *const *attr,
                     size_t nattr) {
  n->id = t->next_id++;
  n->n_data_deps = ndeps;
  n->data_deps = (uint64_t *)(uintptr_t)deps;
  n->n_attr = nattr;
  n->attr = (Attr **)(uintptr_t)attr;
  write_msg(t, &n->base);
  return n->id;
}

/* Compute of one phase entry: duration_micros for ASTRA-sim (whole us, as
 * Chakra has it), weft_duration_ns the exact figure. */
static void write_compute(Trace *t, const WeftLayer *L, int phase) {
  double ns = L->phase[phase].compute_ns;
  if (!(ns > 0.0)) return;
  char name[WEFT_NAME_LEN + 16];
  snprintf(name, sizeof name, "%s/%s", L->name, phase_key[phase]);
  Node n;
  chakra_proto_msg__node__init(&n);
  n.name = name;
  n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
  n.duration_micros = (uint64_t)llround(ns / 1000.0);
  Attr a[4], *ap[4] = {&a[0], &a[1], &a[2], &a[3]};
  attr_bool(&a[0], "is_cpu_op", 0);
  attr_f64(&a[1], "weft_duration_ns", ns);
  attr_str(&a[2], "weft_layer", L->name);
  attr_str(&a[3], "weft_phase", weft_phase_name((WeftPhase)phase));
  uint64_t id = emit(t, &n, t->main_tail, t->nmain, ap, 4);
  t->main_tail[0] = id;
  t->nmain = 1;
}

/* A phase entry's collective: weft_phase_calls() nodes of size/calls each,
 * one after the other; a send-recv is a send to the next member and a
 * receive from the previous one. Blocking: the main stream goes on from the
 * last; else it queues on the stream (after the stream's last and the
 * compute before it). */
static void write_coll(Trace *t, const WeftLayer *L, int phase, int k, int blocking) {
  const WeftPhaseSpec *ps = &L->phase[phase];
  const int *g = entry_group(t, ps, phase);
  /* weft's calls may be fractional (a pipeline's share): the nearest whole
   * number of nodes; the first carries weft_calls and weft_size_bytes, the
   * exact figures weft_chakra_read takes back. */
  int calls = (int)llround(weft_phase_calls(ps));
  if (calls < 1) calls = 1;
  int64_t size = (int64_t)llround(ps->size_bytes / calls);
  uint64_t deps[4];
  size_t nd = 0;
  for (size_t i = 0; i < t->nmain; i++) deps[nd++] = t->main_tail[i];
  if (!blocking)
    for (size_t i = 0; i < t->nstream; i++) deps[nd++] = t->stream_tail[i];
  char name[WEFT_NAME_LEN + 48], pg[24], gtext[WEFT_MAX_DIMS * 12] = "";
  for (int d = 0; d < t->net->ndims; d++)  /* "4,-1,2": weft_chakra_read's group of a send-recv */
    snprintf(gtext + strlen(gtext), sizeof gtext - strlen(gtext), "%s%d", d ? "," : "",
             g[d] > 1 ? g[d] : -1);
  snprintf(name, sizeof name, "%s/%s/%s", L->name, phase_key[phase], weft_collective_name(ps->coll));
  int whole = chakra_whole_dims(t->net, g);
  snprintf(pg, sizeof pg, "%d", whole ? 0 : t->gid[(size_t)k * (size_t)t->npus + (size_t)t->rank]);
  int m = chakra_members(t->net, g, t->rank, t->members), me = 0;
  while (t->members[me] != t->rank) me++;
  Attr a[10], *ap[10];
  for (int i = 0; i < 10; i++) ap[i] = &a[i];
  ChakraProtoMsg__BoolList dims;
  chakra_proto_msg__bool_list__init(&dims);
  protobuf_c_boolean inv[WEFT_MAX_DIMS];
  for (int d = 0; d < t->net->ndims; d++) inv[d] = g[d] > 1;
  dims.n_values = (size_t)t->net->ndims;
  dims.values = inv;
  for (int c = 0; c < calls; c++) {
    Node n;
    chakra_proto_msg__node__init(&n);
    n.name = name;
    size_t na = 0;
    attr_bool(&a[na++], "is_cpu_op", 0);
    attr_str(&a[na++], "weft_layer", L->name);
    attr_str(&a[na++], "weft_phase", weft_phase_name((WeftPhase)phase));
    if (c == 0) {
      attr_f64(&a[na++], "weft_calls", weft_phase_calls(ps));
      attr_f64(&a[na++], "weft_size_bytes", ps->size_bytes);
    }
    uint64_t ids[2];
    size_t nid = 0;
    if (ps->coll == WEFT_COLL_SENDRECV) {
      uint64_t tag = t->next_id;
      attr_str(&a[na++], "weft_group", gtext);
      n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE;
      attr_i64(&a[na++], "comm_size", size);
      attr_i32(&a[na++], "comm_dst", (int32_t)t->members[(me + 1) % m]);
      attr_i32(&a[na++], "comm_tag", (int32_t)tag);
      ids[nid++] = emit(t, &n, deps, nd, ap, na);
      Node r;
      chakra_proto_msg__node__init(&r);
      r.name = name;
      r.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE;
      attr_i32(&a[na - 2], "comm_src", (int32_t)t->members[(me + m - 1) % m]);
      Attr *rp[10]; /* the send stands for the pair: the exact figures on it only */
      size_t nr = 0;
      for (size_t i = 0; i < na; i++)
        if (strcmp(a[i].name, "weft_calls") && strcmp(a[i].name, "weft_size_bytes")) rp[nr++] = &a[i];
      ids[nid++] = emit(t, &r, deps, nd, rp, nr);
    } else {
      n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
      attr_i64(&a[na++], "comm_type", comm_type(ps->coll));
      attr_i64(&a[na++], "comm_size", size);
      if (whole) {
        chakra_proto_msg__attribute_proto__init(&a[na]);
        a[na].name = (char *)(uintptr_t) "involved_dim";
        a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST;
        a[na++].bool_list = &dims;
      } else {
        attr_str(&a[na++], "pg_name", pg);
      }
      ids[nid++] = emit(t, &n, deps, nd, ap, na);
    }
    nd = nid;
    memcpy(deps, ids, nid * sizeof *ids);
  }
  if (blocking) {
    memcpy(t->main_tail, deps, nd * sizeof *deps);
    t->nmain = nd;
  } else {
    memcpy(t->stream_tail, deps, nd * sizeof *deps);
    t->nstream = nd;
  }
}

/* Which collectives block the loop (WeftLoop, docs/simulate.md "Training
 * loops"): the others queue on the overlap stream. */
static int blocks(int loop, int phase) {
  if (loop == WEFT_LOOP_TP_DP_OVERLAP) return phase != WEFT_PHASE_WG;
  if (loop == WEFT_LOOP_FWD_IG_OVERLAP) return phase == WEFT_PHASE_WG;
  return 1;
}

/* The index of the distinct group shape g among shapes[0..*n), added when new. */
static int shape_index(int shapes[][WEFT_MAX_DIMS], int *n, const int *g, int D) {
  for (int k = 0; k < *n; k++)
    if (!memcmp(shapes[k], g, (size_t)D * sizeof *g)) return k;
  memcpy(shapes[*n], g, (size_t)D * sizeof *g);
  return (*n)++;
}

static void write_rank(Trace *t, int loop, const int *shape_of) {
  ChakraProtoMsg__GlobalMetadata md;
  chakra_proto_msg__global_metadata__init(&md);
  md.version = (char *)(uintptr_t)WEFT_CHAKRA_VERSION;
  write_msg(t, &md.base);
  t->next_id = 0;
  t->nmain = t->nstream = 0;
  int L = t->wl->nlayers;
  for (int step = 0; step < 3 * L; step++) {
    int l = step < L ? step : L - 1 - (step - L) / 2;
    int phase = step < L ? WEFT_PHASE_FWD : (step - L) % 2 ? WEFT_PHASE_WG : WEFT_PHASE_IG;
    const WeftLayer *ly = &t->wl->layers[l];
    write_compute(t, ly, phase);
    const WeftPhaseSpec *ps = &ly->phase[phase];
    if (ps->coll != WEFT_COLL_NONE && ps->size_bytes > 0.0)
      write_coll(t, ly, phase, shape_of[l * WEFT_NPHASES + phase], blocks(loop, phase));
  }
}

/* Every entry's group resolved and checked; its shape's index into shape_of
 * (layer * 3 + phase), the shapes into shapes[0..*nshapes). */
static int check_workload(const WeftNetwork *net, const WeftWorkload *wl,
                          const WeftCommunicator *comm, int *shape_of,
                          int shapes[][WEFT_MAX_DIMS], int *nshapes, WeftError *err) {
  int rc = weft_communicator_check(comm, net, err);
  if (rc) return rc;
  Trace probe = {.net = net, .comm = comm, .wl = wl};
  *nshapes = 0;
  for (int l = 0; l < wl->nlayers; l++)
    for (int p = 0; p < WEFT_NPHASES; p++) {
      const WeftPhaseSpec *ps = &wl->layers[l].phase[p];
      shape_of[l * WEFT_NPHASES + p] = -1;
      if (!(ps->compute_ns >= 0.0) || !isfinite(ps->compute_ns) || !(ps->size_bytes >= 0.0) ||
          !isfinite(ps->size_bytes))
        return weft_error_set(err, WEFT_EINVAL, wl->file, wl->layers[l].line, 0, "",
                              "layer %s: %s compute and size must be finite and >= 0",
                              wl->layers[l].name, weft_phase_name((WeftPhase)p));
      if (ps->coll == WEFT_COLL_NONE || !(ps->size_bytes > 0.0)) continue;
      const int *g = entry_group(&probe, ps, p);
      double calls = weft_phase_calls(ps);
      if (!g)
        return weft_error_set(err, WEFT_EINPUT, wl->file, wl->layers[l].line, 0, "group",
                              "layer %s: %s collective's group '%s' is not in the communicator",
                              wl->layers[l].name, weft_phase_name((WeftPhase)p),
                              wl->group_name[ps->group - 1]);
      if (calls > 1e6)
        return weft_error_set(err, WEFT_EINPUT, wl->file, wl->layers[l].line, 0, "calls",
                              "layer %s: %s stands for %g collective calls: a trace holds at "
                              "most 1e6 an entry",
                              wl->layers[l].name, weft_phase_name((WeftPhase)p), calls);
      shape_of[l * WEFT_NPHASES + p] = shape_index(shapes, nshapes, g, net->ndims);
    }
  return WEFT_OK;
}

#define NSHAPES (WEFT_NPHASES + WEFT_MAX_GROUPS)

/* Comm group ids: per shape with a partial dim, each of its groups numbered
 * from 1 in the order of its lowest rank; gid[k * npus + rank]. */
static int assign_groups(const WeftNetwork *net, int shapes[][WEFT_MAX_DIMS], int nshapes,
                         long long npus, int *gid, long long *members, int *ngroups) {
  int next = 1;
  for (int k = 0; k < nshapes; k++) {
    int *row = gid + (size_t)k * (size_t)npus;
    for (long long r = 0; r < npus; r++) row[r] = 0;
    if (chakra_whole_dims(net, shapes[k])) continue;
    for (long long r = 0; r < npus; r++) {
      if (row[r]) continue;
      int m = chakra_members(net, shapes[k], r, members);
      for (int i = 0; i < m; i++) row[members[i]] = next;
      next++;
    }
  }
  *ngroups = next - 1;
  return WEFT_OK;
}

static void write_groups_json(FILE *f, const WeftNetwork *net, int shapes[][WEFT_MAX_DIMS],
                              int nshapes, long long npus, const int *gid, long long *members) {
  int id = 0;
  fputs("{", f);
  for (int k = 0; k < nshapes; k++) {
    const int *row = gid + (size_t)k * (size_t)npus;
    for (long long r = 0; r < npus; r++) {
      if (!row[r] || row[r] <= id) continue;
      id = row[r];
      int m = chakra_members(net, shapes[k], r, members);
      fprintf(f, "%s\n  \"%d\": [", id > 1 ? "," : "", id);
      for (int i = 0; i < m; i++) fprintf(f, "%s%lld", i ? ", " : "", members[i]);
      fputs("]", f);
    }
  }
  fputs("\n}\n", f);
}

static const char *alg2(WeftTopology t) {
  return t == WEFT_RING ? "ring" : t == WEFT_FULLY_CONNECTED ? "direct" : "halvingDoubling";
}

/* ASTRA-sim 2.0's system file: weft's default algorithm per dim (Ring ring,
 * FullyConnected direct, Switch halving-doubling; all-to-all has no
 * halving-doubling there: direct), the simulator's chunks and window. Its
 * congestion-unaware backend gives every chunk in flight a whole link, so
 * weft's "every chunk in flight" (sharing the link) is written as 1. */
static void write_system_json(FILE *f, const WeftNetwork *net, int chunks, int in_flight,
                              double endpoint_ns) {
  /* ASTRA-sim 2.0 aborts on an event at the current time (EventQueue's
   * assertion): an endpoint delay of 0 is written as 1 ns. */
  if (!(endpoint_ns >= 1.0)) endpoint_ns = 1.0;
  static const char *const keys[] = {"all-reduce", "reduce-scatter", "all-gather", "all-to-all"};
  fprintf(f, "{\n  \"scheduling-policy\": \"FIFO\",\n  \"endpoint-delay\": %.0f,\n"
             "  \"active-chunks-per-dimension\": %d,\n  \"preferred-dataset-splits\": %d,\n",
          endpoint_ns, in_flight, chunks);
  for (int c = 0; c < 4; c++) {
    fprintf(f, "  \"%s-implementation\": [", keys[c]);
    for (int d = 0; d < net->ndims; d++) {
      const char *a = alg2(net->topology[d]);
      if (c == 3 && net->topology[d] == WEFT_SWITCH) a = "direct";
      fprintf(f, "%s\"%s\"", d ? ", " : "", a);
    }
    fputs("],\n", f);
  }
  fputs("  \"collective-optimization\": \"localBWAware\",\n  \"local-mem-bw\": 1000000,\n"
        "  \"boost-mode\": 0\n}\n",
        f);
}

static int open_in(const char *dir, const char *name, WeftOut **o, WeftError *err) {
  size_t len = strlen(dir) + strlen(name) + 2;
  char *path = malloc(len);
  if (!path) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory");
  snprintf(path, len, "%s/%s", dir, name);
  int rc = weft_out_open(path, o, err);
  free(path);
  return rc;
}

/* Remove the files committed so far (names[0..n)) after a failure. */
static void unlink_all(const char *dir, char (*names)[WEFT_PATH_LEN], int n) {
  char path[2 * WEFT_PATH_LEN + 2];
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
}

/* The files of the set in an existing dir: none but regular files (a
 * FIFO, a device or a link to one, or a dangling link, is never written
 * through, nor removed after a failure), and no PREFIX.npus.et (a set of more ranks there would
 * keep its traces past ours). */
static int check_targets(const char *dir, const char *prefix, long long npus, int design,
                         WeftError *err) {
  size_t len = strlen(dir) + strlen(prefix) + 40;
  char *path = malloc(len);
  struct stat st;
  int rc = path ? WEFT_OK : weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory");
  static const char *const extra[] = {"network.yml", "system.json", "memory.json"};
  for (long long r = 0; !rc && r < npus + 2 + (design ? 3 : 0); r++) {
    if (r <= npus) snprintf(path, len, "%s/%s.%lld.et", dir, prefix, r);
    else if (r == npus + 1) snprintf(path, len, "%s/%s.comm_groups.json", dir, prefix);
    else snprintf(path, len, "%s/%s", dir, extra[r - npus - 2]);
    if (lstat(path, &st) != 0) continue;
    if (r == npus)
      rc = weft_error_set(err, WEFT_EINPUT, path, 0, 0, "",
                          "a trace set of more ranks than this network's %lld is there: its "
                          "traces would stay beside the new ones (remove them, or write "
                          "elsewhere)",
                          npus);
    else if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
      rc = weft_error_set(err, WEFT_EINPUT, path, 0, 0, "",
                          "exists and is not a regular file: a trace set is written as "
                          "regular files, and a failed one removed");
  }
  free(path);
  return rc;
}

int weft_chakra_export(const char *dir, const char *prefix, const WeftNetwork *net,
                       const WeftWorkload *wl, const WeftCommunicator *comm, int loop,
                       const double *bw_gbps, const WeftSimSettings *s, WeftError *err) {
  if (!dir || !dir[0] || !prefix || !prefix[0] || strchr(prefix, '/') || !net || !wl || !comm ||
      loop < 0 || loop >= WEFT_NLOOPS || (bw_gbps && !s))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "bad arguments");
  long long npus = chakra_npus(net);
  if (npus > 1000000)
    return weft_error_set(err, WEFT_EINPUT, net->file, 0, 0, "npus_count",
                          "%lld NPUs: one Chakra trace each is past the 1,000,000 weft writes",
                          npus);
  int *shape_of = malloc(sizeof(int) * WEFT_NPHASES * (size_t)(wl->nlayers + 1));
  int shapes[NSHAPES][WEFT_MAX_DIMS], nshapes = 0, ngroups = 0;
  int *gid = malloc(sizeof(int) * NSHAPES * (size_t)npus);
  long long *members = malloc(sizeof(long long) * (size_t)npus);
  char(*names)[WEFT_PATH_LEN] = malloc(sizeof *names * (size_t)(npus + 4));
  Trace t = {.net = net, .comm = comm, .wl = wl, .gid = gid, .npus = npus, .members = members};
  int rc = WEFT_OK, made = 0, done = 0;
  /* what ASTRA-sim's links carry: a dim's Efficiency applied first (as the
   * ASTRA-sim 1.0 export does) */
  double eff_gbps[WEFT_MAX_DIMS] = {0};
  for (int d = 0; bw_gbps && d < net->ndims; d++)
    eff_gbps[d] = bw_gbps[d] * (net->efficiency[d] > 0.0 ? net->efficiency[d] : 1.0);
  if (!shape_of || !gid || !members || !names)
    rc = weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory");
  if (!rc) rc = check_workload(net, wl, comm, shape_of, shapes, &nshapes, err);
  if (!rc) assign_groups(net, shapes, nshapes, npus, gid, members, &ngroups);
  if (!rc) {
    struct stat st;
    if (mkdir(dir, 0777) == 0) made = 1;
    else if (errno != EEXIST)
      rc = weft_error_set(err, WEFT_EIO, dir, 0, 0, "", "cannot create directory: %s",
                          strerror(errno));
    else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
      rc = weft_error_set(err, WEFT_EINPUT, dir, 0, 0, "",
                          "exists and is not a directory: the traces go into a directory");
    else rc = check_targets(dir, prefix, npus, bw_gbps != NULL, err);
  }
  for (long long r = 0; r < npus && !rc; r++) {
    WeftOut *o;
    snprintf(names[done], WEFT_PATH_LEN, "%s.%lld.et", prefix, r);
    if ((rc = open_in(dir, names[done], &o, err))) break;
    t.f = weft_out_stream(o);
    t.rank = r;
    write_rank(&t, loop, shape_of);
    if (t.failed) {
      weft_out_discard(o);
      rc = weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory");
    } else if (!(rc = weft_out_commit(o, err))) {
      done++;
    }
  }
  /* The comm groups (ASTRA-sim reads the file only when a node names one;
   * an empty object otherwise), then the design's network and system. */
  for (int k = 0; k < 4 && !rc; k++) {
    WeftOut *o;
    if (k == 0) snprintf(names[done], WEFT_PATH_LEN, "%s.comm_groups.json", prefix);
    else if (!bw_gbps) break;
    else snprintf(names[done], WEFT_PATH_LEN, "%s", k == 1 ? "network.yml" : k == 2 ? "system.json" : "memory.json");
    if ((rc = open_in(dir, names[done], &o, err))) break;
    FILE *f = weft_out_stream(o);
    if (k == 0) write_groups_json(f, net, shapes, nshapes, npus, gid, members);
    else if (k == 1) rc = weft_astra_network_emit(o, net, eff_gbps, NULL, err);
    else if (k == 2)
      write_system_json(f, net, s->chunks,
                        s->in_flight == WEFT_SIM_IN_FLIGHT_ALL ? 1 : s->in_flight,
                        s->endpoint_delay_ns);
    else fputs("{\n  \"memory-type\": \"NO_MEMORY_EXPANSION\"\n}\n", f);
    if (rc) weft_out_discard(o);
    else if (!(rc = weft_out_commit(o, err))) done++;
  }
  if (rc) {
    if (names) unlink_all(dir, names, done);
    if (made) rmdir(dir);
  }
  free(shape_of);
  free(gid);
  free(members);
  free(names);
  free(t.buf);
  return rc;
}
