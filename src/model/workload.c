/* workload.c — a training workload: layers with three phases each
 * (forward, input-grad, weight-grad), each compute time plus a collective. */
#include <stdlib.h>

#include "weft.h"

WeftWorkload *weft_workload_create(void) { return calloc(1, sizeof(WeftWorkload)); }

void weft_workload_free(WeftWorkload *wl) {
  if (!wl) return;
  free(wl->layers);
  free(wl);
}

int weft_workload_add(WeftWorkload *wl, const WeftLayer *layer) {
  if (wl->nlayers == wl->capacity) {
    int cap = wl->capacity ? 2 * wl->capacity : 16;
    WeftLayer *l = realloc(wl->layers, (size_t)cap * sizeof *l);
    if (!l) return WEFT_ENOMEM;
    wl->layers = l;
    wl->capacity = cap;
  }
  wl->layers[wl->nlayers++] = *layer;
  return WEFT_OK;
}
