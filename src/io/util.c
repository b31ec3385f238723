/* util.c — helpers shared by the readers: whole-file reads (regular files up
 * to a cap) and the one number grammar of files and command-line options. */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/limits.h"
#include "io/util.h"

/* strerror's text with a lowercase first letter, as our messages are. */
static void lower_strerror(int e, char *buf, size_t size) {
  snprintf(buf, size, "%s", strerror(e));
  if (buf[0] >= 'A' && buf[0] <= 'Z') buf[0] = (char)(buf[0] - 'A' + 'a');
}

/* What a non-regular file is, for the message. */
static const char *file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a fifo";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

static int too_big(const char *path, WeftError *err) {
  return weft_error_set(err, WEFT_EINPUT, path, 0, 0, NULL,
                        "larger than %s, the most an input file may be", "256 MiB");
}

int weft_io_check_text_size(const char *name, size_t len, WeftError *err) {
  if (len <= (size_t)WEFT_MAX_INPUT_BYTES) return WEFT_OK;
  return weft_error_set(err, WEFT_EINPUT, name ? name : "", 0, 0, NULL,
                        "larger than %s, the most an input (file or text) may be", "256 MiB");
}

/* Regular files only, at most WEFT_MAX_INPUT_BYTES: opened without blocking
 * (a fifo would wait for a writer), then checked with fstat on the open
 * descriptor (no window between a stat and the open), then read with the
 * cap enforced again (the file may grow while read). */
int weft_io_read_file(const char *path, char **out, size_t *len, WeftError *err) {
  char why[128];
  *out = NULL;
  if (len) *len = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    lower_strerror(errno, why, sizeof why);
    return weft_error_set(err, WEFT_EIO, path, 0, 0, NULL, "cannot open: %s", why);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    lower_strerror(errno, why, sizeof why);
    close(fd);
    return weft_error_set(err, WEFT_EIO, path, 0, 0, NULL, "cannot read: %s", why);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return weft_error_set(err, WEFT_EIO, path, 0, 0, NULL,
                          "not a regular file (%s): inputs are read from regular files",
                          file_kind(st.st_mode));
  }
  if (st.st_size > WEFT_MAX_INPUT_BYTES) {
    close(fd);
    return too_big(path, err);
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  /* One byte beyond the cap tells a file that grew past it; one for NUL. */
  size_t cap = (size_t)st.st_size + 2, n = 0;
  char *buf = malloc(cap);
  if (!buf) {
    close(fd);
    return weft_error_set(err, WEFT_ENOMEM, path, 0, 0, NULL, "out of memory reading the file");
  }
  for (;;) {
    if (cap - n < 2) {  /* keep room for the terminating NUL */
      size_t want = cap * 2 > (size_t)WEFT_MAX_INPUT_BYTES + 2 ? (size_t)WEFT_MAX_INPUT_BYTES + 2
                                                               : cap * 2;
      char *b = want > cap ? realloc(buf, want) : NULL;
      if (!b) {
        free(buf);
        close(fd);
        if (want <= cap) return too_big(path, err);
        return weft_error_set(err, WEFT_ENOMEM, path, 0, 0, NULL,
                              "out of memory reading the file");
      }
      buf = b;
      cap = want;
    }
    ssize_t got = read(fd, buf + n, cap - n - 1);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      lower_strerror(errno, why, sizeof why);
      free(buf);
      close(fd);
      return weft_error_set(err, WEFT_EIO, path, 0, 0, NULL, "cannot read: %s", why);
    }
    if (got == 0) break;
    n += (size_t)got;
    if (n > (size_t)WEFT_MAX_INPUT_BYTES) {
      free(buf);
      close(fd);
      return too_big(path, err);
    }
  }
  close(fd);
  buf[n] = '\0';
  *out = buf;
  if (len) *len = n;
  return WEFT_OK;
}

static int number_text(const char *tmp, size_t len, double *out);

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
  char small[64], *tmp = small; /* a long number (70 digits) is still a number */
  if (len >= sizeof small && !(tmp = malloc(len + 1))) return WEFT_NUM_BAD;
  memcpy(tmp, s, len);
  tmp[len] = '\0';
  int r = number_text(tmp, len, out);
  if (tmp != small) free(tmp);
  return r;
}

