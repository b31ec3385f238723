/* parts_report.c — the optimize report's parts: each dim's part, links per
 * NPU, $ and W per GB/s, and the network's bill of materials (docs/parts.md). */
#include <math.h>

#include "cli.h"

/* The optimize report's: links from the whole-link solve, else B_d / rate. */
static WeftPartsBom bom(const Report *r, int d) {
  const WeftDimParts *p = &r->parts[d];
  double bw = r->res->bw_gbps[d];
  double links = r->whole && r->whole->link_gbps[d] > 0.0 ? r->whole->links[d] : bw / p->rate_gbps;
  WeftPartsBom b;
  weft_parts_bom(r->spec->net, p, d, bw, links, &b);
  return b;
}

void cli_bom_table(FILE *out, const WeftNetwork *net, const WeftDimParts *parts,
                   const double *bw, const double *links, const WeftSystemCost *sys) {
  fprintf(out, "  %-4s %12s %12s %12s %12s %10s %16s %14s\n", "dim", "links_nics", "sw_ports",
          "optics", "cables", "switches", "cost_usd", "power_w");
  double cost = 0.0, power = 0.0;
  for (int d = 0; d < net->ndims; d++) {
    if (!parts[d].part[0]) continue;
    WeftPartsBom b;
    weft_parts_bom(net, &parts[d], d, bw[d], links[d], &b);
    fprintf(out, "  B%-3d %12.0f %12.0f %12.0f %12.0f %10.0f %16.2f %14.2f\n", d + 1, b.endpoints,
            b.switch_ports, b.optics, b.cables, b.switches, b.cost_usd, b.power_w);
    cost += b.cost_usd;
    power += b.power_w;
  }
  if (sys) { /* the NPUs themselves, spares included */
    double n = weft_network_npus_bought(net);
    fprintf(out, "  %-4s %12.0f %12s %12s %12s %10s %16.2f %14.2f\n", "npus", n, "", "", "", "",
            n * sys->npu_usd, n * sys->npu_power_w);
    cost += n * sys->npu_usd;
    power += n * sys->npu_power_w;
  }
  fprintf(out, "  %-4s %12s %12s %12s %12s %10s %16.2f %14.2f\n", "all", "", "", "", "", "", cost,
          power);
}

void report_parts_table(FILE *out, const Report *r) {
  const WeftNetwork *net = r->spec->net;
  fprintf(out, "\n  parts (per NPU and link: counts; per GB/s of B_d: usd, w)\n");
  fprintf(out, "  %-4s %-14s %6s %12s %10s %6s %8s %8s %6s\n", "dim", "part", "links",
          "usd_per_gbps", "w_per_gbps", "tiers", "sw_ports", "optics", "cables");
  for (int d = 0; d < net->ndims; d++) {
    const WeftDimParts *p = &r->parts[d];
    if (!p->part[0]) continue;
    WeftPartsBom b = bom(r, d);
    fprintf(out, "  B%-3d %-14s %6g %12.6f %10.6f %6d %8.4f %8.4f %6.4f\n", d + 1, p->part,
            b.links, p->usd_per_gbps, p->w_per_gbps, p->tiers, p->switch_ports, p->optics,
            p->cables);
  }
  fprintf(out, "\n  bill of materials (whole network)\n");
  double bw[WEFT_MAX_DIMS], links[WEFT_MAX_DIMS];
  for (int d = 0; d < net->ndims; d++) {
    bw[d] = r->res->bw_gbps[d];
    links[d] = r->parts[d].part[0] ? bom(r, d).links : 0.0;
  }
  cli_bom_table(out, net, r->parts, bw, links, r->system ? &r->sys : NULL);
}

static void num_field(FILE *out, const char *key, double v);

void cli_bom_json(FILE *out, const WeftPartsBom *b) {
  fputs("{\"links_per_npu\": ", out);
  cli_json_num(out, b->links);
  num_field(out, "endpoints", b->endpoints);
  num_field(out, "switch_ports", b->switch_ports);
  num_field(out, "optics", b->optics);
  num_field(out, "cables", b->cables);
  num_field(out, "switches", b->switches);
  num_field(out, "cost_usd", b->cost_usd);
  num_field(out, "power_w", b->power_w);
  fputc('}', out);
}

static void str_field(FILE *out, const char *key, const char *v) {
  fprintf(out, ", \"%s\": ", key);
  if (v[0]) cli_json_str(out, v);
  else fputs("null", out);
}

static void num_field(FILE *out, const char *key, double v) {
  fprintf(out, ", \"%s\": ", key);
  cli_json_num(out, v);
}

