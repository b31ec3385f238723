/* abi.c — what a binding built against another copy of the headers checks
 * at load time: the library's version and the size of each public struct. */
#include <string.h>

#include "weft.h"

const char *weft_version(void) { return WEFT_VERSION; }

/* Every public struct a binding may lay out itself, by its C name. */
#define WEFT_ABI_TYPES(X)                                                                   \
  X(WeftError) X(WeftNetwork) X(WeftCostClass) X(WeftSystemCost) X(WeftCostModel)         \
  X(WeftPhaseSpec) X(WeftLayer) X(WeftWorkload) X(WeftCommunicator) X(WeftConstraint)      \
  X(WeftConstraints) X(WeftDimParts) X(WeftPartChoices) X(WeftPart) X(WeftPartsBom)        \
  X(WeftScenario) X(WeftJob) X(WeftSpec) X(WeftSettings) X(WeftJobTime) X(WeftEval)         \
  X(WeftResult) X(WeftWholeResult) X(WeftModelLayer) X(WeftModel) X(WeftDevice) X(WeftMeasuredInfo) X(WeftParallel) X(WeftMemory)  \
  X(WeftGenInfo) X(WeftCodesignSpec) X(WeftDesignPoint) X(WeftRunSettings)                  \
  X(WeftIndexedPoint) X(WeftSimSpan) X(WeftSimSettings) X(WeftSimJob) X(WeftSimResult)      \
  X(WeftSimWork) X(WeftRefine) X(WeftAllReduce) X(WeftDemand) X(WeftTraffic)                \
  X(WeftTopoSettings) X(WeftPrices) X(WeftTopoTime) X(WeftTopoWork) X(WeftTopoSearch)                       \
  X(WeftTopoSearchResult) X(WeftSweepRow) X(WeftClusterTier) X(WeftCluster)

size_t weft_sizeof(const char *type_name) {
  if (!type_name) return 0;
#define WEFT_ABI_SIZE_(T) \
  if (!strcmp(type_name, #T)) return sizeof(T);
  WEFT_ABI_TYPES(WEFT_ABI_SIZE_)
#undef WEFT_ABI_SIZE_
  return 0;
}
