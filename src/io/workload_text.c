/* workload_text.c — ASTRA-sim 1.0 workload text: 12 fields per layer line,
 * optional policy and layer-count header, weft's TYPE@group*calls~ns extension;
 * parsed in place, one allocation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/names.h"
#include "io/util.h"

#define NFIELDS 12

static const char *const FIELD[NFIELDS] = {
    "name",    "reserved", "fwd_compute", "fwd_type", "fwd_size", "ig_compute",
    "ig_type", "ig_size",  "wg_compute",  "wg_type",  "wg_size",  "update_time"};

typedef struct {
  const char *p;
  size_t len;
  int col;  /* 1-based */
} Tok;

typedef struct {
  const char *file;
  int line;
  WeftError *err;
} Ctx;

/* Split line [s, eol) into tokens; stores at most max, returns how many. */
static int split(const char *s, const char *eol, Tok *t, int max) {
  int n = 0;
  const char *p = s;
  for (;;) {
    while (p < eol && weft_io_is_space(*p)) p++;
    if (p == eol) return n;
    const char *b = p;
    while (p < eol && !weft_io_is_space(*p)) p++;
    if (n < max) t[n] = (Tok){b, (size_t)(p - b), (int)(b - s) + 1};
    n++;
  }
}

/* A compute time, size or update time: a number in its range (limits.h):
 * times in ns and sizes in bytes, each >= 0 and at most 1e18. */
static int number(const Ctx *c, const Tok *t, int f, double *out) {
  int r = weft_io_number(t->p, t->len, out);
  if (r != WEFT_NUM_OK)
    return weft_error_set(c->err, WEFT_EINPUT, c->file, c->line, t->col, FIELD[f],
                          "%s %s, got '%.*s'", FIELD[f], weft_io_number_must(r), (int)t->len,
                          t->p);
  int is_size = f == 4 || f == 7 || f == 10;
  WeftRange range = is_size ? WEFT_RANGE_SIZE_BYTES : WEFT_RANGE_TIME_NS;
  char must[64];
  if (weft_io_in_range(*out, &range, must, sizeof must))
    return weft_error_set(c->err, WEFT_EINPUT, c->file, c->line, t->col, FIELD[f],
                          "%s %s, got %.*s", FIELD[f], must, (int)t->len, t->p);
  return WEFT_OK;
}

/* A group name after '@' in a collective's token: found among the names
 * seen so far or appended (order of first use), *group = its index + 1.
 * With wl NULL the name is only checked. */
static int group_ref(const Ctx *c, const Tok *t, int f, const char *name, size_t len,
                     WeftWorkload *wl, int *group) {
  int col = t->col + (int)(name - t->p);
  if (len == 0)
    return weft_error_set(c->err, WEFT_EINPUT, c->file, c->line, col, FIELD[f],
                          "%s: no group name after '@' in '%.*s'", FIELD[f], (int)t->len, t->p);
  if (!weft_group_name_ok(name, len))
    return weft_error_set(c->err, WEFT_EINPUT, c->file, c->line, col, FIELD[f],
                          "%s: group name '%.*s' must be 1 to %d letters, digits or '_'",
                          FIELD[f], (int)len, name, WEFT_GROUP_NAME_MAX);
  if (!wl) return WEFT_OK;
  for (int k = 0; k < wl->ngroups; k++)
    if (strlen(wl->group_name[k]) == len && memcmp(wl->group_name[k], name, len) == 0) {
      *group = k + 1;
      return WEFT_OK;
    }
  if (wl->ngroups == WEFT_MAX_GROUPS)
    return weft_error_set(c->err, WEFT_EINPUT, c->file, c->line, col, FIELD[f],
                          "%s: group '%.*s' would be the workload's %dth named group, at most "
                          "%d are allowed",
                          FIELD[f], (int)len, name, WEFT_MAX_GROUPS + 1, WEFT_MAX_GROUPS);
  memcpy(wl->group_name[wl->ngroups], name, len);
  wl->group_name[wl->ngroups][len] = '\0';
  *group = ++wl->ngroups;
  return WEFT_OK;
}

