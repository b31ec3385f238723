/* dims_list.h — the one check of a per-dim list's length (--active,
 * --fabric, --planes, --link-gbps, --max-links and their keys): one entry per
 * dim of the network, else an input error naming the field. */
#ifndef WEFT_DIMS_LIST_H
#define WEFT_DIMS_LIST_H

#include "weft.h"

/* WEFT_OK when n == net->ndims; else WEFT_EINPUT at file:lines[0] (0 when
 * lines is NULL or n is 0), "FIELD has N entries, the network has D dims". */
int weft_dims_list_check(const WeftNetwork *net, int n, const char *file, const int *lines,
                         const char *field, WeftError *err);

#endif
