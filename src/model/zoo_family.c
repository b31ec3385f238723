/* zoo_family.c — a transformer's family traits: the FFN (`ffn: gelu`,
 * `swiglu` or `relu2`) and what it implies unless the model file says
 * otherwise: the linear layers' biases (`bias`), the norm (`norm: layernorm
 * | rmsnorm`), the positions (`positions: learned | rotary`) and the output
 * layer tied to the token embedding (`tied_embeddings`). GPT's family (a
 * 2-matrix MLP) has biases, LayerNorm, learned positions and a tied output
 * layer; Llama's (SwiGLU) and MLA models none of them; Nemotron-4 (NeMo's
 * NemotronConfig: squared ReLU, add_bias_linear False, LayerNorm, rope,
 * share_embeddings_and_output_weights False) mixes them. */
#include <string.h>
#include <strings.h>

#include "model/zoo.h"

static int gpt_family(const WeftModel *m) { return m->ffn_matrices != 3; }

static int trait(int given, int family) { return given ? given > 0 : family; }

int weft_model_biased(const WeftModel *m) { return trait(m->linear_bias, gpt_family(m)); }
int weft_model_layernorm(const WeftModel *m) { return trait(m->layernorm, gpt_family(m)); }
int weft_model_rotary(const WeftModel *m) {
  return trait(m->rotary, m->ffn_matrices == 3 || m->kv_lora_rank > 0);
}
int weft_model_tied(const WeftModel *m) { return trait(m->tied_embeddings, gpt_family(m)); }

int weft_zoo_word(const WeftYamlNode *r, const char *key, const char *a, const char *b,
                  const char *file, int *out, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(r, key, NULL);
  if (!v) return WEFT_OK;
  if (v->kind == WEFT_YAML_SCALAR && (!strcmp(v->text, a) || !strcmp(v->text, b))) {
    *out = !strcmp(v->text, a) ? 1 : -1;
    return WEFT_OK;
  }
  char got[96];
  weft_yaml_describe(v, got, sizeof got);
  return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key, "%s must be %s or %s, got %s",
                        key, a, b, got);
}

/* A boolean key into *out as 1 / -1; absent: unchanged. */
static int flag(const WeftYamlNode *r, const char *key, const char *file, int *out,
                WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(r, key, NULL);
  int b = 0, rc;
  if (!v) return WEFT_OK;
  if ((rc = weft_yaml_bool(v, file, key, &b, err))) return rc;
  *out = b ? 1 : -1;
  return WEFT_OK;
}

int weft_zoo_family(const WeftYamlNode *r, const char *file, WeftModel *m, WeftError *err) {
  const WeftYamlNode *ffn = weft_yaml_get(r, "ffn", NULL);
  m->ffn_matrices = 2;
  m->activation = WEFT_ACT_GELU;
  if (ffn) {
    int ok = ffn->kind == WEFT_YAML_SCALAR;
    if (ok && strcasecmp(ffn->text, "swiglu") == 0)
      m->ffn_matrices = 3;
    else if (ok && strcasecmp(ffn->text, "relu2") == 0)
      m->activation = WEFT_ACT_RELU2;
    else if (!ok || strcasecmp(ffn->text, "gelu") != 0) {
      char got[96];
      weft_yaml_describe(ffn, got, sizeof got);
      return weft_error_set(err, WEFT_EINPUT, file, ffn->line, ffn->col, "ffn",
                            "ffn must be gelu, swiglu or relu2, got %s", got);
    }
  }
  int rc;
  if ((rc = flag(r, "bias", file, &m->linear_bias, err)) ||
      (rc = weft_zoo_word(r, "norm", "layernorm", "rmsnorm", file, &m->layernorm, err)) ||
      (rc = weft_zoo_word(r, "positions", "rotary", "learned", file, &m->rotary, err)) ||
      (rc = flag(r, "tied_embeddings", file, &m->tied_embeddings, err)))
    return rc;
  return WEFT_OK;
}
