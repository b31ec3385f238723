/* weft/core.h — public (part of weft.h): limits, errors and the one number syntax.
 * Include <weft.h>; this header includes what it builds on. */
#ifndef WEFT_H_CORE
#define WEFT_H_CORE

#include <stddef.h>
#include <stdio.h>


#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ limits */
#define WEFT_MAX_DIMS 16        /* network dimensions */
#define WEFT_MAX_COST_CLASSES 32
#define WEFT_MAX_CONSTRAINTS 64
#define WEFT_MAX_JOBS 16        /* workloads optimised together */
#define WEFT_MAX_GROUPS 8       /* named groups of a communicator */
#define WEFT_NAME_LEN 64
#define WEFT_PATH_LEN 512
/* A bandwidth weft takes, GB/s per NPU per dim (--bw, a network file's
 * design, a simulation's bw_gbps): 1e-6 .. 1e12, or 0 for a dim no
 * collective uses where that is allowed. 1e-6 bounds what a model divides
 * by, 1e12 what a price multiplies (docs/scenario.md, "Limits"). */
#define WEFT_MIN_BW_GBPS 1e-6
#define WEFT_MAX_BW_GBPS 1e12

/* ------------------------------------------------------------------ errors
 * API return codes: 0 on success, a negative WEFT_E* otherwise. One table,
 * so codes and messages cannot drift apart. */
#define WEFT_ERRNO_MAP(X)                                          \
  X(EINVAL, -1, "invalid argument")                                \
  X(ENOMEM, -2, "out of memory")                                   \
  X(EIO, -3, "cannot read or write file")                          \
  X(ESYNTAX, -4, "syntax error")                                   \
  X(EINPUT, -5, "invalid input")                                   \
  X(EMODEL, -6, "inconsistent model")                              \
  X(ESOLVER, -7, "solver failure")

typedef enum {
  WEFT_OK = 0,
#define WEFT_ERRNO_ENUM_(name, val, msg) WEFT_##name = val,
  WEFT_ERRNO_MAP(WEFT_ERRNO_ENUM_)
#undef WEFT_ERRNO_ENUM_
} WeftErrno;

/* Message for a WeftErrno (never NULL). */
const char *weft_strerror(int code);

/* Filled by parsers and validators: where and what. file may be "" (no
 * file, e.g. a command-line constraint), line/col are 1-based, 0 = unknown. */
typedef struct {
  int code;                       /* a WeftErrno */
  char file[WEFT_PATH_LEN];
  int line;
  int col;
  char field[WEFT_NAME_LEN];      /* offending key or field name, may be "" */
  char msg[256];                  /* lowercase, no trailing period */
} WeftError;

/* Reset err to WEFT_OK with empty strings. NULL is allowed. */
void weft_error_clear(WeftError *err);
/* Set err (if non-NULL) and return code. printf-style message. */
int weft_error_set(WeftError *err, int code, const char *file, int line, int col,
                   const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;
/* "file:line:col: msg" (parts omitted when unknown) into buf. Returns buf. */
char *weft_error_format(const WeftError *err, char *buf, size_t size);

/* ------------------------------------------------------------------ data
 * weft's data: the model zoo (zoo/: models, devices, clusters), the parts
 * catalog (parts/), cost models (cost/), ... `make install PREFIX=P` puts it
 * in P/share/weft; the source tree holds it as data/. The data directory is
 * the first of: $WEFT_DATA (taken as given); beside the running program,
 * <its directory>/../share/weft (an installed weft, wherever it was moved)
 * and <its directory>/../data (the source tree's build/weft); the directory
 * the library was built to be installed in (PREFIX/share/weft, the build's
 * PREFIX); ./data; the first that holds zoo/. The zoo is $WEFT_ZOO when set,
 * else the data directory's zoo/. Each writes the path into out[0..cap) and
 * returns WEFT_OK, or WEFT_EINPUT when no candidate holds a zoo (out then
 * holds "data" or "data/zoo"; err says where it looked and how to point
 * weft at its data), WEFT_EINVAL when out is too small. */
int weft_data_dir(char *out, size_t cap, WeftError *err);
int weft_zoo_dir(char *out, size_t cap, WeftError *err);
/* The directory the library was built to find installed data in
 * (PREFIX/share/weft). */
const char *weft_data_prefix(void);

/* The library's version, WEFT_VERSION as it was built. */
const char *weft_version(void);
/* sizeof the public struct named type_name ("WeftResult") as the library was
 * built; 0 for a name it does not know. A binding that lays the structs out
 * itself (the Python package) checks its layout against it when it loads. */
size_t weft_sizeof(const char *type_name);

/* The one number syntax of weft's input files and command-line options:
 * an optional sign, decimal digits with an optional point and exponent
 * ("12", "-0.5", "1e-6"); no hex, spaces, inf or nan. The whole of
 * s[0..len) must parse to a finite value that is zero or at least DBL_MIN
 * in magnitude. WEFT_OK with *out set, or WEFT_EINPUT with *why (static
 * text, if why is non-NULL): "not a number", "not a finite number" or "a
 * denormal number (...)". */
int weft_number_parse(const char *s, size_t len, double *out, const char **why);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_H_CORE */
