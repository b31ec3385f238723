/* weft/output.h — public (part of weft.h): output files written whole or not at all, and the
 * ASTRA-sim network export.
 * Include <weft.h>; this header includes what it builds on. */
#ifndef WEFT_H_OUTPUT
#define WEFT_H_OUTPUT

#include "weft/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ output files
 * Every file weft writes goes through a WeftOut. A regular file (or a new
 * one; symbolic links are followed to it) is written to a temporary file
 * beside it (NAME.tmp.XXXXXX, the umask's mode for a new file, the old one's
 * mode for a replaced one) and renamed over it by weft_out_commit: a reader
 * never sees half a file and a failure leaves the old file as it was. A path
 * that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO, a
 * terminal) is never replaced: it is written through, as cp does, and a
 * write error (/dev/full) is reported by the commit. A directory, a
 * read-only file or a missing directory on the way: WEFT_EIO at open.
 * WEFT_EINVAL for an empty path. */
typedef struct WeftOut WeftOut;
int weft_out_open(const char *path, WeftOut **out, WeftError *err);
FILE *weft_out_stream(WeftOut *o);        /* where to write */
const char *weft_out_path(const WeftOut *o);
/* The temporary file's path, NULL when written through: a program that can
 * be interrupted removes it from its signal handler. Valid until the commit. */
const char *weft_out_temp(const WeftOut *o);
/* Flush, close and rename into place; frees o. WEFT_EIO when a write or the
 * rename failed (the temporary is removed, the target left as it was). */
int weft_out_commit(WeftOut *o, WeftError *err);
/* Commit o[0..n) as one: every file renamed into place, or none (files
 * already renamed are put back from a hard-link backup, new ones removed;
 * written-through outputs cannot be taken back). Frees every o[i]. */
int weft_out_commit_all(WeftOut *const *o, int n, WeftError *err);
void weft_out_discard(WeftOut *o);        /* close, remove the temporary, free; NULL is fine */

/* ------------------------------------------------------------------ export
 * ASTRA-sim 2.0 analytical network yml for the design: per-link bandwidth
 * (Ring B/2, FullyConnected B/(n-1), Switch B) and latency_ns per dim. */
int weft_astra_network_write(const char *path, const WeftNetwork *net, const double *bw_gbps,
                             const double *latency_ns, WeftError *err);
/* The same into an open output (weft_out_open); o is left open. */
int weft_astra_network_emit(WeftOut *o, const WeftNetwork *net, const double *bw_gbps,
                            const double *latency_ns, WeftError *err);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_H_OUTPUT */
