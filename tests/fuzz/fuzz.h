/* fuzz.h — shared by the libFuzzer harnesses (tests/fuzz/, docs/fuzz.md):
 * a private scratch directory for readers that take a path, and the checks
 * every reader's answer must pass whatever the input. */
#ifndef WEFT_FUZZ_H
#define WEFT_FUZZ_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "weft.h"

/* libFuzzer's entry points (the harness defines LLVMFuzzerTestOneInput). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Print "fuzz: <harness>: <what>" and the error if any, then abort(): the
 * fuzzer records the input as a crash. */
#define FUZZ_CHECK(cond, what, err)                                 \
  do {                                                              \
    if (!(cond)) fuzz_fail(__FILE__, __LINE__, #cond, (what), (err)); \
  } while (0)

void fuzz_fail(const char *file, int line, const char *cond, const char *what,
               const WeftError *err);

/* The scratch directory, created on first use under /dev/shm (else /tmp),
 * removed at exit. fuzz_path(name) is "<dir>/<name>" in a static buffer, one
 * of four used in turn (four such paths can be live at once). */
const char *fuzz_dir(void);
const char *fuzz_path(const char *name);

/* Write data[0..size) to <dir>/<name>; returns its path (fuzz_path's).
 * Aborts when the write fails: that is the harness's fault, not the input's. */
const char *fuzz_write(const char *name, const void *data, size_t size);

/* Copy file tests/fixtures/<rel> (WEFT_FUZZ_FIXTURES) to <dir>/<name>. */
void fuzz_copy_fixture(const char *rel, const char *name);

/* A NUL-terminated malloc'd copy of data[0..size). */
char *fuzz_strdup(const uint8_t *data, size_t size);

/* Inputs that could make a path reader block or read without end (/dev/zero,
 * /proc/self/fd/0, a FIFO reached through ".."): the scenario and solve
 * harnesses skip them, since readers follow the paths an input names. */
int fuzz_names_special_file(const uint8_t *data, size_t size);

/* A reader's answer: 0, or a negative WeftErrno equal to err->code with a
 * non-empty message (a non-zero status always carries a reason). */
void fuzz_check_result(int rc, const WeftError *err, const char *what);

/* WEFT_FUZZ_VERBOSE=1 in the environment: fuzz_check_result prints every
 * error and the harnesses what they got (to see what a seed exercises). */
int fuzz_verbose(void);

static inline int fuzz_finite(double x) { return isfinite(x); }

#endif
