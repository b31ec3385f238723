/* workload_write.c — writes a workload as ASTRA-sim 1.0 text and a
 * communicator as LIBRA's yml (with weft's @name, *calls, ~ns / Groups: extensions when
 * used); each file appears whole or not at all. Read back, both give the
 * same structs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/names.h"
#include "io/util.h"

/* Integral numbers below this print as plain integers ("%.0f" is exact for
 * every double; past 1e21 the digits are mostly noise, so %.17g). */
#define WEFT_WRITE_INT_MAX 1e21

/* ------------------------------------------------------------------ workload */

/* An integral value as an integer, anything else exactly (%.17g). */
static void put_number(FILE *f, double v) {
  v += 0.0;  /* no "-0" */
  if (v == floor(v) && fabs(v) < WEFT_WRITE_INT_MAX) fprintf(f, "%.0f", v);
  else fprintf(f, "%.17g", v);
}

static void workload_body(FILE *f, const WeftWorkload *wl) {
  if (wl->policy[0]) fprintf(f, "%s\n%d\n", wl->policy, wl->nlayers);
  for (int i = 0; i < wl->nlayers; i++) {
    const WeftLayer *l = &wl->layers[i];
    fprintf(f, "%s -1", l->name);  /* -1: the reserved field, as LIBRA writes it */
    for (int p = 0; p < WEFT_NPHASES; p++) {
      const WeftPhaseSpec *ph = &l->phase[p];
      fputc(' ', f);
      put_number(f, ph->compute_ns);
      fprintf(f, " %s", weft_collective_name(ph->coll));
      if (ph->group > 0 && ph->coll != WEFT_COLL_NONE) fprintf(f, "@%s", wl->group_name[ph->group - 1]);
      if (ph->coll != WEFT_COLL_NONE && weft_phase_calls(ph) != 1.0) {
        fputc('*', f);
        put_number(f, weft_phase_calls(ph));
      }
      if (ph->coll != WEFT_COLL_NONE && ph->overlap_ns > 0.0) {
        fputc('~', f);
        put_number(f, ph->overlap_ns);
      }
      fputc(' ', f);
      put_number(f, ph->coll == WEFT_COLL_NONE ? 0.0 : ph->size_bytes);  /* NONE's size is ignored */
    }
    fputc(' ', f);
    put_number(f, l->update_ns);
    fputc('\n', f);
  }
}

/* Would the reader see this policy line as the policy line? (not a comment,
 * not blank, not 12 fields, which would read as a layer, one line) */
static int policy_ok(const char *s) {
  int tokens = 0, in = 0;
  if (strnlen(s, 128) == 128) return 0;
  for (const char *p = s; *p; p++) {
    if (*p == '\n') return 0;
    int sp = weft_io_is_space(*p);
    if (!sp && !in) {
      if (tokens == 0 && *p == '#') return 0;
      tokens++;
    }
    in = !sp;
  }
  return tokens > 0 && tokens != 12;
}

static int check_number(WeftError *err, const char *path, const WeftLayer *l, const char *field,
                        double v) {
  if (isfinite(v) && v >= 0.0) return WEFT_OK;
  return weft_error_set(err, WEFT_EINVAL, path, 0, 0, field,
                        "layer '%s': %s must be finite and >= 0, got %g", l->name, field, v);
}

