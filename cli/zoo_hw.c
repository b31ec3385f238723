/* zoo_hw.c — `weft zoo NAME` for hardware: one device of devices.yml or one
 * cluster preset of clusters.yml, every figure with its unit and source. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "opts.h"

#define GIB 1073741824.0

void zoo_json_num(FILE *out, double v) {
  if (!isfinite(v)) fputs("null", out);
  else if (v == floor(v) && fabs(v) < 1e15) fprintf(out, "%.0f", v);
  else fprintf(out, "%.12g", v);
}

/* The clusters of zoo/clusters.yml (none when the zoo has no such file), in
 * a new array; 0 or the library's code with err set. */
int zoo_read_clusters(const char *zoo, WeftCluster **cs, int *nc, WeftError *err) {
  char path[WEFT_PATH_LEN];
  struct stat st;
  *cs = NULL;
  *nc = 0;
  if (snprintf(path, sizeof path, "%s/clusters.yml", zoo) >= (int)sizeof path ||
      stat(path, &st) != 0)
    return WEFT_OK;
  int n = 0, rc = weft_zoo_clusters(zoo, NULL, 0, &n, err);
  if (rc || n == 0) return rc;
  if (!(*cs = malloc((size_t)n * sizeof **cs))) return WEFT_ENOMEM;
  rc = weft_zoo_clusters(zoo, *cs, n, nc, err);
  if (*nc > n) *nc = n;
  return rc;
}

void zoo_cluster_json(FILE *out, const WeftCluster *c, int kind) {
  fputs(kind ? "{\"kind\": \"cluster\", \"name\": " : "{\"name\": ", out);
  cli_json_str(out, c->name);
  fputs(", \"title\": ", out);
  cli_json_str(out, c->title);
  fputs(", \"device\": ", out);
  cli_json_str(out, c->device);
  fputs(", \"source\": ", out);
  cli_json_str(out, c->source);
  fputs(", \"tiers\": [", out);
  for (int t = 0; t < c->ntiers; t++) {
    const WeftClusterTier *r = &c->tier[t];
    fputs(t ? ", {\"name\": " : "{\"name\": ", out);
    cli_json_str(out, r->name);
    fputs(", \"topology\": ", out);
    cli_json_str(out, weft_topology_name(r->topology));
    fprintf(out, ", \"npus\": %d, \"cost\": ", r->npus);
    cli_json_str(out, r->cost);
    fputs(", \"bw_gbps\": ", out);
    zoo_json_num(out, r->bw_gbps);
    fputs(", \"efficiency\": ", out);
    zoo_json_num(out, r->efficiency);
    fputs(", \"latency_ns\": ", out);
    zoo_json_num(out, r->latency_ns);
    if (r->fabric) fprintf(out, ", \"fabric\": \"%s\"", weft_dim_shape_name((WeftDimShape)r->fabric));
    fputc('}', out);
  }
  fputs("]}", out);
}

/* ------------------------------------------------------------------ device */

static const char *const MEASURED_NAME[WEFT_MEASURED_FILES] = {"gemm", "attention", "memory",
                                                               "launch", "sustained"};
static const char *const FIT_TYPE[3] = {"bf16", "fp8", "fp8_fast"};

/* "measured": {"prefix": ..., "gemm": {"file", "rows", "date"}, ...,
 * "gemm_fit": {"bf16": [eff_max, k0, t0_ns], ...}, "launch_us": [eager, graph]}. */