/* "*calls" at the end of a collective's token: the calls the entry stands
 * for, a number in (0, 1e9] (limits.h). */
static int calls_ref(const Ctx *c, const Tok *t, int f, const char *star, WeftPhaseSpec *ph) {
  size_t len = (size_t)(t->p + t->len - star - 1);
  int col = t->col + (int)(star + 1 - t->p);
  int r = weft_io_number(star + 1, len, &ph->calls);
  if (r != WEFT_NUM_OK)
    return weft_error_set(c->err, WEFT_EINPUT, c->file, c->line, col, FIELD[f],
                          "%s: the calls after '*' %s, got '%.*s'", FIELD[f],
                          weft_io_number_must(r), (int)len, star + 1);
  WeftRange range = WEFT_RANGE_CALLS;
  char must[64];
  if (weft_io_in_range(ph->calls, &range, must, sizeof must))
    return weft_error_set(c->err, WEFT_EINPUT, c->file, c->line, col, FIELD[f],
                          "%s: the calls after '*' %s, got %.*s", FIELD[f], must, (int)len,
                          star + 1);
  return WEFT_OK;
}

/* "~ns" at the end of a forward or input-grad collective's token: the
 * compute it runs concurrently with (WeftPhaseSpec.overlap_ns), a time in
 * [0, 1e18] ns (limits.h). */
static int overlap_ref(const Ctx *c, const Tok *t, int f, const char *tilde, WeftPhaseSpec *ph) {
  size_t len = (size_t)(t->p + t->len - tilde - 1);
  int col = t->col + (int)(tilde + 1 - t->p);
  if (f == 9)
    return weft_error_set(c->err, WEFT_EINPUT, c->file, c->line, col, FIELD[f],
                          "%s: '~' (a collective hidden behind compute) is for forward and "
                          "input-grad collectives only", FIELD[f]);
  int r = weft_io_number(tilde + 1, len, &ph->overlap_ns);
  if (r != WEFT_NUM_OK)
    return weft_error_set(c->err, WEFT_EINPUT, c->file, c->line, col, FIELD[f],
                          "%s: the overlap time after '~' %s, got '%.*s'", FIELD[f],
                          weft_io_number_must(r), (int)len, tilde + 1);
  WeftRange range = WEFT_RANGE_TIME_NS;
  char must[64];
  if (weft_io_in_range(ph->overlap_ns, &range, must, sizeof must))
    return weft_error_set(c->err, WEFT_EINPUT, c->file, c->line, col, FIELD[f],
                          "%s: the overlap time after '~' %s, got %.*s", FIELD[f], must,
                          (int)len, tilde + 1);
  return WEFT_OK;
}

/* TYPE, TYPE@group, TYPE*calls or TYPE@group*calls, each optionally
 * followed by ~overlap_ns (weft extensions: the
 * phase runs over the named group of the communicator instead of the
 * phase's own; the entry's bytes are sent in that many calls, each paying
 * the latency). NONE@group and NONE*calls are accepted and, like NONE's
 * size, ignored. */