/* Everything the reader would refuse or read differently is refused here. */
static int check_workload(const char *path, const WeftWorkload *wl, WeftError *err) {
  static const char *const fields[WEFT_NPHASES][3] = {
      {"fwd_compute", "fwd_type", "fwd_size"},
      {"ig_compute", "ig_type", "ig_size"},
      {"wg_compute", "wg_type", "wg_size"}};
  if (wl->nlayers < 1 || !wl->layers)
    return weft_error_set(err, WEFT_EINVAL, path, 0, 0, "", "the workload has no layers");
  if (wl->policy[0] && !policy_ok(wl->policy))
    return weft_error_set(err, WEFT_EINVAL, path, 0, 0, "policy",
                          "policy line '%.127s' would not read back as one (it is a comment, "
                          "blank, several lines or 12 fields)",
                          wl->policy);
  if (wl->ngroups < 0 || wl->ngroups > WEFT_MAX_GROUPS)
    return weft_error_set(err, WEFT_EINVAL, path, 0, 0, "group",
                          "the workload has %d named groups: must be 0..%d", wl->ngroups,
                          WEFT_MAX_GROUPS);
  for (int k = 0; k < wl->ngroups; k++) {
    const char *g = wl->group_name[k];
    if (!weft_group_name_ok(g, strnlen(g, sizeof wl->group_name[k])))
      return weft_error_set(err, WEFT_EINVAL, path, 0, 0, "group",
                            "group name '%.16s' must be 1 to %d letters, digits or '_'", g,
                            WEFT_GROUP_NAME_MAX);
    for (int j = 0; j < k; j++)
      if (!strcmp(wl->group_name[j], g))
        return weft_error_set(err, WEFT_EINVAL, path, 0, 0, "group",
                              "group '%s' is named twice", g);
  }
  for (int i = 0; i < wl->nlayers; i++) {
    const WeftLayer *l = &wl->layers[i];
    size_t n = strnlen(l->name, WEFT_NAME_LEN);
    int bad = n == 0 || n == WEFT_NAME_LEN || l->name[0] == '#';
    for (size_t c = 0; c < n && !bad; c++) bad = weft_io_is_space(l->name[c]) || l->name[c] == '\n';
    if (bad)
      return weft_error_set(err, WEFT_EINVAL, path, 0, 0, "name",
                            "layer %d: name '%.63s' must be one word of 1..63 characters, not "
                            "starting with '#'",
                            i + 1, l->name);
    int rc;
    for (int p = 0; p < WEFT_NPHASES; p++) {
      const WeftPhaseSpec *ph = &l->phase[p];
      if ((rc = check_number(err, path, l, fields[p][0], ph->compute_ns)) ||
          (rc = check_number(err, path, l, fields[p][2], ph->size_bytes)))
        return rc;
      if ((rc = check_number(err, path, l, "overlap_ns", ph->overlap_ns))) return rc;
      if (p == WEFT_PHASE_WG && ph->overlap_ns > 0.0 && ph->coll != WEFT_COLL_NONE)
        return weft_error_set(err, WEFT_EINVAL, path, 0, 0, fields[p][1],
                              "layer '%s': a weight-grad collective cannot be hidden behind "
                              "compute (overlap_ns)", l->name);
      if ((int)ph->coll < 0 || (int)ph->coll >= WEFT_NCOLL)
        return weft_error_set(err, WEFT_EINVAL, path, 0, 0, fields[p][1],
                              "layer '%s': unknown collective %d", l->name, (int)ph->coll);
      if (ph->group < 0 || ph->group > wl->ngroups)
        return weft_error_set(err, WEFT_EINVAL, path, 0, 0, fields[p][1],
                              "layer '%s': group index %d out of range (%d named groups)",
                              l->name, ph->group, wl->ngroups);
    }
    if ((rc = check_number(err, path, l, "update_time", l->update_ns))) return rc;
  }
  return WEFT_OK;
}

int weft_workload_write(const char *path, const WeftWorkload *wl, WeftError *err) {
  if (!path || !path[0] || !wl)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no %s given",
                          !path || !path[0] ? "output path" : "workload");
  WeftOut *o;
  int rc = check_workload(path, wl, err);  /* before creating anything */
  if (rc || (rc = weft_out_open(path, &o, err))) return rc;
  workload_body(weft_out_stream(o), wl);
  return weft_out_commit(o, err);
}

int weft_workload_emit(WeftOut *o, const WeftWorkload *wl, WeftError *err) {
  if (!o || !wl)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no %s given", !o ? "output" : "workload");
  int rc = check_workload(weft_out_path(o), wl, err);
  if (!rc) workload_body(weft_out_stream(o), wl);
  return rc;
}

/* ------------------------------------------------------------------ communicator */

