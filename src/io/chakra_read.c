/* chakra_read.c — a Chakra execution-trace set as a weft workload: rank 0's
 * trace mapped to layers and phases (weft_layer / weft_phase where weft wrote
 * them; else each collective closes a forward entry with the compute before
 * it), its collectives' groups from involved_dim or the comm group pg_name
 * names (PREFIX.comm_groups.json) laid on the network, every other rank's
 * trace checked to match. Node types and collectives weft does not model
 * are refused naming file, node id and field. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra.pb-c.h"
#include "io/chakra.h"
#include "io/util.h"

typedef ChakraProtoMsg__Node Node;
typedef ChakraProtoMsg__AttributeProto Attr;

/* One trace file in memory, its messages read one at a time. */
typedef struct {
  char path[WEFT_PATH_LEN];
  char *data;
  size_t len, pos;
} TraceFile;

static int trace_open(TraceFile *t, const char *path, WeftError *err) {
  snprintf(t->path, sizeof t->path, "%.*s", (int)sizeof t->path - 1, path);
  t->pos = 0;
  return weft_io_read_file(path, &t->data, &t->len, err);
}

/* The next message's bytes (*msg, *n); 0 at the end, 1 read, <0 error. */
static int trace_next(TraceFile *t, const uint8_t **msg, size_t *n, WeftError *err) {
  if (t->pos == t->len) return 0;
  uint64_t v = 0;
  int shift = 0;
  for (;;) {
    if (t->pos == t->len || shift > 63) {
      weft_error_set(err, WEFT_EINPUT, t->path, 0, 0, "length",
                     "byte %zu: a message length (varint) is cut off", t->pos);
      return -1;
    }
    uint8_t b = (uint8_t)t->data[t->pos++];
    v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
    if (b < 0x80) break;
  }
  if (v > WEFT_CHAKRA_MAX_MESSAGE || v > t->len - t->pos) {
    weft_error_set(err, WEFT_EINPUT, t->path, 0, 0, "length",
                   "byte %zu: a message of %llu bytes, past the file's end (not a Chakra "
                   "trace?)",
                   t->pos, (unsigned long long)v);
    return -1;
  }
  *msg = (const uint8_t *)t->data + t->pos;
  *n = (size_t)v;
  t->pos += (size_t)v;
  return 1;
}

static const Attr *find_attr(const Node *n, const char *name) {
  for (size_t i = 0; i < n->n_attr; i++)
    if (!strcmp(n->attr[i]->name, name)) return n->attr[i];
  return NULL;
}

/* An integer attribute of any integer kind. */
static int attr_int(const Attr *a, long long *out) {
  switch (a->value_case) {
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: *out = a->int32_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: *out = a->int64_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: *out = a->uint32_val; return 1;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
      *out = (long long)a->uint64_val;
      return a->uint64_val <= (uint64_t)1 << 62;
    default: return 0;
  }
}

static int node_error(WeftError *err, const char *path, const Node *n, const char *field,
                      const char *what) {
  return weft_error_set(err, WEFT_EINPUT, path, 0, 0, field, "node %llu ('%s'): %s",
                        (unsigned long long)n->id, n->name, what);
}

/* The workload being built from rank 0's nodes. */
typedef struct {
  const WeftNetwork *net;
  WeftWorkload *wl;
  WeftCommunicator *comm;
  const ChakraGroups *groups;
  long long *scratch;
  const char *path;
  int named;          /* weft_layer / weft_phase seen */
  double pending_ns;  /* compute since the last entry (traces without weft's names) */
  int cur_layer, cur_phase; /* the entry the last collective went to (-1 none) */
  WeftCollective cur_coll;
  int cur_shape[WEFT_MAX_DIMS];
  int pg_phase_set[WEFT_NPHASES];
  int exact;          /* the current entry's calls and size came from weft_calls / weft_size_bytes */
} Build;

