/* offload.h — internal: activation offloading to host memory as
 * Transformer Engine's default schedule runs it (gen_offload.c), declared
 * for the generator and the tests that check it against its timeline. */
#ifndef WEFT_MODEL_OFFLOAD_H
#define WEFT_MODEL_OFFLOAD_H

/* The time one pass (forward, or backward) over `layers` equal layers of
 * compute_ns each waits on the copies of its first `offloaded` layers'
 * activations (copy_ns each, one side stream, one layer after another),
 * when at most layers - offloaded layers' sets may sit in HBM: 0 <
 * offloaded < layers; 0 when offloaded is 0 (docs/zoo.md, "Activation
 * offloading"). */
double weft_offload_stall_ns(int layers, int offloaded, double compute_ns, double copy_ns);

#endif
