/* chakra.h — internal to the Chakra trace writer and reader (not public
 * API): where a communicator group's members lie, and the file framing. */
#ifndef WEFT_IO_CHAKRA_H
#define WEFT_IO_CHAKRA_H

#include <stddef.h>
#include <stdint.h>

#include "weft.h"

/* The schema version weft writes in GlobalMetadata (Chakra 1.0). */
#define WEFT_CHAKRA_VERSION "1.0.0"
/* A message longer than this is refused on reading (a corrupt length). */
#define WEFT_CHAKRA_MAX_MESSAGE (64u << 20)

/* NPUs of the network (product of the dims). */
long long chakra_npus(const WeftNetwork *net);
/* 1 when group (per dim: NPUs spanned, -1 or 1 none) spans whole dims only:
 * ASTRA-sim's involved_dim can name it. */
int chakra_whole_dims(const WeftNetwork *net, const int *group);
/* Members of the group that holds rank, in ring order (the order of their
 * coordinates, innermost dim first), into out (room for chakra_npus).
 * A partial dim is a block of consecutive coordinates, or, when it is the
 * lowest dim of a group that goes on to higher dims, its outer part
 * (members npus/n apart): the simulator's layout (src/sim/stage.c).
 * Returns the count. */
int chakra_members(const WeftNetwork *net, const int *group, long long rank, long long *out);

/* Comm groups: id -> member ranks (members[first[i] .. first[i] + count[i])). */
#define WEFT_CHAKRA_MAX_GROUPS 4096
typedef struct {
  int n;
  int id[WEFT_CHAKRA_MAX_GROUPS];
  long long first[WEFT_CHAKRA_MAX_GROUPS];
  int count[WEFT_CHAKRA_MAX_GROUPS];
  long long *members;  /* malloc'd: the caller frees it */
  long long nmembers;
  char file[WEFT_PATH_LEN];
} ChakraGroups;
/* Read path (none there: no groups, WEFT_OK), every rank in 0..npus-1;
 * WEFT_EINPUT naming file, line and group otherwise. */
int chakra_groups_read(ChakraGroups *g, const char *path, long long npus, WeftError *err);
/* The per-dim shape of group gi (NPUs per dim, -1 none), checked to be the
 * group weft lays out for its members (chakra_members of its lowest rank);
 * scratch holds 2 x npus. */
int chakra_group_shape(const ChakraGroups *g, int gi, const WeftNetwork *net, long long *scratch,
                       int *shape, WeftError *err);

/* Append v as a base-128 varint to buf (room for 10 bytes); returns bytes. */
size_t chakra_varint_put(uint8_t *buf, uint64_t v);

#endif
