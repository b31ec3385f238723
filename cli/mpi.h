/* mpi.h — running a search across MPI ranks (`make mpi`): init, rank, and a
 * gather of evaluated items to rank 0. No-ops (one rank) unless built with -DWEFT_MPI. */
#ifndef WEFT_CLI_MPI_H
#define WEFT_CLI_MPI_H

#include <stddef.h>

/* Initialise MPI (a no-op without it, or when already initialised).
 * Returns 0, or -1 (printed) when MPI cannot start. */
int cli_mpi_init(int *argc, char ***argv);
/* Finalise MPI when cli_mpi_init started it. */
void cli_mpi_finalize(void);
/* This process's rank and the number of ranks (0 and 1 without MPI). */
size_t cli_mpi_rank(void);
size_t cli_mpi_size(void);
/* items[n], each size bytes; item i is owned (evaluated) by rank i % K. After
 * the call rank 0 holds every item, the other ranks are unchanged. Collective:
 * every rank must call it. Returns 0, or -1 (printed) on failure. */
int cli_mpi_gather(void *items, size_t n, size_t size);
/* Stop every rank (after a failure only this rank saw). Returns code without MPI. */
int cli_mpi_abort(int code);

#endif
