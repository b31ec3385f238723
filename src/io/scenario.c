/* scenario.c — weft's scenario YAML (docs/scenario.md): network, cost model,
 * workloads with communicators and weights, constraints, objective, loop.
 * Built from a file or from a parsed tree (a sweep's points). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/libra.h"
#include "io/scenario.h"
#include "io/yaml.h"

static const char *const TOP_KEYS[] = {"network",   "cost_model",  "workload",  "communicator",
                                       "name",      "workloads",   "constraints", "objective",
                                       "loop",      "zoo",         "parts",       NULL};
static const char *const JOB_KEYS[] = {"name", "workload", "communicator", "weight", NULL};

static void reset(WeftScenario *sc) {
  for (int j = 0; j < sc->njobs; j++) weft_workload_free(sc->workload[j]);
  memset(sc, 0, sizeof *sc);
  sc->objective = WEFT_OBJ_PERF;
  sc->loop = WEFT_LOOP_NO_OVERLAP;
}

WeftScenario *weft_scenario_create(void) {
  WeftScenario *sc = calloc(1, sizeof *sc);
  if (sc) reset(sc);  /* the defaults */
  return sc;
}

void weft_scenario_free(WeftScenario *sc) {
  if (!sc) return;
  reset(sc);
  free(sc);
}

void weft_scenario_spec(const WeftScenario *sc, WeftSpec *spec) {
  memset(spec, 0, sizeof *spec);
  spec->net = &sc->net;
  spec->cost = &sc->cost;
  spec->njobs = sc->njobs;
  for (int j = 0; j < sc->njobs; j++) {
    spec->jobs[j].workload = sc->workload[j];
    spec->jobs[j].comm = &sc->comm[j];
    spec->jobs[j].weight = sc->weight[j];
    snprintf(spec->jobs[j].name, sizeof spec->jobs[j].name, "%s", sc->job_name[j]);
  }
  spec->cons = &sc->cons;
  spec->objective = (WeftObjective)sc->objective;
  spec->loop = (WeftLoop)sc->loop;
}

static int require(const WeftYamlNode *map, const char *key, const char *file,
                   const WeftYamlNode **val, WeftError *err) {
  *val = weft_yaml_get(map, key, NULL);
  if (*val) return WEFT_OK;
  return weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, key, "missing key '%s'",
                        key);
}

/* "dir/gpt3.txt" -> "gpt3". */
static void default_name(const char *path, char *out) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  const char *dot = strrchr(b, '.');
  size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
  if (n > WEFT_NAME_LEN - 1) n = WEFT_NAME_LEN - 1;
  memcpy(out, b, n);
  out[n] = '\0';
}

/* The workload of job sc->njobs: a file with a communicator (file or inline)
 * beside it, or a model mapping whose communicator is generated. On success
 * the job is counted (sc owns its workload). */
static int load_workload(const char *file, const char *zoo, const WeftYamlNode *m,
                         const WeftYamlNode *wv, WeftScenario *sc, WeftError *err) {
  const WeftYamlNode *ck, *cv = weft_yaml_get(m, "communicator", &ck);
  char path[WEFT_PATH_LEN];
  int j = sc->njobs, rc;
  if (wv->kind == WEFT_YAML_MAPPING) {
    if (cv)
      return weft_error_set(err, WEFT_EINPUT, file, ck->line, ck->col, "communicator",
                            "a model workload generates its communicator: remove "
                            "'communicator'");
    return weft_scenario_model_job(wv, file, zoo, sc, err);
  }
  if ((rc = require(m, "communicator", file, &cv, err))) return rc;
  if (wv->kind != WEFT_YAML_SCALAR || wv->len == 0) {
    char got[96];
    weft_yaml_describe(wv, got, sizeof got);
    return weft_error_set(err, WEFT_EINPUT, file, wv->line, wv->col, "workload",
                          "workload must be a file name, got %s (a model from the zoo is a "
                          "mapping: {model: NAME, tp: ...})",
                          got);
  }
  if ((rc = weft_scenario_resolve(file, wv, "workload", path, err)) ||
      (rc = weft_workload_read(path, &sc->workload[j], err)))
    return rc;
  sc->njobs++;  /* owned by sc from here: reset() frees it on any later error */
  default_name(wv->text, sc->job_name[j]);
  if (cv->kind == WEFT_YAML_MAPPING)
    return weft_libra_communicator(cv, file, &sc->comm[j], err);
  if ((rc = weft_scenario_resolve(file, cv, "communicator", path, err))) return rc;
  return weft_communicator_read(path, &sc->comm[j], err);
}

