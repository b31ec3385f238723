/* fuzz_traffic_csv.c — traffic CSV (weft_traffic_read_csv). Input: one byte
 * choosing the servers (2..65), then the CSV. 0 or an error with a reason;
 * traffic read has servers in range, sorted distinct AllReduce members,
 * finite bytes >= 0, and a demand lookup matching its entries; then its
 * estimate on an ideal switch has no NaN. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int n = 2 + data[0] % 64;
  const char *path = fuzz_write("traffic.csv", data + 1, size - 1);
  WeftTraffic *t = NULL;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_traffic_read_csv(path, n, &t, &err);
  fuzz_check_result(rc, &err, "weft_traffic_read_csv");
  FUZZ_CHECK((rc == 0) == (t != NULL), "output set exactly on success", &err);
  if (rc) return 0;
  FUZZ_CHECK(t->nservers == n, "nservers", NULL);
  FUZZ_CHECK(fuzz_finite(t->compute_ns) && t->compute_ns >= 0, "compute_ns", NULL);
  for (int i = 0; i < t->nallreduce; i++) {
    const WeftAllReduce *a = &t->ar[i];
    FUZZ_CHECK(a->size >= 2 && a->size <= n, "allreduce size", NULL);
    FUZZ_CHECK(fuzz_finite(a->size_bytes) && a->size_bytes >= 0, "allreduce bytes", NULL);
    for (int k = 0; k < a->size; k++)
      FUZZ_CHECK(a->members[k] >= 0 && a->members[k] < n && (!k || a->members[k] > a->members[k - 1]),
                 "allreduce members sorted, distinct, in range", NULL);
  }
  for (int i = 0; i < t->ndemand; i++) {
    const WeftDemand *d = &t->demand[i];
    FUZZ_CHECK(d->src >= 0 && d->src < n && d->dst >= 0 && d->dst < n && d->src != d->dst,
               "demand servers", NULL);
    FUZZ_CHECK(fuzz_finite(d->bytes) && d->bytes >= 0, "demand bytes", NULL);
    FUZZ_CHECK(weft_traffic_demand(t, d->src, d->dst) == d->bytes, "demand lookup", NULL);
    for (int j = 0; j < i; j++)
      FUZZ_CHECK(t->demand[j].src != d->src || t->demand[j].dst != d->dst, "pairs merged", NULL);
  }
  WeftFabric *f = NULL;
  weft_error_clear(&err);
  rc = weft_fabric_switch(n, 12.5, &f, &err);
  FUZZ_CHECK(rc == 0, "weft_fabric_switch", &err);
  WeftTopoTime tt;
  weft_error_clear(&err);
  rc = weft_fabric_estimate(f, t, &tt, &err);
  fuzz_check_result(rc, &err, "weft_fabric_estimate");
  if (rc == 0)
    FUZZ_CHECK(!isnan(tt.time_ns) && tt.time_ns >= 0 && !isnan(tt.comm_ns) && tt.comm_ns >= 0,
               "estimated time", NULL);
  weft_fabric_free(f);
  weft_traffic_free(t);
  return 0;
}
