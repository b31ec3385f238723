/* out.c — every output file weft writes: a regular file through a temporary
 * beside it, renamed over it when complete; anything else written through. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "weft.h"

#define OUT_MAX_LINKS 40      /* symbolic links followed, as Linux's ELOOP limit */
#define OUT_NAME_TRIES 100    /* random temporary names tried before giving up */
#define OUT_NEW_MODE 0666     /* open(2)'s usual mode: the umask makes it 0644 or so */

struct WeftOut {
  FILE *f;
  char *path;    /* as the caller gave it, for messages */
  char *final;   /* the regular file renamed over (links resolved); NULL when written through */
  char *tmp;     /* the temporary beside final; NULL when written through */
};

/* "cannot <what> file: <strerror, lowercased>" naming the caller's path. */
static int out_fail(WeftError *err, const char *path, const char *what, int errnum) {
  char reason[128];
  snprintf(reason, sizeof reason, "%s", strerror(errnum));
  if (reason[0] >= 'A' && reason[0] <= 'Z') reason[0] = (char)(reason[0] - 'A' + 'a');
  return weft_error_set(err, WEFT_EIO, path, 0, 0, "", "cannot %s file: %s", what, reason);
}

static char *join_dir(const char *link, const char *target) {
  const char *slash = strrchr(link, '/');
  size_t dl = target[0] == '/' || !slash ? 0 : (size_t)(slash - link) + 1, tl = strlen(target);
  char *s = malloc(dl + tl + 1);
  if (!s) return NULL;
  memcpy(s, link, dl);
  memcpy(s + dl, target, tl + 1);
  return s;
}

/* Follow path's symbolic links one by one to the name that is not a link
 * (it may not exist yet: a dangling link names the file to create). *magic is
 * set when the chain passes through /proc or /dev/fd, whose links name open
 * descriptors (/dev/stdout) rather than files. Returns 0 or an errno value. */
static int resolve(const char *path, char **out, int *magic) {
  char *cur = strdup(path);
  *magic = 0;
  for (int hops = 0; cur; hops++) {
    struct stat st;
    if (lstat(cur, &st) != 0) {
      if (errno == ENOENT) break;  /* a new file, here */
      int e = errno;
      free(cur);
      return e;
    }
    if (!S_ISLNK(st.st_mode)) break;
    if (hops == OUT_MAX_LINKS) {
      free(cur);
      return ELOOP;
    }
    if (!strncmp(cur, "/proc/", 6) || !strncmp(cur, "/dev/fd/", 8)) *magic = 1;
    size_t cap = (size_t)st.st_size + 1 > 256 ? (size_t)st.st_size + 1 : 256;
    char *target = malloc(cap);
    ssize_t n = target ? readlink(cur, target, cap - 1) : -1;
    if (n < 0) {
      int e = target ? errno : ENOMEM;
      free(target);
      free(cur);
      return e;
    }
    target[n] = '\0';
    char *next = join_dir(cur, target);
    free(target);
    free(cur);
    cur = next;
  }
  if (!cur) return ENOMEM;
  *out = cur;
  return 0;
}

/* Create final.tmp.XXXXXX exclusively; the name's letters from the clock,
 * the pid and the attempt (no global state, no umask juggling: open applies
 * the umask to mode). Returns the fd, or -1 with errno. */
static int create_temp(const char *final, char **tmp_out, mode_t mode) {
  static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  size_t n = strlen(final);
  char *tmp = malloc(n + sizeof ".tmp.XXXXXX");
  if (!tmp) {
    errno = ENOMEM;
    return -1;
  }
  memcpy(tmp, final, n);
  memcpy(tmp + n, ".tmp.", 5);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15u ^ (uint64_t)ts.tv_sec ^
               (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)tmp;
  for (int attempt = 0; attempt < OUT_NAME_TRIES; attempt++) {
    x += 0x9E3779B97F4A7C15u;  /* splitmix64 */
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    z ^= z >> 31;
    for (int i = 0; i < 6; i++, z /= 62) tmp[n + 5 + i] = digits[z % 62];
    tmp[n + 11] = '\0';
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0) {
      *tmp_out = tmp;
      return fd;
    }
    if (errno != EEXIST) break;
  }
  int e = errno;
  free(tmp);
  errno = e;
  return -1;
}

/* The descriptor a name such as /dev/stdout or /dev/fd/3 stands for, or -1.
 * Written through a duplicate, the output shares the descriptor's offset
 * (reopened, "weft ... > f" would write over its own report). */
static int named_fd(const char *path) {
  static const char *const std[] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
  for (int i = 0; i < 3; i++)
    if (!strcmp(path, std[i])) return i;
  const char *p = !strncmp(path, "/dev/fd/", 8) ? path + 8
                  : !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
  if (!p || !*p || strlen(p) > 6) return -1;
  int fd = 0;
  for (; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    fd = fd * 10 + (*p - '0');
  }
  return fd;
}

void weft_out_discard(WeftOut *o) {
  if (!o) return;
  if (o->f) fclose(o->f);
  if (o->tmp) unlink(o->tmp);
  free(o->tmp);
  free(o->final);
  free(o->path);
  free(o);
}

