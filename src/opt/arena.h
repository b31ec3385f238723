/* arena.h — internal: one bump allocator per problem, so a problem is a few
 * mallocs (one when small) and freeing it is a walk over its blocks. */
#ifndef WEFT_ARENA_H
#define WEFT_ARENA_H

#include <stddef.h>

typedef struct ArenaBlock ArenaBlock;

typedef struct {
  ArenaBlock *head;  /* newest block first */
} Arena;

/* A block of at least first_bytes holding the arena itself at its start
 * (so the owner can live inside it), or NULL. *owner receives that memory,
 * owner_bytes long and zeroed. */
void *arena_create(size_t owner_bytes, size_t first_bytes);
/* Zeroed memory of n elements of size sz, aligned for any type; NULL when out
 * of memory. n == 0 still returns a valid (one-element) pointer. */
void *arena_calloc(Arena *a, size_t n, size_t sz);
/* As arena_calloc, not zeroed: for memory the caller writes whole at once
 * (a copy), where zeroing it first is time lost (a node's rebuild). */
void *arena_alloc(Arena *a, size_t n, size_t sz);
/* Free every block; the owner created by arena_create goes with the first. */
void arena_free(Arena *a);

#endif
