/* fuzz_prices.c — TopoOpt price YAML (weft_topo_prices_read): 0 or an error
 * with a reason; a bad file leaves the prices as they were; prices read are
 * finite and >= 0, and cost a small fabric at a finite price. */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("prices.yml", data, size);
  WeftPrices p, before;
  memset(&p, 0x5a, sizeof p);  /* not the defaults: a bad file must leave this */
  before = p;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_topo_prices_read(path, &p, &err);
  fuzz_check_result(rc, &err, "weft_topo_prices_read");
  if (rc) {
    FUZZ_CHECK(!memcmp(&p, &before, sizeof p), "a bad file leaves the prices as they were", &err);
    return 0;
  }
  const double v[] = {p.nic_port_usd_per_gbps, p.transceiver_usd_per_gbps,
                      p.switch_port_usd_per_gbps, p.patch_panel_port_usd, p.ocs_port_usd,
                      p.fiber_usd};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    FUZZ_CHECK(fuzz_finite(v[i]) && v[i] >= 0, "price", NULL);
  FUZZ_CHECK(p.use_ocs == 0 || p.use_ocs == 1, "use_ocs", NULL);
  WeftFabric *f = NULL;
  rc = weft_fabric_switch(4, 12.5, &f, &err);
  FUZZ_CHECK(rc == 0, "weft_fabric_switch", &err);
  double usd = weft_fabric_cost(f, &p);
  FUZZ_CHECK(!isnan(usd) && usd >= 0, "fabric cost", NULL);
  weft_fabric_free(f);
  return 0;
}
