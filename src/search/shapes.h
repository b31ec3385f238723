/* shapes.h — internal: divisor lists, shared by shapes.c and codesign.c
 * (and usable by sweep). */
#ifndef WEFT_SEARCH_SHAPES_H
#define WEFT_SEARCH_SHAPES_H

#include "weft.h"

#define WEFT_SHAPES_MAX_DIVISORS 1600  /* no int has more (2095133040 has 1600) */
#define WEFT_ACTIVE_MAX_CANDIDATES 31  /* one per power of two below 2^31 */

/* Divisors of n >= 1, ascending, at most max of them; returns how many. */
int weft_divisors(int n, int *div, int max);

#endif
