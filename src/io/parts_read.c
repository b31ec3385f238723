/* parts_read.c — the parts catalog (data/parts/parts.yml, docs/parts.md):
 * read, checked entry by entry, a user's file over the built-in one. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/datadir.h"
#include "io/yaml.h"

#define WEFT_PART_NAME_MAX 40 /* leaves room in a cost class name, "part:NAME@dD" */

struct WeftParts {
  int n;
  WeftPart part[WEFT_MAX_PARTS];
  char file[2][WEFT_PATH_LEN];  /* built-in, user's */
};

static const char *const KIND_NAMES[WEFT_NPART_KINDS] = {"link",  "nic",   "switch", "optic",
                                                         "cable", "fiber", "panel",  "ocs"};

const char *weft_part_kind_name(WeftPartKind k) {
  return k >= 0 && k < WEFT_NPART_KINDS ? KIND_NAMES[k] : "?";
}

static const char *const ENTRY_KEYS[] = {
    "kind",     "title",   "rate_gbps", "ports",  "max_per_npu", "reach_m", "price_usd",
    "power_w",  "oversubscription", "switch", "attach", "uplink", "estimate", "source", NULL};

static int has_rate(WeftPartKind k) { return k <= WEFT_PART_CABLE; }
static int is_endpoint(WeftPartKind k) { return k == WEFT_PART_LINK || k == WEFT_PART_NIC; }

/* A scalar's text into out (size bytes), or an error naming the field. */
static int text_of(const WeftYamlNode *v, const char *file, const char *field, char *out,
                   size_t size, WeftError *err) {
  char got[96];
  weft_yaml_describe(v, got, sizeof got);
  if (v->kind != WEFT_YAML_SCALAR || v->len == 0)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, field,
                          "%s must be text, got %s", field, got);
  if (v->len >= size)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, field,
                          "%s is longer than %zu characters", field, size - 1);
  memcpy(out, v->text, v->len + 1);
  return WEFT_OK;
}

/* estimate: a list of the figures that are estimates (rate_gbps, price_usd,
 * power_w), or true (price and power). */
static int estimates(const WeftYamlNode *v, const char *file, int *bits, WeftError *err) {
  int b;
  if (v->kind == WEFT_YAML_SCALAR && weft_yaml_bool(v, file, "estimate", &b, NULL) == WEFT_OK) {
    *bits = b ? WEFT_PART_EST_PRICE | WEFT_PART_EST_POWER : 0;
    return WEFT_OK;
  }
  int rc = weft_yaml_expect(v, WEFT_YAML_SEQUENCE, file, "estimate", err);
  for (int i = 0; !rc && i < v->n; i++) {
    const WeftYamlNode *e = v->child[i];
    const char *t = e->kind == WEFT_YAML_SCALAR ? e->text : "";
    if (!strcmp(t, "rate_gbps")) *bits |= WEFT_PART_EST_RATE;
    else if (!strcmp(t, "price_usd")) *bits |= WEFT_PART_EST_PRICE;
    else if (!strcmp(t, "power_w")) *bits |= WEFT_PART_EST_POWER;
    else
      rc = weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, "estimate",
                          "estimate lists the figures that are estimates (rate_gbps, "
                          "price_usd, power_w), got '%s'", t);
  }
  return rc;
}

/* A number in (lo, hi] (open) or [lo, hi]. */
static int number(const WeftYamlNode *map, const char *key, const char *file, int open,
                  double hi, double *out, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  if (!v) return WEFT_OK;
  WeftRange r = {0.0, open, hi, NULL};
  char his[32];
  snprintf(his, sizeof his, "%g", hi);
  r.hi_text = his;
  return weft_yaml_double_in(v, file, key, NULL, &r, out, err);
}

static int whole(const WeftYamlNode *map, const char *key, const char *file, int lo, int hi,
                 int *out, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  if (!v) return WEFT_OK;
  int rc = weft_yaml_int(v, file, key, NULL, out, err);
  if (!rc && (*out < lo || *out > hi))
    rc = weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key,
                        "%s must be a whole number from %d to %d, got %d", key, lo, hi, *out);
  return rc;
}

