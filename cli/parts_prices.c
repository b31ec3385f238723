/* parts_prices.c — --parts on topo and topo-eval: TopoOpt's price table from
 * the parts catalog (built-in beside the zoo, the user's file over it). */
#include <stdio.h>

#include "cli.h"

int cli_parts_prices(const char *zoo, const char *file, WeftPrices *p) {
  char builtin[WEFT_PATH_LEN];
  snprintf(builtin, sizeof builtin, "%s/../parts", zoo ? zoo : cli_zoo_dir());
  WeftParts *cat;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_parts_read(builtin, file, &cat, &err);
  if (!rc) {
    rc = weft_topo_prices_parts(cat, p, &err);
    weft_parts_free(cat);
  }
  if (rc) {
    cli_error(&err);
    return EXIT_USAGE;
  }
  return EXIT_OK;
}
