/* util.h — internal helpers shared by the readers (not public API):
 * whole-file reads and strict number parsing. */
#ifndef WEFT_IO_UTIL_H
#define WEFT_IO_UTIL_H

#include <stddef.h>
#include <stdio.h>

#include "io/limits.h"
#include "weft.h"

/* Results of weft_io_number / weft_io_integer. */
enum { WEFT_NUM_OK = 0, WEFT_NUM_BAD = 1, WEFT_NUM_NONFINITE = 2, WEFT_NUM_DENORMAL = 3,
       WEFT_NUM_RANGE = 4 /* an integer with more digits than a long long holds */ };

/* Read the whole file into a malloc'd, NUL-terminated buffer (*out, length
 * *len). WEFT_EIO naming the path and strerror's text when it cannot be
 * opened or read; WEFT_EINPUT when it is not a regular file (a directory,
 * /dev/zero, a fifo) or is larger than WEFT_MAX_INPUT_BYTES (limits.h). */
int weft_io_read_file(const char *path, char **out, size_t *len, WeftError *err);
/* Text handed in memory (a binding's string, not a file) obeys the files'
 * cap: WEFT_EINPUT naming name when len > WEFT_MAX_INPUT_BYTES, else 0. */
int weft_io_check_text_size(const char *name, size_t len, WeftError *err);

/* Parse s[0..len) as a decimal number: the whole token must parse, no hex,
 * no spaces. nan/inf in any spelling (C's or YAML's .nan/.inf) and overflow
 * such as 1e999 give WEFT_NUM_NONFINITE; a nonzero value below DBL_MIN in
 * magnitude (1e-310, or 1e-400 that underflows) WEFT_NUM_DENORMAL; anything
 * else unparsable WEFT_NUM_BAD. weft_number_parse (weft.h) is its public
 * face, which the command line uses: one grammar for files and options. */
int weft_io_number(const char *s, size_t len, double *out);
/* "not a number", "not a finite number", "a denormal number (...)". */
const char *weft_io_number_problem(int r);
/* The same as a requirement: "must be a number", "must be a finite number",
 * "must not be a denormal number (...)". */
const char *weft_io_number_must(int r);
/* Length of the longest prefix of s that is an unsigned number of that
 * grammar (digits, optional point and digits, optional exponent); 0 if none.
 * For lexers that find numbers inside expressions. */
size_t weft_io_number_span(const char *s);

/* 0 when v is in r, else -1 with "must be >= 0" or "must be <= 1e18" in buf. */
int weft_io_in_range(double v, const WeftRange *r, char *buf, size_t size);

/* Parse s[0..len) as an optional sign and decimal digits that fit a long long:
 * WEFT_NUM_RANGE when they are digits but too many (more than 18 after
 * leading zeros), WEFT_NUM_BAD when not an integer at all. */
int weft_io_integer(const char *s, size_t len, long long *out);

/* A limit as limits.h writes it: %g without the exponent's sign and zeros
 * (1e-6, 1e12, 0.5), all the digits where %g would round (2147483647). */
void weft_io_format_limit(char *buf, size_t size, double v);

/* The shortest of %.15g, %.16g, %.17g that reads back as the same double,
 * so 250 prints "250.0" and 300/7 "42.857142857142854": exact and still
 * readable; integral values get ".0" (YAML and JSON readers see a float). */
void weft_io_format_double(char *buf, size_t size, double v);

/* Whitespace inside a line, as the workload reader sees it (CR included). */
static inline int weft_io_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

#endif
