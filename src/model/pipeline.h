/* pipeline.h — internal: the two ways gen_pipeline.c times a 1F1B iteration
 * (weft_gen_1f1b picks one), declared for the tests that hold them together. */
#ifndef WEFT_MODEL_PIPELINE_H
#define WEFT_MODEL_PIPELINE_H

/* Round by round, any m: O(pp) memory, O(pp m) steps at most, O(pp^2) once
 * the steady rounds are skipped. WEFT_EINVAL, WEFT_ENOMEM. */
int weft_gen_1f1b_rounds(const double *f, const double *b, int pp, int m, double *makespan);
/* The closed form for m >= 2 pp - 1 (docs/zoo.md, "Pipeline timeline"):
 * O(pp) for stages of a few distinct f + b, O(pp^2) at most. WEFT_EINVAL
 * for bad arguments or fewer micro-batches, WEFT_ENOMEM. */
int weft_gen_1f1b_closed(const double *f, const double *b, int pp, int m, double *makespan);
/* Interleaved 1F1B in Megatron-Core's order (docs/zoo.md, "Pipeline
 * layout"): f, b the forward and backward time of each of the pp v model
 * chunks in layout order (chunk x on stage x mod pp), m micro-batches (pp
 * dividing m); the makespan, operation by operation: O(pp v m) time and
 * memory. WEFT_EINVAL, WEFT_ENOMEM. */
int weft_gen_interleaved(const double *f, const double *b, int pp, int v, int m,
                         double *makespan);
/* The most of held[x] (per model chunk, layout order: its layers) stage r
 * keeps at once along that order: a forward of chunk x adds held[x], its
 * backward frees it. */
long weft_gen_interleaved_peak(const int *held, int pp, int v, int m, int r);
/* Equal chunks (no layout): the chunk-micro-batches stage r keeps at its
 * peak along the same order, min(2 (pp - r - 1) + (v - 1) pp + 1, m v): its
 * warm-up forwards and the first steady-state forward before a backward
 * frees one; all m v when m = pp (Megatron-Core, schedules.py,
 * forward_backward_pipelining_with_interleaving, runs every forward first
 * then); O(1). */
long weft_gen_interleaved_chunks(int pp, int v, int m, int r);

#endif
