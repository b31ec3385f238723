/* scenario_parts.c — a scenario's network bound to the parts catalog: the
 * built-in catalog beside the zoo, the user's file over it (docs/parts.md). */
#include <stdio.h>
#include <string.h>

#include "io/zoo_dir.h"
#include "weft.h"

int weft_scenario_bind_parts(WeftScenario *sc, const char *zoo_dir, const char *parts_file,
                             WeftError *err) {
  if (!sc) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no scenario");
  memset(sc->parts, 0, sizeof sc->parts);
  sc->parts_file[0] = '\0';
  if (!weft_network_has_parts(&sc->net) && !parts_file) return WEFT_OK;
  char builtin[WEFT_PATH_LEN];
  snprintf(builtin, sizeof builtin, "%s/../parts", zoo_dir ? zoo_dir : WEFT_ZOO_DIR_DEFAULT);
  WeftParts *cat;
  int rc = weft_parts_read(builtin, parts_file, &cat, err);
  if (rc) return rc;
  rc = weft_network_bind_parts(&sc->net, &sc->cost, cat, sc->parts, err);
  weft_parts_free(cat);
  if (rc) {
    memset(sc->parts, 0, sizeof sc->parts);
    return rc;
  }
  if (parts_file) snprintf(sc->parts_file, sizeof sc->parts_file, "%s", parts_file);
  return WEFT_OK;
}
