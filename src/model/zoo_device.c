/* zoo_device.c — devices.yml (docs/zoo.md, "Devices"): a device's peak
 * rates, HBM and power, the per-operator keys and the GEMM shape model's,
 * each range-checked with the file, line and key in errors. */
#include <string.h>
#include <sys/stat.h>

#include "io/limits.h"
#include "model/measured.h"
#include "model/zoo.h"

static const char *const DEVICE_KEYS[] = {
    "title",          "peak_tflops",    "hbm_gib", "hbm_gbps", "source", "fp8_tflops",
    "tf32_tflops",    "vector_tflops",  "sms",     "tile",     "gemm_efficiency",
    "hbm_efficiency", "attention_efficiency", "gemm_eff_max", "gemm_k0", "gemm_t0_us",
    "fp4_tflops",     "power_w",        "measured", "host_gbps", "measured_clock",
    "measured_hbm_gbps", "launch_cpu_us", "measured_fp8_layer", NULL};
#define MAX_SMS 100000  /* SMs or CUs of one device */
#define MAX_TILE 4096   /* a GEMM output tile's side */

#define GIB 1073741824.0  /* 2^30 bytes: HBM stacks come in powers of two */

/* An optional number under key in range into *out (unchanged when absent). */
static int opt_double(const WeftYamlNode *map, const char *key, const char *file, WeftRange range,
                      double *out, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  return v ? weft_yaml_double_in(v, file, key, NULL, &range, out, err) : WEFT_OK;
}

/* The per-operator model's figures (docs/zoo.md): all of sms, tile,
 * vector_tflops, gemm_efficiency and hbm_efficiency, or none of them. */
static int parse_opcost(const WeftYamlNode *v, const char *file, WeftDevice *d, WeftError *err) {
  static const char *const need[] = {"sms", "tile", "vector_tflops", "gemm_efficiency",
                                     "hbm_efficiency"};
  double fp8 = 0, tf32 = 0, vec = 0;
  int rc, n = 0, nt = 0, tile[2] = {0, 0};
  if ((rc = opt_double(v, "fp8_tflops", file, WEFT_RANGE_ZOO_FIGURE, &fp8, err)) ||
      (rc = opt_double(v, "tf32_tflops", file, WEFT_RANGE_ZOO_FIGURE, &tf32, err)) ||
      (rc = opt_double(v, "vector_tflops", file, WEFT_RANGE_ZOO_FIGURE, &vec, err)) ||
      (rc = opt_double(v, "gemm_efficiency", file, WEFT_RANGE_(0.0, 1, 1), &d->gemm_efficiency,
                       err)) ||
      (rc = opt_double(v, "hbm_efficiency", file, WEFT_RANGE_(0.0, 1, 1), &d->hbm_efficiency,
                       err)) ||
      (rc = opt_double(v, "attention_efficiency", file, WEFT_RANGE_(0.0, 1, 1),
                       &d->attention_efficiency, err)))
    return rc;
  if (d->attention_efficiency == 0) d->attention_efficiency = d->gemm_efficiency;
  d->peak_fp8_flops = fp8 * 1e12;
  d->peak_tf32_flops = tf32 * 1e12;
  d->peak_vector_flops = vec * 1e12;
  const WeftYamlNode *sv = weft_yaml_get(v, "sms", NULL), *tv = weft_yaml_get(v, "tile", NULL);
  if (sv && ((rc = weft_yaml_int(sv, file, "sms", NULL, &d->sms, err)) ||
             (d->sms < 1 || d->sms > MAX_SMS)))
    return rc ? rc
              : weft_error_set(err, WEFT_EINPUT, file, sv->line, sv->col, "sms",
                               "sms must be 1..%d, got %d", MAX_SMS, d->sms);
  if (tv) {
    if ((rc = weft_yaml_ints(tv, file, "tile", tile, 2, &nt, err))) return rc;
    if (nt != 2 || tile[0] < 1 || tile[1] < 1 || tile[0] > MAX_TILE || tile[1] > MAX_TILE)
      return weft_error_set(err, WEFT_EINPUT, file, tv->line, tv->col, "tile",
                            "tile must be [rows, cols], each 1..%d", MAX_TILE);
    d->tile_m = tile[0];
    d->tile_n = tile[1];
  }
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    n += weft_yaml_get(v, need[i], NULL) != NULL;
  if (n != 0 && n != (int)(sizeof need / sizeof need[0])) {
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
      if (!weft_yaml_get(v, need[i], NULL))
        return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, need[i],
                              "missing key '%s' (the per-operator model needs sms, tile, "
                              "vector_tflops, gemm_efficiency and hbm_efficiency together)",
                              need[i]);
  }
  return WEFT_OK;
}

/* The GEMM shape model's figures (docs/zoo.md): gemm_eff_max, gemm_k0 and
 * gemm_t0_us together or none, on a device with the per-operator keys. */