static int layer_index(Build *b, const char *name) {
  for (int l = b->wl->nlayers - 1; l >= 0; l--)
    if (!strcmp(b->wl->layers[l].name, name)) return l;
  WeftLayer L;
  memset(&L, 0, sizeof L);
  snprintf(L.name, sizeof L.name, "%s", name);
  if (weft_workload_add(b->wl, &L)) return -1;
  return b->wl->nlayers - 1;
}

static int phase_of(const char *s) {
  for (int p = 0; p < WEFT_NPHASES; p++)
    if (!strcmp(s, weft_phase_name((WeftPhase)p))) return p;
  return -1;
}

/* The group index (WeftPhaseSpec.group) for shape in phase p: the phase's
 * communicator group when it matches (or is not set yet), else a named group
 * g1, g2, ... */
static int group_for(Build *b, int p, const int *shape, int *out, WeftError *err) {
  size_t sz = sizeof(int) * (size_t)b->net->ndims;
  if (!b->pg_phase_set[p]) {
    memcpy(b->comm->group[p], shape, sz);
    b->pg_phase_set[p] = 1;
  }
  *out = 0;
  if (!memcmp(b->comm->group[p], shape, sz)) return WEFT_OK;
  for (int k = 0; k < b->comm->nextra; k++)
    if (!memcmp(b->comm->extra[k], shape, sz)) {
      for (int j = 0; j < b->wl->ngroups; j++)
        if (!strcmp(b->wl->group_name[j], b->comm->extra_name[k])) {
          *out = j + 1;
          return WEFT_OK;
        }
    }
  if (b->comm->nextra == WEFT_MAX_GROUPS || b->wl->ngroups == WEFT_MAX_GROUPS)
    return weft_error_set(err, WEFT_EINPUT, b->path, 0, 0, "pg_name",
                          "the trace's collectives use more than %d groups beyond one per phase",
                          WEFT_MAX_GROUPS);
  int k = b->comm->nextra++;
  memcpy(b->comm->extra[k], shape, sz);
  snprintf(b->comm->extra_name[k], sizeof b->comm->extra_name[k], "g%d", k + 1);
  snprintf(b->wl->group_name[b->wl->ngroups++], sizeof b->wl->group_name[0], "g%d", k + 1);
  *out = b->wl->ngroups;
  return WEFT_OK;
}

/* The per-dim group of a collective node: its weft_group ("4,-1,2"), its
 * comm group (pg_name), its involved_dim, else every dim (ASTRA-sim's
 * default). */
static int node_shape(Build *b, const Node *n, int *shape, WeftError *err) {
  int D = b->net->ndims;
  const Attr *a;
  for (int d = 0; d < D; d++) shape[d] = b->net->npus[d];
  if ((a = find_attr(n, "pg_name")) && a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL &&
      a->string_val[0]) {
    char *end;
    long id = strtol(a->string_val, &end, 10);
    for (int i = 0; i < b->groups->n; i++)
      if (!*end && b->groups->id[i] == id) return chakra_group_shape(b->groups, i, b->net, b->scratch, shape, err);
    char what[200];
    snprintf(what, sizeof what, "pg_name '%.40s' is not a comm group of %.120s", a->string_val,
             b->groups->file);
    return node_error(err, b->path, n, "pg_name", what);
  }
  if ((a = find_attr(n, "weft_group"))) {
    const char *s = a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL ? a->string_val : "";
    for (int d = 0; d < D; d++) {
      char *end;
      long v = strtol(s, &end, 10);
      if (end == s || (v != -1 && (v < 1 || v > b->net->npus[d])) || (*end != (d + 1 < D ? ',' : '\0')))
        return node_error(err, b->path, n, "weft_group",
                          "weft_group must list the NPUs of every dim, -1 or 1..the dim's");
      shape[d] = v > 1 ? (int)v : -1;
      s = end + 1;
    }
    return WEFT_OK;
  }
  if ((a = find_attr(n, "involved_dim"))) {
    if (a->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST ||
        a->bool_list->n_values < (size_t)D)
      return node_error(err, b->path, n, "involved_dim", "involved_dim must be a bool list, one per dim");
    for (int d = 0; d < D; d++) shape[d] = a->bool_list->values[d] ? b->net->npus[d] : -1;
  }
  return WEFT_OK;
}