static void put_counts(FILE *f, const char *key, const int *v, int n) {
  fprintf(f, "%s: [ ", key);
  for (int d = 0; d < n; d++) fprintf(f, "%s%d", d ? ", " : "", v[d]);
  fprintf(f, " ]\n");
}

static void comm_body(FILE *f, const WeftCommunicator *c) {
  static const char *const keys[WEFT_NPHASES] = {"Forward", "InputGrad", "WeightGrad"};
  for (int p = 0; p < WEFT_NPHASES; p++) put_counts(f, keys[p], c->group[p], c->ndims);
  if (c->nextra > 0) fprintf(f, "Groups:\n");
  for (int k = 0; k < c->nextra; k++) {
    char key[24];
    snprintf(key, sizeof key, "  %s", c->extra_name[k]);
    put_counts(f, key, c->extra[k], c->ndims);
  }
}

static int check_counts(const char *path, const char *what, const int *v, int n,
                        WeftError *err) {
  for (int d = 0; d < n; d++)
    if (v[d] != -1 && v[d] < 1)
      return weft_error_set(err, WEFT_EINVAL, path, 0, 0, what,
                            "%s entry %d must be -1 (not involved) or >= 1, got %d", what, d + 1,
                            v[d]);
  return WEFT_OK;
}

/* Everything the reader would refuse is refused here. */
static int check_comm(const char *path, const WeftCommunicator *comm, WeftError *err) {
  static const char *const keys[WEFT_NPHASES] = {"Forward", "InputGrad", "WeightGrad"};
  if (comm->ndims < 1 || comm->ndims > WEFT_MAX_DIMS)
    return weft_error_set(err, WEFT_EINVAL, path, 0, 0, "",
                          "the communicator must have 1 to %d dims, got %d", WEFT_MAX_DIMS,
                          comm->ndims);
  if (comm->nextra < 0 || comm->nextra > WEFT_MAX_GROUPS)
    return weft_error_set(err, WEFT_EINVAL, path, 0, 0, "Groups",
                          "the communicator has %d named groups: must be 0..%d", comm->nextra,
                          WEFT_MAX_GROUPS);
  int rc;
  for (int p = 0; p < WEFT_NPHASES; p++)
    if ((rc = check_counts(path, keys[p], comm->group[p], comm->ndims, err))) return rc;
  for (int k = 0; k < comm->nextra; k++) {
    const char *g = comm->extra_name[k];
    if (!weft_group_name_ok(g, strnlen(g, sizeof comm->extra_name[k])))
      return weft_error_set(err, WEFT_EINVAL, path, 0, 0, "Groups",
                            "group name '%.16s' must be 1 to %d letters, digits or '_'", g,
                            WEFT_GROUP_NAME_MAX);
    for (int j = 0; j < k; j++)
      if (!strcmp(comm->extra_name[j], g))
        return weft_error_set(err, WEFT_EINVAL, path, 0, 0, "Groups",
                              "group '%s' is named twice", g);
    char field[WEFT_NAME_LEN];
    snprintf(field, sizeof field, "Groups.%s", g);
    if ((rc = check_counts(path, field, comm->extra[k], comm->ndims, err))) return rc;
  }
  return WEFT_OK;
}

int weft_communicator_write(const char *path, const WeftCommunicator *comm, WeftError *err) {
  if (!path || !path[0] || !comm)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no %s given",
                          !path || !path[0] ? "output path" : "communicator");
  WeftOut *o;
  int rc = check_comm(path, comm, err);  /* before creating anything */
  if (rc || (rc = weft_out_open(path, &o, err))) return rc;
  comm_body(weft_out_stream(o), comm);
  return weft_out_commit(o, err);
}

int weft_communicator_emit(WeftOut *o, const WeftCommunicator *comm, WeftError *err) {
  if (!o || !comm)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no %s given",
                          !o ? "output" : "communicator");
  int rc = check_comm(weft_out_path(o), comm, err);
  if (!rc) comm_body(weft_out_stream(o), comm);
  return rc;
}