/* One job from a mapping holding workload, communicator, name, weight. */
static int load_job(const char *file, const char *zoo, const WeftYamlNode *m, WeftScenario *sc,
                    WeftError *err) {
  const WeftYamlNode *wv, *nv = weft_yaml_get(m, "name", NULL);
  const WeftYamlNode *weight = weft_yaml_get(m, "weight", NULL);
  int j = sc->njobs, rc;
  if (j == WEFT_MAX_JOBS)
    return weft_error_set(err, WEFT_EINPUT, file, m->line, m->col, "workloads",
                          "more than %d workloads", WEFT_MAX_JOBS);
  if ((rc = require(m, "workload", file, &wv, err)) ||
      (rc = load_workload(file, zoo, m, wv, sc, err)))
    return rc;
  if (nv) {
    if (nv->kind != WEFT_YAML_SCALAR || nv->len == 0 || nv->len >= WEFT_NAME_LEN) {
      char got[96];
      weft_yaml_describe(nv, got, sizeof got);
      return weft_error_set(err, WEFT_EINPUT, file, nv->line, nv->col, "name",
                            "name must be a name of 1 to %d characters, got %s",
                            WEFT_NAME_LEN - 1, got);
    }
    memcpy(sc->job_name[j], nv->text, nv->len + 1);
  }  /* else the name load_workload gave: the file's basename or the model's name */
  for (int i = 0; i < j; i++)
    if (strcmp(sc->job_name[i], sc->job_name[j]) == 0) {
      const WeftYamlNode *at = nv ? nv : m;
      return weft_error_set(err, WEFT_EINPUT, file, at->line, at->col, "name",
                            "two workloads are named '%s': give each a distinct 'name'",
                            sc->job_name[j]);
    }
  sc->weight[j] = 1.0;
  if (weight) {
    WeftRange range = WEFT_RANGE_JOB_WEIGHT;  /* > 0, at most 1e12 */
    if ((rc = weft_yaml_double_in(weight, file, "weight", NULL, &range, &sc->weight[j], err)))
      return rc;
  }
  return WEFT_OK;
}

static int load_jobs(const char *file, const char *zoo, const WeftYamlNode *root,
                     WeftScenario *sc, WeftError *err) {
  const WeftYamlNode *key, *list = weft_yaml_get(root, "workloads", &key);
  int rc;
  if (!list) return load_job(file, zoo, root, sc, err);
  static const char *const single[] = {"workload", "communicator", "name"};
  for (int i = 0; i < 3; i++) {
    const WeftYamlNode *k;
    if (weft_yaml_get(root, single[i], &k))
      return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, single[i],
                            "'%s' goes inside each entry of 'workloads', not beside it",
                            single[i]);
  }
  if ((rc = weft_yaml_expect(list, WEFT_YAML_SEQUENCE, file, "workloads", err))) return rc;
  if (list->n == 0)
    return weft_error_set(err, WEFT_EINPUT, file, list->line, list->col, "workloads",
                          "workloads is empty");
  for (int i = 0; i < list->n; i++) {
    const WeftYamlNode *m = list->child[i];
    if ((rc = weft_yaml_expect(m, WEFT_YAML_MAPPING, file, "workloads", err)) ||
        (rc = weft_yaml_check_keys(m, JOB_KEYS, file, err)) ||
        (rc = load_job(file, zoo, m, sc, err)))
      return rc;
  }
  return WEFT_OK;
}