static WeftCollective coll_of(long long t) {
  switch (t) {
    case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE: return WEFT_COLL_ALLREDUCE;
    case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER: return WEFT_COLL_REDUCESCATTER;
    case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER: return WEFT_COLL_ALLGATHER;
    case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL: return WEFT_COLL_ALLTOALL;
    default: return WEFT_COLL_NONE;
  }
}

/* Where a node goes: (layer, phase) from weft's names, else a new forward
 * entry per collective. */
static int entry_of(Build *b, const Node *n, int *layer, int *phase, WeftError *err) {
  const Attr *la = find_attr(n, "weft_layer"), *pa = find_attr(n, "weft_phase");
  if (la && pa && la->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL &&
      pa->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL) {
    if ((*phase = phase_of(pa->string_val)) < 0)
      return node_error(err, b->path, n, "weft_phase",
                        "weft_phase must be forward, input_grad or weight_grad");
    b->named = 1;
    *layer = layer_index(b, la->string_val);
    return *layer < 0 ? weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory") : WEFT_OK;
  }
  char name[WEFT_NAME_LEN];
  snprintf(name, sizeof name, "n%llu", (unsigned long long)n->id);
  *phase = WEFT_PHASE_FWD;
  *layer = layer_index(b, name);
  return *layer < 0 ? weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory") : WEFT_OK;
}

static int add_compute(Build *b, const Node *n, WeftError *err) {
  const Attr *a = find_attr(n, "weft_duration_ns");
  double ns = (double)n->duration_micros * 1000.0;
  long long ops;
  if (a && a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_VAL) ns = a->double_val;
  if (!isfinite(ns) || ns < 0.0)
    return node_error(err, b->path, n, "weft_duration_ns", "duration must be finite and >= 0");
  if (ns == 0.0 && (a = find_attr(n, "num_ops")) && attr_int(a, &ops) && ops > 0)
    return node_error(err, b->path, n, "num_ops",
                      "a compute node timed by num_ops (ASTRA-sim's roofline): weft needs "
                      "duration_micros");
  if (!find_attr(n, "weft_layer")) {
    b->pending_ns += ns;
    return WEFT_OK;
  }
  int l, p, rc = entry_of(b, n, &l, &p, err);
  if (!rc) b->wl->layers[l].phase[p].compute_ns += ns;
  b->cur_layer = -1;
  return rc;
}

static int add_coll(Build *b, const Node *n, WeftCollective c, long long size, WeftError *err) {
  int shape[WEFT_MAX_DIMS], l, p, rc;
  if ((rc = node_shape(b, n, shape, err))) return rc;
  if ((rc = entry_of(b, n, &l, &p, err))) return rc;
  WeftPhaseSpec *ps = &b->wl->layers[l].phase[p];
  if (!b->named) { /* the compute before it is this entry's */
    ps->compute_ns += b->pending_ns;
    b->pending_ns = 0.0;
  }
  int same = b->cur_layer == l && b->cur_phase == p && ps->coll == c &&
             !memcmp(b->cur_shape, shape, sizeof(int) * (size_t)b->net->ndims);
  if (ps->coll != WEFT_COLL_NONE && !same)
    return node_error(err, b->path, n, "comm_type",
                      "a second collective in one layer's phase that is not a repeat of the "
                      "first (weft models one collective per layer and phase)");
  if (same) {
    if (!b->exact) {
      ps->calls = weft_phase_calls(ps) + 1.0;
      ps->size_bytes += (double)size;
    }
    return WEFT_OK;
  }
  int g;
  if ((rc = group_for(b, p, shape, &g, err))) return rc;
  ps->coll = c;
  ps->size_bytes = (double)size;
  ps->group = g;
  ps->calls = 1.0;
  /* weft's exact figures for the entry, when it wrote them */
  const Attr *ca = find_attr(n, "weft_calls"), *sa = find_attr(n, "weft_size_bytes");
  b->exact = ca && sa && ca->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_VAL &&
             sa->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_VAL &&
             ca->double_val > 0.0 && isfinite(ca->double_val) && sa->double_val >= 0.0 &&
             isfinite(sa->double_val);
  if (b->exact) {
    ps->calls = ca->double_val;
    ps->size_bytes = sa->double_val;
  }
  b->cur_layer = l;
  b->cur_phase = p;
  b->cur_coll = c;
  memcpy(b->cur_shape, shape, sizeof b->cur_shape);
  return WEFT_OK;
}

