/* yaml_get.c — typed access to a WeftYamlNode tree: key lookup, key checks
 * and strict numbers, each error placed at the offending node. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/util.h"
#include "io/yaml.h"

static const char *kind_name(WeftYamlKind k) {
  switch (k) {
    case WEFT_YAML_SCALAR: return "single value";
    case WEFT_YAML_SEQUENCE: return "sequence";
    case WEFT_YAML_MAPPING: return "mapping";
  }
  return "?";
}

const char *weft_yaml_describe(const WeftYamlNode *node, char *buf, size_t size) {
  if (!node)
    snprintf(buf, size, "nothing");
  else if (node->kind == WEFT_YAML_SEQUENCE)
    snprintf(buf, size, "a sequence");
  else if (node->kind == WEFT_YAML_MAPPING)
    snprintf(buf, size, "a mapping");
  else if (node->len == 0)
    snprintf(buf, size, "an empty value");
  else
    snprintf(buf, size, "'%.60s%s'", node->text, node->len > 60 ? "..." : "");
  return buf;
}

const char *weft_yaml_describe_root(const WeftYamlNode *root, char *buf, size_t size) {
  if (root && root->kind == WEFT_YAML_SCALAR)
    snprintf(buf, size, "%s", root->len ? "plain text (not YAML keys)" : "an empty value");
  else
    weft_yaml_describe(root, buf, size);
  return buf;
}

/* Does key equal one of the '|'-separated alternatives in names? */
static int name_matches(const char *names, const char *key, size_t len) {
  for (const char *p = names;;) {
    const char *bar = strchr(p, '|');
    size_t n = bar ? (size_t)(bar - p) : strlen(p);
    if (n == len && memcmp(p, key, len) == 0) return 1;
    if (!bar) return 0;
    p = bar + 1;
  }
}

const WeftYamlNode *weft_yaml_get(const WeftYamlNode *map, const char *names,
                                  const WeftYamlNode **key) {
  if (key) *key = NULL;
  if (!map || map->kind != WEFT_YAML_MAPPING) return NULL;
  for (int i = 0; i < map->n; i++) {
    const WeftYamlNode *k = weft_yaml_key(map, i);
    if (name_matches(names, k->text, k->len)) {
      if (key) *key = k;
      return weft_yaml_value(map, i);
    }
  }
  return NULL;
}

/* Edit distance, for "did you mean"; large when either is long. */
static int edit_distance(const char *a, size_t na, const char *b, size_t nb) {
  enum { MAXN = 48 };
  int prev[MAXN + 1], cur[MAXN + 1];
  if (na > MAXN || nb > MAXN) return INT_MAX;
  for (size_t j = 0; j <= nb; j++) prev[j] = (int)j;
  for (size_t i = 1; i <= na; i++) {
    cur[0] = (int)i;
    for (size_t j = 1; j <= nb; j++) {
      int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
      int del = prev[j] + 1, ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    memcpy(prev, cur, (nb + 1) * sizeof prev[0]);
  }
  return prev[nb];
}

void weft_yaml_suggest(const char *const *allowed, const char *key, size_t len, char *out,
                       size_t size) {
  int best = 3;
  out[0] = '\0';
  for (int a = 0; allowed[a]; a++)
    for (const char *p = allowed[a];;) {
      const char *bar = strchr(p, '|');
      size_t n = bar ? (size_t)(bar - p) : strlen(p);
      int d = edit_distance(key, len, p, n);
      if (d < best && (size_t)d < len) {
        best = d;
        snprintf(out, size, "%.*s", (int)n, p);
      }
      if (!bar) break;
      p = bar + 1;
    }
}

int weft_yaml_check_keys(const WeftYamlNode *map, const char *const *allowed, const char *file,
                         WeftError *err) {
  if (!map || map->kind != WEFT_YAML_MAPPING) return WEFT_OK;
  for (int i = 0; i < map->n; i++) {
    const WeftYamlNode *k = weft_yaml_key(map, i);
    int a = 0;
    while (allowed[a] && !name_matches(allowed[a], k->text, k->len)) a++;
    if (!allowed[a]) {
      char hint[WEFT_NAME_LEN];
      weft_yaml_suggest(allowed, k->text, k->len, hint, sizeof hint);
      if (hint[0])
        return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, k->text,
                              "unknown key '%s' (did you mean '%s'?)", k->text, hint);
      return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, k->text,
                            "unknown key '%s'", k->text);
    }
    /* two spellings of one key. Not quadratic in a hostile file: the loader
     * refused equal keys, and an unknown one stops the walk above, so i is
     * at most the number of spellings allowed */
    for (int j = 0; j < i; j++) {
      const WeftYamlNode *o = weft_yaml_key(map, j);
      if (name_matches(allowed[a], o->text, o->len))
        return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, k->text,
                              "duplicate key '%s' (same as '%s' at line %d)", k->text, o->text,
                              o->line);
    }
  }
  return WEFT_OK;
}

int weft_yaml_expect(const WeftYamlNode *node, WeftYamlKind kind, const char *file,
                     const char *field, WeftError *err) {
  if (node && node->kind == kind) return WEFT_OK;
  char got[96];
  weft_yaml_describe(node, got, sizeof got);
  return weft_error_set(err, WEFT_EINPUT, file, node ? node->line : 0, node ? node->col : 0,
                        field, "%s must be a %s, got %s", field, kind_name(kind), got);
}

