/* zoo.c — the model zoo (docs/zoo.md): model files (transformer, DLRM; CNNs
 * in zoo_cnn.c; devices.yml in zoo_device.c), the directory listing and
 * parameter counts. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/datadir.h"
#include "model/zoo.h"

#define COMMON_KEYS "name", "title", "source", "arch", "global_batch"
static const char *const TRANSFORMER_KEYS[] = {
    COMMON_KEYS, "seq_len", "layers", "hidden", "heads", "kv_heads", "ffn_hidden",
    "ffn",       "vocab",   "moe",    "mask",   "mla",   "head_dim", "window", "sinks", "mtp_layers",
    "attention_dropout", "hidden_dropout", "bias", "norm", "positions", "tied_embeddings", NULL};
static const char *const DLRM_KEYS[] = {COMMON_KEYS,  "embeddings", "dense_features",
                                        "bottom_mlp", "top_mlp",    "interaction", NULL};
static const char *const CNN_KEYS[] = {COMMON_KEYS, "input", "layers", "batch_norm", NULL};
static const char *const MOE_KEYS[] = {"experts",     "top_k",      "every",
                                       "shared_experts", "ffn_hidden", "first_dense", NULL};
static const char *const MLA_KEYS[] = {"q_lora_rank",      "kv_lora_rank", "qk_nope_head_dim",
                                       "qk_rope_head_dim", "v_head_dim",   NULL};
static const char *const WINDOW_KEYS[] = {"size", "full_every", NULL};
static const char *const EMB_KEYS[] = {"tables", "rows", "dim", "pooling", NULL};
/* "dir/llama3.1-8b.yml" -> "llama3.1-8b": the last extension goes (cut to fit). */
static void stem(const char *path, char *out) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  const char *dot = strrchr(b, '.');
  size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
  if (n > WEFT_NAME_LEN - 1) n = WEFT_NAME_LEN - 1;
  memcpy(out, b, n);
  out[n] = '\0';
}

/* ------------------------------------------------------------------ transformer */

/* An optional count >= 0 under key (0 when absent). */
static int opt_count(const WeftYamlNode *map, const char *key, const char *file, int *out,
                     WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  *out = 0;
  if (!v) return WEFT_OK;
  int rc = weft_yaml_int(v, file, key, NULL, out, err);
  if (!rc && *out < 0)
    rc = weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key, "%s must be >= 0, got %d",
                        key, *out);
  return rc;
}

static int read_moe(const WeftYamlNode *r, const char *file, WeftModel *m, WeftError *err) {
  const WeftYamlNode *moe = weft_yaml_get(r, "moe", NULL);
  int rc;
  if (!moe) return WEFT_OK;  /* dense: experts 0 */
  if ((rc = weft_yaml_expect(moe, WEFT_YAML_MAPPING, file, "moe", err)) ||
      (rc = weft_yaml_check_keys(moe, MOE_KEYS, file, err)) ||
      (rc = weft_zoo_int(moe, "experts", 0, file, &m->experts, err)) ||
      (rc = weft_zoo_int(moe, "top_k", 0, file, &m->top_k, err)) ||
      (rc = weft_zoo_int(moe, "every", 1, file, &m->moe_every, err)) ||
      (rc = opt_count(moe, "shared_experts", file, &m->shared_experts, err)) ||
      (rc = opt_count(moe, "first_dense", file, &m->first_dense, err)))
    return rc;
  if (weft_yaml_get(moe, "ffn_hidden", NULL) &&
      (rc = weft_zoo_int(moe, "ffn_hidden", 0, file, &m->moe_ffn_hidden, err)))
    return rc;
  const WeftYamlNode *k = weft_yaml_get(moe, "top_k", NULL), *e = weft_yaml_get(moe, "every", NULL);
  const WeftYamlNode *fd = weft_yaml_get(moe, "first_dense", NULL);
  if (m->top_k > m->experts)
    return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, "top_k",
                          "top_k (%d) must not exceed experts (%d)", m->top_k, m->experts);
  if (e && m->moe_every > m->layers)
    return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, "every",
                          "every (%d) must not exceed layers (%d)", m->moe_every, m->layers);
  if (fd && m->first_dense >= m->layers)
    return weft_error_set(err, WEFT_EINPUT, file, fd->line, fd->col, "first_dense",
                          "first_dense (%d) must be below layers (%d)", m->first_dense, m->layers);
  return WEFT_OK;
}

