/* syscost.c — the cost model's system figures (docs/model.md "System
 * cost"): the top-level scalars of a LIBRA cost-model file (Npu, weft's
 * NpuPowerW, ElectricityUsdPerKwh, Pue, LifetimeYears), their ranges, the
 * one setter every entry point's override goes through, and the defaults. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "io/libra.h"
#include "io/limits.h"
#include "io/util.h"

typedef struct {
  const char *names;  /* "FileKey|snake_case" */
  size_t off, has;    /* offsets into WeftSystemCost */
  WeftRange range;
  const char *what;   /* the value in messages */
} SysField;

/* A range as a constant initialiser (WEFT_RANGE_ is a compound literal). */
#define SYS_RANGE_(lo, open, hi) {lo, open, hi, WEFT_LIMIT_TEXT(hi)}
#define SYS_F_(names, field, hasf, range, what) \
  {names, offsetof(WeftSystemCost, field), offsetof(WeftSystemCost, hasf), range, what}

static const SysField sys_fields[] = {
    SYS_F_("Npu|npu", npu_usd, has_npu_usd, SYS_RANGE_(0.0, 1, WEFT_MAX_USD), "$ per NPU"),
    SYS_F_("NpuPowerW|npu_power_w", npu_power_w, has_npu_power_w,
           SYS_RANGE_(0.0, 1, WEFT_MAX_POWER_W), "W per NPU"),
    SYS_F_("ElectricityUsdPerKwh|electricity_usd_per_kwh", electricity_usd_per_kwh,
           has_electricity, SYS_RANGE_(0.0, 1, WEFT_MAX_USD), "$ per kWh"),
    SYS_F_("Pue|pue", pue, has_pue, SYS_RANGE_(1.0, 0, WEFT_MAX_PUE),
           "facility power over IT power"),
    SYS_F_("LifetimeYears|lifetime_years", lifetime_years, has_lifetime,
           SYS_RANGE_(1e-6, 0, WEFT_MAX_LIFETIME_YEARS), "years"), /* divides: no tinier */
};
#define NSYS ((int)(sizeof sys_fields / sizeof sys_fields[0]))

/* The field whose names include key[0..len), or NULL. */
static const SysField *find(const char *key, size_t len) {
  const SysField *f = sys_fields;
  for (int i = 0; i < NSYS; i++)
    for (const char *p = f[i].names;;) {
      const char *bar = strchr(p, '|');
      size_t l = bar ? (size_t)(bar - p) : strlen(p);
      if (l == len && memcmp(p, key, len) == 0) return &f[i];
      if (!bar) break;
      p = bar + 1;
    }
  return NULL;
}

static size_t first_len(const char *names) { return strcspn(names, "|"); }

int weft_libra_system_key(const WeftYamlNode *key, const WeftYamlNode *val, const char *file,
                          WeftCostModel *cm, WeftError *err) {
  const SysField *f = find(key->text, key->len);
  if (!f) return 1; /* not a system key: a cost class */
  char *base = (char *)&cm->sys;
  int *has = (int *)(base + f->has);
  if (*has)
    return weft_error_set(err, WEFT_EINPUT, file, key->line, key->col, key->text,
                          "duplicate key '%s'", key->text);
  char label[96];
  snprintf(label, sizeof label, "%s (%s)", key->text, f->what);
  int rc = weft_yaml_double_in(val, file, key->text, label, &f->range, (double *)(base + f->off), err);
  if (rc) return rc;
  *has = 1;
  return WEFT_OK;
}

int weft_system_cost_set(WeftCostModel *cm, const char *field, double value, WeftError *err) {
  if (!cm || !field) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no cost model or field");
  const SysField *f = find(field, strlen(field));
  if (!f)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, field,
                          "'%s' is not a system cost field (Npu, NpuPowerW, "
                          "ElectricityUsdPerKwh, Pue, LifetimeYears)", field);
  char why[64];
  if (!isfinite(value))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field, "%.*s (%s) must be a finite number",
                          (int)first_len(f->names), f->names, f->what);
  if (weft_io_in_range(value, &f->range, why, sizeof why))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field, "%.*s (%s) %s, got %g",
                          (int)first_len(f->names), f->names, f->what, why, value);
  char *base = (char *)&cm->sys;
  *(double *)(base + f->off) = value;
  *(int *)(base + f->has) = 1;
  return WEFT_OK;
}

int weft_cost_model_has_system(const WeftCostModel *cm) {
  const WeftSystemCost *s = &cm->sys;
  int any = s->has_npu_usd || s->has_npu_power_w || s->has_electricity || s->has_pue ||
            s->has_lifetime;
  for (int i = 0; i < cm->nclasses && !any; i++) /* a part's power is not a system figure given */
    any = cm->cls[i].has_power && strncmp(cm->cls[i].name, "part:", 5) != 0;
  return any;
}

void weft_system_cost_resolved(const WeftCostModel *cm, WeftSystemCost *out) {
  *out = cm->sys;
  if (!out->has_npu_usd) out->npu_usd = 0.0;
  if (!out->has_npu_power_w) out->npu_power_w = out->device_power_w;  /* 0: unknown */
  if (!out->has_electricity) out->electricity_usd_per_kwh = WEFT_DEFAULT_ELECTRICITY_USD_PER_KWH;
  if (!out->has_pue) out->pue = WEFT_DEFAULT_PUE;
  if (!out->has_lifetime) out->lifetime_years = WEFT_DEFAULT_LIFETIME_YEARS;
}
