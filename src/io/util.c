/* util.c — helpers shared by the readers: whole-file reads and strict numbers.
 * A number is accepted only if the whole token parses and is finite. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util.h"

/* strerror's text with a lowercase first letter, as our messages are. */
static void lower_strerror(int e, char *buf, size_t size) {
  snprintf(buf, size, "%s", strerror(e));
  if (buf[0] >= 'A' && buf[0] <= 'Z') buf[0] = (char)(buf[0] - 'A' + 'a');
}

int weft_io_read_file(const char *path, char **out, size_t *len, WeftError *err) {
  char why[128];
  *out = NULL;
  if (len) *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    lower_strerror(errno, why, sizeof why);
    return weft_error_set(err, WEFT_EIO, path, 0, 0, NULL, "cannot open: %s", why);
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    return weft_error_set(err, WEFT_ENOMEM, path, 0, 0, NULL, "out of memory reading the file");
  }
  for (;;) {
    if (cap - n < 2) {  /* keep room for the terminating NUL */
      char *b = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
      if (!b) {
        free(buf);
        fclose(f);
        return weft_error_set(err, WEFT_ENOMEM, path, 0, 0, NULL,
                              "out of memory reading the file");
      }
      buf = b;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) {
    lower_strerror(errno, why, sizeof why);
    free(buf);
    fclose(f);
    return weft_error_set(err, WEFT_EIO, path, 0, 0, NULL, "cannot read: %s", why);
  }
  fclose(f);
  buf[n] = '\0';
  *out = buf;
  if (len) *len = n;
  return WEFT_OK;
}

/* nan, inf, infinity, with an optional sign and YAML's leading dot. */
static int is_nonfinite_word(const char *s) {
  if (*s == '+' || *s == '-') s++;
  if (*s == '.') s++;
  return strcasecmp(s, "nan") == 0 || strcasecmp(s, "inf") == 0 ||
         strcasecmp(s, "infinity") == 0;
}

int weft_io_number(const char *s, size_t len, double *out) {
  if (len == 0) return WEFT_NUM_BAD;
  /* Fast path: up to 15 plain digits are exact in a double (workload files
   * are mostly such integers, and strtod is the parser's hot spot). */
  if (len <= 15) {
    uint64_t v = 0;
    size_t i = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') v = v * 10 + (uint64_t)(s[i++] - '0');
    if (i == len) {
      *out = (double)v;
      return WEFT_NUM_OK;
    }
  }
  char tmp[64];
  if (len >= sizeof tmp) return WEFT_NUM_BAD;
  memcpy(tmp, s, len);
  tmp[len] = '\0';
  if (is_nonfinite_word(tmp)) return WEFT_NUM_NONFINITE;
  for (size_t i = 0; i < len; i++) {  /* decimal only: no hex, no spaces */
    char c = tmp[i];
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      return WEFT_NUM_BAD;
  }
  char *end;
  errno = 0;
  double v = strtod(tmp, &end);
  if (end != tmp + len) return WEFT_NUM_BAD;
  if (!isfinite(v)) return WEFT_NUM_NONFINITE;  /* overflow: 1e999 */
  *out = v;
  return WEFT_NUM_OK;
}

int weft_io_integer(const char *s, size_t len, long long *out) {
  size_t i = 0;
  int neg = 0;
  if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i == len || len - i > 18) return WEFT_NUM_BAD;  /* 18 digits fit a long long */
  long long v = 0;
  for (; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return WEFT_NUM_BAD;
    v = v * 10 + (s[i] - '0');
  }
  *out = neg ? -v : v;
  return WEFT_NUM_OK;
}