/* One constraint expression; its errors are placed in the scenario file. */
static int load_constraint(const char *file, const WeftYamlNode *v, WeftScenario *sc,
                           WeftError *err) {
  if (v->kind != WEFT_YAML_SCALAR || v->len == 0) {
    char got[96];
    weft_yaml_describe(v, got, sizeof got);
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, "constraints",
                          "a constraint must be text such as \"sum = 1000\", got %s", got);
  }
  int rc = weft_constraints_parse(&sc->cons, v->text, sc->net.ndims, err);
  if (rc && err) {
    int col = err->col;
    snprintf(err->file, sizeof err->file, "%s", file);
    err->line = v->line;
    err->col = v->value_col && col > 0 ? v->value_col + col - 1 : v->col;
  }
  return rc;
}

/* value (case-insensitive, '_' or '-') among names[n]; its index in *out. */
static int choose(const char *file, const WeftYamlNode *v, const char *field,
                  const char *const *names, int n, int *out, WeftError *err) {
  if (v->kind == WEFT_YAML_SCALAR) {
    char buf[WEFT_NAME_LEN];
    snprintf(buf, sizeof buf, "%s", v->text);
    for (char *p = buf; *p; p++)
      if (*p == '_') *p = '-';
    for (int i = 0; i < n; i++)
      if (strcasecmp(buf, names[i]) == 0) {
        *out = i;
        return WEFT_OK;
      }
  }
  char got[96], list[160] = "";
  weft_yaml_describe(v, got, sizeof got);
  for (int i = 0; i < n; i++) /* "a or b", "a, b or c" */
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
             i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
  return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, field,
                        "unknown %s %s (expected %s)", field, got, list);
}

/* The zoo directory: the scenario's `zoo:` (relative to it) or the caller's. */
static int zoo_dir_of(const char *file, const WeftYamlNode *root, const char *zoo_dir,
                      char *out, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(root, "zoo", NULL);
  if (v) return weft_scenario_resolve(file, v, "zoo", out, err);
  snprintf(out, WEFT_PATH_LEN, "%s", zoo_dir ? zoo_dir : WEFT_ZOO_DIR_DEFAULT);
  return WEFT_OK;
}

static int load(const char *file, const char *zoo_dir, const char *parts_file,
                const WeftYamlNode *root, WeftScenario *sc, WeftError *err) {
  static const char *const objectives[] = {"perf", "perf-per-cost",
                                           "cost-per-iteration"};  /* WeftObjective order */
  static const char *const loops[] = {"no-overlap", "tp-dp-overlap",
                                      "fwd-ig-overlap"};  /* WeftLoop order */
  const WeftYamlNode *v;
  char path[WEFT_PATH_LEN], zoo[WEFT_PATH_LEN];
  double scratch[WEFT_MAX_DIMS];
  int rc;
  if (!root || root->kind != WEFT_YAML_MAPPING)
    return weft_error_set(err, WEFT_EINPUT, file, root ? root->line : 0, root ? root->col : 0,
                          NULL, "expected a mapping with network, cost_model, workload, ...");
  if ((rc = weft_yaml_check_keys(root, TOP_KEYS, file, err)) ||
      (rc = zoo_dir_of(file, root, zoo_dir, zoo, err)))
    return rc;

  if ((rc = require(root, "network", file, &v, err))) return rc;
  if (v->kind == WEFT_YAML_MAPPING)
    rc = weft_libra_network(v, file, zoo, &sc->net, err);
  else if (!(rc = weft_scenario_resolve(file, v, "network", path, err)))
    rc = weft_network_read_zoo(path, zoo, &sc->net, err);
  if (rc) return rc;

  /* cost_model: optional when the network's parts price it (docs/parts.md) */
  if (!weft_network_has_parts(&sc->net) || weft_yaml_get(root, "cost_model", NULL)) {
    if ((rc = require(root, "cost_model", file, &v, err))) return rc;
    if (v->kind == WEFT_YAML_MAPPING)
      rc = weft_libra_cost_model(v, file, &sc->cost, err);
    else if (!(rc = weft_scenario_resolve(file, v, "cost_model", path, err)))
      rc = weft_cost_model_read(path, &sc->cost, err);
    if (rc) return rc;
  }
  /* parts: the user's catalog file over the built-in one; the caller's wins */
  char parts[WEFT_PATH_LEN];
  if (!parts_file && (v = weft_yaml_get(root, "parts", NULL))) {
    if ((rc = weft_scenario_resolve(file, v, "parts", parts, err))) return rc;
    parts_file = parts;
  }
  if ((rc = weft_scenario_bind_parts(sc, zoo, parts_file, err)) ||
      (rc = weft_cost_per_gbps(&sc->net, &sc->cost, scratch, err)))
    return rc;

  if ((rc = load_jobs(file, zoo, root, sc, err))) return rc;
  for (int j = 0; j < sc->njobs; j++)
    if ((rc = weft_communicator_check(&sc->comm[j], &sc->net, err))) return rc;

  if ((v = weft_yaml_get(root, "constraints", NULL))) {
    if (v->kind == WEFT_YAML_SEQUENCE) {
      for (int i = 0; i < v->n; i++)
        if ((rc = load_constraint(file, v->child[i], sc, err))) return rc;
    } else if ((rc = load_constraint(file, v, sc, err))) {
      return rc;
    }
  }
  if ((v = weft_yaml_get(root, "objective", NULL)) &&
      (rc = choose(file, v, "objective", objectives, WEFT_NOBJECTIVES, &sc->objective, err)))
    return rc;
  if ((v = weft_yaml_get(root, "loop", NULL)) &&
      (rc = choose(file, v, "loop", loops, WEFT_NLOOPS, &sc->loop, err)))
    return rc;
  return WEFT_OK;
}

