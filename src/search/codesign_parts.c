/* codesign_parts.c — the networks of a co-design built of parts (docs/parts.md,
 * "Co-design with parts"): each choice of parts expanded into one network per
 * combination, each bound to the catalog, their cost classes merged into the
 * one cost model every point is priced by. */
#include <stdlib.h>
#include <string.h>

#include "core/datadir.h"
#include "weft.h"

/* Choice i of "a|b|c" into out. */
static void pick(const char *list, int i, char *out, size_t size) {
  const char *p = list;
  for (int k = 0; k < i && p; k++) p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
  size_t n = p ? strcspn(p, "|") : 0;
  snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), p ? p : "");
}

static int nchoices(const char *list) {
  int n = 1;
  for (const char *p = list; (p = strchr(p, '|')); p++) n++;
  return n;
}

static int same_class(const WeftCostClass *a, const WeftCostClass *b) {
  return a->link_usd_per_gbps == b->link_usd_per_gbps &&
         a->nic_usd_per_gbps == b->nic_usd_per_gbps &&
         a->switch_usd_per_gbps == b->switch_usd_per_gbps &&
         a->power_w_per_gbps == b->power_w_per_gbps;
}

/* Merge net's bound classes (in c, from a bind over the base model) into
 * cm: one of a name cm already holds with the same figures is shared; with
 * other figures (the same part on a dim of another size) it is renamed
 * "NAME#K", K = the network's number, and net's dim follows. */
static int merge(WeftNetwork *net, const WeftCostModel *c, WeftCostModel *cm, int k,
                 WeftError *err) {
  for (int d = 0; d < net->ndims; d++) {
    if (!net->part[d][0]) continue;
    const WeftCostClass *src = NULL;
    for (int i = 0; i < c->nclasses && !src; i++)
      if (!strcmp(c->cls[i].name, net->cost_dim[d])) src = &c->cls[i];
    if (!src) continue;
    WeftCostClass cls = *src;
    int found = 0;
    for (int i = 0; i < cm->nclasses && !found; i++) {
      if (strcmp(cm->cls[i].name, cls.name)) continue;
      found = 1;
      if (!same_class(&cm->cls[i], &cls)) {
        snprintf(cls.name, sizeof cls.name, "%.50s#%d", src->name, k + 1);
        found = 0;
        for (int j = 0; j < cm->nclasses && !found; j++) found = !strcmp(cm->cls[j].name, cls.name);
      }
    }
    snprintf(net->cost_dim[d], sizeof net->cost_dim[d], "%s", cls.name);
    if (found) continue;
    if (cm->nclasses == WEFT_MAX_COST_CLASSES)
      return weft_error_set(err, WEFT_EINPUT, net->file, net->part_line[d], 0, "Parts",
                            "no room for dim %d's cost class: more than %d cost classes over "
                            "the networks", d + 1, WEFT_MAX_COST_CLASSES);
    cm->cls[cm->nclasses++] = cls;
  }
  return WEFT_OK;
}

/* 1 when every part net names is in the catalog: a bind that fails then
 * fails for the shape (a name unknown is bad input whatever the shape). */
static int names_known(const WeftParts *cat, const WeftNetwork *net) {
  for (int d = 0; d < net->ndims; d++)
    if (net->part[d][0] && !weft_parts_find(cat, net->part[d])) return 0;
  return 1;
}

/* weft_codesign_parts, and with drop (dropped non-NULL) a combination its
 * parts cannot build left out: counted in *dropped, the first one's reason
 * in *why; none left is that reason. */
static int bind_parts(const WeftNetwork *nets, int n, const char *zoo_dir, const char *parts_file,
                      WeftCostModel *cm, WeftNetwork **out, int *nout,
                      WeftDimParts (**dims)[WEFT_MAX_DIMS], int *dropped, WeftError *why,
                      WeftError *err) {
  if (out) *out = NULL;
  if (dims) *dims = NULL;
  if (nout) *nout = 0;
  if (dropped) *dropped = 0;
  if (!nets || n < 1 || !cm || !out || !nout || !dims || (dropped && !why))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "null argument");
  int total = 0, any = 0;
  for (int k = 0; k < n; k++) {
    int c = weft_parts_choices(&nets[k]);
    if (c > WEFT_MAX_PART_COMBOS)
      return weft_error_set(err, WEFT_EINPUT, nets[k].file, nets[k].part_line[0], 0, "Parts",
                            "the choices of parts make more than %d combinations",
                            WEFT_MAX_PART_COMBOS);
    total += c;
    any |= weft_network_has_parts(&nets[k]);
  }
  WeftNetwork *o = calloc((size_t)total, sizeof *o);
  WeftDimParts(*dp)[WEFT_MAX_DIMS] = calloc((size_t)total, sizeof *dp);
  WeftParts *cat = NULL;
  int rc = o && dp ? WEFT_OK
                   : weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  if (!rc && any) {
    char builtin[WEFT_PATH_LEN];
    snprintf(builtin, sizeof builtin, "%s/../parts", zoo_dir ? zoo_dir : weft_zoo_default());
    rc = weft_parts_read(builtin, parts_file, &cat, err);
  }
  WeftCostModel merged = *cm, base = *cm;
  int m = 0;
  for (int k = 0; !rc && k < n; k++) {
    const WeftNetwork *net = &nets[k];
    int c = weft_parts_choices(net);
    for (int j = 0; !rc && j < c; j++) {  /* mixed radix, dim 1 fastest */
      o[m] = *net;
      memset(dp[m], 0, sizeof dp[m]);
      if (!weft_network_has_parts(net)) {
        m++;
        continue;
      }
      for (int d = 0, q = j; d < net->ndims; d++) {
        int r = nchoices(net->part[d]);
        if (net->part[d][0]) pick(net->part[d], q % r, o[m].part[d], sizeof o[m].part[d]);
        q /= r;
      }
      WeftCostModel one = base;
      WeftError e;
      rc = weft_network_bind_parts(&o[m], &one, cat, dp[m], &e);
      if (rc == WEFT_EINPUT && dropped && names_known(cat, &o[m])) { /* the shape, not a name */
        if ((*dropped)++ == 0) *why = e;
        rc = WEFT_OK;
        continue;
      }
      if (rc && err) *err = e;
      if (!rc) rc = merge(&o[m], &one, &merged, m, err);
      m++;
    }
  }
  weft_parts_free(cat);
  if (!rc && m == 0 && dropped && *dropped > 0) { /* none left: the first one's reason */
    if (err) *err = *why;
    rc = why->code ? why->code : WEFT_EINPUT;
  }
  if (rc) {
    free(o);
    free(dp);
    if (dropped) *dropped = 0;
    return rc;
  }
  *cm = merged;
  *out = o;
  *nout = m;
  *dims = dp;
  return WEFT_OK;
}

int weft_codesign_parts(const WeftNetwork *nets, int n, const char *zoo_dir,
                        const char *parts_file, WeftCostModel *cm, WeftNetwork **out, int *nout,
                        WeftDimParts (**dims)[WEFT_MAX_DIMS], WeftError *err) {
  return bind_parts(nets, n, zoo_dir, parts_file, cm, out, nout, dims, NULL, NULL, err);
}

int weft_codesign_parts_fit(const WeftNetwork *nets, int n, const char *zoo_dir,
                            const char *parts_file, WeftCostModel *cm, WeftNetwork **out,
                            int *nout, WeftDimParts (**dims)[WEFT_MAX_DIMS], int *dropped,
                            WeftError *why, WeftError *err) {
  return bind_parts(nets, n, zoo_dir, parts_file, cm, out, nout, dims, dropped, why, err);
}
