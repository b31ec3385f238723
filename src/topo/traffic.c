/* traffic.c — a job's traffic per iteration: AllReduce groups and a sparse
 * model-parallel demand matrix (hashed by pair), read from CSV or built in
 * code (traffic_model.c derives it from the model zoo). */
#include <stdlib.h>
#include <string.h>

#include "io/util.h"
#include "weft.h"

WeftTraffic *weft_traffic_create(int nservers) {
  if (nservers < 1) return NULL;
  WeftTraffic *t = calloc(1, sizeof *t);
  if (t) t->nservers = nservers;
  return t;
}

void weft_traffic_free(WeftTraffic *t) {
  if (!t) return;
  for (int i = 0; i < t->nallreduce; i++) free(t->ar[i].members);
  free(t->ar);
  free(t->demand);
  free(t->index);
  free(t);
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int weft_traffic_add_allreduce(WeftTraffic *t, const int *members, int size, double size_bytes) {
  if (!t || !members || size < 2 || size > t->nservers || !(size_bytes >= 0)) return WEFT_EINVAL;
  int *m = malloc((size_t)size * sizeof *m);
  if (!m) return WEFT_ENOMEM;
  memcpy(m, members, (size_t)size * sizeof *m);
  qsort(m, (size_t)size, sizeof *m, cmp_int);
  for (int i = 0; i < size; i++)
    if (m[i] < 0 || m[i] >= t->nservers || (i && m[i] == m[i - 1])) {
      free(m);
      return WEFT_EINVAL;
    }
  if (t->nallreduce == t->cap_ar) {
    int nc = t->cap_ar ? 2 * t->cap_ar : 4;
    WeftAllReduce *na = realloc(t->ar, (size_t)nc * sizeof *na);
    if (!na) {
      free(m);
      return WEFT_ENOMEM;
    }
    t->ar = na;
    t->cap_ar = nc;
  }
  t->ar[t->nallreduce++] = (WeftAllReduce){size, m, size_bytes};
  return WEFT_OK;
}

static unsigned slot_of(const WeftTraffic *t, int src, int dst) {
  unsigned long long k = (unsigned long long)src * (unsigned long long)t->nservers + (unsigned)dst;
  k *= 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */
  return (unsigned)(k >> 32) & (unsigned)(t->cap_index - 1);
}

/* The entry of (src, dst) or where it would go (index holds entry + 1). */
static int *find(const WeftTraffic *t, int src, int dst) {
  unsigned s = slot_of(t, src, dst);
  for (;;) {
    int *e = &t->index[s];
    if (!*e) return e;
    const WeftDemand *d = &t->demand[*e - 1];
    if (d->src == src && d->dst == dst) return e;
    s = (s + 1) & (unsigned)(t->cap_index - 1);
  }
}

static int rehash(WeftTraffic *t, int cap) {
  int *ni = calloc((size_t)cap, sizeof *ni);
  if (!ni) return WEFT_ENOMEM;
  free(t->index);
  t->index = ni;
  t->cap_index = cap;
  for (int i = 0; i < t->ndemand; i++) *find(t, t->demand[i].src, t->demand[i].dst) = i + 1;
  return WEFT_OK;
}

double weft_traffic_demand(const WeftTraffic *t, int src, int dst) {
  if (!t || !t->cap_index) return 0.0;
  int *e = find(t, src, dst);
  return *e ? t->demand[*e - 1].bytes : 0.0;
}

int weft_traffic_add_demand(WeftTraffic *t, int src, int dst, double bytes) {
  if (!t || src < 0 || dst < 0 || src >= t->nservers || dst >= t->nservers || src == dst ||
      !(bytes >= 0))
    return WEFT_EINVAL;
  if (2 * (t->ndemand + 1) > t->cap_index && rehash(t, t->cap_index ? 2 * t->cap_index : 64))
    return WEFT_ENOMEM;
  int *e = find(t, src, dst);
  if (*e) {
    t->demand[*e - 1].bytes += bytes;
    return WEFT_OK;
  }
  if (t->ndemand == t->cap_demand) {
    int nc = t->cap_demand ? 2 * t->cap_demand : 16;
    WeftDemand *nd = realloc(t->demand, (size_t)nc * sizeof *nd);
    if (!nd) return WEFT_ENOMEM;
    t->demand = nd;
    t->cap_demand = nc;
  }
  t->demand[t->ndemand++] = (WeftDemand){src, dst, bytes};
  *e = t->ndemand;
  return WEFT_OK;
}

/* ------------------------------------------------------------------ CSV */
#define CSV_MAX_FIELDS 65536

/* Split line[0..len) at commas into tok/tlen (spaces trimmed). */
static int split(const char *line, size_t len, const char **tok, size_t *tlen, int max) {
  int n = 0;
  size_t i = 0;
  for (;;) {
    size_t a = i;
    while (i < len && line[i] != ',') i++;
    size_t b = i;
    while (a < b && weft_io_is_space(line[a])) a++;
    while (b > a && weft_io_is_space(line[b - 1])) b--;
    if (n == max) return -1;
    tok[n] = line + a;
    tlen[n++] = b - a;
    if (i >= len) break;
    i++;
  }
  return n;
}

static int is_word(const char *s, size_t n, const char *w) {
  return strlen(w) == n && !strncmp(s, w, n);
}

typedef struct {
  const char *path;
  int line;
  WeftError *err;
  int *seen;  /* per server: the line that last listed it as a member */
} Csv;

static int bad(const Csv *c, int col, const char *field, const char *what, const char *s,
               size_t n) {
  return weft_error_set(c->err, WEFT_EINPUT, c->path, c->line, col, field, "%s '%.*s'", what,
                        (int)(n > 40 ? 40 : n), s);
}

static int server(const Csv *c, int nservers, const char *s, size_t n, int col, const char *field,
                  int *out) {
  long long v;
  if (weft_io_integer(s, n, &v) || v < 0 || v >= nservers) {
    char what[96];
    snprintf(what, sizeof what, "expected a server id in [0, %d), got", nservers);
    return bad(c, col, field, what, s, n);
  }
  *out = (int)v;
  return WEFT_OK;
}

/* A size in bytes or a time in ns: the files' number grammar, in range
 * (io/limits.h: >= 0, at most 1e18). */
static int bytes_of(const Csv *c, const char *s, size_t n, int col, const char *field,
                    double *out) {
  int r = weft_io_number(s, n, out);
  if (r != WEFT_NUM_OK) {
    char what[96];
    snprintf(what, sizeof what, "%s %s, got", field, weft_io_number_must(r));
    return bad(c, col, field, what, s, n);
  }
  WeftRange range = strcmp(field, "compute_ns") ? WEFT_RANGE_SIZE_BYTES : WEFT_RANGE_TIME_NS;
  char must[64], what[96];
  if (!weft_io_in_range(*out, &range, must, sizeof must)) return WEFT_OK;
  snprintf(what, sizeof what, "%s %s, got", field, must);
  return bad(c, col, field, what, s, n);
}

static int csv_record(const Csv *c, WeftTraffic *t, const char *line, size_t len, int *members,
                      const char **tok, size_t *tl) {
  int nt = split(line, len, tok, tl, CSV_MAX_FIELDS);
  int col[3];
  if (nt < 0)
    return weft_error_set(c->err, WEFT_EINPUT, c->path, c->line, 0, NULL, "too many fields");
  for (int k = 0; k < 3 && k < nt; k++) col[k] = (int)(tok[k] - line) + 1;
  if (is_word(tok[0], tl[0], "allreduce")) {
    double b;
    if (nt < 4)
      return weft_error_set(c->err, WEFT_EINPUT, c->path, c->line, 1, "allreduce",
                            "expected allreduce,size_bytes,member,member,...");
    int rc = bytes_of(c, tok[1], tl[1], col[1], "size_bytes", &b);
    for (int k = 2; k < nt && !rc; k++) {
      int at = (int)(tok[k] - line) + 1;
      rc = server(c, t->nservers, tok[k], tl[k], at, "member", &members[k - 2]);
      if (!rc && c->seen[members[k - 2]] == c->line)
        rc = weft_error_set(c->err, WEFT_EINPUT, c->path, c->line, at, "member",
                            "member %d is listed twice", members[k - 2]);
      if (!rc) c->seen[members[k - 2]] = c->line;
    }
    if (rc) return rc;
    rc = weft_traffic_add_allreduce(t, members, nt - 2, b);
    if (rc == WEFT_EINVAL)
      return weft_error_set(c->err, WEFT_EINPUT, c->path, c->line, col[2], "member",
                            "an AllReduce needs at least 2 distinct members");
    return rc;
  }
  if (is_word(tok[0], tl[0], "compute_ns")) {
    if (nt != 2) return weft_error_set(c->err, WEFT_EINPUT, c->path, c->line, 1, "compute_ns",
                                       "expected compute_ns,X");
    return bytes_of(c, tok[1], tl[1], col[1], "compute_ns", &t->compute_ns);
  }
  if (nt != 3)
    return weft_error_set(c->err, WEFT_EINPUT, c->path, c->line, 1, NULL,
                          "expected src,dst,bytes or allreduce,size_bytes,members... or "
                          "compute_ns,X (%d fields)",
                          nt);
  int src, dst;
  double b;
  int rc = server(c, t->nservers, tok[0], tl[0], col[0], "src", &src);
  if (!rc) rc = server(c, t->nservers, tok[1], tl[1], col[1], "dst", &dst);
  if (!rc) rc = bytes_of(c, tok[2], tl[2], col[2], "bytes", &b);
  if (!rc && src == dst)
    return weft_error_set(c->err, WEFT_EINPUT, c->path, c->line, col[1], "dst",
                          "src and dst are the same server (%d)", src);
  if (rc) return rc;
  double sum = weft_traffic_demand(t, src, dst) + b;  /* records of a pair add up */
  if (sum > WEFT_MAX_SIZE_BYTES)
    return weft_error_set(c->err, WEFT_EINPUT, c->path, c->line, col[2], "bytes",
                          "the bytes from %d to %d add up to %g here, more than %s", src, dst,
                          sum, WEFT_LIMIT_TEXT(WEFT_MAX_SIZE_BYTES));
  return weft_traffic_add_demand(t, src, dst, b);
}

/* The one header a file may start with: src,dst,bytes (blanks around each
 * name allowed, as around values). */
static int is_header(const char *s, size_t n, const char **tok, size_t *tl) {
  return split(s, n, tok, tl, CSV_MAX_FIELDS) == 3 && is_word(tok[0], tl[0], "src") &&
         is_word(tok[1], tl[1], "dst") && is_word(tok[2], tl[2], "bytes");
}

int weft_traffic_read_csv(const char *path, int nservers, WeftTraffic **out, WeftError *err) {
  char *text = NULL;
  size_t len = 0;
  *out = NULL;
  if (nservers < 2)
    return weft_error_set(err, WEFT_EINVAL, path, 0, 0, "nservers", "need at least 2 servers");
  int rc = weft_io_read_file(path, &text, &len, err);
  if (rc) return rc;
  WeftTraffic *t = weft_traffic_create(nservers);
  int *members = malloc((size_t)CSV_MAX_FIELDS * sizeof *members);
  const char **tok = malloc((size_t)CSV_MAX_FIELDS * sizeof *tok);
  size_t *tl = malloc((size_t)CSV_MAX_FIELDS * sizeof *tl);
  int *seen = calloc((size_t)nservers, sizeof *seen);
  if (!t || !members || !tok || !tl || !seen)
    rc = weft_error_set(err, WEFT_ENOMEM, path, 0, 0, NULL, "out of memory");
  Csv c = {path, 0, err, seen};
  int records = 0;
  for (size_t i = 0; !rc && i < len;) {
    size_t e = i;
    while (e < len && text[e] != '\n') e++;
    c.line++;
    const char *s = text + i;
    size_t n = e - i;
    while (n && weft_io_is_space(s[n - 1])) n--;
    size_t a = 0;
    while (a < n && weft_io_is_space(s[a])) a++;
    int skip = a == n || s[a] == '#' || (!records && is_header(s, n, tok, tl));
    if (!skip) {
      rc = csv_record(&c, t, s, n, members, tok, tl);
      records++;
    }
    i = e + 1;
  }
  free(text);
  free(seen);
  free(members);
  free(tok);
  free(tl);
  if (rc) {
    weft_traffic_free(t);
    return rc;
  }
  *out = t;
  return WEFT_OK;
}