/* Multi-head latent attention: kv_lora_rank and the three head widths
 * required, q_lora_rank optional (0: queries projected directly). */
static int read_mla(const WeftYamlNode *r, const char *file, WeftModel *m, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(r, "mla", NULL);
  int rc;
  if (!v) return WEFT_OK;
  if ((rc = weft_yaml_expect(v, WEFT_YAML_MAPPING, file, "mla", err)) ||
      (rc = weft_yaml_check_keys(v, MLA_KEYS, file, err)) ||
      (rc = opt_count(v, "q_lora_rank", file, &m->q_lora_rank, err)) ||
      (rc = weft_zoo_int(v, "kv_lora_rank", 0, file, &m->kv_lora_rank, err)) ||
      (rc = weft_zoo_int(v, "qk_nope_head_dim", 0, file, &m->qk_nope_head_dim, err)) ||
      (rc = weft_zoo_int(v, "qk_rope_head_dim", 0, file, &m->qk_rope_head_dim, err)) ||
      (rc = weft_zoo_int(v, "v_head_dim", 0, file, &m->v_head_dim, err)))
    return rc;
  const WeftYamlNode *kv = weft_yaml_get(r, "kv_heads", NULL);
  if (kv)
    return weft_error_set(err, WEFT_EINPUT, file, kv->line, kv->col, "kv_heads",
                          "kv_heads does not apply with mla (every head has its keys and values)");
  return WEFT_OK;
}

/* `window: {size: 128, full_every: 2}` (sliding-window attention, every
 * full_every-th layer full; full_every absent: all windowed) and `sinks:
 * true` (GPT-OSS). A window needs the causal mask. */
static int read_window(const WeftYamlNode *r, const char *file, WeftModel *m, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(r, "window", NULL), *s = weft_yaml_get(r, "sinks", NULL);
  int rc;
  if (s && (rc = weft_yaml_bool(s, file, "sinks", &m->sinks, err))) return rc;
  if (!v) return WEFT_OK;
  if ((rc = weft_yaml_expect(v, WEFT_YAML_MAPPING, file, "window", err)) ||
      (rc = weft_yaml_check_keys(v, WINDOW_KEYS, file, err)) ||
      (rc = weft_zoo_int(v, "size", 0, file, &m->window, err)) ||
      (rc = opt_count(v, "full_every", file, &m->window_full_every, err)))
    return rc;
  if (m->bidirectional)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, "window",
                          "window: sliding-window attention needs the causal mask");
  return WEFT_OK;
}

/* `mask: causal` (default) or `bidirectional`. */
static int read_mask(const WeftYamlNode *r, const char *file, WeftModel *m, WeftError *err) {
  int which = 0, rc = weft_zoo_word(r, "mask", "causal", "bidirectional", file, &which, err);
  if (!rc && which) m->bidirectional = which < 0;
  return rc;
}

/* An int key read already must be <= max (limits.h); said at its node. */
static int at_most(const WeftYamlNode *map, const char *key, int max, const char *file, int v,
                   WeftError *err) {
  if (v <= max) return WEFT_OK;
  const WeftYamlNode *n = weft_yaml_get(map, key, NULL);
  return weft_error_set(err, WEFT_EINPUT, file, n ? n->line : 0, n ? n->col : 0, key,
                        "%s must be <= %d, got %d (the most a generated workload allows)", key, max, v);
}

