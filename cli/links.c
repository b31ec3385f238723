/* links.c — --link-gbps and --max-links: per-dim lists onto the network,
 * under the rule every entry point shares (weft_network_set_links). */
#include <string.h>

#include "cli.h"

/* A comma-separated list of numbers into out[]: the count, or -1 (printed). */
static int numbers(const char *flag, const char *v, double *out) {
  int n = 0;
  for (const char *p = v;; n++) {
    const char *c = strchr(p, ',');
    size_t l = c ? (size_t)(c - p) : strlen(p);
    while (l && (*p == ' ' || *p == '\t')) p++, l--;
    while (l && (p[l - 1] == ' ' || p[l - 1] == '\t')) l--;
    const char *why = NULL;
    if (n >= WEFT_MAX_DIMS) {
      cli_fail("%s '%s': more than %d entries", flag, v, WEFT_MAX_DIMS);
      return -1;
    }
    if (weft_number_parse(p, l, &out[n], &why)) {
      cli_fail("%s '%s': entry %d (B%d) is %s: '%.*s'", flag, v, n + 1, n + 1, why, (int)l, p);
      return -1;
    }
    if (!c) return n + 1;
    p = c + 1;
  }
}

int cli_links_apply(const char *rates, const char *maxes, WeftNetwork *net) {
  double r[WEFT_MAX_DIMS], m[WEFT_MAX_DIMS];
  int nr = 0, nm = 0;
  if (!rates && !maxes) return EXIT_OK;
  if ((rates && (nr = numbers("--link-gbps", rates, r)) < 0) ||
      (maxes && (nm = numbers("--max-links", maxes, m)) < 0))
    return EXIT_USAGE;
  WeftError err;
  weft_error_clear(&err);
  if (weft_network_set_links(net, rates ? r : NULL, nr, maxes ? m : NULL, nm, "--link-gbps",
                             "--max-links", &err)) {
    cli_error(&err);
    return EXIT_USAGE;
  }
  return EXIT_OK;
}
