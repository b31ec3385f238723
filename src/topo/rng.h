/* rng.h — splitmix64 (Steele, Lea, Flood 2014): a small seedable generator,
 * the same on every platform, for the expander and the strategy search. */
#ifndef WEFT_TOPO_RNG_H
#define WEFT_TOPO_RNG_H

#include <stdint.h>

static inline uint64_t topo_rng_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) from the top 53 bits. */
static inline double topo_rng_unif(uint64_t *state) {
  return (double)(topo_rng_next(state) >> 11) * 0x1.0p-53;
}

#endif