static int read_transformer(const WeftYamlNode *r, const char *file, WeftModel *m,
                            WeftError *err) {
  int rc;
  if ((rc = weft_zoo_int(r, "seq_len", 0, file, &m->seq_len, err)) ||
      (rc = weft_zoo_int(r, "layers", 0, file, &m->layers, err)) ||
      (rc = at_most(r, "layers", WEFT_MAX_TRANSFORMER_LAYERS, file, m->layers, err)) ||
      (rc = weft_zoo_int(r, "hidden", 0, file, &m->hidden, err)) ||
      (rc = weft_zoo_int(r, "heads", 0, file, &m->heads, err)) ||
      (rc = weft_zoo_int(r, "kv_heads", m->heads, file, &m->kv_heads, err)) ||
      (rc = weft_zoo_int(r, "vocab", 0, file, &m->vocab, err)))
    return rc;
  const WeftYamlNode *heads = weft_yaml_get(r, "heads", NULL);
  const WeftYamlNode *kv = weft_yaml_get(r, "kv_heads", NULL);
  if ((rc = read_mla(r, file, m, err)) || (rc = read_mask(r, file, m, err)) ||
      (rc = opt_count(r, "head_dim", file, &m->head_dim, err)) ||
      (rc = read_window(r, file, m, err)) ||
      (rc = opt_count(r, "mtp_layers", file, &m->mtp_layers, err)) ||
      (rc = weft_zoo_prob(r, "attention_dropout", file, &m->attention_dropout, err)) ||
      (rc = weft_zoo_prob(r, "hidden_dropout", file, &m->hidden_dropout, err)))
    return rc;
  const WeftYamlNode *hd = weft_yaml_get(r, "head_dim", NULL);
  if (hd && m->kv_lora_rank > 0)
    return weft_error_set(err, WEFT_EINPUT, file, hd->line, hd->col, "head_dim",
                          "head_dim does not apply with mla (mla gives its head widths)");
  if (hd && m->head_dim == 0)
    return weft_error_set(err, WEFT_EINPUT, file, hd->line, hd->col, "head_dim",
                          "head_dim must be >= 1, got 0");
  if (m->kv_lora_rank == 0 && m->head_dim == 0 && m->hidden % m->heads) /* MLA, head_dim: given */
    return weft_error_set(err, WEFT_EINPUT, file, heads->line, heads->col, "heads",
                          "heads (%d) must divide hidden (%d)", m->heads, m->hidden);
  if (kv && m->heads % m->kv_heads)
    return weft_error_set(err, WEFT_EINPUT, file, kv->line, kv->col, "kv_heads",
                          "kv_heads (%d) must divide heads (%d)", m->kv_heads, m->heads);
  if ((rc = weft_zoo_family(r, file, m, err))) return rc;
  /* default 4*hidden for GeLU; SwiGLU widths are rounded by each paper: no guess */
  int def = m->ffn_matrices == 3 || m->hidden > INT_MAX / 4 ? 0 : 4 * m->hidden;
  if (!def && !weft_yaml_get(r, "ffn_hidden", NULL))
    return weft_error_set(err, WEFT_EINPUT, file, r->line, r->col, "ffn_hidden",
                          m->ffn_matrices == 3
                              ? "missing key 'ffn_hidden' (required with ffn: swiglu)"
                              : "missing key 'ffn_hidden' (4*hidden is out of range)");
  if ((rc = weft_zoo_int(r, "ffn_hidden", def, file, &m->ffn_hidden, err))) return rc;
  return read_moe(r, file, m, err);
}

/* ------------------------------------------------------------------ dlrm */

/* An MLP's widths, each > 0, into w[*n]. */
static int widths(const WeftYamlNode *r, const char *key, const char *file, int *w, int *n,
                  WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(r, key, NULL);
  if (!v)
    return weft_error_set(err, WEFT_EINPUT, file, r->line, r->col, key, "missing key '%s'", key);
  int rc = weft_yaml_ints(v, file, key, w, WEFT_MAX_MODEL_LAYERS, n, err);
  if (rc) return rc;
  for (int i = 0; i < *n; i++)
    if (w[i] <= 0) {
      const WeftYamlNode *e = v->child[i];
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, key,
                            "%s entry %d must be > 0, got %d", key, i + 1, w[i]);
    }
  return WEFT_OK;
}

/* MLP layers in -> w[0] -> ... -> w[n-1]: 2*in*out FLOPs, in*out + out params. */
static int mlp(WeftModel *m, const char *prefix, double in, const int *w, int n,
               const char *file, const WeftYamlNode *at, const char *field, WeftError *err) {
  for (int i = 0; i < n; i++) {
    char name[WEFT_NAME_LEN];
    snprintf(name, sizeof name, "%s%d", prefix, i + 1);
    double out = w[i];
    int rc = weft_zoo_layer(m, name, 2.0 * in * out, in * out + out, out, file, at, field, err);
    if (rc) return rc;
    in = out;
  }
  return WEFT_OK;
}

