/* codesign_trace.c — codesign over a Chakra trace set (--workload): the
 * trace read on each network, those it cannot be laid on left out. */
#include <stdlib.h>
#include <string.h>

#include "weft.h"

void weft_codesign_trace_free(WeftWorkload **workloads, WeftCommunicator *comms, int n) {
  if (workloads)
    for (int i = 0; i < n; i++) weft_workload_free(workloads[i]);
  free(workloads);
  free(comms);
}

int weft_codesign_trace_read(const char *path, WeftNetwork *nets, int *n,
                             WeftWorkload ***workloads, WeftCommunicator **comms, int *dropped,
                             WeftError *why, WeftError *err) {
  if (workloads) *workloads = NULL;
  if (comms) *comms = NULL;
  if (dropped) *dropped = 0;
  if (why) weft_error_clear(why);
  if (!path || !nets || !n || *n < 0 || !workloads || !comms)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "bad arguments");
  int total = *n, kept = 0, left = 0;
  WeftWorkload **wl = calloc((size_t)(total > 0 ? total : 1), sizeof *wl);
  WeftCommunicator *cm = calloc((size_t)(total > 0 ? total : 1), sizeof *cm);
  if (!wl || !cm) {
    free(wl);
    free(cm);
    return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory");
  }
  WeftError first, e;
  weft_error_clear(&first);
  for (int i = 0; i < total; i++) {
    weft_error_clear(&e);
    int rc = weft_chakra_read(path, &nets[i], &wl[kept], &cm[kept], &e);
    if (rc == WEFT_ENOMEM) {
      weft_codesign_trace_free(wl, cm, kept);
      if (err) *err = e;
      return WEFT_ENOMEM;
    }
    if (rc) {
      if (left++ == 0) first = e;
      continue;
    }
    if (kept != i) nets[kept] = nets[i];
    kept++;
  }
  if (dropped) *dropped = left;
  if (why && left) *why = first;
  if (kept == 0) {
    weft_codesign_trace_free(wl, cm, 0);
    if (total == 0) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no networks");
    if (err) *err = first;
    if (err) err->code = WEFT_EINPUT;
    return WEFT_EINPUT;
  }
  *n = kept;
  *workloads = wl;
  *comms = cm;
  return WEFT_OK;
}
