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

void cli_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("weft: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