static int read_dlrm(const WeftYamlNode *r, const char *file, WeftModel *m, WeftError *err) {
  const WeftYamlNode *emb = weft_yaml_get(r, "embeddings", NULL);
  int dense, rc;
  if (!emb)
    return weft_error_set(err, WEFT_EINPUT, file, r->line, r->col, "embeddings",
                          "missing key 'embeddings'");
  if ((rc = weft_yaml_expect(emb, WEFT_YAML_MAPPING, file, "embeddings", err)) ||
      (rc = weft_yaml_check_keys(emb, EMB_KEYS, file, err)) ||
      (rc = weft_zoo_int(emb, "tables", 0, file, &m->tables, err)) ||
      (rc = weft_zoo_pos_double(emb, "rows", file, &m->table_rows, err)) ||
      (rc = weft_zoo_int(emb, "dim", 0, file, &m->emb_dim, err)) ||
      (rc = weft_zoo_int(emb, "pooling", 1, file, &m->pooling, err)) ||
      (rc = weft_zoo_int(r, "dense_features", 0, file, &dense, err)))
    return rc;
  const WeftYamlNode *inter = weft_yaml_get(r, "interaction", NULL);
  if (inter && (inter->kind != WEFT_YAML_SCALAR || strcmp(inter->text, "dot") != 0)) {
    char got[96];
    weft_yaml_describe(inter, got, sizeof got);
    return weft_error_set(err, WEFT_EINPUT, file, inter->line, inter->col, "interaction",
                          "interaction must be dot, got %s", got);
  }
  int bottom[WEFT_MAX_MODEL_LAYERS], top[WEFT_MAX_MODEL_LAYERS], nb, nt;
  if ((rc = widths(r, "bottom_mlp", file, bottom, &nb, err)) ||
      (rc = widths(r, "top_mlp", file, top, &nt, err)))
    return rc;
  const WeftYamlNode *bv = weft_yaml_get(r, "bottom_mlp", NULL);
  const WeftYamlNode *tv = weft_yaml_get(r, "top_mlp", NULL);
  if (bottom[nb - 1] != m->emb_dim) {  /* the dot products pair it with each embedding */
    const WeftYamlNode *e = bv->child[nb - 1];
    return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, "bottom_mlp",
                          "bottom_mlp's last width (%d) must equal embeddings dim (%d) for the "
                          "dot interaction",
                          bottom[nb - 1], m->emb_dim);
  }
  /* Top MLP input: the pairwise dot products of the T embeddings and the
   * bottom MLP's output, (T+1 choose 2), next to that output itself. */
  double t = m->tables, top_in = (t + 1.0) * t / 2.0 + m->emb_dim;
  if ((rc = mlp(m, "bottom", dense, bottom, nb, file, bv, "bottom_mlp", err))) return rc;
  m->nbottom = nb;
  return mlp(m, "top", top_in, top, nt, file, tv, "top_mlp", err);
}

/* ------------------------------------------------------------------ model files */

static int read_arch(const WeftYamlNode *r, const char *file, WeftArch *out, WeftError *err) {
  static const char *const names[] = {"transformer", "dlrm", "cnn"};
  const WeftYamlNode *v = weft_yaml_get(r, "arch", NULL);
  if (!v)
    return weft_error_set(err, WEFT_EINPUT, file, r->line, r->col, "arch",
                          "missing key 'arch' (transformer, dlrm or cnn)");
  for (int i = 0; i < 3; i++)
    if (v->kind == WEFT_YAML_SCALAR && strcmp(v->text, names[i]) == 0) {
      *out = (WeftArch)i;
      return WEFT_OK;
    }
  char got[96];
  weft_yaml_describe(v, got, sizeof got);
  return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, "arch",
                        "arch must be transformer, dlrm or cnn, got %s", got);
}

/* The model file at path; when expect is non-NULL (a zoo lookup) a `name`
 * key must equal it. */
