/* limits.h — internal (not public API): the one table of what an input may
 * hold. Every reader checks its numbers against these at read time, so that
 * no product or sum the model forms later can overflow to inf (documented in
 * docs/scenario.md, "Limits"). Each bound is written once, as a literal, so
 * that messages can quote it as written (WEFT_LIMIT_TEXT). */
#ifndef WEFT_IO_LIMITS_H
#define WEFT_IO_LIMITS_H

/* Largest input file read, bytes: 256 MiB. The biggest real input (a
 * workload of 10^5 layers) is ~10 MB; the cap stops /dev/zero or a log
 * file given by mistake from growing memory until the process is killed. */
#define WEFT_MAX_INPUT_BYTES (256L * 1024 * 1024)

/* A message size in bytes (workload sizes, traffic CSV bytes and their
 * sums): 1e18 = 1 EB. A model multiplies sizes by at most ~1e4 (layers,
 * group factors, micro-batches) and divides by bandwidths >= 1e-6 GB/s:
 * 1e18 * 1e4 / 1e-6 = 1e28 ns stays far below DBL_MAX (1.8e308). */
#define WEFT_MAX_SIZE_BYTES 1e18

/* The least non-zero bandwidth (GB/s) a model or simulation divides by, the
 * bound the headroom argument above assumes, and the largest: public, in
 * weft/core.h (WEFT_MIN_BW_GBPS, WEFT_MAX_BW_GBPS). */

/* A compute or update time in ns: 1e18 ns is ~31.7 years per layer; the
 * same headroom argument as sizes. */
#define WEFT_MAX_TIME_NS 1e18

/* A job's weight in the objective (dimensionless, > 0): 1e12 keeps
 * 1e-6..1e12 (every quantity's test range) and times x weights far below
 * DBL_MAX. */
#define WEFT_MAX_JOB_WEIGHT 1e12

/* A price: $ per GB/s of a LIBRA cost class element or of a fabric part,
 * or $ per port or cable in a price table. 1e12 $/(GB/s) times 1e9 NPUs
 * times any bandwidth below 1e12 GB/s is 1e33 $: finite, and a solver
 * scaling of cost rows stays exact to ~1e-16 relative. */
#define WEFT_MAX_USD 1e12

/* NPUs in one dim and in a whole network: 2^30, so that every product of
 * per-dim counts and every group size fits an int (2^31 - 1) with a factor
 * of 2 to spare. */
#define WEFT_MAX_NPUS 1073741824

/* A device figure in the zoo (peak TFLOP/s, HBM GiB, HBM GB/s) and a DLRM
 * table's rows: 1e12 leaves FLOP/s (x1e12) and bytes (x2^30) below 1e25. */
#define WEFT_MAX_ZOO_FIGURE 1e12

/* A host CPU's time to issue one kernel (devices.yml launch_cpu_us): 1e6 us
 * is a second a kernel, far past any host; each generated op's time stays
 * below 1e15 ns with the op counts above. */
#define WEFT_MAX_LAUNCH_US 1e6

/* Transformer layers in a zoo model: the largest published models have a
 * few hundred; a generated workload holds a few entries per layer of a
 * stage, so 1e5 bounds it to ~30 MB and milliseconds, where 1e8 layers
 * took seconds and gigabytes before any check could reject them. */
#define WEFT_MAX_TRANSFORMER_LAYERS 100000

/* Calls one workload entry's collective stands for (WeftPhaseSpec.calls):
 * 1e9 covers 1e4 micro-batches of 1e5 merged layers; times a latency of at
 * most 1e18 ns it stays within the headroom argument above. */
#define WEFT_MAX_CALLS 1e9

/* Power: W per NPU, or W per GB/s of a cost class (system cost, docs/model.md
 * "System cost"). 1e9 W (a gigawatt) per NPU is far past any device; times
 * 1e9 NPUs and any price it stays within the headroom argument above. */
#define WEFT_MAX_POWER_W 1e9

/* A data centre's PUE: facility power over IT power, at least 1 by
 * definition; 10 is far past any surveyed site (global average ~1.6). */
#define WEFT_MAX_PUE 10

/* An amortisation lifetime in years: 100 bounds it (capex over 0 years is
 * refused: the range is open at 0). */
#define WEFT_MAX_LIFETIME_YEARS 100

/* The bound as written above, for messages: WEFT_LIMIT_TEXT(WEFT_MAX_USD) is
 * "1e12". */
#define WEFT_LIMIT_TEXT(x) WEFT_LIMIT_TEXT_(x)
#define WEFT_LIMIT_TEXT_(x) #x

/* A closed range [lo, hi], or (lo, hi] when lo_open; hi_text is hi as
 * written. weft_io_in_range (util.h) checks a value against one. */
typedef struct {
  double lo;
  int lo_open;
  double hi;
  const char *hi_text;
} WeftRange;

#define WEFT_RANGE_(lo, open, hi) ((WeftRange){lo, open, hi, WEFT_LIMIT_TEXT(hi)})
#define WEFT_RANGE_SIZE_BYTES WEFT_RANGE_(0.0, 0, WEFT_MAX_SIZE_BYTES)
#define WEFT_RANGE_TIME_NS WEFT_RANGE_(0.0, 0, WEFT_MAX_TIME_NS)
#define WEFT_RANGE_CALLS WEFT_RANGE_(0.0, 1, WEFT_MAX_CALLS)
#define WEFT_RANGE_JOB_WEIGHT WEFT_RANGE_(0.0, 1, WEFT_MAX_JOB_WEIGHT)
#define WEFT_RANGE_USD WEFT_RANGE_(0.0, 0, WEFT_MAX_USD)
#define WEFT_RANGE_USD_POSITIVE WEFT_RANGE_(0.0, 1, WEFT_MAX_USD)
#define WEFT_RANGE_ZOO_FIGURE WEFT_RANGE_(0.0, 1, WEFT_MAX_ZOO_FIGURE)
#define WEFT_RANGE_POWER_W WEFT_RANGE_(0.0, 1, WEFT_MAX_POWER_W)
/* A probability (dropout): [0, 1], as torch.nn.functional.dropout takes it. */
#define WEFT_RANGE_PROB WEFT_RANGE_(0.0, 0, 1)

#endif
