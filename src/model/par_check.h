/* par_check.h — internal: the checks of a parallelization against its
 * device that no design point changes (the flat efficiency, FP8), made by
 * weft_generate and, once up front, by the co-design's spec check: a bad
 * --efficiency or --fp8 is a usage error (2), never a point "invalid". */
#ifndef WEFT_MODEL_PAR_CHECK_H
#define WEFT_MODEL_PAR_CHECK_H

#include "weft.h"

/* WEFT_OK, or WEFT_EINPUT with field "efficiency" or "fp8": efficiency 0
 * (auto) or WEFT_MIN_EFFICIENCY..1; fp8 only on a device with an FP8 rate. */
int weft_par_device_check(const WeftParallel *p, const WeftDevice *dev, WeftError *err);
/* WEFT_OK, or WEFT_EINPUT with field "tp_overlap_sms",
 * "tp_overlap_aggregate", "tp_overlap_method" or "tp_overlap_fp8_buf" (tp_overlap.c; aggregate:
 * WeftTpoRing bits, with tp_comm_overlap an even tp; methods those each GEMM
 * takes, no wgrad's beside a reduce-scattering dgrad, none with torch
 * layers): each
 * GEMM's SMs in 0..WEFT_TPO_MAX_SMS and, with tp_comm_overlap, below the
 * device's SMs (when it gives them). Without tp_comm_overlap they are read
 * by nothing, as TE's config is not without the overlap. */
int weft_tp_overlap_check(const WeftParallel *p, const WeftDevice *dev, WeftError *err);
/* The method a WeftTpoGemm runs with (WeftTpoMethod): p's, or TE's default
 * (pipeline for proj_fprop and fc2_fprop, bulk for the others) where it
 * gives 0. */
int weft_tp_overlap_method_of(const WeftParallel *p, int gemm);
/* 1 when a WeftTpoGemm's reduce-scatter moves FP8: named in
 * tp_overlap_fp8_buf, FP8 GEMMs on and its method pipelined (TE's rule,
 * base.py initialize_ub: fp8_buf for a reduce-scatter only in
 * methods["pipeline"]). */
int weft_tp_overlap_rs_fp8(const WeftParallel *p, int gemm);

#endif