static int collective(const Ctx *c, const Tok *t, int f, WeftWorkload *wl, WeftPhaseSpec *ph) {
  static const WeftCollective all[] = {WEFT_COLL_NONE,      WEFT_COLL_ALLREDUCE,
                                       WEFT_COLL_REDUCESCATTER, WEFT_COLL_ALLGATHER,
                                       WEFT_COLL_ALLTOALL,  WEFT_COLL_SENDRECV};
  const char *tilde = memchr(t->p, '~', t->len);
  Tok base = *t;  /* TYPE[@group][*calls] */
  if (tilde) base.len = (size_t)(tilde - t->p);
  const char *star = memchr(base.p, '*', base.len);
  size_t blen = star ? (size_t)(star - t->p) : base.len;  /* TYPE[@group] */
  const char *at = memchr(t->p, '@', blen);
  size_t tlen = at ? (size_t)(at - t->p) : blen;
  ph->group = 0;
  ph->calls = 0.0;
  ph->overlap_ns = 0.0;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    const char *name = weft_collective_name(all[i]);
    if (strlen(name) == tlen && strncasecmp(name, t->p, tlen) == 0) {
      ph->coll = all[i];
      int rc, none = all[i] == WEFT_COLL_NONE;
      if (at && (rc = group_ref(c, t, f, at + 1, blen - tlen - 1, none ? NULL : wl, &ph->group)))
        return rc;
      if (star && (rc = calls_ref(c, &base, f, star, ph))) return rc;
      if (tilde && (rc = overlap_ref(c, t, f, tilde, ph))) return rc;
      if (none) ph->calls = ph->overlap_ns = 0.0;
      return WEFT_OK;
    }
  }
  return weft_error_set(c->err, WEFT_EINPUT, c->file, c->line, t->col, FIELD[f],
                        "%s: unknown collective '%.*s' (expected NONE, ALLREDUCE, ALLGATHER, "
                        "REDUCESCATTER, ALLTOALL or SENDRECV, optionally with @group, "
                        "*calls and ~overlap_ns)",
                        FIELD[f], (int)tlen, t->p);
}

static int layer(const Ctx *c, const Tok *t, WeftWorkload *wl, WeftLayer *l) {
  memset(l, 0, sizeof *l);  /* phase groups default to the communicator's */
  size_t n = t[0].len < WEFT_NAME_LEN - 1 ? t[0].len : WEFT_NAME_LEN - 1;  /* truncate */
  memcpy(l->name, t[0].p, n);
  l->name[n] = '\0';
  l->line = c->line;
  int rc;
  for (int p = 0; p < WEFT_NPHASES; p++) {
    int f = 2 + 3 * p;  /* compute, type, size */
    WeftPhaseSpec *ph = &l->phase[p];
    if ((rc = number(c, &t[f], f, &ph->compute_ns)) ||
        (rc = collective(c, &t[f + 1], f + 1, wl, ph)) ||
        (rc = number(c, &t[f + 2], f + 2, &ph->size_bytes)))
      return rc;
    if (ph->coll == WEFT_COLL_NONE) ph->size_bytes = 0.0;  /* LIBRA ignores it */
  }
  return number(c, &t[11], 11, &l->update_ns);
}

static const char *line_end(const char *p) {
  const char *e = strchr(p, '\n');
  return e ? e : p + strlen(p);
}

/* Does the next line with something on it hold exactly one token? */
static int next_is_single(const char *p) {
  while (*p) {
    const char *eol = line_end(p);
    Tok t[2];
    int n = split(p, eol, t, 2);
    if (n > 0 && t[0].p[0] != '#') return n == 1;
    p = *eol ? eol + 1 : eol;
  }
  return 0;
}