static int build(const WeftYamlNode *root, const char *file, const char *zoo_dir,
                 const char *parts_file, WeftScenario *sc, WeftError *err) {
  if (!sc) return weft_error_set(err, WEFT_EINVAL, file, 0, 0, NULL, "no scenario");
  if (!file) file = "";
  reset(sc);
  snprintf(sc->file, sizeof sc->file, "%s", file);
  int rc = load(file, zoo_dir, parts_file, root, sc, err);
  if (rc) reset(sc);  /* no half-read scenario: frees the workloads read so far */
  return rc;
}

int weft_scenario_build(const WeftYamlNode *root, const char *file, const char *zoo_dir,
                        WeftScenario *sc, WeftError *err) {
  return build(root, file, zoo_dir, NULL, sc, err);
}

int weft_scenario_read_zoo(const char *path, const char *zoo_dir, WeftScenario *sc,
                           WeftError *err) {
  return weft_scenario_read_parts(path, zoo_dir, NULL, sc, err);
}

int weft_scenario_read_parts(const char *path, const char *zoo_dir, const char *parts_file,
                             WeftScenario *sc, WeftError *err) {
  if (!path || !sc)
    return weft_error_set(err, WEFT_EINVAL, path, 0, 0, NULL, "no scenario file or scenario");
  WeftYamlNode *root;
  int rc = weft_yaml_load_file(path, &root, err);
  if (rc) {
    reset(sc);
    return rc;
  }
  rc = build(root, path, zoo_dir, parts_file, sc, err);
  weft_yaml_free(root);
  return rc;
}

int weft_scenario_parse(const char *text, const char *name, const char *zoo_dir,
                        WeftScenario *sc, WeftError *err) {
  if (!name) name = "";
  if (!text || !sc) return weft_error_set(err, WEFT_EINVAL, name, 0, 0, NULL, "no text or scenario");
  WeftYamlNode *root;
  int rc = weft_yaml_load_string(text, strlen(text), name, &root, err);
  if (rc) {
    reset(sc);
    return rc;
  }
  rc = weft_scenario_build(root, name, zoo_dir, sc, err);
  weft_yaml_free(root);
  return rc;
}

int weft_scenario_read(const char *path, WeftScenario *sc, WeftError *err) {
  return weft_scenario_read_zoo(path, NULL, sc, err);
}
