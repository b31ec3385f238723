/* zoo_field.c — the fields every zoo file reader shares (zoo.c, zoo_cnn.c,
 * zoo_device.c): a count > 0, a positive figure, optional text, and a layer
 * appended to a model. Below the readers, so none depends on another. */
#include <stdio.h>
#include <string.h>

#include "io/limits.h"
#include "model/zoo.h"

int weft_zoo_int(const WeftYamlNode *map, const char *key, int def, const char *file, int *out,
                 WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  if (!v) {
    if (def > 0) {
      *out = def;
      return WEFT_OK;
    }
    return weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, key, "missing key '%s'",
                          key);
  }
  int rc = weft_yaml_int(v, file, key, NULL, out, err);
  if (rc) return rc;
  if (*out <= 0)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key, "%s must be > 0, got %d",
                          key, *out);
  return WEFT_OK;
}

int weft_zoo_layer(WeftModel *m, const char *name, double fwd_flops, double params,
                   double act_elems, const char *file, const WeftYamlNode *at, const char *field,
                   WeftError *err) {
  if (m->nlayers == WEFT_MAX_MODEL_LAYERS)
    return weft_error_set(err, WEFT_EINPUT, file, at->line, at->col, field,
                          "the model expands to more than %d layers", WEFT_MAX_MODEL_LAYERS);
  WeftModelLayer *l = &m->layer[m->nlayers++];
  snprintf(l->name, sizeof l->name, "%s", name);
  l->fwd_flops = fwd_flops;
  l->params = params;
  l->act_elems = act_elems;
  return WEFT_OK;
}

int weft_zoo_pos_double(const WeftYamlNode *map, const char *key, const char *file, double *out,
                        WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  if (!v)
    return weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, key, "missing key '%s'",
                          key);
  WeftRange range = WEFT_RANGE_ZOO_FIGURE;  /* > 0, at most 1e12 */
  return weft_yaml_double_in(v, file, key, NULL, &range, out, err);
}

int weft_zoo_prob(const WeftYamlNode *map, const char *key, const char *file, double *out,
                  WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  if (!v) return WEFT_OK;
  WeftRange range = WEFT_RANGE_PROB;
  return weft_yaml_double_in(v, file, key, NULL, &range, out, err);
}

int weft_zoo_text(const WeftYamlNode *map, const char *key, const char *file, char *out,
                  size_t size, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  if (!v) return WEFT_OK;
  char got[96];
  weft_yaml_describe(v, got, sizeof got);
  if (v->kind != WEFT_YAML_SCALAR || v->len == 0)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key,
                          "%s must be text, got %s", key, got);
  if (v->len >= size)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key,
                          "%s is longer than %zu characters", key, size - 1);
  memcpy(out, v->text, v->len + 1);
  return WEFT_OK;
}
