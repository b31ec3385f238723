/* stream.c — a co-design evaluated chunk by chunk: enumerate a slice of the
 * points, evaluate it on the pool, hand it to the caller, reuse the buffer;
 * memory stays that of one chunk, whatever the number of points. */
#include <stdlib.h>

#include "weft.h"

/* Progress over the rank's whole share: the pool reports per chunk. */
typedef struct {
  const WeftRunSettings *rs;
  size_t base, total;  /* the rank's points in earlier chunks; in all chunks */
} Progress;

static void progress(void *ctx, size_t done, size_t total) {
  Progress *p = ctx;
  (void)total;
  if (p->base + done < p->total)  /* the end is reported once, after the last chunk */
    p->rs->progress(p->rs->progress_ctx, p->base + done, p->total);
}

/* Points of [0, n) with i % nranks == rank. */
static size_t share(size_t n, size_t rank, size_t nranks) {
  return n > rank ? (n - rank + nranks - 1) / nranks : 0;
}

size_t weft_codesign_chunk_size(size_t chunk, size_t nranks) {
  if (nranks == 0) nranks = 1;
  if (chunk == 0) chunk = WEFT_CODESIGN_CHUNK;
  if (chunk < nranks) chunk = nranks;
  return (chunk + nranks - 1) / nranks * nranks;
}

int weft_codesign_stream(const WeftCodesignSpec *spec, const WeftRunSettings *rs, size_t chunk,
                         WeftChunkFn fn, void *ctx, WeftError *err) {
  WeftRunSettings def;
  if (!rs) {
    weft_run_settings_default(&def);
    rs = &def;
  }
  if (!fn) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no chunk function");
  if (rs->nranks == 0 || rs->rank >= rs->nranks)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "rank", "rank %zu of %zu", rs->rank,
                          rs->nranks);
  size_t n = 0;
  int rc = weft_codesign_count(spec, &n, err);
  if (rc) return rc;
  chunk = weft_codesign_chunk_size(chunk, rs->nranks);
  size_t cap = n < chunk ? n : chunk;
  WeftDesignPoint *pts = malloc((cap ? cap : 1) * sizeof *pts);
  if (!pts) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  Progress pg = {rs, 0, share(n, rs->rank, rs->nranks)};
  WeftRunSettings run = *rs;
  if (rs->progress) {
    run.progress = progress;
    run.progress_ctx = &pg;
  }
  /* chunk is a multiple of nranks, so point first + j is the rank's exactly
   * when j % nranks == rank: the split is the one weft_codesign_run makes
   * over all n points at once. */
  for (size_t first = 0; first < n && !rc; first += chunk) {
    size_t m = n - first < chunk ? n - first : chunk;
    rc = weft_codesign_points_at(spec, first, m, pts, err);
    if (!rc) rc = weft_codesign_run(spec, pts, m, &run, err);
    if (!rc) {
      pg.base += share(m, rs->rank, rs->nranks);
      rc = fn(ctx, first, pts, m);
    }
  }
  if (!rc && rs->progress) rs->progress(rs->progress_ctx, pg.total, pg.total);
  free(pts);
  return rc;
}
