/* datadir.h — internal: the zoo the readers use when none is named, and the
 * error for a zoo directory that is not there (datadir.c). */
#ifndef WEFT_CORE_DATADIR_H
#define WEFT_CORE_DATADIR_H

#include <stddef.h>

#include "weft/core.h"

/* How to point weft at its data, for messages. */
#define WEFT_DATA_HINT \
  "set WEFT_DATA to weft's data (PREFIX/share/weft, or the source's data) or give --zoo DIR"

/* weft_zoo_dir's answer (a thread's own buffer), "data/zoo" when none. */
const char *weft_zoo_default(void);
/* WEFT_OK when zoo_dir is a directory; else WEFT_EIO (as a file that
 * cannot be opened) saying where weft looks for its data and how to point
 * it there. */
int weft_zoo_check(const char *zoo_dir, WeftError *err);
/* "$WEFT_ZOO (unset), ..., /p/share/weft/zoo, data/zoo": the places looked in. */
void weft_data_searched(char *out, size_t cap);

#endif
