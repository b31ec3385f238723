/* zoo.c — `weft zoo`: list the model zoo's models, devices and clusters, or show one
 * model (hyper-parameters, parameter count, expanded CNN/MLP layers); one device or
 * cluster is zoo_hw.c's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"

#define GIB 1073741824.0

static const char *const arch_names[] = {"transformer", "dlrm", "cnn"};

const char *cli_zoo_dir(void) {
  static char dir[WEFT_PATH_LEN];
  weft_zoo_dir(dir, sizeof dir, NULL); /* none found: the zoo's readers say where it looked */
  return dir;
}

enum { Z_JSON, Z_ZOO, Z_PARTS, Z_PARTS_FILE, Z_HELP, Z_COUNT };
static const CliOpt zoo_opts[Z_COUNT] = {
    [Z_JSON] = {"--json", NULL, "print JSON instead of tables"},
    [Z_ZOO] = {"--zoo", "DIR", "the zoo directory (default $WEFT_ZOO, else data/zoo)"},
    [Z_PARTS] = {"--parts", NULL, "list the parts catalog beside the zoo (docs/parts.md)"},
    [Z_PARTS_FILE] = {"--parts-file", "FILE", "--parts: a user's catalog read over it"},
    [Z_HELP] = {"--help", NULL, "this help"},
};

static void help(FILE *out) {
  fputs("usage: weft zoo [NAME] [options]\n\n"
        "Without NAME, list the model zoo's models (name, arch, parameters in\n"
        "billions, title), devices (dense BF16, FP8 and FP4 rates, HBM, power)\n"
        "and cluster presets (each tier's topology, GPUs, bandwidth per GPU per\n"
        "direction, NCCL efficiency and latency per step). With NAME (a zoo name,\n"
        "or a path to a model .yml), show that model: hyper-parameters, parameter\n"
        "count and, for CNNs and DLRM, the expanded layers (forward FLOPs,\n"
        "parameters and output activation elements, per sample); a NAME that is\n"
        "no model but a device or a cluster preset shows all its figures with\n"
        "units and source (weft zoo gb200-nvl72). Exit 0 ok, 2 bad input.\n\n"
        "options:\n",
        out);
  const char *val[Z_COUNT];
  CliOptSet set = {zoo_opts, Z_COUNT, val, -1, NULL, 0, NULL};
  cli_opts_help(out, &set, 1);
}

/* ------------------------------------------------------------------ JSON */

static void json_layers(FILE *out, const WeftModel *m) {
  fputs(",\n  \"expanded_layers\": [", out);
  for (int i = 0; i < m->nlayers; i++) {
    const WeftModelLayer *l = &m->layer[i];
    fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
    cli_json_str(out, l->name);
    fputs(", \"fwd_flops\": ", out);
    zoo_json_num(out, l->fwd_flops);
    fputs(", \"params\": ", out);
    zoo_json_num(out, l->params);
    fputs(", \"act_elems\": ", out);
    zoo_json_num(out, l->act_elems);
    fputc('}', out);
  }
  fputs("\n  ]", out);
}

static void json_int(FILE *out, const char *key, int v) { fprintf(out, ",\n  \"%s\": %d", key, v); }