static void measured_json(FILE *out, const WeftDevice *d) {
  WeftMeasuredInfo mi;
  WeftError e;
  if (!d->measured[0] || weft_measured_info(d, &mi, &e)) return;
  fputs(",\n  \"measured\": {\"prefix\": ", out);
  cli_json_str(out, d->measured);
  for (int i = 0; i < WEFT_MEASURED_FILES; i++) {
    if (!mi.file[i][0]) continue;
    fprintf(out, ", \"%s\": {\"file\": ", MEASURED_NAME[i]);
    cli_json_str(out, mi.file[i]);
    fprintf(out, ", \"rows\": %d, \"date\": ", mi.rows[i]);
    cli_json_str(out, mi.date[i]);
    fputc('}', out);
  }
  fputs(", \"gemm_fit\": {", out);
  for (int t = 0, n = 0; t < 3; t++) {
    if (!(mi.gemm_fit[t][0] > 0)) continue;
    fprintf(out, "%s\"%s\": [", n++ ? ", " : "", FIT_TYPE[t]);
    for (int j = 0; j < 3; j++) {
      if (j) fputs(", ", out);
      zoo_json_num(out, mi.gemm_fit[t][j]);
    }
    fputc(']', out);
  }
  fputs("}, \"launch_us\": [", out);
  for (int g = 0; g < 2; g++) {
    if (g) fputs(", ", out);
    if (mi.launch_us[g] >= 0) zoo_json_num(out, mi.launch_us[g]);
    else fputs("null", out);
  }
  fputs("], \"sustained\": {", out);
  for (int t = 0; t < 3; t++) {
    fprintf(out, "%s\"%s\": ", t ? ", " : "", FIT_TYPE[t]);
    zoo_json_num(out, mi.sustained[t]);
  }
  fputc('}', out);
  if (mi.clock != 1) {
    fputs(", \"clock\": ", out);
    zoo_json_num(out, mi.clock);
  }
  if (mi.mem_time != 1) {
    fputs(", \"mem_time\": ", out);
    zoo_json_num(out, mi.mem_time);
  }
  if (mi.fp8_layer != 1) {
    fputs(", \"fp8_layer\": ", out);
    zoo_json_num(out, mi.fp8_layer);
  }
  fputc('}', out);
}

/* Which rates come from measurements and which from the datasheet. */
static void measured_table(FILE *out, const WeftDevice *d) {
  WeftMeasuredInfo mi;
  WeftError e;
  char msg[400];
  if (!d->measured[0]) {
    fprintf(out, "  %-16s- (none: GEMMs, attention and HBM at the efficiencies above)\n",
            "measured");
    return;
  }
  if (weft_measured_info(d, &mi, &e)) {
    fprintf(out, "  %-16s- (unreadable: %s)\n", "measured", weft_error_format(&e, msg, sizeof msg));
    return;
  }
  fprintf(out, "  %-16s%s_*.csv (scripts/measure/measure.py)\n", "measured", d->measured);
  for (int i = 0; i < WEFT_MEASURED_FILES; i++) {
    if (!mi.file[i][0]) {
      fprintf(out, "    %-14s- (no file: %s)\n", MEASURED_NAME[i],
              i == 0   ? "GEMMs by the datasheet model"
              : i == 1 ? "attention_efficiency"
              : i == 2 ? "hbm_efficiency"
              : i == 3 ? "not charged"
                       : "tensor-core kernels at their burst rates");
      continue;
    }
    fprintf(out, "    %-14s%d rows, %s\n", MEASURED_NAME[i], mi.rows[i],
            mi.date[i][0] ? mi.date[i] : "undated");
  }
  for (int t = 0; t < 3; t++)
    if (mi.gemm_fit[t][0] > 0)
      fprintf(out, "    %-14s%s: gemm_eff_max %.4g, gemm_k0 %.4g K steps, gemm_t0 %.4g us\n",
              t ? "" : "gemm fit", FIT_TYPE[t], mi.gemm_fit[t][0], mi.gemm_fit[t][1],
              mi.gemm_fit[t][2] / 1e3);
  if (mi.file[4][0])
    fprintf(out, "    %-14sbf16 x%.4g, fp8 x%.4g, fp8_fast x%.4g of the burst rate (GEMMs, attention)\n",
            "sustained", mi.sustained[0], mi.sustained[1], mi.sustained[2]);
  if (mi.clock != 1)
    fprintf(out, "    %-14sx%.4g the tables' GPU's sustained tensor-core rate (measured_clock), in "
            "the sustained factors\n", "clock", mi.clock);
  if (mi.mem_time != 1)
    fprintf(out, "    %-14smemory-bound kernels x%.4g the tables' time (measured_hbm_gbps %g / "
            "hbm_gbps %g)\n", "hbm", mi.mem_time, d->measured_hbm_bytes_per_s / 1e9,
            d->hbm_bytes_per_s / 1e9);
  if (mi.fp8_layer != 1)
    fprintf(out, "    %-14sFP8 GEMMs x%.4g the tables' time, as a layer runs them (%s)\n",
            "fp8 layer", mi.fp8_layer,
            d->measured_fp8_layer > 0 ? "measured_fp8_layer" : "the tables' fp8_layer_gemms files");
  if (mi.launch_us[0] >= 0 || mi.launch_us[1] >= 0)
    fprintf(out, "    %-14seager %g us, CUDA graph %g us per kernel%s\n", "launch", mi.launch_us[0],
            mi.launch_us[1],
            d->launch_cpu_ns > 0 ? " (the tables' host; eager here: launch_cpu_us)" : "");
  fprintf(out, "    %-14s%s; datasheet: TF32/FP32 GEMMs, vector FLOP/s%s\n", "rates",
          mi.file[0][0] ? "measured: BF16/FP8 GEMMs (by shape), attention, memory-bound kernels"
                        : "measured: attention, memory-bound kernels",
          mi.file[2][0] ? "" : ", HBM");
}

