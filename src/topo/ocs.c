/* ocs.c — the OCS-reconfigurable baseline of the evaluation: an optical
 * circuit switch re-wires the servers' d ports between the two phases of an
 * iteration, the AllReduce (data-parallel) phase and the model-parallel
 * phase, each on a fabric built for its traffic alone (all ports to rings,
 * or all to matchings; when matchings alone leave the servers disconnected,
 * the finder's own split); the phases run one
 * after the other with a reconfiguration delay before each. */
#include <math.h>
#include <string.h>

#include "topo/eval.h"

/* The job's traffic split in its two phases. */
static int split(const WeftTraffic *t, WeftTraffic **ar, WeftTraffic **mp) {
  *ar = weft_traffic_create(t->nservers);
  *mp = weft_traffic_create(t->nservers);
  int rc = *ar && *mp ? WEFT_OK : WEFT_ENOMEM;
  for (int i = 0; !rc && i < t->nallreduce; i++)
    rc = weft_traffic_add_allreduce(*ar, t->ar[i].members, t->ar[i].size, t->ar[i].size_bytes);
  for (int i = 0; !rc && i < t->ndemand; i++)
    rc = weft_traffic_add_demand(*mp, t->demand[i].src, t->demand[i].dst, t->demand[i].bytes);
  return rc;
}

/* One phase's communication time on a fabric wired for it (ports: all to
 * rings for AllReduce, all to matchings for model-parallel traffic). */
static int phase_ns(const WeftTraffic *t, const WeftTopoSettings *ts, int ar, int simulate,
                    double *comm_ns, WeftError *err) {
  *comm_ns = 0;
  if (!(ar ? t->nallreduce : t->ndemand)) return WEFT_OK;
  WeftTopoSettings s = *ts;
  s.ar_degree = ar ? s.degree - s.degree % 2 : 0;
  if (ar && s.ar_degree < 2) s.ar_degree = -1; /* one port: let the finder decide */
  WeftFabric *f = NULL;
  int rc = weft_topo_build(t, &s, &f, err);
  if (rc == WEFT_EINPUT && s.ar_degree != -1) { /* matchings alone left it disconnected */
    s.ar_degree = -1;
    rc = weft_topo_build(t, &s, &f, err);
  }
  WeftTopoTime tt;
  if (!rc) rc = simulate ? weft_fabric_simulate(f, t, &tt, err) : weft_fabric_estimate(f, t, &tt, err);
  if (!rc) *comm_ns = tt.comm_ns;
  weft_fabric_free(f);
  return rc;
}

int topo_eval_ocs(const WeftTraffic *t, const WeftTopoSettings *ts, int simulate,
                  double *ar_ns, double *mp_ns, WeftError *err) {
  WeftTraffic *a = NULL, *m = NULL;
  int rc = split(t, &a, &m);
  if (!rc) rc = phase_ns(a, ts, 1, simulate, ar_ns, err);
  if (!rc) rc = phase_ns(m, ts, 0, simulate, mp_ns, err);
  if (rc == WEFT_ENOMEM) weft_error_set(err, rc, "", 0, 0, NULL, "out of memory");
  weft_traffic_free(a);
  weft_traffic_free(m);
  return rc;
}

double topo_eval_ocs_time(double compute_ns, double ar_ns, double mp_ns, double reconf_ns) {
  int phases = (ar_ns > 0) + (mp_ns > 0);
  return compute_ns + ar_ns + mp_ns + (phases > 1 ? phases * reconf_ns : 0);
}