static int parse_gemm_shape(const WeftYamlNode *v, const char *file, WeftDevice *d,
                            WeftError *err) {
  static const char *const keys[] = {"gemm_eff_max", "gemm_k0", "gemm_t0_us"};
  const int nkeys = (int)(sizeof keys / sizeof keys[0]);
  double t0_us = 0;
  int rc, n = 0;
  if ((rc = opt_double(v, keys[0], file, WEFT_RANGE_(0.0, 1, 1), &d->gemm_eff_max, err)) ||
      (rc = opt_double(v, keys[1], file, WEFT_RANGE_(0.0, 0, WEFT_MAX_ZOO_FIGURE), &d->gemm_k0,
                       err)) ||
      (rc = opt_double(v, keys[2], file, WEFT_RANGE_(0.0, 0, WEFT_MAX_ZOO_FIGURE), &t0_us, err)))
    return rc;
  d->gemm_t0_ns = t0_us * 1e3;
  for (int i = 0; i < nkeys; i++) n += weft_yaml_get(v, keys[i], NULL) != NULL;
  if (n == 0) return WEFT_OK;
  for (int i = 0; i < nkeys; i++)
    if (!weft_yaml_get(v, keys[i], NULL))
      return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, keys[i],
                            "missing key '%s' (the GEMM shape model needs gemm_eff_max, "
                            "gemm_k0 and gemm_t0_us together)",
                            keys[i]);
  if (d->sms == 0) {
    const WeftYamlNode *at = weft_yaml_get(v, keys[0], NULL);
    return weft_error_set(err, WEFT_EINPUT, file, at->line, at->col, keys[0],
                          "gemm_eff_max needs the per-operator keys (sms, tile, vector_tflops, "
                          "gemm_efficiency, hbm_efficiency)");
  }
  return WEFT_OK;
}

/* ZOO/../measured/NAME, ZOO the folder of file (devices.yml): ".." as the
 * file system takes it, so that a zoo reached by a symbolic link finds the
 * tables beside the zoo it points to. Nonzero when it does not fit. */
static int measured_prefix(const char *file, const char *name, char *out, size_t size) {
  const char *slash = strrchr(file, '/');
  int n = snprintf(out, size, "%.*s/../measured/%s", slash ? (int)(slash - file) : 1,
                   slash ? file : ".", name);
  return n < 0 || (size_t)n >= size;
}

/* The measured tables (docs/zoo.md, "Measured kernel tables"): `measured:
 * NAME` names ZOO/../measured/NAME_*.csv (ZOO: the devices.yml's folder),
 * which must exist when that measured folder does (a zoo copied without it
 * runs on the datasheet figures); `measured: none` turns them off; without
 * the key the device's own name is tried. Sets d->measured to the prefix
 * or "". */
static int parse_measured(const WeftYamlNode *v, const char *file, WeftDevice *d,
                          WeftError *err) {
  static const char *const suffix[] = {"gemm", "attention", "memory", "launch"};
  char name[WEFT_NAME_LEN] = "", prefix[WEFT_PATH_LEN], path[WEFT_PATH_LEN];
  int rc = weft_zoo_text(v, "measured", file, name, sizeof name, err);
  const WeftYamlNode *at = weft_yaml_get(v, "measured", NULL);
  d->measured[0] = '\0';
  if (rc || !strcmp(name, "none")) return rc;
  if (at && (!name[0] || strchr(name, '/')))
    return weft_error_set(err, WEFT_EINPUT, file, at->line, at->col, "measured",
                          "measured must name tables in ../measured (no '/'), or be none");
  if (measured_prefix(file, at ? name : d->name, prefix, sizeof prefix))
    return weft_error_set(err, WEFT_EINPUT, file, at ? at->line : v->line, 0, "measured",
                          "path of the measured tables too long");
  for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
    struct stat st;
    if (snprintf(path, sizeof path, "%s_%s.csv", prefix, suffix[i]) < (int)sizeof path &&
        stat(path, &st) == 0) {
      memcpy(d->measured, prefix, sizeof prefix);
      return WEFT_OK;
    }
  }
  struct stat st;
  char *cut = strrchr(prefix, '/');
  *cut = '\0';
  int folder = stat(prefix, &st) == 0 && S_ISDIR(st.st_mode);
  *cut = '/';
  if (at && folder)
    return weft_error_set(err, WEFT_EINPUT, file, at->line, at->col, "measured",
                          "no measured tables %s_{gemm,attention,memory,launch}.csv", prefix);
  return WEFT_OK;
}

/* How the device differs from the GPU its measured tables were taken on
 * (docs/zoo.md, "Measured kernel tables"): measured_clock, its sustained SM
 * clock over that of the tables' sustained run (a lower power limit), and
 * measured_hbm_gbps, the HBM rate of that GPU; measured_fp8_layer, FP8
 * GEMMs' time in a layer over the tables' ("FP8 GEMMs in a layer"), given
 * rather than worked out from the tables' layer files. Only with a
 * `measured:` key naming the tables. */
