/* files.c — the files the CLI writes, over libweft's WeftOut (a temporary
 * renamed into place, devices written through), and the signal handler that
 * removes the temporaries of a run ended by a signal. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Temporaries being written, for the handler: fixed storage, no malloc in
 * it. A slot's path is written while the signals are blocked, so the handler
 * never sees half a path. More than CLI_TMP_SLOTS open at once or a longer
 * path: still written, only not removed on a signal. */
#define CLI_TMP_SLOTS 8
#define CLI_TMP_PATH 4096
static char tmp_path[CLI_TMP_SLOTS][CLI_TMP_PATH];
static volatile sig_atomic_t tmp_used[CLI_TMP_SLOTS];
static int handlers_installed;

/* Every signal whose default action ends the process and that can be caught,
 * but for the faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP,
 * SIGSYS: a bug, where unlinking from a broken process helps no one).
 * SIGXFSZ is not here: it is ignored (cli_signals_init) so that a write
 * past `ulimit -f` fails with EFBIG and is reported like a full disk. */
static const int cleanup_signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGPIPE,   SIGQUIT, SIGUSR1,
                                      SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF};
#define NSIGNALS (int)(sizeof cleanup_signals / sizeof cleanup_signals[0])

/* Remove the temporaries, then die of the same signal (default action). Only
 * async-signal-safe calls: unlink, raise. */
static void on_signal(int sig) {
  for (int i = 0; i < CLI_TMP_SLOTS; i++)
    if (tmp_used[i]) unlink(tmp_path[i]);
  raise(sig);  /* SA_RESETHAND restored the default; SA_NODEFER lets it through now */
}

static void install_handlers(void) {
  handlers_installed = 1;
  for (int i = 0; i < NSIGNALS; i++) {
    struct sigaction old, sa;
    if (sigaction(cleanup_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
      continue;  /* ignored by whoever started us (nohup, a background job): keep it so */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(cleanup_signals[i], &sa, NULL);
  }
}

void cli_signals_init(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGXFSZ, &sa, NULL);
}

/* Block the cleanup signals around a change of the table (the handler sees
 * a slot before or after it, never during). */
static void block(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = 0; i < NSIGNALS; i++) sigaddset(&set, cleanup_signals[i]);
  pthread_sigmask(SIG_BLOCK, &set, old);
}

static void tmp_register(const char *path) {
  if (!path || strlen(path) >= CLI_TMP_PATH) return;
  sigset_t old;
  block(&old);
  if (!handlers_installed) install_handlers();
  for (int i = 0; i < CLI_TMP_SLOTS; i++)
    if (!tmp_used[i]) {
      strcpy(tmp_path[i], path);
      atomic_signal_fence(memory_order_seq_cst);
      tmp_used[i] = 1;
      break;
    }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void tmp_forget(const char *path) {
  if (!path) return;
  sigset_t old;
  block(&old);
  for (int i = 0; i < CLI_TMP_SLOTS; i++)
    if (tmp_used[i] && !strcmp(tmp_path[i], path)) {
      tmp_used[i] = 0;
      break;
    }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* An empty path is wrong as written (usage, 2); anything the file system
 * refuses is a runtime failure (1), whenever it is found. */
static int out_status(const WeftError *err) {
  cli_error(err);
  return err->code == WEFT_EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
}

int cli_out_check(const char *option, const char *path) {
  if (!path || path[0]) return EXIT_OK;
  cli_fail("%s: empty path", option);
  return EXIT_USAGE;
}

/* Two outputs on one file: the later would replace the earlier (--export-astra
 * X --plot X). Same spelling, or the same existing file (./x and x). */
int cli_out_distinct(int n, const char *const *names, const char *const *paths) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      if (!paths[i] || !paths[j]) continue;
      struct stat a, b;
      int same = !strcmp(paths[i], paths[j]) ||
                 (stat(paths[i], &a) == 0 && stat(paths[j], &b) == 0 && S_ISREG(a.st_mode) &&
                  a.st_dev == b.st_dev && a.st_ino == b.st_ino);
      if (same) {
        cli_fail("%s and %s name the same file ('%s'): give each its own", names[i], names[j],
                 paths[j]);
        return EXIT_USAGE;
      }
    }
  return EXIT_OK;
}

int cli_out_open(const char *path, WeftOut **out) {
  WeftError err;
  weft_error_clear(&err);
  fflush(stdout);  /* what was printed so far comes first, should path be /dev/stdout */
  if (weft_out_open(path, out, &err)) return out_status(&err);
  tmp_register(weft_out_temp(*out));
  return EXIT_OK;
}

/* The temporaries' paths, copied: a commit frees them, and they stay in the
 * table until the rename is done. */
int cli_out_commit_all(WeftOut *const *o, int n) {
  char *tmp[CLI_TMP_SLOTS] = {NULL};
  for (int i = 0; i < n && i < CLI_TMP_SLOTS; i++)
    if (weft_out_temp(o[i]) && !(tmp[i] = strdup(weft_out_temp(o[i])))) {
      for (int j = 0; j < i; j++) free(tmp[j]);
      for (int j = 0; j < n; j++) cli_out_discard(o[j]);
      cli_fail("out of memory");
      return EXIT_RUNTIME;
    }
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_out_commit_all(o, n, &err) ? out_status(&err) : EXIT_OK;
  for (int i = 0; i < n && i < CLI_TMP_SLOTS; i++) {
    tmp_forget(tmp[i]);
    free(tmp[i]);
  }
  return rc;
}

int cli_out_commit(WeftOut *o) { return cli_out_commit_all(&o, 1); }

void cli_out_discard(WeftOut *o) {
  tmp_forget(weft_out_temp(o));
  weft_out_discard(o);
}

int cli_write_file(const char *path, CliWriteFn body, const void *ctx) {
  WeftOut *o;
  int rc = cli_out_open(path, &o);
  if (rc) return rc;
  body(weft_out_stream(o), ctx);
  return cli_out_commit(o);
}

/* Standard output's buffered text is written at exit: a full disk or a
 * closed descriptor must not pass for success. */
int cli_close_stdout(void) {
  errno = 0;
  int bad = fflush(stdout) != 0, e = errno;
  if (!bad && ferror(stdout)) bad = 1, e = 0;  /* failed earlier: its errno is gone */
  errno = 0;
  if (fclose(stdout) != 0 && !bad) bad = 1, e = errno;
  if (!bad) return EXIT_OK;
  char why[128];
  snprintf(why, sizeof why, "%s", strerror(e ? e : EIO));
  if (why[0] >= 'A' && why[0] <= 'Z') why[0] = (char)(why[0] - 'A' + 'a');
  cli_fail("cannot write standard output: %s", why);
  return EXIT_RUNTIME;
}