static const char *type_name(int t) {
  static const char *const names[] = {"INVALID_NODE", "METADATA_NODE", "MEM_LOAD_NODE",
                                      "MEM_STORE_NODE", "COMP_NODE", "COMM_SEND_NODE",
                                      "COMM_RECV_NODE", "COMM_COLL_NODE"};
  return t >= 0 && t < 8 ? names[t] : "an unknown type";
}

static int add_node(Build *b, const Node *n, WeftError *err) {
  const Attr *a;
  long long v, size = 0;
  char what[200];
  if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE) return add_compute(b, n, err);
  if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE ||
      n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE ||
      n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE) {
    if (!(a = find_attr(n, "comm_size")) || !attr_int(a, &size) || size < 0)
      return node_error(err, b->path, n, "comm_size", "a communication node needs comm_size (bytes, >= 0)");
  }
  if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE) {
    WeftCollective c = WEFT_COLL_NONE;
    if (!(a = find_attr(n, "comm_type")) || !attr_int(a, &v) || (c = coll_of(v)) == WEFT_COLL_NONE) {
      snprintf(what, sizeof what,
               "comm_type %lld: weft models ALL_REDUCE (0), ALL_GATHER (2), ALL_TO_ALL (6) and "
               "REDUCE_SCATTER (7)",
               a && attr_int(a, &v) ? v : -1LL);
      return node_error(err, b->path, n, "comm_type", what);
    }
    return size > 0 ? add_coll(b, n, c, size, err) : WEFT_OK;
  }
  if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE ||
      n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE) {
    if (!find_attr(n, "weft_group"))
      return node_error(err, b->path, n, "weft_group",
                        "weft reads a send or receive only as half of a pipeline send-recv "
                        "(weft_group names its group)");
    /* the send stands for the pair; its receive is the other half */
    return n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE && size > 0
               ? add_coll(b, n, WEFT_COLL_SENDRECV, size, err)
               : WEFT_OK;
  }
  if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE) return WEFT_OK;
  snprintf(what, sizeof what,
           "type %s (%d): weft models COMP_NODE, COMM_COLL_NODE and pipeline "
           "COMM_SEND_NODE/COMM_RECV_NODE pairs",
           type_name((int)n->type), (int)n->type);
  return node_error(err, b->path, n, "type", what);
}

/* A cheap fingerprint of a trace's structure: types, sizes and durations. */
typedef struct {
  size_t nodes;
  double sum;
} Shape;

/* Read one trace: every node through add_node when b is given, the
 * fingerprint always. */
