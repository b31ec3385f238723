/* zoo_parts.c — `weft zoo --parts`: the parts catalog (docs/parts.md) beside
 * the zoo, as a table or JSON, each figure's estimate marked. */
#include <stdio.h>

#include "cli.h"

static const char *const EST_NAMES[3] = {"rate_gbps", "price_usd", "power_w"};

static void table(FILE *out, const WeftParts *cat) {
  fprintf(out, "%-18s %-7s %9s %7s %7s %9s %9s  %s\n", "part", "kind", "rate_gbps", "ports",
          "max", "price_usd", "power_w", "title (* estimate)");
  for (int i = 0; i < weft_parts_count(cat); i++) {
    const WeftPart *p = weft_parts_at(cat, i);
    char rate[16] = "-", ports[16] = "-", max[16] = "-", price[24], power[24];
    if (p->rate_gbps > 0) snprintf(rate, sizeof rate, "%g", p->rate_gbps);
    if (p->ports) snprintf(ports, sizeof ports, "%d", p->ports);
    if (p->max_per_npu) snprintf(max, sizeof max, "%d", p->max_per_npu);
    snprintf(price, sizeof price, "%g%s", p->price_usd,
             p->estimate & WEFT_PART_EST_PRICE ? "*" : "");
    snprintf(power, sizeof power, "%g%s", p->power_w,
             p->estimate & WEFT_PART_EST_POWER ? "*" : "");
    fprintf(out, "%-18s %-7s %9s %7s %7s %9s %9s  %s\n", p->name, weft_part_kind_name(p->kind),
            rate, ports, max, price, power, p->title);
  }
}

static void str(FILE *out, const char *key, const char *v) {
  fprintf(out, ", \"%s\": ", key);
  if (v[0]) cli_json_str(out, v);
  else fputs("null", out);
}

static void json(FILE *out, const WeftParts *cat) {
  fputs("{\n  \"parts\": [", out);
  for (int i = 0; i < weft_parts_count(cat); i++) {
    const WeftPart *p = weft_parts_at(cat, i);
    fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
    cli_json_str(out, p->name);
    str(out, "kind", weft_part_kind_name(p->kind));
    str(out, "title", p->title);
    fputs(", \"rate_gbps\": ", out);
    cli_json_num(out, p->rate_gbps);
    fprintf(out, ", \"ports\": %d, \"max_per_npu\": %d, \"reach_m\": ", p->ports, p->max_per_npu);
    cli_json_num(out, p->reach_m);
    fputs(", \"price_usd\": ", out);
    cli_json_num(out, p->price_usd);
    fputs(", \"power_w\": ", out);
    cli_json_num(out, p->power_w);
    fputs(", \"oversubscription\": ", out);
    cli_json_num(out, p->oversub);
    str(out, "switch", p->switch_part);
    str(out, "attach", p->attach);
    str(out, "uplink", p->uplink);
    fputs(", \"estimate\": [", out);
    for (int k = 0, n = 0; k < 3; k++)
      if (p->estimate & (1 << k)) fprintf(out, "%s\"%s\"", n++ ? ", " : "", EST_NAMES[k]);
    fputc(']', out);
    str(out, "source", p->source);
    fputc('}', out);
  }
  fputs("\n  ]\n}\n", out);
}

int cli_zoo_parts(const char *zoo, const char *file, int as_json) {
  char builtin[WEFT_PATH_LEN];
  snprintf(builtin, sizeof builtin, "%s/../parts", zoo);
  WeftParts *cat;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_parts_read(builtin, file, &cat, &err);
  if (rc) {
    cli_error(&err);
    return rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
  }
  if (as_json) json(stdout, cat);
  else table(stdout, cat);
  weft_parts_free(cat);
  return EXIT_OK;
}