static int entry(const WeftYamlNode *k, const WeftYamlNode *v, const char *file, int user,
                 WeftPart *p, WeftError *err) {
  int rc;
  memset(p, 0, sizeof *p);
  p->user = user;
  p->line = k->line;
  p->oversub = 1.0;
  if ((rc = text_of(k, file, "part name", p->name, WEFT_PART_NAME_MAX + 1, err))) return rc;
  if (strpbrk(p->name, "|, "))  /* '|' joins a choice of parts, ',' --parts-per-dim's list */
    return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, "part name",
                          "part name '%s' has a '|', ',' or space", p->name);
  if (v->kind != WEFT_YAML_MAPPING) {
    char got[96];
    weft_yaml_describe(v, got, sizeof got);
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, k->text,
                          "part '%s' must be a mapping (kind, rate_gbps, price_usd, ...), got %s",
                          k->text, got);
  }
  if ((rc = weft_yaml_check_keys(v, ENTRY_KEYS, file, err))) return rc;
  const WeftYamlNode *kv = weft_yaml_get(v, "kind", NULL);
  if (!kv)
    return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, "kind",
                          "part '%s' has no kind (link, nic, switch, optic, cable, fiber, "
                          "panel or ocs)", p->name);
  int kind = -1;
  for (int i = 0; i < WEFT_NPART_KINDS && kv->kind == WEFT_YAML_SCALAR; i++)
    if (!strcmp(kv->text, KIND_NAMES[i])) kind = i;
  if (kind < 0) {
    char got[96];
    weft_yaml_describe(kv, got, sizeof got);
    return weft_error_set(err, WEFT_EINPUT, file, kv->line, kv->col, "kind",
                          "part '%s': unknown kind %s (expected link, nic, switch, optic, "
                          "cable, fiber, panel or ocs)", p->name, got);
  }
  p->kind = (WeftPartKind)kind;
  /* What each kind must give, and what it may not. */
  const char *need[4] = {"price_usd", "source", has_rate(p->kind) ? "rate_gbps" : NULL,
                         p->kind == WEFT_PART_SWITCH ? "ports" : NULL};
  for (int i = 0; i < 4; i++)
    if (need[i] && !weft_yaml_get(v, need[i], NULL))
      return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, need[i],
                            "part '%s' (%s) has no %s", p->name, KIND_NAMES[kind], need[i]);
  const char *only[7][2] = {{"rate_gbps", has_rate(p->kind) ? "" : "a part with a rate"},
                            {"ports", p->kind == WEFT_PART_SWITCH || p->kind == WEFT_PART_OCS
                                          ? "" : "a switch or an ocs"},
                            {"max_per_npu", is_endpoint(p->kind) ? "" : "a link or nic"},
                            {"oversubscription", is_endpoint(p->kind) ? "" : "a link or nic"},
                            {"switch", is_endpoint(p->kind) ? "" : "a link or nic"},
                            {"attach", is_endpoint(p->kind) ? "" : "a link or nic"},
                            {"uplink", is_endpoint(p->kind) ? "" : "a link or nic"}};
  for (int i = 0; i < 7; i++) {
    const WeftYamlNode *key, *x = weft_yaml_get(v, only[i][0], &key);
    if (x && only[i][1][0])
      return weft_error_set(err, WEFT_EINPUT, file, key->line, key->col, only[i][0],
                            "part '%s' is a %s: %s is for %s", p->name, KIND_NAMES[kind],
                            only[i][0], only[i][1]);
  }
  const WeftYamlNode *x;
  if ((rc = number(v, "rate_gbps", file, 1, WEFT_MAX_LINK_GBPS, &p->rate_gbps, err)) ||
      (rc = number(v, "price_usd", file, 1, 1e12, &p->price_usd, err)) ||
      (rc = number(v, "power_w", file, 0, 1e9, &p->power_w, err)) ||
      (rc = number(v, "reach_m", file, 1, 1e9, &p->reach_m, err)) ||
      (rc = number(v, "oversubscription", file, 0, 1e6, &p->oversub, err)) ||
      (rc = whole(v, "ports", file, 2, 1000000, &p->ports, err)) ||
      (rc = whole(v, "max_per_npu", file, 0, WEFT_MAX_LINKS, &p->max_per_npu, err)))
    return rc;
  if (p->oversub < 1.0) {
    x = weft_yaml_get(v, "oversubscription", NULL);
    return weft_error_set(err, WEFT_EINPUT, file, x->line, x->col, "oversubscription",
                          "oversubscription must be at least 1 (1: non-blocking), got %g",
                          p->oversub);
  }
  struct {
    const char *key;
    char *dst;
    size_t size;
  } texts[] = {{"title", p->title, sizeof p->title},
               {"source", p->source, sizeof p->source},
               {"switch", p->switch_part, sizeof p->switch_part},
               {"attach", p->attach, sizeof p->attach},
               {"uplink", p->uplink, sizeof p->uplink}};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    if ((x = weft_yaml_get(v, texts[i].key, NULL)) &&
        (rc = text_of(x, file, texts[i].key, texts[i].dst, texts[i].size, err)))
      return rc;
  if ((x = weft_yaml_get(v, "estimate", NULL)) && (rc = estimates(x, file, &p->estimate, err)))
    return rc;
  return WEFT_OK;
}

