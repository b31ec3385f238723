/* links.c — --link-gbps, --max-links and --active: per-dim lists onto the
 * network, under the rules every entry point shares (weft_network_set_links,
 * weft_network_set_active). */
#include <string.h>

#include "cli.h"

int cli_numbers(const char *flag, const char *v, double *out) {
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
      cli_fail("%s '%s': entry %d (dim %d) is %s: '%.*s'", flag, v, n + 1, n + 1, why, (int)l, p);
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
  if ((rates && (nr = cli_numbers("--link-gbps", rates, r)) < 0) ||
      (maxes && (nm = cli_numbers("--max-links", maxes, m)) < 0))
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

int cli_active_apply(const char *active, WeftNetwork *net, WeftError *err) {
  double a[WEFT_MAX_DIMS];
  int n;
  if (!active) return WEFT_OK;
  if ((n = cli_numbers("--active", active, a)) < 0)  /* cli_inputs_check parsed it already */
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "--active", "--active '%s' is not a list",
                          active);
  return weft_network_set_active(net, a, n, "", NULL, "--active", err);
}

void cli_spares_head(FILE *out, const WeftNetwork *net) {
  double all = weft_network_npus_bought(net), work = weft_network_npus_total(net);
  if (all > work) fprintf(out, " + %.0f spares (%.0f bought)", all - work, all);
}

void cli_spares_dim(FILE *out, const WeftNetwork *net, int d) {
  if (net->fabric[d] != WEFT_SHAPE_TREE)  /* its fabric shape, when not LIBRA's */
    fprintf(out, "  %s", weft_dim_shape_name((WeftDimShape)net->fabric[d]));
  if (net->planes[d] > 1) fprintf(out, "  %d planes", net->planes[d]);
  if (net->spares[d] > 0)
    fprintf(out, "  (%d of %d work: %d spares)", net->npus[d], net->npus[d] + net->spares[d],
            net->spares[d]);
}

void cli_spares_json(FILE *out, const WeftNetwork *net, int d) {
  if (d < 0 && weft_network_npus_bought(net) > weft_network_npus_total(net))
    fprintf(out, "  \"npus\": %.0f,\n  \"spares\": %.0f,\n", weft_network_npus_total(net),
            weft_network_npus_bought(net) - weft_network_npus_total(net));
  if (d >= 0 && net->spares[d] > 0) fprintf(out, ", \"spares\": %d", net->spares[d]);
  if (d >= 0 && net->fabric[d] != WEFT_SHAPE_TREE)
    fprintf(out, ", \"fabric\": \"%s\"", weft_dim_shape_name((WeftDimShape)net->fabric[d]));
  if (d >= 0 && net->planes[d] > 1) fprintf(out, ", \"planes\": %d", net->planes[d]);
}
