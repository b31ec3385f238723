/* prices.c — the price table fabrics are costed with (docs/topo.md): the
 * documented defaults, and a YAML file that overrides any of them. */
#include <stddef.h>

#include "io/yaml.h"

/* Defaults: assumptions, of the order of 2023 public list prices (sources
 * and ranges in docs/topo.md, "Prices"); change them with a prices file.
 * Bandwidth is in GB/s like every *_gbps in weft: a 100 Gb/s port is 12.5
 * GB/s, so $1 per Gb/s is $8 per GB/s. */
#define NIC_USD_PER_GBPS 48.0          /* 100-400 GbE adapter port: ~$600 per 100 Gb/s */
#define TRANSCEIVER_USD_PER_GBPS 8.0   /* pluggable optic: ~$100 per 100 Gb/s QSFP28 */
#define SWITCH_PORT_USD_PER_GBPS 16.0  /* packet switch port: ~$200 per 100 Gb/s port */
#define PATCH_PANEL_PORT_USD 100.0     /* robotic fiber patch panel, per port */
#define OCS_PORT_USD 500.0             /* MEMS optical circuit switch, per port */
#define FIBER_USD 30.0                 /* one patch cable, tens of metres */

void weft_topo_prices_default(WeftPrices *p) {
  if (!p) return;
  p->nic_port_usd_per_gbps = NIC_USD_PER_GBPS;
  p->transceiver_usd_per_gbps = TRANSCEIVER_USD_PER_GBPS;
  p->switch_port_usd_per_gbps = SWITCH_PORT_USD_PER_GBPS;
  p->patch_panel_port_usd = PATCH_PANEL_PORT_USD;
  p->ocs_port_usd = OCS_PORT_USD;
  p->fiber_usd = FIBER_USD;
  p->use_ocs = 0;
}

/* The file's keys, one row each; use_ocs is the one boolean. */
static const struct {
  const char *key;
  size_t offset;
} PRICE_KEYS[] = {
    {"nic_port_usd_per_gbps", offsetof(WeftPrices, nic_port_usd_per_gbps)},
    {"transceiver_usd_per_gbps", offsetof(WeftPrices, transceiver_usd_per_gbps)},
    {"switch_port_usd_per_gbps", offsetof(WeftPrices, switch_port_usd_per_gbps)},
    {"patch_panel_port_usd", offsetof(WeftPrices, patch_panel_port_usd)},
    {"ocs_port_usd", offsetof(WeftPrices, ocs_port_usd)},
    {"fiber_usd", offsetof(WeftPrices, fiber_usd)},
};
#define NPRICES (sizeof PRICE_KEYS / sizeof PRICE_KEYS[0])
_Static_assert(NPRICES == WEFT_NPRICES, "one row per WeftPriceKey, in its order");

const char *weft_price_name(WeftPriceKey k) {
  return k >= 0 && (size_t)k < NPRICES ? PRICE_KEYS[k].key : "?";
}

double *weft_price_field(WeftPrices *p, WeftPriceKey k) {
  if (!p || k < 0 || (size_t)k >= NPRICES) return NULL;
  return (double *)(void *)((char *)p + PRICE_KEYS[k].offset);
}