/* The entries of one file, each replacing a same-named one or appended. */
static int read_file(const char *path, int user, WeftParts *cat, WeftError *err) {
  WeftYamlNode *root;
  int rc = weft_yaml_load_file(path, &root, err);
  if (rc) return rc;
  snprintf(cat->file[user], sizeof cat->file[user], "%s", path);
  if (root && root->kind != WEFT_YAML_MAPPING) {
    char got[96];
    weft_yaml_describe_root(root, got, sizeof got);
    rc = weft_error_set(err, WEFT_EINPUT, path, root->line, root->col, NULL,
                        "expected a mapping of parts (name: {kind, rate_gbps, price_usd, ...}), "
                        "got %s", got);
  }
  for (int i = 0; !rc && root && i < root->n; i++) {
    const WeftYamlNode *k = weft_yaml_key(root, i);
    WeftPart p;
    if ((rc = entry(k, weft_yaml_value(root, i), path, user, &p, err))) break;
    int at = cat->n;
    for (int j = 0; j < cat->n; j++)
      if (!strcmp(cat->part[j].name, p.name)) at = j;
    if (at == WEFT_MAX_PARTS)
      rc = weft_error_set(err, WEFT_EINPUT, path, k->line, k->col, k->text,
                          "more than %d parts in the catalog", WEFT_MAX_PARTS);
    else {
      cat->part[at] = p;
      if (at == cat->n) cat->n++;
    }
  }
  weft_yaml_free(root);
  return rc;
}

/* Parts that name other parts name ones of the right kind, with rates
 * that fit: an attach or uplink at least as fast as the link. */
static int check_refs(const WeftParts *cat, WeftError *err) {
  for (int i = 0; i < cat->n; i++) {
    const WeftPart *p = &cat->part[i];
    const char *file = cat->file[p->user];
    const struct {
      const char *field, *name;
      int k1, k2;
    } refs[3] = {{"switch", p->switch_part, WEFT_PART_SWITCH, WEFT_PART_OCS},
                 {"attach", p->attach, WEFT_PART_OPTIC, WEFT_PART_CABLE},
                 {"uplink", p->uplink, WEFT_PART_OPTIC, WEFT_PART_CABLE}};
    for (int r = 0; r < 3; r++) {
      if (!refs[r].name[0]) continue;
      const WeftPart *q = weft_parts_find(cat, refs[r].name);
      if (!q)
        return weft_error_set(err, WEFT_EINPUT, file, p->line, 0, refs[r].field,
                              "part '%s': %s '%s' is not in the catalog", p->name,
                              refs[r].field, refs[r].name);
      if ((int)q->kind != refs[r].k1 && (int)q->kind != refs[r].k2)
        return weft_error_set(err, WEFT_EINPUT, file, p->line, 0, refs[r].field,
                              "part '%s': %s '%s' is a %s, expected %s", p->name, refs[r].field,
                              q->name, KIND_NAMES[q->kind],
                              r == 0 ? "a switch or an ocs" : "an optic or a cable");
      if (r > 0 && q->rate_gbps < p->rate_gbps)
        return weft_error_set(err, WEFT_EINPUT, file, p->line, 0, refs[r].field,
                              "part '%s' (%g GB/s): %s '%s' carries only %g GB/s", p->name,
                              p->rate_gbps, refs[r].field, q->name, q->rate_gbps);
    }
  }
  return WEFT_OK;
}

int weft_parts_read(const char *builtin, const char *user, WeftParts **out, WeftError *err) {
  if (!out) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no output");
  *out = NULL;
  WeftParts *cat = calloc(1, sizeof *cat);
  if (!cat) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  char path[WEFT_PATH_LEN];
  struct stat st;
  char deflt[WEFT_PATH_LEN];
  if (!builtin) { /* the catalog beside the zoo weft finds */
    if (snprintf(deflt, sizeof deflt, "%s/../parts", weft_zoo_default()) >= (int)sizeof deflt) {
      free(cat);
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "zoo path too long");
    }
    builtin = deflt;
  }
  int dir = stat(builtin, &st) == 0 && S_ISDIR(st.st_mode);
  if (snprintf(path, sizeof path, "%s%s", builtin, dir ? "/parts.yml" : "") >= (int)sizeof path) {
    free(cat);
    return weft_error_set(err, WEFT_EINVAL, builtin, 0, 0, NULL, "parts path too long");
  }
  int rc = read_file(path, 0, cat, err);
  if (!rc && user) rc = read_file(user, 1, cat, err);
  if (!rc) rc = check_refs(cat, err);
  if (rc) {
    free(cat);
    return rc;
  }
  *out = cat;
  return WEFT_OK;
}

void weft_parts_free(WeftParts *p) { free(p); }
int weft_parts_count(const WeftParts *p) { return p ? p->n : 0; }

const WeftPart *weft_parts_at(const WeftParts *p, int i) {
  return p && i >= 0 && i < p->n ? &p->part[i] : NULL;
}

const WeftPart *weft_parts_find(const WeftParts *p, const char *name) {
  for (int i = 0; p && name && i < p->n; i++)
    if (!strcmp(p->part[i].name, name)) return &p->part[i];
  return NULL;
}

const char *weft_parts_file(const WeftParts *p, int user) {
  return p && (user == 0 || user == 1) ? p->file[user] : "";
}
