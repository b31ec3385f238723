/* fuzz_chakra.c — a Chakra trace set (weft_chakra_read). Input: one byte
 * choosing the network (low 2 bits: Switch 2, Ring 2 x Switch 2, Ring 4 x
 * Switch 2, Switch 3; bit 2: the ranks after those given are missing rather
 * than copies of rank 0), then parts separated by the bytes "%%%": rank 0's
 * PREFIX.0.et, PREFIX.comm_groups.json (absent when empty or not given),
 * then ranks 1, 2, ... 0 or an error with a reason; a workload read has
 * finite compute >= 0, finite sizes and calls, and groups that exist, and
 * its communicator passes weft_communicator_check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define SEP "%%%"
#define MAX_RANKS 8

static void net_of(int pick, WeftNetwork *net) {
  static const int shapes[4][3] = {{1, 2, 0}, {2, 2, 2}, {2, 4, 2}, {1, 3, 0}};
  const int *s = shapes[pick & 3];
  memset(net, 0, sizeof *net);
  net->ndims = s[0];
  net->topology[0] = s[0] == 1 ? WEFT_SWITCH : WEFT_RING;
  net->npus[0] = s[1];
  if (s[0] == 2) {
    net->topology[1] = WEFT_SWITCH;
    net->npus[1] = s[2];
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  WeftNetwork net;
  net_of(data[0], &net);
  long long npus = 1;
  for (int d = 0; d < net.ndims; d++) npus *= net.npus[d];
  int missing = (data[0] >> 2) & 1;
  /* the parts */
  const uint8_t *part[2 + MAX_RANKS];
  size_t len[2 + MAX_RANKS];
  int nparts = 0;
  const uint8_t *p = data + 1, *end = data + size;
  while (nparts < 2 + MAX_RANKS) {
    const uint8_t *s = NULL;
    for (const uint8_t *q = p; !s && end - q >= 3; q++)
      if (!memcmp(q, SEP, 3)) s = q;
    part[nparts] = p;
    len[nparts++] = s ? (size_t)(s - p) : (size_t)(end - p);
    if (!s) break;
    p = s + 3;
  }
  char name[32];
  for (int r = 0; r < MAX_RANKS; r++) {
    snprintf(name, sizeof name, "t.%d.et", r);
    unlink(fuzz_path(name));
  }
  unlink(fuzz_path("t.comm_groups.json"));
  fuzz_write("t.0.et", part[0], len[0]);
  if (nparts > 1 && len[1]) fuzz_write("t.comm_groups.json", part[1], len[1]);
  for (long long r = 1; r < npus; r++) {
    int k = (int)r + 1;
    snprintf(name, sizeof name, "t.%lld.et", r);
    if (k < nparts) fuzz_write(name, part[k], len[k]);
    else if (!missing) fuzz_write(name, part[0], len[0]);
  }
  /* a part past the network's ranks is a trace too many */
  if (nparts > npus + 1) {
    snprintf(name, sizeof name, "t.%lld.et", npus);
    fuzz_write(name, part[npus + 1], len[npus + 1]);
  }

  WeftWorkload *wl = NULL;
  WeftCommunicator comm;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_chakra_read(fuzz_path("t"), &net, &wl, &comm, &err);
  fuzz_check_result(rc, &err, "weft_chakra_read");
  FUZZ_CHECK((rc == 0) == (wl != NULL), "output set exactly on success", &err);
  if (rc) return 0;
  FUZZ_CHECK(wl->nlayers >= 1, "a workload read has layers", NULL);
  for (int i = 0; i < wl->nlayers; i++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      const WeftPhaseSpec *ps = &wl->layers[i].phase[ph];
      FUZZ_CHECK(fuzz_finite(ps->compute_ns) && ps->compute_ns >= 0, "compute_ns", NULL);
      if (ps->coll == WEFT_COLL_NONE) continue;
      FUZZ_CHECK(fuzz_finite(ps->size_bytes) && ps->size_bytes >= 0, "size_bytes", NULL);
      FUZZ_CHECK(fuzz_finite(weft_phase_calls(ps)) && weft_phase_calls(ps) > 0, "calls", NULL);
      FUZZ_CHECK(ps->group >= 0 && ps->group <= wl->ngroups, "group index", NULL);
    }
  weft_error_clear(&err);
  FUZZ_CHECK(weft_communicator_check(&comm, &net, &err) == 0, "communicator", &err);
  weft_workload_free(wl);
  return 0;
}
