/* scenario.h — internal: build a scenario from a parsed YAML tree, so a
 * sweep can build each point from its own tree (values written in). */
#ifndef WEFT_IO_SCENARIO_H
#define WEFT_IO_SCENARIO_H

#include "io/yaml.h"
#include "io/zoo_dir.h"
#include "weft.h"

/* Fill sc from root, a scenario mapping. file is the scenario's path: file
 * names in it are relative to its directory and errors name it, at the
 * nodes' lines. zoo_dir (NULL = WEFT_ZOO_DIR_DEFAULT) serves model
 * workloads unless the tree has a `zoo:` key. sc is reset first and left
 * empty on failure. */
int weft_scenario_build(const WeftYamlNode *root, const char *file, const char *zoo_dir,
                        WeftScenario *sc, WeftError *err);

/* A file named by scalar v, relative to the scenario's directory (absolute
 * kept), into out[WEFT_PATH_LEN]; errors name field. */
int weft_scenario_resolve(const char *scfile, const WeftYamlNode *v, const char *field,
                          char *out, WeftError *err);

/* Job sc->njobs from a model mapping wv ({model: gpt3-175b, tp: 16, ...},
 * docs/scenario.md) on sc->net, through weft_scenario_add_model_job; errors
 * placed in file at the offending key of wv (scenario_model.c). */
int weft_scenario_model_job(const WeftYamlNode *wv, const char *file, const char *zoo_dir,
                            WeftScenario *sc, WeftError *err);

#endif
