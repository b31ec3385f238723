/* mapping.c — parallelization defaults, the TP/PP/DP order, and laying
 * parallel groups onto the network's dims the way LIBRA's communicators do.
 *
 * The mapping rule (weft_map_groups). NPUs are numbered in mixed radix with
 * dim 0 varying fastest; group 0 takes the innermost NPUs, group 1 the next
 * ones, and so on, so each group spans a contiguous run of dims and a dim may
 * be split between neighbouring groups. Walk the dims from 0 keeping each
 * dim's remaining capacity cap[d] (its NPUs not yet taken). A group with g
 * NPUs still to place takes take = min(g, cap[d]) NPUs of the current dim,
 * which must divide both ways (cap[d] % take == 0 and g % take == 0); then
 * cap[d] /= take, g /= take, and a dim with nothing left is left for good
 * (the walk moves on to d + 1 and never comes back: no group uses a dim
 * inner to one an earlier group went past). A group of size 1 spans nothing.
 * When g and cap[d] neither divide the other (6 on a dim of 4, or 3 on 4),
 * the group does not factor over the dims: an error naming the group and the
 * dim. Equivalently: with P_k = s_0 * ... * s_k (group prefix products) and
 * Q_d = n_0 * ... * n_d (dim prefix products), the mapping exists iff every
 * P_k and Q_d are comparable by divisibility, and then group k spans
 * min(P_k, Q_d) / max(P_{k-1}, Q_{d-1}) NPUs of dim d (-1 when that is 1). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "weft.h"

void weft_parallel_default(WeftParallel *par) {
  if (!par) return;
  memset(par, 0, sizeof *par);
  par->tp = par->pp = par->dp = par->ep = par->cp = 1;
  par->micro_batch = 1;
  par->attention = WEFT_ATTENTION_STANDARD;
  par->virtual_stages = 1;
  par->order[0] = WEFT_PAR_TP;
  par->order[1] = WEFT_PAR_PP;
  par->order[2] = WEFT_PAR_DP;
  par->efficiency = 0.0;  /* auto: the device's per-operator model */
  par->act_bytes = par->param_bytes = par->grad_bytes = 2.0;  /* bf16 */
  par->optimizer_bytes = 12.0;  /* fp32 master weights + two Adam moments */
  par->optimizer_step = 1;
  par->overlap_grad_reduce = par->overlap_param_gather = 1;
  par->overlap_p2p = 1;  /* Megatron's default; effective with interleaving */
  par->attention_dropout = par->hidden_dropout = -1.0; /* the model's */
  for (int i = 0; i < WEFT_TPO_NGEMMS; i++) par->tp_overlap_sms[i] = WEFT_TPO_DEFAULT_SMS; /* TE's */
}

static int is_sep(char c) { return c == ',' || c == '-' || c == ' ' || c == '\t'; }

/* "TP,PP,DP", "tp-dp-pp", " dp , tp , pp ": three distinct names of TP, PP,
 * DP in any case, separated by ',' or '-' (spaces around are fine). */
int weft_parallel_order_parse(const char *text, WeftParDim order[3], WeftError *err) {
  static const char *const names[3] = {"TP", "PP", "DP"};  /* index = WeftParDim */
  if (!text || !order)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "order", "no order given");
  WeftParDim got[3];
  int n = 0, seen[3] = {0, 0, 0};
  const char *p = text;
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    const char *b = p;
    while (*p && !is_sep(*p)) p++;
    size_t len = (size_t)(p - b);
    int col = (int)(b - text) + 1;
    if (len == 0)
      return weft_error_set(err, WEFT_EINPUT, "", 0, col, "order",
                            "order '%s': expected TP, PP and DP in some order, separated by ',' "
                            "or '-'",
                            text);
    int k = -1;
    for (int i = 0; i < 3; i++)
      if (len == 2 && strncasecmp(b, names[i], 2) == 0) k = i;
    if (k < 0)
      return weft_error_set(err, WEFT_EINPUT, "", 0, col, "order",
                            "order '%s': unknown group '%.*s' (expected TP, PP or DP)", text,
                            (int)len, b);
    if (seen[k])
      return weft_error_set(err, WEFT_EINPUT, "", 0, col, "order",
                            "order '%s': %s appears twice (it must be a permutation of TP, PP, "
                            "DP)",
                            text, names[k]);
    seen[k] = 1;
    got[n++] = (WeftParDim)k;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) break;
    if (*p != ',' && *p != '-')  /* two names separated by spaces only */
      return weft_error_set(err, WEFT_EINPUT, "", 0, (int)(p - text) + 1, "order",
                            "order '%s': expected ',' or '-' between group names", text);
    p++;
  }
  if (n != 3)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "order",
                          "order '%s' names %d of TP, PP, DP: it must be a permutation of all "
                          "three",
                          text, n);
  memcpy(order, got, sizeof got);
  return WEFT_OK;
}

