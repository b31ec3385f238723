/* zoo_dir.h — internal: where the readers look for the model zoo when no
 * one names it (scenario.c, scenario_model.c, libra.c's `Cluster:`). */
#ifndef WEFT_IO_ZOO_DIR_H
#define WEFT_IO_ZOO_DIR_H

#define WEFT_ZOO_DIR_DEFAULT "data/zoo"  /* relative to the working directory */

#endif
