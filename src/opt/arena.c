/* arena.c — bump allocation in growing blocks; everything is freed at once.
 * Keeps a problem's create/free to one malloc/free pair in the common case. */
#include "opt/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN alignof(max_align_t)

struct ArenaBlock {
  ArenaBlock *next;
  size_t size, used;  /* bytes of data[] */
  alignas(max_align_t) unsigned char data[];
};

static size_t round_up(size_t n) { return (n + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN; }

static ArenaBlock *block_new(size_t size) {
  ArenaBlock *b = malloc(sizeof *b + size);
  if (!b) return NULL;
  b->next = NULL;
  b->size = size;
  b->used = 0;
  return b;
}

void *arena_create(size_t owner_bytes, size_t first_bytes) {
  size_t own = round_up(owner_bytes);
  ArenaBlock *b = block_new(own + round_up(first_bytes));
  if (!b) return NULL;
  b->used = own;
  memset(b->data, 0, own);
  Arena *a = (Arena *)(void *)b->data;  /* the owner starts with its Arena */
  a->head = b;
  return b->data;
}

void *arena_alloc(Arena *a, size_t n, size_t sz) {
  if (n == 0) n = 1;
  if (sz && n > SIZE_MAX / 2 / sz) return NULL;
  size_t want = round_up(n * sz);
  ArenaBlock *b = a->head;
  if (b->size - b->used < want) {
    size_t size = 2 * b->size > want ? 2 * b->size : want;
    ArenaBlock *nb = block_new(size);
    if (!nb) return NULL;
    /* keep the owner's block last: it is freed last */
    nb->next = b;
    a->head = b = nb;
  }
  void *p = b->data + b->used;
  b->used += want;
  return p;
}

void *arena_calloc(Arena *a, size_t n, size_t sz) {
  void *p = arena_alloc(a, n, sz);
  if (p) memset(p, 0, round_up((n ? n : 1) * sz));
  return p;
}

void arena_free(Arena *a) {
  if (!a) return;
  ArenaBlock *b = a->head;
  while (b) {  /* the owner (and *a) live in the last block: read next first */
    ArenaBlock *next = b->next;
    free(b);
    b = next;
  }
}
