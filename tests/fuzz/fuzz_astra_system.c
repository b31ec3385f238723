/* fuzz_astra_system.c — ASTRA-sim 1.0 system file (weft_astra1_system_read)
 * for a fixed 4-dim network: any bytes give 0 or an error with a reason; a
 * file read gives settings weft_simulate accepts. */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("system.txt", data, size);
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 4;
  const WeftTopology topo[4] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_RING, WEFT_SWITCH};
  const int npus[4] = {4, 8, 4, 32};
  for (int d = 0; d < 4; d++) {
    net.topology[d] = topo[d];
    net.npus[d] = npus[d];
  }
  WeftSimSettings s;
  weft_sim_settings_default(&s);
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_astra1_system_read(path, &net, &s, &err);
  fuzz_check_result(rc, &err, "weft_astra1_system_read");
  if (rc) return 0;
  FUZZ_CHECK(s.like == WEFT_LIKE_ASTRA1, "like", NULL);
  /* in flight: the file's active chunks (>= 1), else the default,
   * WEFT_SIM_IN_FLIGHT_ALL (0), which the ASTRA-sim-like simulation runs as 1 */
  FUZZ_CHECK(s.chunks >= 1 && s.in_flight >= WEFT_SIM_IN_FLIGHT_ALL, "chunks, in flight", NULL);
  FUZZ_CHECK(s.endpoint_delay_ns >= 0 && s.endpoint_delay_ns <= 2147483647.0, "endpoint", NULL);
  for (int d = 0; d < 4; d++)
    FUZZ_CHECK(s.algorithm[d] > WEFT_ALG_DEFAULT && s.algorithm[d] < WEFT_NALG, "algorithm", NULL);
  return 0;
}
