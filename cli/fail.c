/* fail.c — the CLI's one way to say what went wrong: "weft: <message>" on
 * stderr, for a library error (with its file, line and field) or a printf
 * message. Below every command, so each can report without depending on main.c. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

void cli_error(const WeftError *err) {
  char buf[1024];
  if (!err->msg[0]) { /* a library call that gave no reason still gets one */
    fprintf(stderr, "weft: %s\n", weft_strerror(err->code ? err->code : WEFT_ESOLVER));
    return;
  }
  fprintf(stderr, "weft: %s\n", weft_error_format(err, buf, sizeof buf));
}

/* A message past this many bytes (a hostile value echoed whole) is cut at a
 * character's start, with how long it was. */
#define FAIL_MAX 1024

void cli_fail(const char *fmt, ...) {
  char buf[FAIL_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0, buf[0] = '\0';
  if ((size_t)n < sizeof buf) {
    fprintf(stderr, "weft: %s\n", buf);
    return;
  }
  size_t k = sizeof buf - 1; /* drop a UTF-8 sequence the cut split */
  while (k > 0 && ((unsigned char)buf[k - 1] & 0xC0) == 0x80) k--;
  if (k > 0 && ((unsigned char)buf[k - 1] & 0x80)) k--;
  fprintf(stderr, "weft: %.*s... (%d bytes in all)\n", (int)k, buf, n);
}