/* ,\n  "key": v — only when v > 0 (a figure the file gives). */
static void json_opt(FILE *out, const char *key, double v) {
  if (v <= 0) return;
  fprintf(out, ",\n  \"%s\": ", key);
  zoo_json_num(out, v);
}

static void device_json(FILE *out, const WeftDevice *d) {
  fputs("{\n  \"kind\": \"device\",\n  \"name\": ", out);
  cli_json_str(out, d->name);
  fputs(",\n  \"title\": ", out);
  cli_json_str(out, d->title);
  fputs(",\n  \"source\": ", out);
  cli_json_str(out, d->source);
  json_opt(out, "peak_flops", d->peak_flops);
  json_opt(out, "peak_fp8_flops", d->peak_fp8_flops);
  json_opt(out, "peak_fp4_flops", d->peak_fp4_flops);
  json_opt(out, "peak_tf32_flops", d->peak_tf32_flops);
  json_opt(out, "hbm_bytes", d->hbm_bytes);
  json_opt(out, "hbm_bytes_per_s", d->hbm_bytes_per_s);
  json_opt(out, "power_w", d->power_w);
  json_opt(out, "host_bytes_per_s", d->host_bytes_per_s);
  json_opt(out, "launch_cpu_ns", d->launch_cpu_ns);
  fprintf(out, ",\n  \"compute_model\": \"%s\"", d->sms > 0 ? "per-operator" : "per-flop");
  if (d->sms > 0) {
    json_opt(out, "peak_vector_flops", d->peak_vector_flops);
    fprintf(out, ",\n  \"sms\": %d,\n  \"tile\": [%d, %d]", d->sms, d->tile_m, d->tile_n);
    json_opt(out, "gemm_efficiency", d->gemm_efficiency);
    json_opt(out, "attention_efficiency", d->attention_efficiency);
    json_opt(out, "hbm_efficiency", d->hbm_efficiency);
    json_opt(out, "gemm_eff_max", d->gemm_eff_max);
    if (d->gemm_eff_max > 0) {
      fputs(",\n  \"gemm_k0\": ", out);
      zoo_json_num(out, d->gemm_k0);
      fputs(",\n  \"gemm_t0_ns\": ", out);
      zoo_json_num(out, d->gemm_t0_ns);
    }
  }
  measured_json(out, d);
  fputs("\n}\n", out);
}