static void model_json(FILE *out, const WeftModel *m) {
  fputs("{\n  \"name\": ", out);
  cli_json_str(out, m->name);
  fputs(",\n  \"title\": ", out);
  cli_json_str(out, m->title);
  fputs(",\n  \"source\": ", out);
  cli_json_str(out, m->source);
  fputs(",\n  \"file\": ", out);
  cli_json_str(out, m->file);
  fputs(",\n  \"arch\": ", out);
  cli_json_str(out, arch_names[m->arch]);
  json_int(out, "global_batch", m->global_batch);
  if (m->arch == WEFT_ARCH_TRANSFORMER) {
    json_int(out, "seq_len", m->seq_len);
    json_int(out, "layers", m->layers);
    json_int(out, "hidden", m->hidden);
    json_int(out, "heads", m->heads);
    json_int(out, "kv_heads", m->kv_heads);
    if (m->head_dim) json_int(out, "head_dim", m->head_dim);
    if (m->window) json_int(out, "window", m->window);
    if (m->window_full_every) json_int(out, "window_full_every", m->window_full_every);
    if (m->sinks) fputs(",\n  \"sinks\": true", out);
    if (m->mtp_layers) json_int(out, "mtp_layers", m->mtp_layers);
    if (m->attention_dropout > 0) {
      fputs(",\n  \"attention_dropout\": ", out);
      zoo_json_num(out, m->attention_dropout);
    }
    if (m->hidden_dropout > 0) {
      fputs(",\n  \"hidden_dropout\": ", out);
      zoo_json_num(out, m->hidden_dropout);
    }
    json_int(out, "ffn_hidden", m->ffn_hidden);
    fputs(",\n  \"ffn\": ", out);
    cli_json_str(out, m->ffn_matrices == 3 ? "swiglu" : "gelu");
    json_int(out, "vocab", m->vocab);
    json_int(out, "experts", m->experts);
    json_int(out, "top_k", m->top_k);
    json_int(out, "moe_every", m->moe_every);
    if (m->shared_experts) json_int(out, "shared_experts", m->shared_experts);
    if (m->moe_ffn_hidden) json_int(out, "moe_ffn_hidden", m->moe_ffn_hidden);
    if (m->first_dense) json_int(out, "first_dense", m->first_dense);
    if (m->bidirectional) fputs(",\n  \"mask\": \"bidirectional\"", out);
    if (m->kv_lora_rank > 0) {
      json_int(out, "q_lora_rank", m->q_lora_rank);
      json_int(out, "kv_lora_rank", m->kv_lora_rank);
      json_int(out, "qk_nope_head_dim", m->qk_nope_head_dim);
      json_int(out, "qk_rope_head_dim", m->qk_rope_head_dim);
      json_int(out, "v_head_dim", m->v_head_dim);
    }
  } else if (m->arch == WEFT_ARCH_DLRM) {
    json_int(out, "tables", m->tables);
    fputs(",\n  \"table_rows\": ", out);
    zoo_json_num(out, m->table_rows);
    json_int(out, "emb_dim", m->emb_dim);
    json_int(out, "pooling", m->pooling);
    json_int(out, "nbottom", m->nbottom);
  }
  fputs(",\n  \"params\": ", out);
  zoo_json_num(out, weft_model_params(m));
  if (m->arch == WEFT_ARCH_TRANSFORMER && m->experts > 0) {
    fputs(",\n  \"active_params\": ", out);
    zoo_json_num(out, weft_model_active_params(m));
  }
  if (m->arch != WEFT_ARCH_TRANSFORMER) json_layers(out, m);
  fputs("\n}\n", out);
}

/* ------------------------------------------------------------------ tables */

