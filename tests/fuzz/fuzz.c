/* fuzz.c — scratch directory, file helpers and result checks shared by the
 * libFuzzer harnesses (fuzz.h). */
#define _GNU_SOURCE  /* mkdtemp, memmem */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef WEFT_FUZZ_FIXTURES
#define WEFT_FUZZ_FIXTURES "tests/fixtures"
#endif

static char scratch[256];
static char pathbuf[4][512];  /* a few paths can be live at once in one call */
static int pathnext;

void fuzz_fail(const char *file, int line, const char *cond, const char *what,
               const WeftError *err) {
  fprintf(stderr, "fuzz: %s:%d: %s: check failed: %s\n", file, line, what, cond);
  if (err) {
    char buf[1024];
    fprintf(stderr, "fuzz: error code %d: %s\n", err->code, weft_error_format(err, buf, sizeof buf));
  }
  abort();
}

/* Remove the scratch directory and what the harnesses put in it (two levels). */
static void remove_tree(const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[768];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && depth > 0) remove_tree(p, depth - 1);
    else unlink(p);
  }
  closedir(d);
  rmdir(dir);
}

static void cleanup(void) {
  if (scratch[0]) remove_tree(scratch, 3);
}

const char *fuzz_dir(void) {
  if (scratch[0]) return scratch;
  struct stat st;
  /* run.sh names a directory it removes after the harness (libFuzzer's
   * exit path skips atexit); by hand, /dev/shm or /tmp */
  const char *base = getenv("WEFT_FUZZ_TMPDIR");
  if (!base || !base[0])
    base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
  snprintf(scratch, sizeof scratch, "%s/weft-fuzz-XXXXXX", base);
  if (!mkdtemp(scratch)) {
    perror("fuzz: mkdtemp");
    abort();
  }
  atexit(cleanup);
  return scratch;
}

const char *fuzz_path(const char *name) {
  char *p = pathbuf[pathnext];
  pathnext = (pathnext + 1) % 4;
  snprintf(p, sizeof pathbuf[0], "%s/%s", fuzz_dir(), name);
  return p;
}

const char *fuzz_write(const char *name, const void *data, size_t size) {
  const char *p = fuzz_path(name);
  FILE *f = fopen(p, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
    perror(p);
    abort();
  }
  return p;
}

void fuzz_copy_fixture(const char *rel, const char *name) {
  char src[512];
  snprintf(src, sizeof src, "%s/%s", WEFT_FUZZ_FIXTURES, rel);
  FILE *f = fopen(src, "rb");
  if (!f) {
    perror(src);
    abort();
  }
  char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  fuzz_write(name, buf, n);
}

char *fuzz_strdup(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  if (size) memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

int fuzz_names_special_file(const uint8_t *data, size_t size) {
  static const char *const bad[] = {"/dev", "dev/", "/proc", "proc/", "/sys", "sys/", "../",
                                    "..\\", NULL};
  for (int i = 0; bad[i]; i++)
    if (memmem(data, size, bad[i], strlen(bad[i]))) return 1;
  return 0;
}

int fuzz_verbose(void) {
  static int v = -1;
  if (v < 0) v = getenv("WEFT_FUZZ_VERBOSE") != NULL;
  return v;
}

void fuzz_check_result(int rc, const WeftError *err, const char *what) {
  if (rc == WEFT_OK) return;
  if (fuzz_verbose()) {
    char buf[1024];
    fprintf(stderr, "fuzz: %s: %s\n", what, weft_error_format(err, buf, sizeof buf));
  }
  FUZZ_CHECK(rc >= WEFT_ESOLVER && rc <= WEFT_EINVAL, what, err);
  FUZZ_CHECK(err->code == rc, what, err);
  FUZZ_CHECK(memchr(err->msg, '\0', sizeof err->msg) != NULL, what, NULL);
  FUZZ_CHECK(err->msg[0] != '\0', what, err);
  FUZZ_CHECK(err->line >= 0 && err->col >= 0, what, err);
  char buf[1024];
  weft_error_format(err, buf, sizeof buf);
}
