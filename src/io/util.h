/* util.h — internal helpers shared by the readers (not public API):
 * whole-file reads and strict number parsing. */
#ifndef WEFT_IO_UTIL_H
#define WEFT_IO_UTIL_H

#include <stddef.h>
#include <stdio.h>

#include "weft.h"

/* Results of weft_io_number / weft_io_integer. */
enum { WEFT_NUM_OK = 0, WEFT_NUM_BAD = 1, WEFT_NUM_NONFINITE = 2 };

/* Read the whole file into a malloc'd, NUL-terminated buffer (*out, length
 * *len). WEFT_EIO naming the path and strerror's text on failure. */
int weft_io_read_file(const char *path, char **out, size_t *len, WeftError *err);

/* Parse s[0..len) as a decimal number: the whole token must parse, no hex,
 * no spaces. nan/inf in any spelling (C's or YAML's .nan/.inf) and overflow
 * such as 1e999 give WEFT_NUM_NONFINITE; anything else unparsable
 * WEFT_NUM_BAD. */
int weft_io_number(const char *s, size_t len, double *out);

/* Parse s[0..len) as an optional sign and decimal digits that fit a long long. */
int weft_io_integer(const char *s, size_t len, long long *out);

/* Whitespace inside a line, as the workload reader sees it (CR included). */
static inline int weft_io_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

#endif
