/* fuzz_cost_model.c — LIBRA cost-model yml (weft_cost_model_read), then the
 * per-dim cost on a fixed 3-dim network: 0 or an error with a reason; every
 * price read is finite and > 0, every cost computed finite and >= 0. */
#include <string.h>

#include "fuzz.h"

static WeftNetwork net3;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  /* The classes tests/fixtures/cost_3d.yml names, so valid inputs get priced. */
  WeftError err;
  fuzz_copy_fixture("net_3d.yml", "net_3d.yml");
  if (weft_network_read(fuzz_path("net_3d.yml"), &net3, &err)) fuzz_fail(__FILE__, __LINE__,
                                                                         "fixture", "net_3d", &err);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("cost.yml", data, size);
  WeftCostModel cm;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_cost_model_read(path, &cm, &err);
  fuzz_check_result(rc, &err, "weft_cost_model_read");
  if (rc) return 0;
  FUZZ_CHECK(cm.nclasses >= 0 && cm.nclasses <= WEFT_MAX_COST_CLASSES, "nclasses", NULL);
  for (int i = 0; i < cm.nclasses; i++) {
    const WeftCostClass *c = &cm.cls[i];
    FUZZ_CHECK(memchr(c->name, '\0', WEFT_NAME_LEN), "class name terminated", NULL);
    FUZZ_CHECK(!c->has_link || (fuzz_finite(c->link_usd_per_gbps) && c->link_usd_per_gbps > 0),
               "link price", NULL);
    FUZZ_CHECK(!c->has_switch ||
                   (fuzz_finite(c->switch_usd_per_gbps) && c->switch_usd_per_gbps > 0),
               "switch price", NULL);
    FUZZ_CHECK(!c->has_nic || (fuzz_finite(c->nic_usd_per_gbps) && c->nic_usd_per_gbps > 0),
               "nic price", NULL);
  }
  double usd[WEFT_MAX_DIMS];
  weft_error_clear(&err);
  rc = weft_cost_per_gbps(&net3, &cm, usd, &err);
  fuzz_check_result(rc, &err, "weft_cost_per_gbps");
  if (rc == 0)
    for (int d = 0; d < net3.ndims; d++)
      FUZZ_CHECK(!(usd[d] < 0) && !isnan(usd[d]), "cost per GB/s", NULL);
  return 0;
}