void report_parts_json(FILE *out, const Report *r) {
  const WeftNetwork *net = r->spec->net;
  int solved = r->res->status == WEFT_STATUS_SOLVED;
  fputs("  \"parts\": [", out);
  for (int d = 0; d < net->ndims; d++) {
    const WeftDimParts *p = &r->parts[d];
    fprintf(out, "%s\n    {\"dim\": %d", d ? "," : "", d + 1);
    str_field(out, "part", p->part);
    if (!p->part[0]) {
      fputc('}', out);
      continue;
    }
    num_field(out, "link_gbps", p->rate_gbps);
    num_field(out, "usd_per_gbps", p->usd_per_gbps);
    num_field(out, "w_per_gbps", p->w_per_gbps);
    num_field(out, "link_usd_per_gbps", p->link_usd_per_gbps);
    num_field(out, "nic_usd_per_gbps", p->nic_usd_per_gbps);
    num_field(out, "switch_usd_per_gbps", p->switch_usd_per_gbps);
    fprintf(out, ", \"tiers\": %d, \"radix\": %d", p->tiers, p->radix);
    num_field(out, "oversubscription", p->tiers ? p->oversub : (double)NAN);
    str_field(out, "switch", p->switch_name);
    str_field(out, "attach", p->attach_name);
    str_field(out, "uplink", p->uplink_name);
    fputs(", \"per_link\": {\"endpoints\": ", out);
    cli_json_num(out, p->endpoints);
    num_field(out, "switch_ports", p->switch_ports);
    num_field(out, "optics", p->optics);
    num_field(out, "cables", p->cables);
    fputs("}, \"total\": ", out);
    if (!solved) {
      fputs("null}", out);
      continue;
    }
    WeftPartsBom b = bom(r, d);
    cli_bom_json(out, &b);
    fputc('}', out);
  }
  fputs("\n  ],\n", out);
}

/* Combination k's parts, "a,b,c", into buf. */
static const char *combo(const Report *r, int k, char *buf, size_t size) {
  size_t at = 0;
  buf[0] = '\0';
  for (int d = 0; d < r->spec->net->ndims && at < size; d++) {
    char one[WEFT_NAME_LEN];
    weft_parts_choice_name(r->choices, k, d, one, sizeof one);
    at += (size_t)snprintf(buf + at, size - at, "%s%s", d ? "," : "", one[0] ? one : "-");
  }
  return buf;
}

void report_choices_table(FILE *out, const Report *r) {
  const WeftPartChoices *pc = r->choices;
  fprintf(out, "part choices: %d combinations, each solved on whole links", pc->n);
  if (pc->best >= 0) fprintf(out, "; best %d", pc->best + 1);
  fputc('\n', out);
  for (int k = 0; k < pc->n; k++) {
    char buf[WEFT_MAX_DIMS * WEFT_NAME_LEN];
    fprintf(out, "  %2d %-40s %s", k + 1, combo(r, k, buf, sizeof buf),
            weft_status_name(pc->status[k]));
    if (pc->status[k] == WEFT_STATUS_SOLVED)
      fprintf(out, ", objective %.9g, time_ms %.6f, cost_usd %.2f", pc->objective[k],
              pc->time_ns[k] / 1e6, pc->cost_usd[k]);
    fprintf(out, "%s\n", k == pc->best ? "  <- best" : "");
  }
}

void report_choices_json(FILE *out, const Report *r) {
  const WeftPartChoices *pc = r->choices;
  fputs("  \"part_choices\": [", out);
  for (int k = 0; k < pc->n; k++) {
    int ok = pc->status[k] == WEFT_STATUS_SOLVED;
    fprintf(out, "%s\n    {\"parts\": [", k ? "," : "");
    for (int d = 0; d < r->spec->net->ndims; d++) {
      char one[WEFT_NAME_LEN];
      fputs(d ? ", " : "", out);
      weft_parts_choice_name(pc, k, d, one, sizeof one);
      if (one[0]) cli_json_str(out, one);
      else fputs("null", out);
    }
    fputs("], \"status\": ", out);
    cli_json_str(out, weft_status_name(pc->status[k]));
    num_field(out, "objective", ok ? pc->objective[k] : (double)NAN);
    num_field(out, "time_ns", ok ? pc->time_ns[k] : (double)NAN);
    num_field(out, "cost_usd", ok ? pc->cost_usd[k] : (double)NAN);
    fprintf(out, ", \"best\": %s}", k == pc->best ? "true" : "false");
  }
  fputs("\n  ],\n", out);
}
