/* error.c — the status/error table and WeftError helpers.
 * One X-macro table feeds the enum (weft.h) and the messages here. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "weft.h"

const char *weft_strerror(int code) {
  switch (code) {
    case WEFT_OK: return "ok";
#define WEFT_ERRNO_MSG_(name, val, msg) \
  case WEFT_##name: return msg;
    WEFT_ERRNO_MAP(WEFT_ERRNO_MSG_)
#undef WEFT_ERRNO_MSG_
    default: return "unknown error";
  }
}

const char *weft_status_name(WeftSolveStatus s) {
  switch (s) {
#define WEFT_STATUS_MSG_(name, msg) \
  case WEFT_STATUS_##name: return msg;
    WEFT_STATUS_MAP(WEFT_STATUS_MSG_)
#undef WEFT_STATUS_MSG_
  }
  return "unknown status";
}

void weft_error_clear(WeftError *err) {
  if (!err) return;
  memset(err, 0, sizeof *err);
}

int weft_error_set(WeftError *err, int code, const char *file, int line, int col,
                   const char *field, const char *fmt, ...) {
  if (!err) return code;
  err->code = code;
  snprintf(err->file, sizeof err->file, "%s", file ? file : "");
  err->line = line;
  err->col = col;
  snprintf(err->field, sizeof err->field, "%s", field ? field : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return code;
}

char *weft_error_format(const WeftError *err, char *buf, size_t size) {
  if (!buf || size == 0) return buf;
  buf[0] = '\0';
  if (!err) return buf;
  size_t n = 0;
  if (err->file[0]) {
    n += (size_t)snprintf(buf, size, "%s:", err->file);
    if (err->line > 0 && n < size) n += (size_t)snprintf(buf + n, size - n, "%d:", err->line);
    if (err->line > 0 && err->col > 0 && n < size)
      n += (size_t)snprintf(buf + n, size - n, "%d:", err->col);
    if (n < size) n += (size_t)snprintf(buf + n, size - n, " ");
  }
  if (n < size) snprintf(buf + n, size - n, "%s", err->msg[0] ? err->msg : weft_strerror(err->code));
  return buf;
}