static void model_table(FILE *out, const WeftModel *m) {
  double p = weft_model_params(m);
  fprintf(out, "%s: %s\n", m->name, m->title);
  if (m->source[0]) fprintf(out, "  %-14s%s\n", "source", m->source);
  fprintf(out, "  %-14s%s\n", "file", m->file);
  fprintf(out, "  %-14s%s\n", "arch", arch_names[m->arch]);
  fprintf(out, "  %-14s%d\n", "global_batch", m->global_batch);
  if (m->arch == WEFT_ARCH_TRANSFORMER) {
    fprintf(out, "  %-14s%d\n", "seq_len", m->seq_len);
    fprintf(out, "  %-14s%d\n", "layers", m->layers);
    fprintf(out, "  %-14s%d\n", "hidden", m->hidden);
    if (m->kv_lora_rank > 0) {
      fprintf(out, "  %-14s%d\n", "heads", m->heads);
      fprintf(out, "  %-14sq_lora_rank %d, kv_lora_rank %d, qk head %d + rope %d, v head %d\n",
              "mla", m->q_lora_rank, m->kv_lora_rank, m->qk_nope_head_dim, m->qk_rope_head_dim,
              m->v_head_dim);
    } else {
      fprintf(out, "  %-14s%d (head size %d)\n", "heads", m->heads,
              m->head_dim ? m->head_dim : m->hidden / m->heads);
      fprintf(out, "  %-14s%d\n", "kv_heads", m->kv_heads);
    }
    if (m->bidirectional) fprintf(out, "  %-14s%s\n", "mask", "bidirectional");
    if (m->window) {
      fprintf(out, "  %-14s%d tokens", "window", m->window);
      if (m->window_full_every) fprintf(out, ", every %d layers full", m->window_full_every);
      fputc('\n', out);
    }
    if (m->sinks) fprintf(out, "  %-14s%s\n", "sinks", "a learned sink logit per head");
    if (m->mtp_layers) fprintf(out, "  %-14s%d (multi-token prediction)\n", "mtp_layers", m->mtp_layers);
    if (m->attention_dropout > 0 || m->hidden_dropout > 0)
      fprintf(out, "  %-14sattention %g, hidden %g\n", "dropout", m->attention_dropout,
              m->hidden_dropout);
    fprintf(out, "  %-14s%s, ffn_hidden %d\n", "ffn", m->ffn_matrices == 3 ? "swiglu" : "gelu",
            m->ffn_hidden);
    fprintf(out, "  %-14s%d\n", "vocab", m->vocab);
    if (m->experts > 0) {
      fprintf(out, "  %-14s%d experts, top-%d, every %d layer%s", "moe", m->experts, m->top_k,
              m->moe_every, m->moe_every == 1 ? "" : "s");
      if (m->shared_experts) fprintf(out, ", %d shared", m->shared_experts);
      if (m->moe_ffn_hidden) fprintf(out, ", expert ffn_hidden %d", m->moe_ffn_hidden);
      if (m->first_dense) fprintf(out, ", first %d layers dense", m->first_dense);
      fputc('\n', out);
    }
  } else if (m->arch == WEFT_ARCH_DLRM) {
    fprintf(out, "  %-14s%d tables x %.0f rows x dim %d, %d lookup%s per table\n", "embeddings",
            m->tables, m->table_rows, m->emb_dim, m->pooling, m->pooling == 1 ? "" : "s");
    fprintf(out, "  %-14s%d layers, then %d top\n", "bottom_mlp", m->nbottom,
            m->nlayers - m->nbottom);
  }
  fprintf(out, "  %-14s%.0f (%.3f B)\n", "params", p, p / 1e9);
  if (m->arch == WEFT_ARCH_TRANSFORMER && m->experts > 0) {
    double a = weft_model_active_params(m);
    fprintf(out, "  %-14s%.0f (%.3f B)\n", "active_params", a, a / 1e9);
  }
  if (m->arch == WEFT_ARCH_TRANSFORMER) return;
  double flops = 0, params = 0;
  fprintf(out, "\n  %-16s %16s %14s %12s\n", "layer", "fwd_flops", "params", "act_elems");
  for (int i = 0; i < m->nlayers; i++) {
    const WeftModelLayer *l = &m->layer[i];
    fprintf(out, "  %-16s %16.0f %14.0f %12.0f\n", l->name, l->fwd_flops, l->params,
            l->act_elems);
    flops += l->fwd_flops;
    params += l->params;
  }
  fprintf(out, "  %-16s %16.0f %14.0f\n", "total", flops, params);
  fprintf(out, "  (per sample; fwd_flops count 2 per multiply-add)\n");
}

/* ------------------------------------------------------------------ listing */

static void clusters_json(FILE *out, const WeftCluster *cs, int nc) {
  fputs(",\n  \"clusters\": [", out);
  for (int i = 0; i < nc; i++) {
    fputs(i ? ",\n    " : "\n    ", out);
    zoo_cluster_json(out, &cs[i], 0);
  }
  fputs("\n  ]", out);
}

/* Columns as wide as the longest name; figures as the file has them (%g:
 * 6.25 GB/s is not rounded to 6.2). */
static void clusters_table(FILE *out, const WeftCluster *cs, int nc) {
  int w = 12;
  for (int i = 0; i < nc; i++) w = (int)strlen(cs[i].name) > w ? (int)strlen(cs[i].name) : w;
  fprintf(out, "\nclusters (%d):\n  %-*s %-12s %-15s %5s %8s %10s %10s\n", nc, w, "name", "tier",
          "topology", "npus", "bw_gbps", "efficiency", "latency_ns");
  for (int i = 0; i < nc; i++)
    for (int t = 0; t < cs[i].ntiers; t++) {
      const WeftClusterTier *r = &cs[i].tier[t];
      char npus[16] = "rest";
      if (r->npus > 0) snprintf(npus, sizeof npus, "%d", r->npus);
      fprintf(out, "  %-*s %-12s %-15s %5s %8g %10g %10g", w, t ? "" : cs[i].name, r->name,
              weft_topology_name(r->topology), npus, r->bw_gbps, r->efficiency, r->latency_ns);
      if (t == 0) fprintf(out, "  %s%s%s%s", cs[i].device[0] ? "(" : "", cs[i].device,
                          cs[i].device[0] ? ") " : "", cs[i].title);
      fputc('\n', out);
    }
}

