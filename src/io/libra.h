/* libra.h — internal: LIBRA's network, cost-model and communicator readers
 * working on a parsed YAML node, so a scenario can hold them inline. */
#ifndef WEFT_IO_LIBRA_H
#define WEFT_IO_LIBRA_H

#include "io/yaml.h"
#include "weft.h"

/* Fill *net / *cm / *comm from map (a mapping; NULL = empty document).
 * Keys in LIBRA's spelling (Topology) or snake_case (topology). file names
 * the source in errors and is stored in the result. */
int weft_libra_network(const WeftYamlNode *map, const char *file, const char *zoo_dir,
                       WeftNetwork *net, WeftError *err);
int weft_libra_cost_model(const WeftYamlNode *map, const char *file, WeftCostModel *cm,
                          WeftError *err);
int weft_libra_communicator(const WeftYamlNode *map, const char *file, WeftCommunicator *comm,
                            WeftError *err);

#endif
