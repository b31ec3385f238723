/* zoo.h — internal (not public API): helpers shared by the model-file readers,
 * zoo.c (files, transformers, DLRM), zoo_device.c (devices) and zoo_cnn.c
 * (CNN layer lists). */
#ifndef WEFT_MODEL_ZOO_H
#define WEFT_MODEL_ZOO_H

#include "io/yaml.h"
#include "weft.h"

/* The value of key in map as an integer > 0 into *out. When the key is
 * absent: *out = def if def > 0, else "missing key". Errors name file, line
 * and the key. */
int weft_zoo_int(const WeftYamlNode *map, const char *key, int def, const char *file, int *out,
                 WeftError *err);

/* A number > 0 (at most WEFT_MAX_ZOO_FIGURE) under a required key. */
int weft_zoo_pos_double(const WeftYamlNode *map, const char *key, const char *file, double *out,
                        WeftError *err);
/* An optional probability in [0, 1] under key (unchanged when absent). */
int weft_zoo_prob(const WeftYamlNode *map, const char *key, const char *file, double *out,
                  WeftError *err);
/* Optional text under key into out[size] (unchanged when absent). */
int weft_zoo_text(const WeftYamlNode *map, const char *key, const char *file, char *out,
                  size_t size, WeftError *err);

/* Append a layer to m->layer[]; "more than WEFT_MAX_MODEL_LAYERS" at node at
 * (field) when full. */
int weft_zoo_layer(WeftModel *m, const char *name, double fwd_flops, double params,
                   double act_elems, const char *file, const WeftYamlNode *at, const char *field,
                   WeftError *err);

/* CNN: `input` and `layers` of root expanded into m->layer[] (zoo_cnn.c). */
int weft_zoo_cnn(const WeftYamlNode *root, const char *file, WeftModel *m, WeftError *err);

/* MoE layers among layers lo..hi (1-based): every moe_every-th layer past
 * the first_dense dense ones; 0 for dense models. */
int weft_model_moe_layers(const WeftModel *m, int lo, int hi);
/* Standard attention's per-head width: head_dim, else hidden / heads. */
double weft_model_head_dim(const WeftModel *m);
/* A transformer's widths as every derivation reads them: key/value heads
 * (MLA: every head has its own K and V after the up-projection), the query
 * and key width per head and the value's, MLA's latents and rotary part (0
 * without MLA), the MLP's width (ffn_hidden, else 4 x hidden), an expert's
 * (moe_ffn_hidden, else the MLP's), the MLP's matrices (2, or 3 gated). */
typedef struct {
  double kv_heads, dqk, dv, q_lora, kv_lora, rope, ffn, moe_ffn, ffn_matrices;
} WeftModelWidths;
void weft_model_widths(const WeftModel *m, WeftModelWidths *w);
/* The dropout probability a run applies: the run's (par->hidden_dropout
 * when hidden, else par->attention_dropout) when >= 0, else the model's. */
double weft_dropout(const WeftModel *m, const WeftParallel *par, int hidden);
/* The transformer's traits, the model file's or its FFN family's
 * (WeftModel.linear_bias and the rest; zoo_family.c): 1 or 0. */
int weft_model_biased(const WeftModel *m);
int weft_model_layernorm(const WeftModel *m);
int weft_model_rotary(const WeftModel *m);
int weft_model_tied(const WeftModel *m);
/* key's word under map, a (1) or b (-1), into *out; absent: unchanged; any
 * other value "key must be a or b, got ..." at its node. */
int weft_zoo_word(const WeftYamlNode *map, const char *key, const char *a, const char *b,
                  const char *file, int *out, WeftError *err);
/* `ffn` (gelu, swiglu or relu2) and the traits' keys `bias`, `norm`
 * (layernorm or rmsnorm), `positions` (learned or rotary) and
 * `tied_embeddings` of a transformer's model file into m; errors name the
 * file, line and key. */
int weft_zoo_family(const WeftYamlNode *r, const char *file, WeftModel *m, WeftError *err);
/* One layer's attention parameters: Q, K, V and output projections (GQA,
 * biases in the GeLU family), or MLA's latent and up-projections. */
double weft_model_attention_params(const WeftModel *m);

/* A name-keyed table of the zoo (devices.yml, clusters.yml): parse(key,
 * value, file, out of size bytes, err) reads one entry. */
typedef struct {
  const char *file;   /* "devices.yml" */
  const char *what;   /* "device": in messages and as the error's field */
  const char *holds;  /* "their figures": "expected a mapping of device names to ..." */
  size_t size;
  int (*parse)(const WeftYamlNode *k, const WeftYamlNode *v, const char *file, void *out,
               WeftError *err);
} WeftZooTable;
/* Parse every entry of zoo_dir/t->file (all are checked). Either one entry:
 * want (non-empty) copied into one; or the list: the first max into arr,
 * *count the number of entries. */
int weft_zoo_table(const WeftZooTable *t, const char *zoo_dir, const char *want, void *one,
                   void *arr, int max, int *count, WeftError *err);

#endif
