/* fuzz_network.c — LIBRA network yml (weft_network_read): any bytes give 0 or
 * an error with a reason; a network read is within the documented limits. */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("network.yml", data, size);
  WeftNetwork net;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_network_read(path, &net, &err);
  fuzz_check_result(rc, &err, "weft_network_read");
  if (rc) return 0;
  FUZZ_CHECK(net.ndims >= 1 && net.ndims <= WEFT_MAX_DIMS, "ndims", NULL);
  for (int d = 0; d < net.ndims; d++) {
    FUZZ_CHECK(net.npus[d] > 1, "npus per dim", NULL);
    FUZZ_CHECK(net.topology[d] >= WEFT_RING && net.topology[d] <= WEFT_SWITCH, "topology", NULL);
    FUZZ_CHECK(memchr(net.cost_dim[d], '\0', WEFT_NAME_LEN), "cost_dim terminated", NULL);
    FUZZ_CHECK(weft_topology_name(net.topology[d]) != NULL, "topology name", NULL);
  }
  double total = weft_network_npus_total(&net);
  FUZZ_CHECK(total >= 2.0, "npus total", NULL);
  return 0;
}