/* Everything is read (and checked) before anything is printed. */
static int list(const char *zoo, int json) {
  WeftError err;
  char(*names)[WEFT_NAME_LEN] = NULL;
  WeftDevice *devs = NULL;
  WeftModel *models = NULL;
  WeftCluster *clusters = NULL;
  int n = 0, nd = 0, nc = 0, rc;
  weft_error_clear(&err);
  rc = weft_zoo_list(zoo, NULL, 0, &n, &err);
  if (!rc && n > 0) {
    names = malloc((size_t)n * sizeof *names);
    models = malloc((size_t)n * sizeof *models);
    if (!names || !models) rc = WEFT_ENOMEM;
  }
  int cap = n, ncap;
  if (!rc) rc = weft_zoo_list(zoo, names, cap, &n, &err);
  if (n > cap) n = cap;  /* a file added between the two calls */
  for (int i = 0; i < n && !rc; i++) rc = weft_zoo_model(zoo, names[i], &models[i], &err);
  if (!rc) rc = weft_zoo_devices(zoo, NULL, 0, &nd, &err);
  if (!rc && nd > 0 && !(devs = malloc((size_t)nd * sizeof *devs))) rc = WEFT_ENOMEM;
  ncap = nd;
  if (!rc) rc = weft_zoo_devices(zoo, devs, ncap, &nd, &err);
  if (nd > ncap) nd = ncap;
  if (!rc) rc = zoo_read_clusters(zoo, &clusters, &nc, &err);
  if (rc) goto done;
  if (json) fputs("{\n  \"models\": [", stdout);
  else printf("models (%d):\n  %-18s %-12s %10s  %s\n", n, "name", "arch", "params_b", "title");
  for (int i = 0; i < n; i++) {
    const WeftModel *m = &models[i];
    double p = weft_model_params(m);
    if (json) {
      fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", stdout);
      cli_json_str(stdout, m->name);
      printf(", \"arch\": \"%s\", \"params\": ", arch_names[m->arch]);
      zoo_json_num(stdout, p);
      fputs(", \"title\": ", stdout);
      cli_json_str(stdout, m->title);
      fputs(", \"source\": ", stdout);
      cli_json_str(stdout, m->source);
      fputc('}', stdout);
    } else {
      printf("  %-18s %-12s %10.3f  %s\n", m->name, arch_names[m->arch], p / 1e9, m->title);
    }
  }
  if (json) fputs("\n  ],\n  \"devices\": [", stdout);
  else printf("\ndevices (%d):\n  %-12s %11s %10s %10s %8s %9s %7s  %s\n", nd, "name",
              "peak_tflops", "fp8_tflops", "fp4_tflops", "hbm_gib", "hbm_gbps", "power_w", "title");
  for (int i = 0; i < nd; i++) {
    const WeftDevice *d = &devs[i];
    if (json) {
      fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", stdout);
      cli_json_str(stdout, d->name);
      fputs(", \"title\": ", stdout);
      cli_json_str(stdout, d->title);
      fputs(", \"peak_flops\": ", stdout);
      zoo_json_num(stdout, d->peak_flops);
      fputs(", \"hbm_bytes\": ", stdout);
      zoo_json_num(stdout, d->hbm_bytes);
      fputs(", \"hbm_bytes_per_s\": ", stdout);
      zoo_json_num(stdout, d->hbm_bytes_per_s);
      if (d->peak_fp4_flops > 0) {  /* figures a file need not give: only when it does */
        fputs(", \"peak_fp4_flops\": ", stdout);
        zoo_json_num(stdout, d->peak_fp4_flops);
      }
      if (d->power_w > 0) {
        fputs(", \"power_w\": ", stdout);
        zoo_json_num(stdout, d->power_w);
      }
      fputs(", \"source\": ", stdout);
      cli_json_str(stdout, d->source);
      fputc('}', stdout);
    } else {
      char fp8[16] = "-", fp4[16] = "-", pw[16] = "-";
      if (d->peak_fp8_flops > 0) snprintf(fp8, sizeof fp8, "%.1f", d->peak_fp8_flops / 1e12);
      if (d->peak_fp4_flops > 0) snprintf(fp4, sizeof fp4, "%.1f", d->peak_fp4_flops / 1e12);
      if (d->power_w > 0) snprintf(pw, sizeof pw, "%.0f", d->power_w);
      printf("  %-12s %11.1f %10s %10s %8.1f %9.1f %7s  %s\n", d->name, d->peak_flops / 1e12, fp8,
             fp4, d->hbm_bytes / GIB, d->hbm_bytes_per_s / 1e9, pw, d->title);
    }
  }
  if (json) fputs("\n  ]", stdout);
  if (nc > 0 && json) clusters_json(stdout, clusters, nc);
  else if (nc > 0) clusters_table(stdout, clusters, nc);
  if (json) fputs("\n}\n", stdout);
done:
  if (rc == WEFT_ENOMEM && !err.code) cli_fail("out of memory");
  else if (rc) cli_error(&err);
  free(names);
  free(models);
  free(devs);
  free(clusters);
  return !rc ? EXIT_OK : rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
}

