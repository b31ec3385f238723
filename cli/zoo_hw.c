/* zoo_hw.c — `weft zoo NAME` for hardware: one device of devices.yml or one
 * cluster preset of clusters.yml, every figure with its unit and source. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

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
