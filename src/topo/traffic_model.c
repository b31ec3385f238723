/* traffic_model.c — a zoo model's traffic on n servers, from the workload
 * generator (one dim of n servers: TP blocks innermost, DP strided) and, for
 * DLRM, from a placement of its embedding tables on servers (or their
 * replication); fully connected layers data or model parallel (docs/topo.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

/* Add an AllReduce of bytes over every group of g servers: consecutive
 * blocks (stride 1) or residue classes (stride n/g). */
static int add_groups(WeftTraffic *t, int g, int stride, double bytes, int *members) {
  int n = t->nservers;
  if (g < 2 || !(bytes > 0)) return WEFT_OK;
  for (int k = 0; k < n / g; k++) {
    for (int i = 0; i < g; i++)
      members[i] = stride == 1 ? k * g + i : k + i * stride;
    int rc = weft_traffic_add_allreduce(t, members, g, bytes);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* DLRM: pooled embeddings from each table's server to every other server
 * (forward) and their gradients back (backward): samples per server x dim x
 * bytes per direction per table. A pooled embedding is one vector of dim
 * elements per (sample, table) whatever the bag size (pooling): the bag is
 * summed where the table is. Replicated tables send nothing. */
static int dlrm_demand(WeftTraffic *t, const WeftModel *m, const int *placement, double act_bytes) {
  int n = t->nservers;
  double b = (double)m->global_batch / n * m->emb_dim * act_bytes;
  for (int tb = 0; tb < m->tables; tb++) {
    int o = placement ? placement[tb] : tb % n;
    if (o == WEFT_TABLE_REPLICATED) continue;
    for (int s = 0; s < n; s++) {
      if (s == o) continue;
      int rc = weft_traffic_add_demand(t, o, s, b);
      if (!rc) rc = weft_traffic_add_demand(t, s, o, b);
      if (rc) return rc;
    }
  }
  return WEFT_OK;
}

int weft_layer_splittable(const WeftModel *m, int l) {
  if (!m || l < 0 || l >= m->nlayers || m->arch == WEFT_ARCH_TRANSFORMER) return 0;
  const WeftModelLayer *ml = &m->layer[l];
  double w = ml->params - ml->act_elems; /* in x out of a fully connected layer */
  return ml->act_elems > 0 && w > 0 && fabs(ml->fwd_flops - 2 * w) <= 1e-9 * ml->fwd_flops;
}

int weft_traffic_from_model(const WeftModel *m, const WeftDevice *dev, int nservers, int tp,
                            const int *placement, WeftTraffic **out, WeftError *err) {
  WeftStrategy st = {tp, placement, NULL};
  return weft_traffic_from_strategy(m, dev, nservers, &st, out, err);
}

static int check_strategy(const WeftModel *m, int nservers, const WeftStrategy *st,
                          WeftError *err) {
  int dlrm = m->arch == WEFT_ARCH_DLRM, tp = st->tp;
  if (nservers < 2 || tp < 1 || nservers % tp)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "tp",
                          "tp %d must divide the %d servers", tp, nservers);
  for (int k = 0; dlrm && st->placement && k < m->tables; k++)
    if (st->placement[k] < WEFT_TABLE_REPLICATED || st->placement[k] >= nservers)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "placement",
                            "table %d placed on server %d of %d", k, st->placement[k], nservers);
  for (int l = 0; st->layer_mp && l < m->nlayers; l++)
    if (st->layer_mp[l] && (!weft_layer_splittable(m, l) || (!dlrm && tp != 1)))
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "layer_mp",
                            "layer %d (%s) cannot be model parallel%s", l, m->layer[l].name,
                            weft_layer_splittable(m, l) ? " with tp > 1" : ": not fully connected");
  return WEFT_OK;
}

/* Bytes the data-parallel AllReduce gains when fully connected layers go
 * model parallel over all n servers: each such layer's gradients (params x
 * grad bytes) leave it, and its input comes in instead: all-gathered
 * forward, its gradient reduce-scattered backward, the same traffic as an
 * AllReduce of global batch x in x act bytes. */
static double layer_mp_delta(const WeftModel *m, const WeftParallel *par, const WeftStrategy *st) {
  double d = 0;
  for (int l = 0; st->layer_mp && l < m->nlayers; l++) {
    if (!st->layer_mp[l]) continue;
    const WeftModelLayer *ml = &m->layer[l];
    double in = ml->fwd_flops / (2 * ml->act_elems);
    d += (double)m->global_batch * in * par->act_bytes - ml->params * par->grad_bytes;
  }
  return d;
}

