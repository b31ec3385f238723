/* topology.c — a TopoOpt fabric for one data-parallel job: 16 servers of 4
 * ports at 100 Gbit/s, one AllReduce of 64 MB over all of them, wired with
 * TotientPerms rings and simulated, next to an ideal switch of the same
 * per-server bandwidth. Uses only <weft.h>.
 *   cc topology.c $(pkg-config --cflags --libs weft) */
#include <stdio.h>
#include <weft.h>

int main(void) {
  enum { N = 16 };
  int members[N];
  for (int i = 0; i < N; i++) members[i] = i;
  WeftTraffic *t = weft_traffic_create(N);
  WeftError err;
  char buf[512];
  if (!t || weft_traffic_add_allreduce(t, members, N, 64e6)) {
    fprintf(stderr, "topology: out of memory\n");
    weft_traffic_free(t);
    return 1;
  }
  WeftTopoSettings s;
  weft_topo_settings_default(&s); /* 4 ports of 12.5 GB/s (100 Gbit/s) */
  WeftFabric *topo = NULL, *sw = NULL;
  WeftTopoTime tt, ts;
  int rc = weft_topo_build(t, &s, &topo, &err);
  if (!rc) rc = weft_fabric_simulate(topo, t, &tt, &err);
  if (!rc) rc = weft_fabric_switch(N, s.degree * s.port_gbps, &sw, &err);
  if (!rc) rc = weft_fabric_simulate(sw, t, &ts, &err);
  if (rc) fprintf(stderr, "topology: %s\n", weft_error_format(&err, buf, sizeof buf));
  else printf("AllReduce of 64 MB on %d servers: TopoOpt %.1f us, ideal switch %.1f us\n", N,
              tt.comm_ns / 1e3, ts.comm_ns / 1e3);
  weft_fabric_free(topo);
  weft_fabric_free(sw);
  weft_traffic_free(t);
  return rc ? 1 : 0;
}
