/* yaml.h — internal (not public API): a small YAML node tree built with
 * libyaml's event parser; every node keeps its 1-based line and column. */
#ifndef WEFT_IO_YAML_H
#define WEFT_IO_YAML_H

#include <stddef.h>

#include "io/limits.h"
#include "weft.h"

typedef enum { WEFT_YAML_SCALAR = 0, WEFT_YAML_SEQUENCE, WEFT_YAML_MAPPING } WeftYamlKind;

typedef struct WeftYamlNode {
  WeftYamlKind kind;
  int line, col;   /* 1-based start of the node */
  int value_col;   /* scalar: column where its text starts verbatim on line (plain
                      or quoted without escapes, on one line); 0 otherwise */
  int plain;       /* scalar: plain style (not quoted, not a block scalar) */
  char *text;      /* scalar: the text, NUL-terminated; NULL otherwise */
  size_t len;      /* scalar: length of text */
  int n;           /* sequence: items; mapping: key/value pairs */
  int cap;
  struct WeftYamlNode **child;  /* sequence: n items; mapping: key 2i, value 2i+1 */
} WeftYamlNode;

/* Parse a file (or text[0..len), reported as name) into a tree. *root is
 * NULL for an empty document. Errors: WEFT_EIO (file), WEFT_ESYNTAX (libyaml's
 * problem, lowercase, at file:line:col), WEFT_EINPUT (aliases, duplicate or
 * non-scalar keys, several documents, nesting deeper than 64). */
int weft_yaml_load_file(const char *path, WeftYamlNode **root, WeftError *err);
int weft_yaml_load_string(const char *text, size_t len, const char *name, WeftYamlNode **root,
                          WeftError *err);
void weft_yaml_free(WeftYamlNode *node);  /* NULL is fine */

static inline const WeftYamlNode *weft_yaml_key(const WeftYamlNode *map, int i) {
  return map->child[2 * i];
}
static inline const WeftYamlNode *weft_yaml_value(const WeftYamlNode *map, int i) {
  return map->child[2 * i + 1];
}

/* "a sequence", "a mapping", "'text'" or "an empty value": for messages. */
const char *weft_yaml_describe(const WeftYamlNode *node, char *buf, size_t size);
/* The same for a whole document, without its text: a file given in the
 * wrong place (a key file, a binary) is named, its bytes never shown. */
const char *weft_yaml_describe_root(const WeftYamlNode *root, char *buf, size_t size);

/* Value of the key spelled as any of names ("Topology|topology"), or NULL
 * (also when map is not a mapping). *key (if non-NULL) gets the key node. */
const WeftYamlNode *weft_yaml_get(const WeftYamlNode *map, const char *names,
                                  const WeftYamlNode **key);

/* The name of allowed (NULL-terminated; "a|b" are spellings of one name)
 * closest to key[0..len) within 2 edits, into out ("" when none is): for
 * "did you mean" hints. */
void weft_yaml_suggest(const char *const *allowed, const char *key, size_t len, char *out,
                       size_t size);

/* Every key of map must match one entry of allowed (NULL-terminated, each
 * "Name|alt"), at most once per entry. Error "unknown key 'x'" (with a
 * suggestion when one is close) or "duplicate key", field = the key. */
int weft_yaml_check_keys(const WeftYamlNode *map, const char *const *allowed, const char *file,
                         WeftError *err);

/* Node must be of kind; else WEFT_EINPUT "<field> must be a <kind>, got ...". */
int weft_yaml_expect(const WeftYamlNode *node, WeftYamlKind kind, const char *file,
                     const char *field, WeftError *err);

/* Scalars as numbers, strictly: the whole text must parse; NaN, infinity
 * and overflow are errors. field goes to err->field; label (NULL = field)
 * is what the message calls the value, e.g. "InterPod Link". */
int weft_yaml_double(const WeftYamlNode *node, const char *file, const char *field,
                     const char *label, double *out, WeftError *err);
int weft_yaml_int(const WeftYamlNode *node, const char *file, const char *field,
                  const char *label, int *out, WeftError *err);
/* A number in range (limits.h), else "<label> must be <= 1e18, got 2e18". */
int weft_yaml_double_in(const WeftYamlNode *node, const char *file, const char *field,
                        const char *label, const WeftRange *range, double *out, WeftError *err);
/* YAML's booleans: true/false, yes/no, on/off (any case, plain scalars). */
int weft_yaml_bool(const WeftYamlNode *node, const char *file, const char *field, int *out,
                   WeftError *err);

/* A sequence of 1..max numbers into out[], its length into *count. Errors
 * name the entry ("NpusCount entry 2: ..."), at that entry's line. */
int weft_yaml_doubles(const WeftYamlNode *seq, const char *file, const char *field, double *out,
                      int max, int *count, WeftError *err);
int weft_yaml_ints(const WeftYamlNode *seq, const char *file, const char *field, int *out,
                   int max, int *count, WeftError *err);

#endif