static int read_trace(const char *path, Build *b, Shape *sh, WeftError *err) {
  TraceFile t;
  const uint8_t *msg;
  size_t n;
  int rc = trace_open(&t, path, err), k;
  if (rc) return rc;
  sh->nodes = 0;
  sh->sum = 0.0;
  if ((k = trace_next(&t, &msg, &n, err)) <= 0) {
    rc = k < 0 ? err->code
               : weft_error_set(err, WEFT_EINPUT, path, 0, 0, "", "empty trace (no GlobalMetadata)");
  } else {
    ChakraProtoMsg__GlobalMetadata *md = chakra_proto_msg__global_metadata__unpack(NULL, n, msg);
    if (!md) rc = weft_error_set(err, WEFT_EINPUT, path, 0, 0, "GlobalMetadata", "the first message is not a Chakra GlobalMetadata");
    else chakra_proto_msg__global_metadata__free_unpacked(md, NULL);
  }
  while (!rc && (k = trace_next(&t, &msg, &n, err)) > 0) {
    Node *node = chakra_proto_msg__node__unpack(NULL, n, msg);
    if (!node) {
      rc = weft_error_set(err, WEFT_EINPUT, path, 0, 0, "Node", "byte %zu: message %zu is not a Chakra Node",
                          t.pos - n, sh->nodes + 1);
      break;
    }
    sh->nodes++;
    sh->sum += (double)node->type * 1e-3 + (double)node->duration_micros;
    const Attr *a = find_attr(node, "comm_size");
    long long v;
    if (a && attr_int(a, &v)) sh->sum += (double)v;
    if (b) rc = add_node(b, node, err);
    chakra_proto_msg__node__free_unpacked(node, NULL);
  }
  if (!rc && k < 0) rc = err->code;
  free(t.data);
  return rc;
}

/* The prefix of the trace set path names (a directory holding one
 * PREFIX.0.et, PREFIX itself, or PREFIX.0.et), into prefix; 0 when path is
 * none of these. *nsets (when given): for a directory, the PREFIX.0.et it
 * holds (prefix the first's), else -1. */
static int trace_prefix(const char *path, char *prefix, size_t size, int *nsets) {
  struct stat st;
  char probe[WEFT_PATH_LEN + 8];
  size_t len = strlen(path);
  if (nsets) *nsets = -1;
  if (len + 8 > WEFT_PATH_LEN) return 0;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    int found = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
      size_t n = strlen(e->d_name);
      if (n > 5 && !strcmp(e->d_name + n - 5, ".0.et") && n - 5 + len + 2 < size) {
        if (!found) snprintf(prefix, size, "%s/%.*s", path, (int)(n - 5), e->d_name);
        found++;
      }
    }
    if (d) closedir(d);
    if (nsets) *nsets = found;
    return found == 1;
  }
  if (len > 5 && !strcmp(path + len - 5, ".0.et")) {
    snprintf(prefix, size, "%.*s", (int)(len - 5), path);
    return 1;
  }
  snprintf(probe, sizeof probe, "%s.0.et", path);
  if (stat(probe, &st) != 0) return 0;
  snprintf(prefix, size, "%s", path);
  return 1;
}

/* A directory holding several sets is one too: weft_chakra_read says to
 * name one (a directory without any is no trace, nor any input). */
int weft_chakra_is_trace(const char *path) {
  char prefix[WEFT_PATH_LEN];
  int nsets;
  return path && (trace_prefix(path, prefix, sizeof prefix, &nsets) || nsets > 1);
}

long long weft_chakra_ranks(const char *path) {
  char prefix[WEFT_PATH_LEN], file[WEFT_PATH_LEN + 32];
  struct stat st;
  long long n = 0;
  if (!path || !trace_prefix(path, prefix, sizeof prefix, NULL)) return 0;
  for (;; n++) {
    snprintf(file, sizeof file, "%s.%lld.et", prefix, n);
    if (stat(file, &st) != 0) return n;
  }
}

