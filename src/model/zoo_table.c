/* zoo_table.c — one reader for the zoo's name-keyed tables (devices.yml,
 * clusters.yml): every entry parsed and checked, the one asked for copied
 * out, the first max listed; an unknown name says the closest one and the
 * names there are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/datadir.h"
#include "zoo.h"

/* "unknown device 'x' (did you mean 'y'? available: a, b)". */
static int unknown(const WeftYamlNode *root, const char *path, const char *what, const char *want,
                   WeftError *err) {
  enum { SHOW = 32 };
  const char *names[SHOW + 1];
  char list[200] = "", hint[WEFT_NAME_LEN];
  size_t used = 0;
  int n = root->n < SHOW ? root->n : SHOW;
  for (int i = 0; i < n; i++) names[i] = weft_yaml_key(root, i)->text;
  names[n] = NULL;
  for (int i = 0; i < root->n; i++) {
    const WeftYamlNode *k = weft_yaml_key(root, i);
    if (used + k->len + 8 >= sizeof list) {
      snprintf(list + used, sizeof list - used, ", ...");
      break;
    }
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", k->text);
  }
  weft_yaml_suggest(names, want, strlen(want), hint, sizeof hint);
  if (hint[0])
    return weft_error_set(err, WEFT_EINPUT, path, 0, 0, what,
                          "unknown %s '%s' (did you mean '%s'? available: %s)", what, want, hint,
                          list);
  return weft_error_set(err, WEFT_EINPUT, path, 0, 0, what, "unknown %s '%s' (available: %s)",
                        what, want, list);
}

int weft_zoo_table(const WeftZooTable *t, const char *zoo_dir, const char *want, void *one,
                   void *arr, int max, int *count, WeftError *err) {
  char path[WEFT_PATH_LEN];
  WeftYamlNode *root = NULL;
  int rc, found = 0;
  if (count) *count = 0;
  if (want ? !want[0] || !one : !count || (max > 0 && !arr))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, t->what,
                          want ? "no %s name given" : "bad arguments to list every %s", t->what);
  if (!zoo_dir) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no zoo directory given");
  if (snprintf(path, sizeof path, "%s/%s", zoo_dir, t->file) >= (int)sizeof path)
    return weft_error_set(err, WEFT_EINVAL, zoo_dir, 0, 0, NULL, "zoo path too long");
  if ((rc = weft_zoo_check(zoo_dir, err))) return rc;
  if ((rc = weft_yaml_load_file(path, &root, err))) return rc;
  void *e = malloc(t->size);
  if (!e) {
    rc = weft_error_set(err, WEFT_ENOMEM, path, 0, 0, NULL, "out of memory");
    goto done;
  }
  if (!root || root->kind != WEFT_YAML_MAPPING || root->n == 0) {
    char got[96];
    weft_yaml_describe_root(root, got, sizeof got);
    rc = weft_error_set(err, WEFT_EINPUT, path, root ? root->line : 0, root ? root->col : 0, NULL,
                        "expected a mapping of %s names to %s, got %s", t->what, t->holds, got);
    goto done;
  }
  for (int i = 0; i < root->n; i++) {
    const WeftYamlNode *k = weft_yaml_key(root, i);
    if ((rc = t->parse(k, weft_yaml_value(root, i), path, e, err))) goto done;
    if (i < max) memcpy((char *)arr + (size_t)i * t->size, e, t->size);
    if (want && !found && strcmp(k->text, want) == 0) {
      memcpy(one, e, t->size);
      found = 1;
    }
  }
  if (count) *count = root->n;
  if (want && !found) rc = unknown(root, path, t->what, want, err);
done:
  free(e);
  weft_yaml_free(root);
  return rc;
}