/* The group's label for messages: its name, or "group k" (1-based). */
static const char *label(const char *const *names, int k, char *buf, size_t size) {
  if (names && names[k] && names[k][0]) return names[k];
  snprintf(buf, size, "group %d", k + 1);
  return buf;
}

int weft_map_groups(const WeftNetwork *net, const int *sizes, const char *const *names,
                    int ngroups, int (*out)[WEFT_MAX_DIMS], WeftError *err) {
  char lb[32];
  if (!net || !sizes || !out || ngroups < 1)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "",
                          !net ? "no network" : !sizes || !out ? "no group sizes or output"
                                                               : "no groups to map");
  if (net->ndims < 1 || net->ndims > WEFT_MAX_DIMS)
    return weft_error_set(err, WEFT_EINVAL, net->file, 0, 0, "",
                          "the network must have 1 to %d dims, got %d", WEFT_MAX_DIMS,
                          net->ndims);
  int cap[WEFT_MAX_DIMS];
  double total = 1.0, prod = 1.0;  /* exact: counts are far below 2^53 */
  for (int d = 0; d < net->ndims; d++) {
    if (net->npus[d] < 1)
      return weft_error_set(err, WEFT_EINVAL, net->file, net->line[d], 0, "NpusCount",
                            "dim %d has %d NPUs", d + 1, net->npus[d]);
    cap[d] = net->npus[d];
    total *= net->npus[d];
  }
  for (int k = 0; k < ngroups; k++) {
    const char *name = label(names, k, lb, sizeof lb);
    if (sizes[k] < 1)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, name, "%s has size %d: must be >= 1",
                            name, sizes[k]);
    prod *= sizes[k];
  }
  if (prod != total) {
    char list[256];
    size_t n = 0;
    for (int k = 0; k < ngroups && n < sizeof list; k++)
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s-%d", k ? " x " : "",
                            label(names, k, lb, sizeof lb), sizes[k]);
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "",
                          "the group sizes multiply to %.0f (%s), the network has %.0f NPUs",
                          prod, list, total);
  }
  int d = 0;
  for (int k = 0; k < ngroups; k++) {
    const char *name = label(names, k, lb, sizeof lb);
    int g = sizes[k];
    for (int e = 0; e < net->ndims; e++) out[k][e] = -1;
    while (g > 1 && d < net->ndims) {
      if (cap[d] == 1) {  /* a dim of one NPU: nothing to span */
        d++;
        continue;
      }
      int take = g < cap[d] ? g : cap[d];
      if (cap[d] % take != 0 || g % take != 0) {
        char what[48], where[64];
        if (g == sizes[k]) snprintf(what, sizeof what, "%d", g);
        else snprintf(what, sizeof what, "its remaining %d", g);
        if (cap[d] == net->npus[d]) snprintf(where, sizeof where, "dim %d's %d NPUs", d + 1, cap[d]);
        else snprintf(where, sizeof where, "the %d NPUs left of dim %d (of %d)", cap[d], d + 1,
                      net->npus[d]);
        return weft_error_set(err, WEFT_EINPUT, "", 0, 0, name,
                              "%s-%d does not factor over the dims: %s does not divide %s, nor "
                              "is a multiple of them",
                              name, sizes[k], what, where);
      }
      out[k][d] = take;
      cap[d] /= take;
      g /= take;
      if (cap[d] == 1) d++;  /* used up: later groups start further out */
    }
    if (g > 1)  /* cannot happen once the products match; kept as a guard */
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, name,
                            "%s-%d does not fit: %d of it is left after the outermost dim", name,
                            sizes[k], g);
  }
  return WEFT_OK;
}
