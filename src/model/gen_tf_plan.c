/* gen_tf_plan.c — the pipeline's plan: the FLOPs each stage runs per
 * micro-batch forward and backward, the critical stage and the repeats of
 * its work (1F1B's timeline or closed form, interleaving, layouts,
 * DualPipe), and the model's FLOPs per micro-batch (docs/zoo.md, "Pipeline"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/gen_tf.h"

/* The forward FLOPs one rank runs for layers lo..hi and its backward
 * (2 x forward, flash's extra, the recomputed forward or attention core). */
static double layers_work(const Gen *g, const Tf *t, int lo, int hi, int v, int mode,
                          double *bwd) {
  int n = hi - lo + 1, ne = moe_layers(g, lo, hi);
  double f = n * t->f_attn + (n - ne) * t->f_mlp + ne * t->f_moe;
  int mods = rc_mods(g->par);
  double rc = mode == WEFT_RECOMPUTE_FULL ? f * rc_layers(g->par, n, v) / n
              : mode == WEFT_RECOMPUTE_SELECTIVE
                  ? (mods & WEFT_RC_CORE_ATTN ? n * t->f_core : 0) +
                        (mods & WEFT_RC_MLA_UP_PROJ ? n * t->f_up : 0) +
                        (mods & WEFT_RC_MLP ? (n - ne) * t->f_mlp : 0) +
                        (mods & WEFT_RC_TORCHTITAN_OP ? n * (t->f_tt_attn + t->f_tt_mlp) : 0) +
                        ne * t->f_moe * moe_rc_share(g->par, t)
                  : 0;
  *bwd = 2 * f + n * t->x_attn + rc;
  return f;
}

/* The weight-gradient FLOPs one rank runs for layers lo..hi: every linear
 * layer's, as many as its forward (the attention core has no weights). */
static double weight_work(const Gen *g, const Tf *t, int lo, int hi) {
  int n = hi - lo + 1, ne = moe_layers(g, lo, hi);
  return n * t->f_attn_lin + (n - ne) * t->f_mlp + ne * t->f_moe;
}

/* The model's FLOPs of all layers per micro-batch and the recomputed ones. */
double weft_tf_model_layers(const Gen *g, const Tf *t, int mode, double *recompute) {
  int n = t->L, ne = moe_layers(g, 1, t->L), r = 0;
  double f = n * t->m_attn + (n - ne) * t->m_mlp + ne * t->m_moe;
  for (int k = 0; k < g->par->pp; k++) r += stage_rc(g->par, t, k);
  int mods = rc_mods(g->par);
  double sel = (mods & WEFT_RC_CORE_ATTN && !t->flash ? n * t->m_core : 0) +
               (mods & WEFT_RC_MLA_UP_PROJ ? n * t->m_up : 0) +
               (mods & WEFT_RC_MLP ? (n - ne) * t->m_mlp : 0) +
               (mods & WEFT_RC_TORCHTITAN_OP ? n * t->m_tt : 0) +
               ne * t->m_moe * moe_rc_share(g->par, t);
  *recompute = n * t->m_flash_rc + (mode == WEFT_RECOMPUTE_FULL ? f * r / n
                                    : mode == WEFT_RECOMPUTE_SELECTIVE ? sel : 0);
  return f;
}

/* DualPipe (DeepSeek-V3 Technical Report, Section 3.2.1, Table 2): rank k
 * runs stage k for the m/2 micro-batches fed at the first stage and stage
 * pp-1-k for the m/2 fed at the last, so m x (F + B) of work with F, B the
 * mean of its two stages' forward and full backward; the bubble is
 * (pp/2 - 1)(F&B + B - 3W), W the weight-gradient part of B and F&B a
 * forward and a backward chunk run together, whose compute is F + B (what
 * their communication hides is the training loop's, fwd-ig-overlap). The
 * critical rank's time over the slowest stage's f + b is R: the emitted
 * stage, repeated R times, takes that rank's time. */
static double dualpipe_repeats(const Gen *g, Tf *t, const double *fw, const double *bw) {
  int pp = g->par->pp;
  double worst = 0.0;
  /* lo: stage k's first layer; tail: the layers after stage j = pp-1-k */
  for (int k = 0, lo = 1, tail = 0; k < pp / 2; lo += t->sl[k], tail += t->sl[pp - 1 - k], k++) {
    int j = pp - 1 - k, loj = t->L + 1 - tail - t->sl[j];
    double w = weight_work(g, t, lo, lo + t->sl[k] - 1) +
               weight_work(g, t, loj, loj + t->sl[j] - 1) + (k == 0 ? t->f_logits : 0);
    double F = (fw[k] + fw[j]) / 2, B = (bw[k] + bw[j]) / 2, W = w / 2;
    double bubble = (pp / 2 - 1) * (F + 2 * B - 3 * W);
    double work = t->m * (F + B), rank = work + (bubble > 0 ? bubble : 0);
    if (rank > worst) {
      worst = rank;
      t->bubble = (rank - work) / work;
    }
  }
  return worst / (fw[t->e] + bw[t->e]);
}

/* Stage sizes, the critical stage and the repeats R of its per-micro-batch
 * work. 1F1B (v = 1): R = T / (f_e + b_e), T the exact timeline of the
 * stages' forward and backward FLOPs (backward = 2 x forward + the
 * recomputed forward; the logits on the last stage), e the slowest stage
 * (ties: the last). Equal stages with a last no lighter (every pp dividing
 * the layers) have the closed form T = (pp-1) W + m W_last, what the
 * timeline gives (tests/unit/test_recompute.c), without its O(pp m) steps.
 * Interleaved (equal stages): R = m + (pp-1)/v on the last. */