static int parse_measured_as(const WeftYamlNode *v, const char *file, WeftDevice *d,
                             WeftError *err) {
  static const char *const keys[] = {"measured_clock", "measured_hbm_gbps", "measured_fp8_layer"};
  double gbps = 0;
  int rc;
  if ((rc = opt_double(v, keys[0], file, WEFT_RANGE_(0.0, 1, 4), &d->measured_clock, err)) ||
      (rc = opt_double(v, keys[1], file, WEFT_RANGE_ZOO_FIGURE, &gbps, err)) ||
      (rc = opt_double(v, keys[2], file, WEFT_RANGE_(1.0 / WM_FP8_LAYER_MAX, 0, WM_FP8_LAYER_MAX),
                       &d->measured_fp8_layer, err)))
    return rc;
  d->measured_hbm_bytes_per_s = gbps * 1e9;
  const WeftYamlNode *named = weft_yaml_get(v, "measured", NULL);
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const WeftYamlNode *at = weft_yaml_get(v, keys[i], NULL);
    if (at && (!named || !strcmp(named->text, "none")))
      return weft_error_set(err, WEFT_EINPUT, file, at->line, at->col, keys[i],
                            "%s needs a 'measured' key naming the tables it adjusts", keys[i]);
  }
  return WEFT_OK;
}

/* One entry of devices.yml: name -> {title, peak_tflops, hbm_gib, hbm_gbps, source,
 * and optionally the per-operator model's figures}. */
static int parse_device(const WeftYamlNode *k, const WeftYamlNode *v, const char *file,
                        WeftDevice *d, WeftError *err) {
  double tflops, gib, gbps;
  int rc;
  memset(d, 0, sizeof *d);
  if (k->len == 0 || k->len >= WEFT_NAME_LEN)
    return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, k->text,
                          "device name must have 1 to %d characters", WEFT_NAME_LEN - 1);
  memcpy(d->name, k->text, k->len + 1);
  if ((rc = weft_yaml_expect(v, WEFT_YAML_MAPPING, file, k->text, err)) ||
      (rc = weft_yaml_check_keys(v, DEVICE_KEYS, file, err)) ||
      (rc = weft_zoo_pos_double(v, "peak_tflops", file, &tflops, err)) ||
      (rc = weft_zoo_pos_double(v, "hbm_gib", file, &gib, err)) ||
      (rc = weft_zoo_pos_double(v, "hbm_gbps", file, &gbps, err)))
    return rc;
  snprintf(d->title, sizeof d->title, "%s", d->name);
  if ((rc = weft_zoo_text(v, "title", file, d->title, sizeof d->title, err)) ||
      (rc = weft_zoo_text(v, "source", file, d->source, sizeof d->source, err)))
    return rc;
  double fp4 = 0, host = 0, launch = 0; /* the NVFP4 recipe's GEMM rate (--fp8 nvfp4); the
                                          * host link; the host CPU's kernel issue */
  if ((rc = opt_double(v, "fp4_tflops", file, WEFT_RANGE_ZOO_FIGURE, &fp4, err)) ||
      (rc = opt_double(v, "power_w", file, WEFT_RANGE_ZOO_FIGURE, &d->power_w, err)) ||
      (rc = opt_double(v, "host_gbps", file, WEFT_RANGE_ZOO_FIGURE, &host, err)) ||
      (rc = opt_double(v, "launch_cpu_us", file, WEFT_RANGE_(0.0, 1, WEFT_MAX_LAUNCH_US), &launch,
                       err)))
    return rc;
  d->launch_cpu_ns = launch * 1e3;
  d->peak_fp4_flops = fp4 * 1e12;
  d->host_bytes_per_s = host * 1e9; /* GB/s each direction, as bw_gbps */
  d->peak_flops = tflops * 1e12;
  d->hbm_bytes = gib * GIB;
  d->hbm_bytes_per_s = gbps * 1e9;  /* GB/s, as bw_gbps everywhere in weft */
  if ((rc = parse_opcost(v, file, d, err)) || (rc = parse_gemm_shape(v, file, d, err)))
    return rc;
  if ((rc = parse_measured_as(v, file, d, err))) return rc;
  return parse_measured(v, file, d, err);
}

static int parse_entry(const WeftYamlNode *k, const WeftYamlNode *v, const char *file,
                       void *out, WeftError *err) {
  return parse_device(k, v, file, out, err);
}

static const WeftZooTable DEVICES = {"devices.yml", "device", "their figures",
                                     sizeof(WeftDevice), parse_entry};

/* The measured tables are read for the devices handed out (a run on one
 * device does not read, nor check, another's tables). */
int weft_zoo_device(const char *zoo_dir, const char *name, WeftDevice *dev, WeftError *err) {
  int rc = weft_zoo_table(&DEVICES, zoo_dir, name ? name : "", dev, NULL, 0, NULL, err);
  return rc ? rc : weft_measured_load(dev, err);
}

int weft_zoo_devices(const char *zoo_dir, WeftDevice *devs, int max, int *count, WeftError *err) {
  int rc = weft_zoo_table(&DEVICES, zoo_dir, NULL, NULL, devs, max, count, err);
  for (int i = 0; !rc && devs && i < max && i < *count; i++) rc = weft_measured_load(&devs[i], err);
  return rc;
}
