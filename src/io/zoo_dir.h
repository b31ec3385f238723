/* zoo_dir.h — internal: where the readers look for the model zoo when no
 * one names it (scenario.c, scenario_model.c, libra.c's `Cluster:`). */
#ifndef WEFT_IO_ZOO_DIR_H
#define WEFT_IO_ZOO_DIR_H

#include "core/datadir.h"

/* $WEFT_ZOO, $WEFT_DATA/zoo, beside the program, PREFIX/share/weft/zoo,
 * ./data/zoo (weft_zoo_dir, include/weft/core.h) */
#define WEFT_ZOO_DIR_DEFAULT weft_zoo_default()

#endif