int weft_tf_plan(Gen *g, Tf *t) {
  const WeftParallel *p = g->par;
  int pp = p->pp, rc;
  int small = pp <= PLAN_STACK_STAGES;
  double fw_stack[2 * PLAN_STACK_STAGES];
  t->sl = small ? t->sl_stack : malloc((size_t)pp * sizeof *t->sl);
  double *fw = small ? fw_stack : malloc(2 * (size_t)pp * sizeof *fw);
  if (!t->sl || !fw) {
    if (!small) free(fw);
    return weft_gen_fail(g, WEFT_ENOMEM, "", "out of memory for %d pipeline stages", pp);
  }
  double *bw = fw + pp, *cf = NULL; /* cf, cb: a layout's chunks (layout order) */
  if (t->cl) {
    for (int k = 0; k < pp; k++) t->sl[k] = 0;
    for (int x = 0; x < pp * t->v; x++) t->sl[x % pp] += t->cl[x];
  } else if (p->stage_layers)
    for (int k = 0; k < pp; k++) t->sl[k] = p->stage_layers[k];
  else if (accounted(p)) {
    if ((rc = weft_stage_layers_accounted(t->L, pp, t->v, p->pp_account_embedding,
                                          p->pp_account_loss, t->sl, g->err)))
      goto out;
  } else if ((rc = weft_stage_layers_balanced(t->L, pp, t->sl, g->err)))
    goto out;
  if (t->cl && !(cf = calloc(2 * (size_t)pp * t->v, sizeof *cf))) {
    rc = weft_gen_fail(g, WEFT_ENOMEM, "", "out of memory for %d pipeline chunks", pp * t->v);
    goto out;
  }
  t->e = pp - 1;
  for (int k = 0, lo = 1; k < pp; lo += t->sl[k++]) {
    double b = 0, f = 0;
    if (cf) /* a stage's work: its chunks', each over its own layers */
      for (int c = 0, a, z; c < t->v; c++) {
        layout_chunk(t, pp, k, c, &a, &z);
        double cb = 0, x = z >= a ? layers_work(g, t, a, z, 1, p->recompute, &cb) : 0;
        cf[c * pp + k] = x, cf[pp * t->v + c * pp + k] = cb;
        f += x, b += cb;
      }
    else
      f = layers_work(g, t, lo, lo + t->sl[k] - 1, t->v, p->recompute, &b);
    if (k == pp - 1) { /* logits (not recomputed) and the MTP modules, whose layers are
                          timed as the stage's (with its share of full recomputation) */
      double lay = t->f_mtp - t->f_head, f0 = f, b0 = b;
      f += t->f_logits + t->f_mtp;
      b += 2 * (t->f_logits + t->f_mtp) + t->D * t->x_attn +
           (p->recompute == WEFT_RECOMPUTE_FULL ? lay * stage_rc(p, t, k) / t->sl[k] : 0);
      if (cf) { /* in the last chunk, with the loss */
        cf[pp * t->v - 1] += f - f0;
        cf[2 * pp * t->v - 1] += b - b0;
      }
    }
    fw[k] = f;
    bw[k] = b;
  }
  double slowest = fw[t->e] + bw[t->e]; /* a local: the search is no chain of loads */
  for (int k = pp - 1; k >= 0; k--)
    if (fw[k] + bw[k] > slowest) {
      slowest = fw[k] + bw[k];
      t->e = k;
    }
  /* with ga_steps, ga schedules of ms micro-batches one after another */
  if (pp == 1) {
    t->R = t->m;
  } else if (p->schedule == WEFT_SCHEDULE_DUALPIPE) {
    t->R = dualpipe_repeats(g, t, fw, bw);
  } else if (t->v > 1 && cf) { /* a layout: Megatron's interleaved order, op by op */
    double T;
    if ((rc = weft_gen_interleaved(cf, cf + pp * t->v, pp, t->v, t->ms, &T))) {
      rc = weft_gen_fail(g, rc, "pp_layout",
                         "timing the interleaved pipeline of %d x %d chunks failed (%s)", pp,
                         t->v, weft_strerror(rc));
      goto out;
    }
    t->R = t->ga * T / (fw[t->e] + bw[t->e]);
  } else if (t->v > 1) { /* the slowest stage's rhythm: exact for equal stages */
    t->R = t->ga * (t->ms + (double)(pp - 1) / t->v);
  } else {
    double T;
    int equal = 1; /* stages 0..pp-2 alike, the last no lighter: a closed form */
    for (int k = 1; k < pp - 1 && equal; k++) equal = fw[k] == fw[0] && bw[k] == bw[0];
    if (equal && fw[pp - 1] >= fw[0] && bw[pp - 1] >= bw[0])
      T = (pp - 1) * (fw[0] + bw[0]) + t->ms * (fw[pp - 1] + bw[pp - 1]);
    else if ((rc = weft_gen_1f1b(fw, bw, pp, t->ms, &T))) {
      rc = weft_gen_fail(g, rc, "pp", "timing the 1F1B pipeline of %d stages failed (%s)", pp,
                         weft_strerror(rc));
      goto out;
    }
    t->R = t->ga * T / (fw[t->e] + bw[t->e]);
  }
  t->Ls = t->sl[t->e];
  t->a2a_q = weft_gen_a2a_paired(p, t->e, t->v, t->ms); /* per schedule */
  t->first = 1;
  for (int k = 0; k < t->e; k++) t->first += t->sl[k];
  rc = WEFT_OK;
out:
  free(cf);
  if (!small) free(fw);
  return rc;
}
