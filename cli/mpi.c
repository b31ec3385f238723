/* mpi.c — MPI glue for the search commands: with -DWEFT_MPI each rank evaluates
 * items i % K == rank and rank 0 gathers them; without it, one rank, no-ops. */
#include "mpi.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef WEFT_MPI
#include <limits.h>
#include <mpi.h>

static int started_here;  /* 1: cli_mpi_init called MPI_Init, so finalize calls MPI_Finalize */

int cli_mpi_init(int *argc, char ***argv) {
  int on = 0;
  MPI_Initialized(&on);
  if (on) return 0;
  if (MPI_Init(argc, argv) != MPI_SUCCESS) {
    cli_fail("cannot start MPI");
    return -1;
  }
  started_here = 1;
  return 0;
}

void cli_mpi_finalize(void) {
  int off = 0;
  MPI_Finalized(&off);
  if (started_here && !off) MPI_Finalize();
}

size_t cli_mpi_rank(void) {
  int on = 0, r = 0;
  MPI_Initialized(&on);
  if (on) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return (size_t)r;
}

size_t cli_mpi_size(void) {
  int on = 0, k = 1;
  MPI_Initialized(&on);
  if (on) MPI_Comm_size(MPI_COMM_WORLD, &k);
  return (size_t)k;
}

int cli_mpi_abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  return code;
}

/* Items owned by rank q of K among n. */
static size_t share(size_t n, size_t q, size_t K) { return n > q ? (n - q + K - 1) / K : 0; }

int cli_mpi_gather(void *items, size_t n, size_t size) {
  size_t r = cli_mpi_rank(), K = cli_mpi_size();
  if (K <= 1 || n == 0) return 0;
  if (size > INT_MAX || n > INT_MAX) {
    cli_fail("mpi: %zu items of %zu bytes: too many to gather", n, size);
    return -1;
  }
  unsigned char *all = items, *mine = malloc(share(n, r, K) * size + 1);
  int *counts = malloc(K * sizeof *counts), *displs = malloc(K * sizeof *displs);
  unsigned char *recv = r == 0 ? malloc(n * size) : NULL;
  int ok = mine && counts && displs && (r != 0 || recv);
  MPI_Datatype item;
  MPI_Type_contiguous((int)size, MPI_BYTE, &item);
  MPI_Type_commit(&item);
  if (ok) {
    for (size_t k = 0; k < share(n, r, K); k++)
      memcpy(mine + k * size, all + (r + k * K) * size, size);
    int off = 0;
    for (size_t q = 0; q < K; q++) {
      counts[q] = (int)share(n, q, K);
      displs[q] = off;
      off += counts[q];
    }
  }
  /* Every rank must take part in the collective, so a rank out of memory stops them all. */
  if (!ok) {
    cli_fail("mpi: out of memory gathering %zu items", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int rc = MPI_Gatherv(mine, counts[r], item, recv, counts, displs, item, 0, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS && r == 0)
    for (size_t q = 0; q < K; q++)
      for (size_t k = 0; k < (size_t)counts[q]; k++)
        memcpy(all + (q + k * K) * size, recv + ((size_t)displs[q] + k) * size, size);
  MPI_Type_free(&item);
  free(mine);
  free(counts);
  free(displs);
  free(recv);
  if (rc != MPI_SUCCESS) {
    cli_fail("mpi: gather failed (code %d)", rc);
    return -1;
  }
  return 0;
}

#else /* one process: nothing to share */

int cli_mpi_init(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}
void cli_mpi_finalize(void) {}
size_t cli_mpi_rank(void) { return 0; }
size_t cli_mpi_size(void) { return 1; }
int cli_mpi_gather(void *items, size_t n, size_t size) {
  (void)items;
  (void)n;
  (void)size;
  return 0;
}
int cli_mpi_abort(int code) { return code; }

#endif
