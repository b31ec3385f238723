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
/* syscost.c: a top-level key of a cost model that is a system figure (Npu,
 * NpuPowerW, ElectricityUsdPerKwh, Pue, LifetimeYears, or snake_case) into
 * cm->sys, range-checked: WEFT_OK, an error naming file, line and key, or 1
 * when key is no system figure (a cost class). */
int weft_libra_system_key(const WeftYamlNode *key, const WeftYamlNode *val, const char *file,
                          WeftCostModel *cm, WeftError *err);

/* ASTRA-sim 1.0's Hierarchical network json (astra1_read.c): topology,
 * NPUs, the design its link-bandwidth carries (design_gbps) and its
 * link-latency per hop as latency_ns per step; no CostDimension (the cost
 * model's classes in order). */
int weft_astra1_network(const WeftYamlNode *map, const char *file, WeftNetwork *net,
                        WeftError *err);

#endif