static int read_model(const char *path, const char *expect, WeftModel *m, WeftError *err) {
  WeftYamlNode *root = NULL;
  int rc;
  memset(m, 0, sizeof *m);
  if (strlen(path) >= sizeof m->file)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "model path longer than %d characters",
                          WEFT_PATH_LEN - 1);
  snprintf(m->file, sizeof m->file, "%s", path);
  if ((rc = weft_yaml_load_file(path, &root, err))) return rc;
  if (!root || root->kind != WEFT_YAML_MAPPING) {
    char got[96];
    weft_yaml_describe_root(root, got, sizeof got);
    rc = weft_error_set(err, WEFT_EINPUT, path, root ? root->line : 0, root ? root->col : 0,
                        NULL, "expected a mapping of model keys (arch, global_batch, ...), got %s",
                        got);
    goto done;
  }
  static const char *const *const keys[] = {TRANSFORMER_KEYS, DLRM_KEYS, CNN_KEYS};
  if ((rc = read_arch(root, path, &m->arch, err)) ||
      (rc = weft_yaml_check_keys(root, keys[m->arch], path, err)))
    goto done;
  stem(path, m->name);
  const WeftYamlNode *nv = weft_yaml_get(root, "name", NULL);
  if ((rc = weft_zoo_text(root, "name", path, m->name, sizeof m->name, err))) goto done;
  if (nv && expect && strcmp(m->name, expect) != 0) {
    rc = weft_error_set(err, WEFT_EINPUT, path, nv->line, nv->col, "name",
                        "name '%s' does not match the file name '%s.yml'", m->name, expect);
    goto done;
  }
  snprintf(m->title, sizeof m->title, "%s", m->name);
  if ((rc = weft_zoo_text(root, "title", path, m->title, sizeof m->title, err)) ||
      (rc = weft_zoo_text(root, "source", path, m->source, sizeof m->source, err)) ||
      (rc = weft_zoo_int(root, "global_batch", 0, path, &m->global_batch, err)))
    goto done;
  if (m->arch == WEFT_ARCH_TRANSFORMER) rc = read_transformer(root, path, m, err);
  else if (m->arch == WEFT_ARCH_DLRM) rc = read_dlrm(root, path, m, err);
  else rc = weft_zoo_cnn(root, path, m, err);
done:
  weft_yaml_free(root);
  return rc;
}

int weft_model_read(const char *path, WeftModel *m, WeftError *err) {
  if (!path || !m) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no model file given");
  return read_model(path, NULL, m, err);
}

int weft_model_moe_layers(const WeftModel *m, int lo, int hi) {
  if (m->experts <= 0) return 0;
  int every = m->moe_every > 0 ? m->moe_every : 1;
  if (lo <= m->first_dense) lo = m->first_dense + 1;
  return hi < lo ? 0 : hi / every - (lo - 1) / every;
}

double weft_model_head_dim(const WeftModel *m) {
  return m->head_dim > 0 ? m->head_dim : (double)m->hidden / m->heads;
}

void weft_model_widths(const WeftModel *m, WeftModelWidths *w) {
  memset(w, 0, sizeof *w);
  w->kv_heads = m->kv_heads > 0 ? m->kv_heads : m->heads;
  w->dqk = w->dv = weft_model_head_dim(m);
  if (m->kv_lora_rank > 0) {
    w->kv_heads = m->heads;
    w->dqk = m->qk_nope_head_dim + m->qk_rope_head_dim;
    w->dv = m->v_head_dim;
    w->q_lora = m->q_lora_rank;
    w->kv_lora = m->kv_lora_rank;
    w->rope = m->qk_rope_head_dim;
  }
  w->ffn = m->ffn_hidden > 0 ? m->ffn_hidden : 4.0 * m->hidden;
  w->moe_ffn = m->moe_ffn_hidden > 0 ? m->moe_ffn_hidden : w->ffn;
  w->ffn_matrices = m->ffn_matrices > 0 ? m->ffn_matrices : 2;
}

double weft_dropout(const WeftModel *m, const WeftParallel *par, int hidden) {
  double run = par ? (hidden ? par->hidden_dropout : par->attention_dropout) : -1.0;
  return run >= 0 ? run : hidden ? m->hidden_dropout : m->attention_dropout;
}

