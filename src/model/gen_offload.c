/* gen_offload.c — activation offloading (Megatron-Core's
 * --cpu-offloading-num-layers, Transformer Engine's get_cpu_offload_context
 * with its DefaultOffloadSynchronizer; docs/zoo.md, "Activation
 * offloading"): the time the compute waits on the host copies. */
#include "model/offload.h"

/* TE's schedule for L layers, the first N offloaded, W = L - N sets in HBM
 * (DefaultOffloadSynchronizer._init_offload_synchronization_dicts): forward
 * copy i starts after layer i's forward (fwd_step of layer i + 1) on the
 * offload stream, after copy i - 1, and layer i + W waits for it
 * (release_activation_forward_gpu_memory); backward reload i starts once
 * layer i + W's backward is done (start_reload: wait_stream on the compute
 * stream), after reload i + 1, and layer i's backward waits for it. Both
 * passes are the same graph: compute c_0 .. c_{L-1} in a chain, copy k after
 * c_k and copy k - 1, c_{k+W} after copy k. Its longest path: the chain alone
 * (L c); or, per copy run k = a .. b it detours through, (b - a + 1) copies
 * for the b - a + W - 1 computes it skips. A run of j copies gains
 * j x copy - (j + W - 2) x compute. W = 1: every copy alone, N copy (no
 * overlap: TE warns); W >= 2: one run of all N copies is the longest when
 * copy > compute (two runs give up W - 1 computes each against W x (copy -
 * compute) in one), none gains when copy <= compute. */
double weft_offload_stall_ns(int layers, int offloaded, double compute_ns, double copy_ns) {
  if (offloaded < 1 || offloaded >= layers) return 0.0;
  if (layers - offloaded == 1) return offloaded * copy_ns;
  double s = offloaded * copy_ns - (layers - 2) * compute_ns;
  return s > 0.0 ? s : 0.0;
}