static int fill_prices(const WeftYamlNode *root, const char *file, WeftPrices *p, WeftError *err) {
  static const char *const allowed[] = {
      "nic_port_usd_per_gbps", "transceiver_usd_per_gbps", "switch_port_usd_per_gbps",
      "patch_panel_port_usd",  "ocs_port_usd",             "fiber_usd",
      "use_ocs",               NULL};
  if (!root) return WEFT_OK;  /* an empty file: the defaults */
  if (root->kind != WEFT_YAML_MAPPING) {
    char got[96];
    weft_yaml_describe_root(root, got, sizeof got);
    return weft_error_set(err, WEFT_EINPUT, file, root->line, root->col, NULL,
                          "expected a mapping of prices, got %s", got);
  }
  int rc = weft_yaml_check_keys(root, allowed, file, err);
  if (rc) return rc;
  for (size_t i = 0; i < NPRICES; i++) {
    const char *key = PRICE_KEYS[i].key;
    const WeftYamlNode *v = weft_yaml_get(root, key, NULL);
    double *dst = (double *)(void *)((char *)p + PRICE_KEYS[i].offset);
    if (!v) continue;
    WeftRange usd = WEFT_RANGE_USD;  /* >= 0, at most 1e12 (io/limits.h) */
    if ((rc = weft_yaml_double_in(v, file, key, NULL, &usd, dst, err))) return rc;
  }
  const WeftYamlNode *v = weft_yaml_get(root, "use_ocs", NULL);
  return v ? weft_yaml_bool(v, file, "use_ocs", &p->use_ocs, err) : WEFT_OK;
}

/* The defaults, then the file's keys over them; *p is left as it was when
 * the file is bad. */
int weft_topo_prices_read(const char *path, WeftPrices *p, WeftError *err) {
  if (!path || !p) return weft_error_set(err, WEFT_EINVAL, path, 0, 0, NULL, "no file or output");
  WeftPrices tmp;
  weft_topo_prices_default(&tmp);
  int rc = weft_topo_prices_read_over(path, &tmp, err);
  if (rc == WEFT_OK) *p = tmp;
  return rc;
}

/* The file's keys over *p as it is (a catalog's table, --parts). */
int weft_topo_prices_read_over(const char *path, WeftPrices *p, WeftError *err) {
  if (!path || !p) return weft_error_set(err, WEFT_EINVAL, path, 0, 0, NULL, "no file or output");
  WeftYamlNode *root;
  int rc = weft_yaml_load_file(path, &root, err);
  if (rc) return rc;
  WeftPrices tmp = *p;
  rc = fill_prices(root, path, &tmp, err);
  weft_yaml_free(root);
  if (rc == WEFT_OK) *p = tmp;
  return rc;
}

/* The table from a catalog's entries (docs/parts.md): the same keys, one
 * entry each, of the kind the price is of. */
int weft_topo_prices_parts(const WeftParts *cat, WeftPrices *p, WeftError *err) {
  static const struct {
    const char *name;
    WeftPartKind kind;
    int per_gbps; /* price per GB/s of its rate (per port of a switch) */
  } ROWS[NPRICES] = {{"nic-100g", WEFT_PART_NIC, 1},          {"qsfp28-100g", WEFT_PART_OPTIC, 1},
                     {"switch-100g", WEFT_PART_SWITCH, 1},   {"patch-panel-port", WEFT_PART_PANEL, 0},
                     {"ocs-port", WEFT_PART_OCS, 0},         {"fiber-patch", WEFT_PART_FIBER, 0}};
  if (!cat || !p) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no catalog or prices");
  WeftPrices tmp = *p;
  for (size_t i = 0; i < NPRICES; i++) {
    const WeftPart *q = weft_parts_find(cat, ROWS[i].name);
    if (!q || q->kind != ROWS[i].kind)
      return weft_error_set(err, WEFT_EINPUT, q ? weft_parts_file(cat, q->user) : weft_parts_file(cat, 0),
                            q ? q->line : 0, 0, ROWS[i].name,
                            "the parts catalog needs a %s part '%s' for TopoOpt's %s%s",
                            weft_part_kind_name(ROWS[i].kind), ROWS[i].name, PRICE_KEYS[i].key,
                            q ? " (it has one of another kind)" : "");
    double v = q->price_usd;
    if (ROWS[i].per_gbps) v /= q->rate_gbps * (q->kind == WEFT_PART_SWITCH ? q->ports : 1);
    *(double *)(void *)((char *)&tmp + PRICE_KEYS[i].offset) = v;
  }
  *p = tmp;
  return WEFT_OK;
}