double weft_model_attention_params(const WeftModel *m) {
  double h = m->hidden, a = m->heads;
  if (m->kv_lora_rank > 0) { /* MLA: latents (with their RMSNorm), up-projections, output */
    double ql = m->q_lora_rank, kl = m->kv_lora_rank, rope = m->qk_rope_head_dim;
    double dqk = m->qk_nope_head_dim + rope, dv = m->v_head_dim;
    double q = ql > 0 ? h * ql + ql + ql * a * dqk : h * a * dqk;
    return q + h * (kl + rope) + kl + kl * a * (m->qk_nope_head_dim + dv) + a * dv * h;
  }
  double d = weft_model_head_dim(m), q = a * d;          /* Q's and the output's width */
  double kv = (m->kv_heads > 0 ? m->kv_heads : a) * d; /* K and V widths (GQA) */
  return 2.0 * h * q + 2.0 * h * kv + (weft_model_biased(m) ? q + h + 2.0 * kv : 0.0);
}

/* Parameters of a transformer: its traits (zoo_family.c) say whether the
 * linear layers have biases, whether the norms are LayerNorm (gamma, beta)
 * or RMSNorm (gamma), whether learned positions are added to the token
 * embedding and whether the output layer is tied to it.
 * active = 1: the parameters one token goes through (top_k routed experts). */
static double transformer_params(const WeftModel *m, int active) {
  double h = m->hidden, f = m->ffn_hidden, v = m->vocab, s = m->seq_len, e = m->experts;
  double fe = m->moe_ffn_hidden > 0 ? m->moe_ffn_hidden : f;
  int bias = weft_model_biased(m);
  double attn = weft_model_attention_params(m);
  double ffn = m->ffn_matrices * h * f + (bias ? f + h : 0.0);
  double expert = m->ffn_matrices * h * fe + (bias ? fe + h : 0.0);
  double norm = weft_model_layernorm(m) ? 2.0 * h : h;
  double l = m->layers, moe = weft_model_moe_layers(m, 1, m->layers);
  double routed = active ? m->top_k : e;
  double layer = attn + 2.0 * norm + (m->sinks ? m->heads : 0);
  /* MTP: a layer of the last layer's kind, the 2h x h projection, 3 norms */
  double last = weft_model_moe_layers(m, m->layers, m->layers)
                    ? (routed + m->shared_experts) * expert + h * e : ffn;
  double mtp = m->mtp_layers * (layer + last + 2.0 * h * h + 3.0 * norm);
  return l * layer + (l - moe) * ffn + moe * ((routed + m->shared_experts) * expert + h * e) +
         v * h + (weft_model_rotary(m) ? 0.0 : s * h) + (weft_model_tied(m) ? 0.0 : v * h) +
         norm + mtp;
}

double weft_model_active_params(const WeftModel *m) {
  if (m && m->arch == WEFT_ARCH_TRANSFORMER)
    return m->heads > 0 ? transformer_params(m, 1) : 0.0;
  return weft_model_params(m);
}

double weft_model_params(const WeftModel *m) {
  if (!m) return 0.0;
  if (m->arch == WEFT_ARCH_TRANSFORMER) return m->heads > 0 ? transformer_params(m, 0) : 0.0;
  double p = 0.0;
  for (int i = 0; i < m->nlayers; i++) p += m->layer[i].params;
  if (m->arch == WEFT_ARCH_DLRM) p += m->tables * m->table_rows * m->emb_dim;
  return p;
}

/* ------------------------------------------------------------------ the zoo directory */