int weft_workload_parse(const char *text, const char *name, WeftWorkload **out,
                        WeftError *err) {
  Ctx c = {name ? name : "", 0, err};
  if (!out) return weft_error_set(err, WEFT_EINVAL, c.file, 0, 0, NULL, "no output workload");
  *out = NULL;
  if (!text) return weft_error_set(err, WEFT_EINVAL, c.file, 0, 0, NULL, "no workload text");
  int rc = weft_io_check_text_size(c.file, strnlen(text, (size_t)WEFT_MAX_INPUT_BYTES + 1), err);
  if (rc) return rc;
  size_t nlines = 1;  /* an upper bound on the layers: one allocation */
  for (const char *p = text; (p = strchr(p, '\n')); p++) nlines++;
  WeftWorkload *wl = weft_workload_create();
  if (wl) wl->layers = malloc(nlines * sizeof *wl->layers);
  if (!wl || !wl->layers) {
    weft_workload_free(wl);
    return weft_error_set(err, WEFT_ENOMEM, c.file, 0, 0, NULL, "out of memory reading workload");
  }
  wl->capacity = (int)nlines;
  snprintf(wl->file, sizeof wl->file, "%s", c.file);
  enum { FIRST, COUNT, LAYERS } state = FIRST;
  long long declared = -1;
  int count_line = 0;
  for (const char *p = text; *p;) {
    const char *eol = line_end(p);
    c.line++;
    Tok t[NFIELDS + 1];
    int n = split(p, eol, t, NFIELDS + 1);
    const char *line = p;
    p = *eol ? eol + 1 : eol;
    if (n == 0 || t[0].p[0] == '#') continue;
    if (state == FIRST) {
      state = LAYERS;
      if (n != NFIELDS && next_is_single(p)) {  /* policy line, then the count */
        size_t len = (size_t)(eol - t[0].p);
        int cut = len >= sizeof wl->policy;
        if (cut) len = sizeof wl->policy - 1;
        /* trimmed after truncating, so what is kept reads back the same; a
         * cut leaving 12 fields would read back as a layer: drop a word */
        while (len > 0 && weft_io_is_space(t[0].p[len - 1])) len--;
        if (cut && split(t[0].p, t[0].p + len, NULL, 0) == NFIELDS) {
          while (len > 0 && !weft_io_is_space(t[0].p[len - 1])) len--;
          while (len > 0 && weft_io_is_space(t[0].p[len - 1])) len--;
        }
        memcpy(wl->policy, t[0].p, len);
        wl->policy[len] = '\0';
        state = COUNT;
        continue;
      }
    } else if (state == COUNT) {
      state = LAYERS;
      count_line = c.line;
      if (weft_io_integer(t[0].p, t[0].len, &declared) != WEFT_NUM_OK || declared < 0) {
        /* not echoed: a file given in the wrong place (a key, a password on
         * its second line) is named, never shown */
        rc = weft_error_set(err, WEFT_EINPUT, c.file, c.line, t[0].col, "layer_count",
                            "layer count must be an integer >= 0 (the line after the policy "
                            "line: is this an ASTRA-sim 1.0 workload?)");
        goto fail;
      }
      continue;
    }
    if (n != NFIELDS) {
      int col = n > NFIELDS ? t[NFIELDS].col : (int)(t[n - 1].p - line) + (int)t[n - 1].len + 1;
      rc = weft_error_set(err, WEFT_EINPUT, c.file, c.line, col, "",
                          "expected %d fields, got %d", NFIELDS, n);
      goto fail;
    }
    if ((rc = layer(&c, t, wl, &wl->layers[wl->nlayers]))) goto fail;
    wl->nlayers++;
  }
  if (declared >= 0 && declared != wl->nlayers) {
    rc = weft_error_set(err, WEFT_EINPUT, c.file, count_line, 1, "layer_count",
                        "the header declares %lld layers, found %d", declared, wl->nlayers);
    goto fail;
  }
  if (wl->nlayers == 0) {
    rc = weft_error_set(err, WEFT_EINPUT, c.file, 0, 0, NULL, "the workload has no layers");
    goto fail;
  }
  *out = wl;
  return WEFT_OK;
fail:
  weft_workload_free(wl);
  return rc;
}

int weft_workload_read(const char *path, WeftWorkload **out, WeftError *err) {
  if (!out) return weft_error_set(err, WEFT_EINVAL, path, 0, 0, NULL, "no output workload");
  *out = NULL;
  if (!path) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no file name");
  char *buf;
  size_t len;
  int rc = weft_io_read_file(path, &buf, &len, err);
  if (rc) return rc;
  const char *nul = memchr(buf, '\0', len);
  if (nul) {  /* the parser stops at a NUL: refuse instead of dropping the rest */
    int line = 1;
    for (const char *q = buf; q < nul; q++) line += *q == '\n';
    free(buf);
    return weft_error_set(err, WEFT_EINPUT, path, line, 0, NULL,
                          "binary data (a nul byte) in a workload text file");
  }
  rc = weft_workload_parse(buf, path, out, err);
  free(buf);
  return rc;
}
