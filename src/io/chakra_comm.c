/* chakra_comm.c — the comm groups of a Chakra trace set (ASTRA-sim's
 * --comm-group-configuration: {"id": [ranks], ...}, PREFIX.comm_groups.json)
 * read, and each group's per-dim shape on the network. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/chakra.h"
#include "io/yaml.h"

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* A rank listed twice in group gi (of members just read): its line. */
static int twice(ChakraGroups *g, int gi, const WeftYamlNode *k, const char *path,
                 WeftError *err) {
  int cnt = g->count[gi];
  long long *s = malloc(sizeof *s * (size_t)(cnt + 1));
  if (!s) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory");
  memcpy(s, g->members + g->first[gi], sizeof *s * (size_t)cnt);
  qsort(s, (size_t)cnt, sizeof *s, cmp_ll);
  int rc = WEFT_OK;
  for (int i = 1; i < cnt && !rc; i++)
    if (s[i] == s[i - 1])
      rc = weft_error_set(err, WEFT_EINPUT, path, k->line, k->col, k->text,
                          "comm group %s lists rank %lld twice", k->text, s[i]);
  free(s);
  return rc;
}

int chakra_groups_read(ChakraGroups *g, const char *path, long long npus, WeftError *err) {
  struct stat st;
  g->n = 0;
  snprintf(g->file, sizeof g->file, "%.*s", (int)sizeof g->file - 1, path);
  if (stat(path, &st) != 0) return WEFT_OK; /* none: only involved_dim groups */
  WeftYamlNode *root;
  int rc = weft_yaml_load_file(path, &root, err);
  if (rc) return rc;
  if (root && (rc = weft_yaml_expect(root, WEFT_YAML_MAPPING, path, "", err))) goto done;
  for (int i = 0; root && i < root->n && !rc; i++) {
    const WeftYamlNode *k = weft_yaml_key(root, i), *v = weft_yaml_value(root, i);
    int id;
    if (g->n == WEFT_CHAKRA_MAX_GROUPS) {
      rc = weft_error_set(err, WEFT_EINPUT, path, k->line, k->col, k->text,
                          "more than %d comm groups", WEFT_CHAKRA_MAX_GROUPS);
      break;
    }
    if ((rc = weft_yaml_int(k, path, k->text, "a comm group's id", &id, err)) ||
        (rc = weft_yaml_expect(v, WEFT_YAML_SEQUENCE, path, k->text, err)))
      break;
    long long *m = realloc(g->members, sizeof *m * (size_t)(g->nmembers + v->n + 1));
    if (!m) {
      rc = weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory");
      break;
    }
    g->members = m;
    g->id[g->n] = id;
    g->first[g->n] = g->nmembers;
    g->count[g->n] = v->n;
    for (int j = 0; j < v->n && !rc; j++) {
      int r;
      if (!(rc = weft_yaml_int(v->child[j], path, k->text, "a rank", &r, err)) &&
          (r < 0 || r >= npus))
        rc = weft_error_set(err, WEFT_EINPUT, path, v->child[j]->line, v->child[j]->col,
                            k->text, "rank %d: the network has %lld NPUs (0..%lld)", r, npus,
                            npus - 1);
      g->members[g->nmembers++] = r;
    }
    if (!rc) rc = twice(g, g->n, k, path, err);
    g->n++;
  }
done:
  weft_yaml_free(root);
  return rc;
}

int chakra_group_shape(const ChakraGroups *g, int gi, const WeftNetwork *net, long long *scratch,
                       int *shape, WeftError *err) {
  const long long *m = g->members + g->first[gi];
  int cnt = g->count[gi], D = net->ndims;
  for (int d = 0; d < D; d++) {
    unsigned char *seen = calloc((size_t)net->npus[d], 1); /* a dim of any size */
    int distinct = 0;
    long long div = 1;
    if (!seen) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory");
    for (int e = 0; e < d; e++) div *= net->npus[e];
    for (int i = 0; i < cnt; i++) {
      long long c = m[i] / div % net->npus[d];
      if (!seen[c]) {
        seen[c] = 1;
        distinct++;
      }
    }
    free(seen);
    shape[d] = distinct > 1 ? distinct : -1;
  }
  long long *sorted = scratch, *want = scratch + cnt;
  memcpy(sorted, m, sizeof *m * (size_t)cnt);
  qsort(sorted, (size_t)cnt, sizeof *sorted, cmp_ll);
  int wn = cnt ? chakra_members(net, shape, sorted[0], want) : 0;
  qsort(want, (size_t)wn, sizeof *want, cmp_ll);
  if (wn != cnt || memcmp(want, sorted, sizeof *want * (size_t)cnt)) {
    char field[32];
    snprintf(field, sizeof field, "%d", g->id[gi]);
    return weft_error_set(err, WEFT_EINPUT, g->file, 0, 0, field,
                          "comm group %d: its %d ranks are not a group weft lays on the network "
                          "(a block of each dim, innermost first: docs/simulate.md \"Chakra traces\")",
                          g->id[gi], cnt);
  }
  return WEFT_OK;
}