static int cmp_name(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

static void lower_strerror(int e, char *buf, size_t size) {
  snprintf(buf, size, "%s", strerror(e));
  if (buf[0] >= 'A' && buf[0] <= 'Z') buf[0] = (char)(buf[0] - 'A' + 'a');
}

int weft_zoo_list(const char *zoo_dir, char (*names)[WEFT_NAME_LEN], int max, int *count,
                  WeftError *err) {
  char dir[WEFT_PATH_LEN], why[128];
  if (count) *count = 0;
  if (!zoo_dir || !count || (max > 0 && !names))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "weft_zoo_list: bad arguments");
  if (snprintf(dir, sizeof dir, "%s/models", zoo_dir) >= (int)sizeof dir)
    return weft_error_set(err, WEFT_EINVAL, zoo_dir, 0, 0, NULL, "zoo path too long");
  int rc0 = weft_zoo_check(zoo_dir, err);
  if (rc0) return rc0;
  DIR *d = opendir(dir);
  if (!d) {
    lower_strerror(errno, why, sizeof why);
    return weft_error_set(err, WEFT_EIO, dir, 0, 0, NULL, "cannot open directory: %s", why);
  }
  char(*all)[WEFT_NAME_LEN] = NULL;
  int n = 0, cap = 0, rc = WEFT_OK;
  for (struct dirent *de; (de = readdir(d));) {
    size_t len = strlen(de->d_name);
    if (de->d_name[0] == '.' || len < 5 || strcmp(de->d_name + len - 4, ".yml") != 0) continue;
    if (len - 4 >= WEFT_NAME_LEN) {
      rc = weft_error_set(err, WEFT_EINPUT, dir, 0, 0, NULL,
                          "model file name '%s' is longer than %d characters before .yml",
                          de->d_name, WEFT_NAME_LEN - 1);
      break;
    }
    if (n == cap) {
      int ncap = cap ? 2 * cap : 16;
      void *p = realloc(all, (size_t)ncap * sizeof *all);
      if (!p) {
        rc = weft_error_set(err, WEFT_ENOMEM, dir, 0, 0, NULL, "out of memory listing models");
        break;
      }
      all = p;
      cap = ncap;
    }
    snprintf(all[n++], WEFT_NAME_LEN, "%.*s", (int)(len - 4), de->d_name);
  }
  closedir(d);
  if (!rc) {
    if (n > 1) qsort(all, (size_t)n, sizeof *all, cmp_name);
    for (int i = 0; i < n && i < max; i++) memcpy(names[i], all[i], WEFT_NAME_LEN);
    *count = n;
  }
  free(all);
  return rc;
}

/* "unknown model 'x' (available: a, b, ...)" in the models directory. */
static int unknown_model(const char *zoo_dir, const char *name, WeftError *err) {
  enum { SHOW = 64 };
  char names[SHOW][WEFT_NAME_LEN], list[200] = "", dir[WEFT_PATH_LEN];
  int n, rc = weft_zoo_list(zoo_dir, names, SHOW, &n, err);
  if (rc) return rc;
  size_t used = 0;
  for (int i = 0; i < n; i++) {
    if (i >= SHOW || used + strlen(names[i]) + 8 >= sizeof list) {  /* room left for ", ..." */
      snprintf(list + used, sizeof list - used, ", ...");
      break;
    }
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
  }
  snprintf(dir, sizeof dir, "%s/models", zoo_dir);
  if (n == 0)
    return weft_error_set(err, WEFT_EINPUT, dir, 0, 0, "model",
                          "unknown model '%s' (the zoo has no models)", name);
  return weft_error_set(err, WEFT_EINPUT, dir, 0, 0, "model",
                        "unknown model '%s' (available: %s)", name, list);
}

static int is_path(const char *name) {
  size_t n = strlen(name);
  return strchr(name, '/') || (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
         (n > 5 && strcmp(name + n - 5, ".yaml") == 0);
}

int weft_zoo_model(const char *zoo_dir, const char *name, WeftModel *m, WeftError *err) {
  if (!name || !name[0] || !m)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "model", "no model name given");
  if (is_path(name)) return read_model(name, NULL, m, err);
  if (!zoo_dir)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "model", "no zoo directory given");
  char path[WEFT_PATH_LEN];
  if (snprintf(path, sizeof path, "%s/models/%s.yml", zoo_dir, name) >= (int)sizeof path)
    return weft_error_set(err, WEFT_EINVAL, zoo_dir, 0, 0, "model", "zoo path too long");
  struct stat st;
  int rc = weft_zoo_check(zoo_dir, err);
  if (rc) return rc;
  if (stat(path, &st) != 0 && errno == ENOENT) return unknown_model(zoo_dir, name, err);
  return read_model(path, name, m, err);
}

/* ------------------------------------------------------------------ devices */
