/* scenario_path.c — a file named in a scenario, relative to the scenario's
 * directory: shared by scenario.c (network, workloads) and scenario_model.c
 * (model jobs), below both. */
#include <stdio.h>
#include <string.h>

#include "io/scenario.h"

int weft_scenario_resolve(const char *scfile, const WeftYamlNode *v, const char *field,
                          char *out, WeftError *err) {
  if (v->kind != WEFT_YAML_SCALAR || v->len == 0) {
    char got[96];
    weft_yaml_describe(v, got, sizeof got);
    return weft_error_set(err, WEFT_EINPUT, scfile, v->line, v->col, field,
                          "%s must be a file name or a mapping, got %s", field, got);
  }
  const char *slash = strrchr(scfile, '/');
  int dirlen = v->text[0] == '/' || !slash ? 0 : (int)(slash - scfile) + 1;
  if ((size_t)dirlen + v->len >= WEFT_PATH_LEN)
    return weft_error_set(err, WEFT_EINPUT, scfile, v->line, v->col, field,
                          "%s: path longer than %d characters", field, WEFT_PATH_LEN - 1);
  snprintf(out, WEFT_PATH_LEN, "%.*s%s", dirlen, scfile, v->text);
  return WEFT_OK;
}
