/* sweep.h — internal: the parts of weft_sweep shared by sweep.c (spec,
 * points, evaluation), sweep_values.c (a field's values) and sweep_tree.c
 * (tree copies). */
#ifndef WEFT_SEARCH_SWEEP_H
#define WEFT_SEARCH_SWEEP_H

#include <stddef.h>

#include "io/yaml.h"
#include "weft.h"

typedef struct {
  char *s;  /* NUL-terminated once anything was added; NULL before */
  size_t len, cap;
} WeftSweepText;

/* One swept field: a {sweep: ...} or {range: ...} mapping of the spec. */
typedef struct {
  const WeftYamlNode *node;  /* the mapping, in the spec's tree */
  char *path;                /* "workload.tp", "constraints[0]" */
  int n, cap;
  WeftYamlNode **val;        /* owned: the node written in for each value */
  char **text;               /* owned: each value's label */
} WeftSweepField;

/* Is n a sweep or range mapping (a mapping with a `sweep` or `range` key)? */
int weft_sweep_is_node(const WeftYamlNode *n);

/* Check sweep node n and fill f's values (f->path set by the caller); errors
 * at n's parts in file, field = the path. */
int weft_sweep_field_values(WeftSweepField *f, const WeftYamlNode *n, const char *file,
                            WeftError *err);

/* A deep copy of n in which fields[k].node becomes fields[k].val[choice[k]]
 * (nfields 0: a plain copy). NULL when out of memory. */
WeftYamlNode *weft_sweep_clone(const WeftYamlNode *n, const WeftSweepField *fields, int nfields,
                               const size_t *choice);

#endif