/* "  key           %g unit", or "-" and why when the file gives none. */
static void row(FILE *out, const char *key, double v, const char *unit, const char *none) {
  if (v > 0) fprintf(out, "  %-16s%g%s\n", key, v, unit);
  else fprintf(out, "  %-16s- (%s)\n", key, none);
}

static void device_table(FILE *out, const WeftDevice *d) {
  fprintf(out, "%s: %s\n", d->name, d->title);
  if (d->source[0]) fprintf(out, "  %-16s%s\n", "source", d->source);
  row(out, "peak_tflops", d->peak_flops / 1e12, " (dense BF16/FP16 tensor)", "");
  row(out, "fp8_tflops", d->peak_fp8_flops / 1e12, " (dense)", "not given");
  row(out, "fp4_tflops", d->peak_fp4_flops / 1e12,
      " (dense; the GEMMs of --fp8 nvfp4)", "not given");
  row(out, "tf32_tflops", d->peak_tf32_flops / 1e12, " (dense)", "not given");
  row(out, "hbm_gib", d->hbm_bytes / GIB, " (2^30 bytes)", "");
  row(out, "hbm_gbps", d->hbm_bytes_per_s / 1e9, " (10^9 bytes/s)", "");
  row(out, "power_w", d->power_w, " (TDP / board power)", "not published");
  row(out, "host_gbps", d->host_bytes_per_s / 1e9, " (to host memory, each direction)",
      "not given: no activation offloading");
  if (d->launch_cpu_ns > 0) /* else the default host's, OC_LAUNCH_CPU_NS */
    row(out, "launch_cpu_us", d->launch_cpu_ns / 1e3, " (the host CPU's issue of one eager kernel)",
        "");
  if (d->sms == 0) {
    fprintf(out, "  %-16sper FLOP at --efficiency (no per-operator figures)\n", "compute");
    return;
  }
  fprintf(out, "  %-16sper operator: %d SMs/CUs, tile %dx%d, vector %g TFLOP/s\n", "compute",
          d->sms, d->tile_m, d->tile_n, d->peak_vector_flops / 1e12);
  fprintf(out, "  %-16sgemm %g, attention %g, hbm %g\n", "efficiencies", d->gemm_efficiency,
          d->attention_efficiency, d->hbm_efficiency);
  if (d->gemm_eff_max > 0)
    fprintf(out, "  %-16sgemm_eff_max %g, gemm_k0 %g K steps, gemm_t0 %g us\n", "gemm_shape",
            d->gemm_eff_max, d->gemm_k0, d->gemm_t0_ns / 1e3);
  measured_table(out, d);
}

/* ------------------------------------------------------------------ cluster */

static void cluster_table(FILE *out, const WeftCluster *c) {
  int unit = 1;
  fprintf(out, "%s: %s\n", c->name, c->title);
  if (c->source[0]) fprintf(out, "  %-16s%s\n", "source", c->source);
  fprintf(out, "  %-16s%s\n", "device", c->device[0] ? c->device : "- (none: a100 by default)");
  fprintf(out, "  %-4s %-14s %-15s %5s %-12s %8s %10s %10s\n", "tier", "name", "topology", "npus",
          "cost", "bw_gbps", "efficiency", "latency_ns");
  for (int t = 0; t < c->ntiers; t++) {
    const WeftClusterTier *r = &c->tier[t];
    char npus[16] = "rest";
    if (r->npus > 0) snprintf(npus, sizeof npus, "%d", r->npus);
    if (r->npus > 0) unit *= r->npus;
    fprintf(out, "  %-4d %-14s %-15s %5s %-12s %8g %10g %10g", t + 1, r->name,
            weft_topology_name(r->topology), npus, r->cost, r->bw_gbps, r->efficiency,
            r->latency_ns);
    if (r->fabric) fprintf(out, "  %s", weft_dim_shape_name((WeftDimShape)r->fabric));
    fputc('\n', out);
  }
  fputs("  (bw_gbps: GB/s per GPU per direction; efficiency: achievable fraction of it;\n"
        "   latency_ns: per step of the tier's collective algorithm)\n",
        out);
  if (c->ntiers > 1)
    fprintf(out, "  %-16s%d GPUs fill the fixed tiers: --npus N takes whole units of each\n",
            "unit", unit);
}

