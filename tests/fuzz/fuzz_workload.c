/* fuzz_workload.c — ASTRA-sim 1.0 workload text: the file reader and the
 * in-memory parser agree; a workload read is written (weft_workload_write)
 * and read back to the same layers, as the writer promises. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Same layers, header and groups (NONE's size and group are not kept). */
static int same_workload(const WeftWorkload *a, const WeftWorkload *b) {
  if (a->nlayers != b->nlayers || strcmp(a->policy, b->policy) || a->ngroups != b->ngroups)
    return 0;
  for (int k = 0; k < a->ngroups; k++)
    if (strcmp(a->group_name[k], b->group_name[k])) return 0;
  for (int i = 0; i < a->nlayers; i++) {
    const WeftLayer *x = &a->layers[i], *y = &b->layers[i];
    if (strcmp(x->name, y->name) || x->update_ns != y->update_ns) return 0;
    for (int p = 0; p < WEFT_NPHASES; p++) {
      const WeftPhaseSpec *u = &x->phase[p], *v = &y->phase[p];
      if (u->compute_ns != v->compute_ns || u->coll != v->coll) return 0;
      if (u->coll != WEFT_COLL_NONE && (u->size_bytes != v->size_bytes || u->group != v->group))
        return 0;
    }
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("wl.txt", data, size);
  WeftWorkload *wl = NULL, *mem = NULL, *back = NULL;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_workload_read(path, &wl, &err);
  fuzz_check_result(rc, &err, "weft_workload_read");
  FUZZ_CHECK((rc == 0) == (wl != NULL), "output set exactly on success", &err);

  /* From memory: the same answer unless the file had a NUL (refused by the
   * file reader, the end of the text for the parser). */
  char *text = fuzz_strdup(data, size);
  WeftError err2;
  weft_error_clear(&err2);
  int rc2 = weft_workload_parse(text, "wl.txt", &mem, &err2);
  fuzz_check_result(rc2, &err2, "weft_workload_parse");
  if (!memchr(data, '\0', size)) {
    FUZZ_CHECK(rc == rc2, "file and memory readers agree", rc ? &err : &err2);
    if (rc == 0) FUZZ_CHECK(same_workload(wl, mem), "file and memory give the same layers", NULL);
    if (rc) FUZZ_CHECK(err.line == err2.line && err.col == err2.col, "same error place", &err2);
  }

  if (rc == 0) {
    FUZZ_CHECK(wl->nlayers >= 1 && wl->nlayers <= wl->capacity, "nlayers", NULL);
    FUZZ_CHECK(wl->ngroups >= 0 && wl->ngroups <= WEFT_MAX_GROUPS, "ngroups", NULL);
    for (int i = 0; i < wl->nlayers; i++)
      for (int p = 0; p < WEFT_NPHASES; p++) {
        const WeftPhaseSpec *ph = &wl->layers[i].phase[p];
        FUZZ_CHECK(fuzz_finite(ph->compute_ns) && ph->compute_ns >= 0, "compute_ns", NULL);
        FUZZ_CHECK(fuzz_finite(ph->size_bytes) && ph->size_bytes >= 0, "size_bytes", NULL);
        FUZZ_CHECK(ph->group >= 0 && ph->group <= wl->ngroups, "group index", NULL);
      }
    /* Written and read back: the same workload. */
    const char *out = fuzz_path("wl_out.txt");
    weft_error_clear(&err);
    rc = weft_workload_write(out, wl, &err);
    fuzz_check_result(rc, &err, "weft_workload_write");
    FUZZ_CHECK(rc == 0, "a workload read can be written", &err);
    rc = weft_workload_read(out, &back, &err);
    FUZZ_CHECK(rc == 0, "a written workload reads back", &err);
    FUZZ_CHECK(same_workload(wl, back), "read, written, read back: the same workload", NULL);
  }
  weft_workload_free(back);
  weft_workload_free(mem);
  weft_workload_free(wl);
  free(text);
  return 0;
}
