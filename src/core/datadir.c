/* datadir.c — where weft's data is (include/weft/core.h, "data"): the
 * environment, beside the running program, the build's PREFIX/share/weft,
 * ./data. WEFT_DATADIR comes from the Makefile (PREFIX/share/weft). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/datadir.h"
#include "weft.h"

#ifndef WEFT_DATADIR
#define WEFT_DATADIR "/usr/local/share/weft"
#endif

const char *weft_data_prefix(void) { return WEFT_DATADIR; }

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory above the running program's (Linux /proc/self/exe) into
 * out: /p for /p/bin/weft, "" for /bin/weft. 0 when unknown. */
static int exe_parent(char *out, size_t cap) {
  char exe[WEFT_PATH_LEN];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0 || (size_t)n >= sizeof exe - 1) return 0;
  exe[n] = '\0';
  for (int k = 0; k < 2; k++) { /* drop the name, then its directory */
    char *slash = strrchr(exe, '/');
    if (!slash) return 0;
    *slash = '\0';
  }
  return (size_t)snprintf(out, cap, "%s", exe) < cap;
}

/* The candidates after $WEFT_DATA, in order, into cand[0..NCAND). */
enum { NCAND = 4 };
static void candidates(char cand[NCAND][WEFT_PATH_LEN]) {
  char up[WEFT_PATH_LEN];
  for (int k = 0; k < NCAND; k++) cand[k][0] = '\0';
  if (exe_parent(up, sizeof up)) {
    if (snprintf(cand[0], WEFT_PATH_LEN, "%s/share/weft", up) >= WEFT_PATH_LEN) cand[0][0] = 0;
    if (snprintf(cand[1], WEFT_PATH_LEN, "%s/data", up) >= WEFT_PATH_LEN) cand[1][0] = 0;
  }
  if (strcmp(cand[0], WEFT_DATADIR)) snprintf(cand[2], WEFT_PATH_LEN, "%s", WEFT_DATADIR);
  snprintf(cand[3], WEFT_PATH_LEN, "data");
}

static int holds_zoo(const char *dir) {
  char zoo[WEFT_PATH_LEN];
  return snprintf(zoo, sizeof zoo, "%s/zoo", dir) < (int)sizeof zoo && is_dir(zoo);
}

void weft_data_searched(char *out, size_t cap) {
  char cand[NCAND][WEFT_PATH_LEN];
  candidates(cand);
  const char *zoo = getenv("WEFT_ZOO"), *data = getenv("WEFT_DATA");
  size_t used = 0;
  out[0] = '\0';
  if (zoo && zoo[0]) used += (size_t)snprintf(out + used, cap - used, "$WEFT_ZOO %s, ", zoo);
  if (data && data[0] && used < cap)
    used += (size_t)snprintf(out + used, cap - used, "$WEFT_DATA %s/zoo, ", data);
  if (used < cap && !(zoo && zoo[0]) && !(data && data[0]))
    used += (size_t)snprintf(out + used, cap - used, "$WEFT_ZOO, $WEFT_DATA (unset), ");
  for (int k = 0; k < NCAND && used < cap; k++)
    if (cand[k][0])
      used += (size_t)snprintf(out + used, cap - used, "%s%s/zoo", k ? ", " : "", cand[k]);
}

int weft_data_dir(char *out, size_t cap, WeftError *err) {
  if (!out || cap == 0) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no output given");
  const char *env = getenv("WEFT_DATA");
  const char *found = NULL;
  char cand[NCAND][WEFT_PATH_LEN];
  if (env && env[0]) {
    found = env;
  } else {
    candidates(cand);
    for (int k = 0; k < NCAND && !found; k++)
      if (cand[k][0] && holds_zoo(cand[k])) found = cand[k];
  }
  int rc = WEFT_OK;
  if (!found) {
    char where[4 * WEFT_PATH_LEN];
    weft_data_searched(where, sizeof where);
    rc = weft_error_set(err, WEFT_EINPUT, "", 0, 0, NULL,
                        "weft's data not found (looked in %s): " WEFT_DATA_HINT,
                        where);
    found = "data";
  }
  if ((size_t)snprintf(out, cap, "%s", found) >= cap)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "data path too long");
  return rc;
}

int weft_zoo_dir(char *out, size_t cap, WeftError *err) {
  if (!out || cap == 0) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no output given");
  const char *env = getenv("WEFT_ZOO");
  if (env && env[0]) {
    if ((size_t)snprintf(out, cap, "%s", env) >= cap)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "zoo path too long");
    return WEFT_OK;
  }
  char data[WEFT_PATH_LEN];
  int rc = weft_data_dir(data, sizeof data, err);
  if (rc && rc != WEFT_EINPUT) return rc;
  if ((size_t)snprintf(out, cap, "%s/zoo", data) >= cap)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "zoo path too long");
  return rc;
}

const char *weft_zoo_default(void) {
  static _Thread_local char dir[WEFT_PATH_LEN];
  weft_zoo_dir(dir, sizeof dir, NULL);
  return dir;
}

int weft_zoo_check(const char *zoo_dir, WeftError *err) {
  struct stat st;
  if (stat(zoo_dir, &st) == 0 && S_ISDIR(st.st_mode)) return WEFT_OK;
  char where[4 * WEFT_PATH_LEN];
  weft_data_searched(where, sizeof where);
  return weft_error_set(err, WEFT_EIO, zoo_dir, 0, 0, NULL,
                        "no model zoo here; weft looks in %s: " WEFT_DATA_HINT, where);
}
