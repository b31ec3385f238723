/* files.c — output files the CLI writes (CSV, edge lists, DOT): a
 * temporary file beside the target, renamed over it when complete, so a
 * reader never sees half a file and a failure leaves nothing behind. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* strerror's text, lowercased as weft's messages are. */
static const char *why(int e, char *buf, size_t n) {
  snprintf(buf, n, "%s", strerror(e));
  if (buf[0] >= 'A' && buf[0] <= 'Z') buf[0] = (char)(buf[0] - 'A' + 'a');
  return buf;
}

int cli_write_file(const char *path, CliWriteFn body, const void *ctx) {
  char msg[128];
  size_t len = strlen(path);
  char *tmp = malloc(len + 16);
  if (!tmp) {
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  snprintf(tmp, len + 16, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    cli_fail("%s: cannot write file: %s", path, why(errno, msg, sizeof msg));
    if (fd >= 0) {
      close(fd);
      unlink(tmp);
    }
    free(tmp);
    return EXIT_RUNTIME;
  }
  body(f, ctx);
  int bad = ferror(f) != 0;
  if (fclose(f)) bad = 1;
  if (!bad) {
    mode_t mask = umask(0);
    umask(mask);
    chmod(tmp, (mode_t)0666 & ~mask); /* mkstemp's 0600 would stick after rename */
  }
  if (bad || rename(tmp, path)) {
    cli_fail("%s: cannot write file: %s", path, why(errno, msg, sizeof msg));
    unlink(tmp);
    free(tmp);
    return EXIT_RUNTIME;
  }
  free(tmp);
  return EXIT_OK;
}