/* NAME is a model when it is a path (a '/', ".yml" or ".yaml") or one of the zoo's
 * model names; else it may name a device or a cluster (zoo_hw.c). */
static int is_model_name(const char *zoo, const char *name) {
  size_t len = strlen(name);
  if (strchr(name, '/') || (len >= 4 && !strcmp(name + len - 4, ".yml")) ||
      (len >= 5 && !strcmp(name + len - 5, ".yaml")))
    return 1;
  WeftError err;
  int n = 0, found = 0;
  if (weft_zoo_list(zoo, NULL, 0, &n, &err) || n <= 0) return 0;
  char(*names)[WEFT_NAME_LEN] = malloc((size_t)n * sizeof *names);
  int cap = n;
  if (names && !weft_zoo_list(zoo, names, cap, &n, &err))
    for (int i = 0; i < n && i < cap && !found; i++) found = !strcmp(names[i], name);
  free(names);
  return found;
}

int cmd_zoo(int argc, char **argv) {
  const char *val[Z_COUNT], *pos[2];
  CliOptSet set = {zoo_opts, Z_COUNT, val, -1, NULL, 0, NULL};
  int npos;
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "-h")) {  /* the one short spelling zoo has always taken */
      help(stdout);
      return EXIT_OK;
    }
  if (cli_opts_parse(argc, argv, &set, 1, pos, 2, &npos)) return EXIT_USAGE;
  if (val[Z_HELP]) {
    help(stdout);
    return EXIT_OK;
  }
  if (npos == 2) {
    cli_fail("zoo takes one name, got '%s' and '%s'", pos[0], pos[1]);
    return EXIT_USAGE;
  }
  const char *zoo = val[Z_ZOO], *name = npos ? pos[0] : NULL;
  int json = val[Z_JSON] != NULL;
  if (!zoo) zoo = cli_zoo_dir();
  if (val[Z_PARTS_FILE] && !val[Z_PARTS]) {
    cli_fail("--parts-file goes with --parts");
    return EXIT_USAGE;
  }
  if (val[Z_PARTS]) {
    if (name) {
      cli_fail("--parts lists the parts catalog: drop '%s'", name);
      return EXIT_USAGE;
    }
    return cli_zoo_parts(zoo, val[Z_PARTS_FILE], json);
  }
  if (!name) return list(zoo, json);
  WeftError err;
  weft_error_clear(&err);
  if (!is_model_name(zoo, name)) {  /* a device or a cluster, else the model's error */
    int shown = 0, rc = zoo_show_hw(zoo, name, json, &shown, &err);
    if (rc == WEFT_ENOMEM && !err.code) cli_fail("out of memory");
    else if (rc) cli_error(&err);
    if (rc || shown) return !rc ? EXIT_OK : rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    zoo_unknown(zoo, name);
    return EXIT_USAGE;
  }
  WeftModel *m = malloc(sizeof *m);
  if (!m) {
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  int rc = weft_zoo_model(zoo, name, m, &err);
  if (rc) cli_error(&err);
  else if (json) model_json(stdout, m);
  else model_table(stdout, m);
  free(m);
  return !rc ? EXIT_OK : rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
}
