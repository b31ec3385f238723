/* sweep_tree.c — a scenario tree copied with swept values written in: the
 * one piece both sweep.c (each point's spec) and sweep_values.c (a list
 * item kept whole) use, so neither depends on the other for it. */
#include <stdlib.h>
#include <string.h>

#include "search/sweep.h"

WeftYamlNode *weft_sweep_clone(const WeftYamlNode *n, const WeftSweepField *fields, int nfields,
                               const size_t *choice) {
  for (int k = 0; k < nfields; k++)
    if (fields[k].node == n) return weft_sweep_clone(fields[k].val[choice[k]], NULL, 0, NULL);
  WeftYamlNode *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  *c = *n;
  c->text = NULL;
  c->child = NULL;
  c->n = c->cap = 0;
  if (n->kind == WEFT_YAML_SCALAR) {
    if (!(c->text = malloc(n->len + 1))) {
      free(c);
      return NULL;
    }
    memcpy(c->text, n->text, n->len + 1);
    return c;
  }
  int m = n->kind == WEFT_YAML_MAPPING ? 2 * n->n : n->n;
  if (m > 0 && !(c->child = calloc((size_t)m, sizeof *c->child))) {
    free(c);
    return NULL;
  }
  c->n = n->n;  /* children still NULL are skipped by weft_yaml_free */
  c->cap = m;
  for (int i = 0; i < m; i++)
    if (!(c->child[i] = weft_sweep_clone(n->child[i], fields, nfields, choice))) {
      weft_yaml_free(c);
      return NULL;
    }
  return c;
}