/* weft_io_number's slow path, on a NUL-terminated copy tmp[0..len). */
static int number_text(const char *tmp, size_t len, double *out) {
  if (is_nonfinite_word(tmp)) return WEFT_NUM_NONFINITE;
  for (size_t i = 0; i < len; i++) {  /* decimal only: no hex, no spaces */
    char c = tmp[i];
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      return WEFT_NUM_BAD;
  }
  char *end;
  errno = 0;
  double v = strtod(tmp, &end);
  int range = errno == ERANGE;
  if (end != tmp + len) return WEFT_NUM_BAD;
  if (!isfinite(v)) return WEFT_NUM_NONFINITE;  /* overflow: 1e999 */
  /* Below DBL_MIN precision is lost, and 1/v overflows: 1e-310, or 1e-400
   * that underflows to 0 (ERANGE). A written zero is fine. */
  if ((v != 0.0 && fabs(v) < DBL_MIN) || (v == 0.0 && range)) return WEFT_NUM_DENORMAL;
  *out = v;
  return WEFT_NUM_OK;
}

const char *weft_io_number_problem(int r) {
  switch (r) {
    case WEFT_NUM_NONFINITE: return "not a finite number";
    case WEFT_NUM_DENORMAL: return "a denormal number (nonzero, below 2.2e-308)";
    default: return "not a number";
  }
}

const char *weft_io_number_must(int r) {
  switch (r) {
    case WEFT_NUM_NONFINITE: return "must be a finite number";
    case WEFT_NUM_DENORMAL: return "must not be a denormal number (nonzero, below 2.2e-308)";
    default: return "must be a number";
  }
}

int weft_number_parse(const char *s, size_t len, double *out, const char **why) {
  double v = 0.0;
  int r = s ? weft_io_number(s, len, &v) : WEFT_NUM_BAD;
  if (why) *why = r == WEFT_NUM_OK ? NULL : weft_io_number_problem(r);
  if (r != WEFT_NUM_OK) return WEFT_EINPUT;
  if (out) *out = v;
  return WEFT_OK;
}

size_t weft_io_number_span(const char *s) {
  size_t i = 0, digits = 0;
  while (s[i] >= '0' && s[i] <= '9') i++, digits++;
  if (s[i] == '.') {
    i++;
    while (s[i] >= '0' && s[i] <= '9') i++, digits++;
  }
  if (!digits) return 0;
  if (s[i] == 'e' || s[i] == 'E') {
    size_t j = i + 1;
    if (s[j] == '+' || s[j] == '-') j++;
    if (s[j] >= '0' && s[j] <= '9') {
      while (s[j] >= '0' && s[j] <= '9') j++;
      i = j;
    }
  }
  return i;
}

int weft_io_in_range(double v, const WeftRange *r, char *buf, size_t size) {
  if (r->lo_open ? v > r->lo : v >= r->lo) {
    if (v <= r->hi) return 0;
    snprintf(buf, size, "must be <= %s", r->hi_text);
  } else {
    snprintf(buf, size, "must be %s %g", r->lo_open ? ">" : ">=", r->lo);
  }
  return -1;
}

int weft_io_integer(const char *s, size_t len, long long *out) {
  size_t i = 0;
  int neg = 0;
  if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i == len) return WEFT_NUM_BAD;
  for (size_t j = i; j < len; j++)
    if (s[j] < '0' || s[j] > '9') return WEFT_NUM_BAD;
  while (len - i > 1 && s[i] == '0') i++;        /* leading zeros count for nothing */
  if (len - i > 18) return WEFT_NUM_RANGE;      /* 18 digits fit a long long */
  long long v = 0;
  for (; i < len; i++) v = v * 10 + (s[i] - '0');
  *out = neg ? -v : v;
  return WEFT_NUM_OK;
}

void weft_io_format_limit(char *buf, size_t size, double v) {
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%g", v);
  if (strtod(tmp, NULL) != v) snprintf(tmp, sizeof tmp, "%.17g", v); /* 2147483647 exactly */
  size_t o = 0;
  for (const char *p = tmp; *p && o + 2 < size; p++) {
    buf[o++] = *p;
    if (*p == 'e') { /* e+12 -> e12, e-06 -> e-6 */
      if (p[1] == '-') buf[o++] = *++p;
      else if (p[1] == '+') p++;
      while (p[1] == '0' && p[2]) p++;
    }
  }
  buf[o] = '\0';
}

void weft_io_format_double(char *buf, size_t size, double v) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  if (!strpbrk(buf, ".eEn")) {  /* "n" guards inf/nan, which callers refuse first */
    size_t n = strlen(buf);
    if (n + 2 < size) memcpy(buf + n, ".0", 3);
  }
}