/* ------------------------------------------------------------------ lookup */

int zoo_show_hw(const char *zoo, const char *name, int json, int *shown, WeftError *err) {
  WeftDevice *devs = NULL;
  WeftCluster *cs = NULL;
  int nd = 0, nc = 0, rc = weft_zoo_devices(zoo, NULL, 0, &nd, err);
  *shown = 0;
  if (!rc && nd > 0 && !(devs = malloc((size_t)nd * sizeof *devs))) rc = WEFT_ENOMEM;
  int cap = nd;
  if (!rc) rc = weft_zoo_devices(zoo, devs, cap, &nd, err);
  if (nd > cap) nd = cap;
  for (int i = 0; !rc && i < nd && !*shown; i++)
    if (!strcmp(devs[i].name, name)) {
      *shown = 1;
      if (json) device_json(stdout, &devs[i]);
      else device_table(stdout, &devs[i]);
    }
  if (!rc && !*shown) rc = zoo_read_clusters(zoo, &cs, &nc, err);
  for (int i = 0; !rc && i < nc && !*shown; i++)
    if (!strcmp(cs[i].name, name)) {
      *shown = 1;
      if (json) {
        zoo_cluster_json(stdout, &cs[i], 1);
        fputc('\n', stdout);
      } else {
        cluster_table(stdout, &cs[i]);
      }
    }
  free(devs);
  free(cs);
  return rc;
}

/* NAME is no model, device nor cluster of the zoo: say so, with the closest
 * name of the three (a typo, or the right name in other case). */
void zoo_unknown(const char *zoo, const char *name) {
  WeftError err;
  WeftDevice *devs = NULL;
  WeftCluster *cs = NULL;
  char(*models)[WEFT_NAME_LEN] = NULL;
  const char **cands = NULL;
  int nm = 0, nd = 0, nc = 0, n = 0;
  if (weft_zoo_list(zoo, NULL, 0, &nm, &err) || nm <= 0 ||
      !(models = malloc((size_t)nm * sizeof *models))) {
    nm = 0;
  } else {
    int cap = nm;
    if (weft_zoo_list(zoo, models, cap, &nm, &err)) nm = 0;
    if (nm > cap) nm = cap;
  }
  if (weft_zoo_devices(zoo, NULL, 0, &nd, &err) || nd <= 0 ||
      !(devs = malloc((size_t)nd * sizeof *devs))) {
    nd = 0;
  } else {
    int cap = nd;
    if (weft_zoo_devices(zoo, devs, cap, &nd, &err)) nd = 0;
    if (nd > cap) nd = cap;
  }
  if (zoo_read_clusters(zoo, &cs, &nc, &err)) nc = 0;
  cands = malloc((size_t)(nm + nd + nc + 1) * sizeof *cands);
  const char *hint = NULL;
  if (cands) {
    for (int i = 0; i < nm; i++) cands[n++] = models[i];
    for (int i = 0; i < nd; i++) cands[n++] = devs[i].name;
    for (int i = 0; i < nc; i++) cands[n++] = cs[i].name;
    for (int i = 0; i < n && !hint; i++)
      if (!strcasecmp(cands[i], name)) hint = cands[i];
    if (!hint) hint = cli_suggest(name, strlen(name), cands, n);
  }
  if (hint)
    cli_fail("zoo: no model, device or cluster is called '%s': did you mean '%s'? (weft zoo "
             "lists them)", name, hint);
  else
    cli_fail("zoo: no model, device or cluster is called '%s' (weft zoo lists them; a model "
             "file is named by its path)", name);
  free(cands);
  free(models);
  free(devs);
  free(cs);
}
