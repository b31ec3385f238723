/* codesign_text.c — `weft codesign`'s words for a point, shared by every
 * writer (codesign_report.c, codesign_pernet.c): its shape ("SW64/72xSW256[rail-opt]",
 * after the model's name when several, and its cluster's when the networks
 * name different ones), the order and searched knobs
 * ("TP-DP-PP z1 ep8"), the models' names. */
#include <stdio.h>
#include <string.h>

#include "codesign.h"

/* A dim's fabric shape and planes when not the default (docs/search.md):
 * "[torus]", "[rail-opt]", "[rail-only]", "[2pl]", "[rail-opt+2pl]". */
static int shape_tag(const WeftNetwork *net, int d, char *buf, size_t size) {
  static const char *const tag[] = {"", "rail-opt", "rail-only", "torus"};
  int f = net->fabric[d], p = net->planes[d];
  const char *ft = f > 0 && f < 4 ? tag[f] : "";
  if (!ft[0] && p <= 1) return 0;
  if (p <= 1) return snprintf(buf, size, "[%s]", ft);
  return snprintf(buf, size, "[%s%s%dpl]", ft, ft[0] ? "+" : "", p);
}

void cs_shape(const WeftNetwork *net, char *buf, size_t size) {
  static const char *const abbr[] = {"R", "FC", "SW"};
  size_t k = 0;
  buf[0] = '\0';
  for (int d = 0; d < net->ndims && k < size; d++) {
    int t = (int)net->topology[d];
    int w = snprintf(buf + k, size - k, "%s%s%d", d ? "x" : "", t >= 0 && t < 3 ? abbr[t] : "?",
                     net->npus[d]);
    if (w >= 0 && net->spares[d] > 0 && k + (size_t)w < size)  /* "SW64/72": 64 of 72 work */
      w += snprintf(buf + k + (size_t)w, size - k - (size_t)w, "/%d",
                    net->npus[d] + net->spares[d]);
    if (w >= 0 && net->part[d][0] && k + (size_t)w < size)  /* a bound part: "SW8:nvlink4" */
      w += snprintf(buf + k + (size_t)w, size - k - (size_t)w, ":%s", net->part[d]);
    if (w >= 0 && k + (size_t)w < size)  /* its shape: "R8:ici-v5p[torus]" */
      w += shape_tag(net, d, buf + k + (size_t)w, size - k - (size_t)w);
    if (w < 0) break;
    k += (size_t)w;
  }
}

int cs_clusters_differ(const WeftCodesignSpec *spec) {
  for (int i = 1; i < spec->nnets; i++)
    if (strcmp(spec->nets[i].cluster, spec->nets[0].cluster)) return 1;
  return 0;
}

void cs_net_shape(const WeftNetwork *net, int clusters, char *buf, size_t size) {
  size_t k = 0;
  if (size == 0) return;
  if (clusters) k = (size_t)snprintf(buf, size, "%s ", net->cluster[0] ? net->cluster : "-");
  if (k < size) cs_shape(net, buf + k, size - k);
}

void cs_point_shape(const WeftCodesignSpec *spec, int clusters, const WeftDesignPoint *p,
                    char *buf, size_t size) {
  size_t k = 0;
  if (size == 0) return;
  if (spec->nmodels > 1) k = (size_t)snprintf(buf, size, "%s ", spec->models[p->model].name);
  if (k < size) cs_net_shape(&spec->nets[p->net], clusters, buf + k, size - k);
}

void cs_model_names(const WeftCodesignSpec *spec, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  if (spec->nmodels <= 0) {
    snprintf(buf, size, "%s", spec->model->name);
    return;
  }
  for (int m = 0; m < spec->nmodels && k < size; m++)
    k += (size_t)snprintf(buf + k, size - k, "%s%s", m ? "," : "", spec->models[m].name);
}

void cs_order(const WeftParDim order[3], char *buf, size_t size) {
  static const char *const nm[] = {"TP", "PP", "DP"};
  const char *o[3];
  for (int k = 0; k < 3; k++) o[k] = order[k] <= WEFT_PAR_DP ? nm[order[k]] : "?";
  snprintf(buf, size, "%s-%s-%s", o[0], o[1], o[2]);
}

/* The order, then the knobs the spec searches (its lists), e.g.
 * "TP-PP-DP z1 sp1 selective vp2 cp2 ep8"; only the order when none is searched. */
void cs_order_knobs(const WeftCodesignSpec *spec, const WeftParallel *par, char *buf,
                    size_t size) {
  if (spec->workloads) { /* the trace's own parallelization */
    snprintf(buf, size, "trace");
    return;
  }
  cs_order(par->order, buf, size);
  size_t k = strlen(buf);
  if (spec->nzero > 0 && k < size)
    k += (size_t)snprintf(buf + k, size - k, " z%d", par->zero_stage);
  if (spec->nsp > 0 && k < size)
    k += (size_t)snprintf(buf + k, size - k, " sp%d", par->sequence_parallel);
  if (spec->nrc > 0 && k < size)
    k += (size_t)snprintf(buf + k, size - k, " %s", weft_recompute_name(par->recompute));
  if (spec->nvp > 0 && k < size)
    k += (size_t)snprintf(buf + k, size - k, " vp%d", par->virtual_stages);
  if (spec->ncp > 0 && k < size) k += (size_t)snprintf(buf + k, size - k, " cp%d", par->cp);
  if (spec->nep > 0 && k < size) snprintf(buf + k, size - k, " ep%d", par->ep);
}