int weft_out_open(const char *path, WeftOut **out, WeftError *err) {
  if (!out) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no output handle given");
  *out = NULL;
  if (!path || !path[0])
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no output path given");
  WeftOut *o = calloc(1, sizeof *o);
  if (!o || !(o->path = strdup(path))) {
    free(o);
    return weft_error_set(err, WEFT_ENOMEM, path, 0, 0, "", "out of memory opening the file");
  }
  struct stat st;
  int exists = stat(path, &st) == 0, magic = 0, fd = -1, e;
  if (!exists && errno != ENOENT) {
    e = errno;  /* a missing directory on the way, a loop, no permission */
  } else if (exists && S_ISDIR(st.st_mode)) {
    e = EISDIR;
  } else if ((e = resolve(path, &o->final, &magic)) != 0) {
  } else if (exists && (magic || !S_ISREG(st.st_mode))) {
    /* /dev/null, /dev/stdout, a FIFO, a terminal: never replaced, written
     * through as cp and tar do (a regular file behind /dev/stdout is the
     * caller's redirection, > or >>: appended to, not renamed over). */
    free(o->final);
    o->final = NULL;
    int n = named_fd(path);
    fd = n >= 0 ? fcntl(n, F_DUPFD_CLOEXEC, 0)
                : open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (S_ISREG(st.st_mode) ? O_APPEND : 0));
    e = fd < 0 ? errno : 0;
  } else if (exists && access(o->final, W_OK) != 0) {
    e = errno;  /* a read-only file stays read-only, as cp would leave it */
  } else {
    fd = create_temp(o->final, &o->tmp, OUT_NEW_MODE);
    e = fd < 0 ? errno : 0;
    if (fd >= 0 && exists && fchmod(fd, st.st_mode & 07777) != 0) e = errno;  /* keep its mode */
  }
  if (!e && !(o->f = fdopen(fd, "w"))) e = errno;
  if (e) {
    if (fd >= 0 && !o->f) close(fd);
    weft_out_discard(o);
    return e == ENOMEM ? weft_error_set(err, WEFT_ENOMEM, path, 0, 0, "", "out of memory")
                       : out_fail(err, path, exists ? "write" : "create", e);
  }
  *out = o;
  return WEFT_OK;
}

FILE *weft_out_stream(WeftOut *o) { return o ? o->f : NULL; }
const char *weft_out_temp(const WeftOut *o) { return o ? o->tmp : NULL; }
const char *weft_out_path(const WeftOut *o) { return o ? o->path : NULL; }

/* Flush and close o's stream; 0 or an errno value. */
static int out_close(WeftOut *o) {
  int e = 0;
  errno = 0;  /* so a failed stdio call can be told from a stale errno */
  if (fflush(o->f) != 0) e = errno ? errno : EIO;
  else if (ferror(o->f)) e = EIO;  /* failed earlier; its errno is gone */
  errno = 0;
  if (fclose(o->f) != 0 && !e) e = errno ? errno : EIO;
  o->f = NULL;
  return e;
}

/* A hard link to final beside it (final.old.XXXXXX): the old content, kept
 * until every file of a commit is in place. NULL when final does not exist
 * (nothing to restore) and *e = 0; NULL and *e set on failure. */
static char *backup(const char *final, int *e) {
  struct stat st;
  *e = 0;
  if (lstat(final, &st) != 0) {
    if (errno != ENOENT) *e = errno;
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) return NULL;  /* nothing to keep: a directory fails the rename */
  char *name = NULL;
  int fd = create_temp(final, &name, 0600);  /* a unique name, then the link takes its place */
  if (fd < 0) {
    *e = errno;
    return NULL;
  }
  close(fd);
  char *old = malloc(strlen(name) + 1);
  if (old) {  /* "....tmp.XXXXXX" -> "....old.XXXXXX" (same length) */
    strcpy(old, name);
    memcpy(old + strlen(final), ".old.", 5);
  }
  unlink(name);
  free(name);
  if (!old) {
    *e = ENOMEM;
    return NULL;
  }
  if (link(final, old) != 0) {
    *e = errno;
    free(old);
    return NULL;
  }
  return old;
}

int weft_out_commit_all(WeftOut *const *o, int n, WeftError *err) {
  if (n < 0 || (n > 0 && !o))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no output files given");
  int rc = WEFT_OK, done = 0, e = 0;
  char **old = calloc((size_t)n + 1, sizeof *old);
  if (!old) rc = weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory");
  for (int i = 0; !rc && i < n; i++)
    if ((e = out_close(o[i])) != 0) rc = out_fail(err, o[i]->path, "write", e);
  /* Keep the old files (only needed when a later rename could fail). */
  for (int i = 0; !rc && n > 1 && i < n; i++)
    if (o[i]->tmp && !(old[i] = backup(o[i]->final, &e)) && e)
      rc = out_fail(err, o[i]->path, "keep a backup of", e);
  while (!rc && done < n) {
    if (o[done]->tmp && rename(o[done]->tmp, o[done]->final) != 0)
      rc = out_fail(err, o[done]->path, "replace", errno);
    else done++;
  }
  for (int i = 0; rc && old && i < done; i++) {
    /* put back what was renamed: the old file, or no file where there was none */
    if (!o[i]->tmp) continue;
    if (old[i] && rename(old[i], o[i]->final) != 0) {
      free(old[i]);  /* could not restore: the old content stays in the backup */
      old[i] = NULL;
    } else if (!old[i]) {
      unlink(o[i]->final);
    }
    free(old[i]);
    old[i] = NULL;
  }
  for (int i = 0; i < n; i++) {
    if (old && old[i]) {
      unlink(old[i]);
      free(old[i]);
    }
    if (i < done && o[i]->tmp) {  /* renamed: nothing left to remove */
      free(o[i]->tmp);
      o[i]->tmp = NULL;
    }
    weft_out_discard(o[i]);
  }
  free(old);
  return rc;
}

int weft_out_commit(WeftOut *o, WeftError *err) {
  if (!o) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no output file given");
  return weft_out_commit_all(&o, 1, err);
}