/* label is what the message calls the value ("NpusCount entry 2"). */
static int scalar_double(const WeftYamlNode *node, const char *file, const char *field,
                         const char *label, double *out, WeftError *err) {
  char got[96];
  if (!node || node->kind != WEFT_YAML_SCALAR) {
    weft_yaml_describe(node, got, sizeof got);
    return weft_error_set(err, WEFT_EINPUT, file, node ? node->line : 0, node ? node->col : 0,
                          field, "%s must be a number, got %s", label, got);
  }
  int r = weft_io_number(node->text, node->len, out);
  if (r == WEFT_NUM_OK) return WEFT_OK;
  weft_yaml_describe(node, got, sizeof got);
  return weft_error_set(err, WEFT_EINPUT, file, node->line, node->col, field, "%s %s, got %s",
                        label, weft_io_number_must(r), got);
}

static int scalar_int(const WeftYamlNode *node, const char *file, const char *field,
                      const char *label, int *out, WeftError *err) {
  double d;
  int rc = scalar_double(node, file, field, label, &d, err);
  if (rc) return rc;
  long long v;
  char got[96];
  weft_yaml_describe(node, got, sizeof got);
  int r = weft_io_integer(node->text, node->len, &v);
  if (r == WEFT_NUM_BAD)
    return weft_error_set(err, WEFT_EINPUT, file, node->line, node->col, field,
                          "%s must be an integer, got %s", label, got);
  if (r == WEFT_NUM_RANGE || v < INT_MIN || v > INT_MAX) /* an integer, too big for any field */
    return weft_error_set(err, WEFT_EINPUT, file, node->line, node->col, field,
                          "%s is out of range: must be an integer from %d to %d, got %s", label,
                          INT_MIN, INT_MAX, got);
  *out = (int)v;
  return WEFT_OK;
}

int weft_yaml_double(const WeftYamlNode *node, const char *file, const char *field,
                     const char *label, double *out, WeftError *err) {
  return scalar_double(node, file, field, label ? label : field, out, err);
}

int weft_yaml_int(const WeftYamlNode *node, const char *file, const char *field,
                  const char *label, int *out, WeftError *err) {
  return scalar_int(node, file, field, label ? label : field, out, err);
}

int weft_yaml_double_in(const WeftYamlNode *node, const char *file, const char *field,
                        const char *label, const WeftRange *range, double *out, WeftError *err) {
  if (!label) label = field;
  int rc = scalar_double(node, file, field, label, out, err);
  if (rc) return rc;
  char must[64];
  if (weft_io_in_range(*out, range, must, sizeof must) == 0) return WEFT_OK;
  return weft_error_set(err, WEFT_EINPUT, file, node->line, node->col, field, "%s %s, got %s",
                        label, must, node->text);
}

/* The sequence checks shared by the two list readers. */
static int check_seq(const WeftYamlNode *seq, const char *file, const char *field, int max,
                     WeftError *err) {
  int rc = weft_yaml_expect(seq, WEFT_YAML_SEQUENCE, file, field, err);
  if (rc) return rc;
  if (seq->n < 1 || seq->n > max)
    return weft_error_set(err, WEFT_EINPUT, file, seq->line, seq->col, field,
                          "%s must have 1 to %d entries, got %d", field, max, seq->n);
  return WEFT_OK;
}

int weft_yaml_doubles(const WeftYamlNode *seq, const char *file, const char *field, double *out,
                      int max, int *count, WeftError *err) {
  int rc = check_seq(seq, file, field, max, err);
  if (rc) return rc;
  for (int i = 0; i < seq->n; i++) {
    char label[WEFT_NAME_LEN + 24];
    snprintf(label, sizeof label, "%s entry %d", field, i + 1);
    if ((rc = scalar_double(seq->child[i], file, field, label, &out[i], err))) return rc;
  }
  *count = seq->n;
  return WEFT_OK;
}

int weft_yaml_bool(const WeftYamlNode *v, const char *file, const char *field, int *out,
                   WeftError *err) {
  static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
  if (v->kind == WEFT_YAML_SCALAR && v->plain)
    for (int i = 0; i < 3; i++)
      if (strcasecmp(v->text, yes[i]) == 0 || strcasecmp(v->text, no[i]) == 0) {
        *out = strcasecmp(v->text, yes[i]) == 0;
        return WEFT_OK;
      }
  char got[96];
  weft_yaml_describe(v, got, sizeof got);
  return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, field,
                        "%s must be true or false, got %s", field, got);
}

int weft_yaml_ints(const WeftYamlNode *seq, const char *file, const char *field, int *out,
                   int max, int *count, WeftError *err) {
  int rc = check_seq(seq, file, field, max, err);
  if (rc) return rc;
  for (int i = 0; i < seq->n; i++) {
    char label[WEFT_NAME_LEN + 24];
    snprintf(label, sizeof label, "%s entry %d", field, i + 1);
    if ((rc = scalar_int(seq->child[i], file, field, label, &out[i], err))) return rc;
  }
  *count = seq->n;
  return WEFT_OK;
}