int weft_traffic_from_strategy(const WeftModel *m, const WeftDevice *dev, int nservers,
                               const WeftStrategy *st, WeftTraffic **out, WeftError *err) {
  *out = NULL;
  weft_error_clear(err);
  int dlrm = m->arch == WEFT_ARCH_DLRM, tp = st->tp, rc = check_strategy(m, nservers, st, err);
  if (rc) return rc;
  const int *placement = st->placement;
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 1;
  net.npus[0] = nservers;
  net.topology[0] = WEFT_SWITCH;
  WeftParallel par;
  weft_parallel_default(&par);
  par.tp = dlrm ? nservers : tp; /* DLRM: tables sharded over every server */
  par.dp = nservers / par.tp;
  WeftWorkload *wl = weft_workload_create();
  WeftTraffic *t = weft_traffic_create(nservers);
  int *members = malloc((size_t)nservers * sizeof *members);
  WeftCommunicator comm;
  WeftGenInfo info;
  rc = !wl || !t || !members ? WEFT_ENOMEM
                             : weft_generate(m, dev, &par, &net, 0, wl, &comm, &info, err);
  double by_group[2] = {0, 0}, a2a = 0, compute = 0, emb = 0;
  for (int l = 0; !rc && l < wl->nlayers; l++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      const WeftPhaseSpec *p = &wl->layers[l].phase[ph];
      compute += p->compute_ns;
      if (dlrm && !strcmp(wl->layers[l].name, "embedding")) emb += p->compute_ns;
      const int *g = p->group ? weft_communicator_find(&comm, wl->group_name[p->group - 1])
                              : comm.group[ph];
      if (p->coll == WEFT_COLL_NONE || !(p->size_bytes > 0) || !g || g[0] < 2) continue;
      int which = ph == WEFT_PHASE_WG || g[0] != par.tp ? 1 : 0; /* TP block, or DP/world */
      double s = p->size_bytes;
      switch (p->coll) { /* as AllReduce bytes moving the same traffic */
        case WEFT_COLL_ALLREDUCE: by_group[which] += s; break;
        case WEFT_COLL_REDUCESCATTER: by_group[which] += s / 2; break;
        case WEFT_COLL_ALLGATHER: by_group[which] += s * g[0] / 2; break;
        case WEFT_COLL_ALLTOALL: a2a += s; break;
        default: break;
      }
    }
  int nrep = 0, most = 0;
  double per_table = 0; /* one table's lookups for the whole batch, ns */
  if (!rc && dlrm) {
    int *count = calloc((size_t)nservers, sizeof *count);
    if (!count) rc = WEFT_ENOMEM;
    for (int k = 0; !rc && k < m->tables; k++) {
      int o = placement ? placement[k] : k % nservers;
      if (o == WEFT_TABLE_REPLICATED) nrep++;
      else if (++count[o] > most) most = count[o];
    }
    free(count);
    per_table = emb / ceil((double)m->tables / nservers);
    /* a replicated table's row gradients: the rows the whole batch touches */
    double touched = fmin(m->table_rows, (double)m->global_batch * m->pooling);
    by_group[1] += nrep * touched * m->emb_dim * par.grad_bytes;
  }
  if (!rc) by_group[1] += layer_mp_delta(m, &par, st);
  if (!rc) {
    if (par.tp > 1 && par.tp < nservers) rc = add_groups(t, par.tp, 1, by_group[0], members);
    int dpg = nservers / (par.tp < nservers ? par.tp : 1);
    if (!rc) rc = add_groups(t, dpg, par.tp < nservers ? par.tp : 1, by_group[1], members);
  }
  if (!rc && dlrm) {
    rc = dlrm_demand(t, m, placement, par.act_bytes);
    /* lookups run where the tables are: the busiest server sets the time;
     * a replicated table's run everywhere, on each server's own samples */
    compute += most * per_table + nrep * per_table / nservers - emb;
  } else if (!rc && a2a > 0) { /* all-to-all within the TP blocks (MoE experts) */
    for (int k = 0; !rc && k < nservers / par.tp; k++)
      for (int i = 0; !rc && i < par.tp; i++)
        for (int j = 0; !rc && j < par.tp; j++)
          if (i != j) rc = weft_traffic_add_demand(t, k * par.tp + i, k * par.tp + j, a2a / par.tp);
  }
  if (!rc) t->compute_ns = compute;
  weft_workload_free(wl);
  free(members);
  if (rc) {
    weft_traffic_free(t);
    return rc;
  }
  *out = t;
  return WEFT_OK;
}
