/* fuzz_communicator.c — LIBRA communicator yml with weft's named groups
 * (weft_communicator_read), then checked against a fixed 3-dim network:
 * 0 or an error with a reason; a communicator read is within the limits. */
#include <string.h>

#include "fuzz.h"

static WeftNetwork net3;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  WeftError err;
  fuzz_copy_fixture("net_3d.yml", "net_3d.yml");
  if (weft_network_read(fuzz_path("net_3d.yml"), &net3, &err)) fuzz_fail(__FILE__, __LINE__,
                                                                         "fixture", "net_3d", &err);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("comm.yml", data, size);
  WeftCommunicator comm;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_communicator_read(path, &comm, &err);
  fuzz_check_result(rc, &err, "weft_communicator_read");
  if (rc) return 0;
  FUZZ_CHECK(comm.ndims >= 1 && comm.ndims <= WEFT_MAX_DIMS, "ndims", NULL);
  FUZZ_CHECK(comm.nextra >= 0 && comm.nextra <= WEFT_MAX_GROUPS, "nextra", NULL);
  for (int p = 0; p < WEFT_NPHASES; p++)
    for (int d = 0; d < comm.ndims; d++)
      FUZZ_CHECK(comm.group[p][d] == -1 || comm.group[p][d] >= 1, "group count", NULL);
  for (int g = 0; g < comm.nextra; g++) {
    FUZZ_CHECK(memchr(comm.extra_name[g], '\0', sizeof comm.extra_name[g]), "group name", NULL);
    FUZZ_CHECK(weft_communicator_find(&comm, comm.extra_name[g]) != NULL, "find group", NULL);
  }
  weft_error_clear(&err);
  rc = weft_communicator_check(&comm, &net3, &err);
  fuzz_check_result(rc, &err, "weft_communicator_check");
  if (rc == 0) {
    /* Checked against the network: the traffic model takes it. */
    double traffic[WEFT_MAX_DIMS];
    for (int p = 0; p < WEFT_NPHASES; p++) {
      weft_collective_traffic(WEFT_COLL_ALLREDUCE, 1048576.0, comm.group[p], comm.ndims, traffic);
      for (int d = 0; d < comm.ndims; d++)
        FUZZ_CHECK(fuzz_finite(traffic[d]) && traffic[d] >= 0, "traffic", NULL);
    }
  }
  return 0;
}