int weft_chakra_read(const char *path, const WeftNetwork *net, WeftWorkload **out,
                     WeftCommunicator *comm, WeftError *err) {
  char prefix[WEFT_PATH_LEN], file[WEFT_PATH_LEN + 32];
  if (!path || !net || !out || !comm)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "bad arguments");
  *out = NULL;
  int nsets;
  if (!trace_prefix(path, prefix, sizeof prefix, &nsets)) {
    if (nsets > 1)
      return weft_error_set(err, WEFT_EINPUT, path, 0, 0, "",
                            "the directory holds %d Chakra trace sets (%.200s.0.et, ...): give "
                            "DIR/PREFIX to read one",
                            nsets, prefix + strlen(path) + 1);
    return weft_error_set(err, WEFT_EINPUT, path, 0, 0, "",
                          "not a Chakra trace set: no PREFIX.0.et (a directory must hold "
                          "exactly one)");
  }
  long long npus = chakra_npus(net), have = weft_chakra_ranks(path);
  struct stat st;
  snprintf(file, sizeof file, "%s.%lld.et", prefix, npus);
  if (stat(file, &st) == 0)
    return weft_error_set(err, WEFT_EINPUT, file, 0, 0, "",
                          "more ranks' traces than the network's %lld NPUs", npus);
  /* every rank's file there before any is read: a set for another network
   * is told by its count, not by the first node that does not fit */
  snprintf(file, sizeof file, "%s.%lld.et", prefix, have);
  if (have < npus)
    return weft_error_set(err, WEFT_EINPUT, file, 0, 0, "",
                          "missing: the network has %lld NPUs, one trace per rank (%lld here, "
                          "ranks 0..%lld)",
                          npus, have, have - 1);
  ChakraGroups *g = calloc(1, sizeof *g);
  long long *scratch = malloc(sizeof *scratch * (size_t)(2 * npus + 2));
  WeftWorkload *wl = weft_workload_create();
  int rc = !g || !scratch || !wl ? weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory")
                                 : WEFT_OK;
  memset(comm, 0, sizeof *comm);
  comm->ndims = net->ndims;
  for (int p = 0; p < WEFT_NPHASES; p++)
    for (int d = 0; d < net->ndims; d++) comm->group[p][d] = -1;
  snprintf(file, sizeof file, "%s.comm_groups.json", prefix);
  snprintf(comm->file, sizeof comm->file, "%.*s", (int)sizeof comm->file - 1, file);
  if (!rc) rc = chakra_groups_read(g, file, npus, err);
  Build b = {.net = net, .wl = wl, .comm = comm, .groups = g, .scratch = scratch,
             .cur_layer = -1};
  Shape first = {0}, sh;
  for (long long r = 0; r < npus && !rc; r++) {
    snprintf(file, sizeof file, "%s.%lld.et", prefix, r);
    if (stat(file, &st) != 0) {
      rc = weft_error_set(err, WEFT_EINPUT, file, 0, 0, "",
                          "missing: the network has %lld NPUs, one trace per rank", npus);
      break;
    }
    b.path = file;
    rc = read_trace(file, r == 0 ? &b : NULL, r == 0 ? &first : &sh, err);
    if (!rc && r > 0 && (sh.nodes != first.nodes || sh.sum != first.sum))
      rc = weft_error_set(err, WEFT_EINPUT, file, 0, 0, "",
                          "rank %lld's nodes differ from rank 0's (%zu nodes, %zu there): weft "
                          "models every rank alike",
                          r, sh.nodes, first.nodes);
  }
  if (!rc && b.pending_ns > 0.0) { /* compute after the last collective */
    int l = layer_index(&b, "tail");
    if (l < 0) rc = weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory");
    else wl->layers[l].phase[WEFT_PHASE_FWD].compute_ns += b.pending_ns;
  }
  if (!rc && wl->nlayers == 0)
    rc = weft_error_set(err, WEFT_EINPUT, prefix, 0, 0, "", "the traces hold no compute or collective");
  if (!rc) {
    snprintf(wl->file, sizeof wl->file, "%.*s.0.et", (int)sizeof wl->file - 6, prefix);
    rc = weft_communicator_check(comm, net, err);
  }
  if (g) free(g->members);
  free(g);
  free(scratch);
  if (rc) weft_workload_free(wl);
  else *out = wl;
  return rc;
}
