/* part_choice.c — a dim that offers a choice of parts (`Parts: [nvlink4,
 * [ndr, xdr]]`): every combination bound and solved on whole links, the best
 * kept; exact, as each solve is (docs/parts.md, "A choice of parts"). */
#include <math.h>
#include <string.h>

#include "core/datadir.h"
#include "weft.h"

/* Choice i of dim d's "a|b|c" into out ("" when there is no such choice). */
static void choice_name(const char *list, int i, char *out, size_t size) {
  const char *p = list;
  for (int k = 0; k < i && p; k++) {
    p = strchr(p, '|');
    if (p) p++;
  }
  size_t n = p ? strcspn(p, "|") : 0;
  snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), p ? p : "");
}

static int count_choices(const char *list) {
  int n = 1;
  for (const char *p = list; (p = strchr(p, '|')); p++) n++;
  return n;
}

int weft_parts_choices(const WeftNetwork *net) {
  int n = 1;
  for (int d = 0; net && d < net->ndims; d++) {
    n *= count_choices(net->part[d]);
    if (n > WEFT_MAX_PART_COMBOS) return n;
  }
  return n;
}

const char *weft_parts_choice_name(const WeftPartChoices *pc, int k, int d, char *buf,
                                   size_t size) {
  if (!pc || k < 0 || k >= pc->n || d < 0 || d >= WEFT_MAX_DIMS) return "";
  choice_name(pc->choice[d], pc->pick[k][d], buf, size);
  return buf;
}

/* Combination k beats the best so far: a lower objective, or one equal to
 * within CHOICE_TIE_REL at a lower cost (perf ties are common: the same
 * links at other prices); still tied, the first combination stays. */
#define CHOICE_TIE_REL 1e-9 /* the solver's answers agree to ~1e-12 relative */
static int better(const WeftPartChoices *pc, int k) {
  int b = pc->best;
  if (b < 0) return 1;
  double tol = CHOICE_TIE_REL * fabs(pc->objective[b]);
  if (pc->objective[k] < pc->objective[b] - tol) return 1;
  return pc->objective[k] <= pc->objective[b] + tol && pc->cost_usd[k] < pc->cost_usd[b];
}

/* Bind combination k (the choice index per dim in pc->pick[k]) onto sc. */
static int bind_combo(WeftScenario *sc, const WeftNetwork *net0, const WeftCostModel *cm0,
                      const WeftParts *cat, const WeftPartChoices *pc, int k, WeftError *err) {
  sc->net = *net0;
  sc->cost = *cm0;
  for (int d = 0; d < sc->net.ndims; d++)
    choice_name(pc->choice[d], pc->pick[k][d], sc->net.part[d], sizeof sc->net.part[d]);
  return weft_network_bind_parts(&sc->net, &sc->cost, cat, sc->parts, err);
}

int weft_parts_choose(WeftScenario *sc, const char *zoo_dir, const WeftSettings *settings,
                      WeftPartChoices *pc, WeftError *err) {
  if (!sc || !pc) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no scenario");
  memset(pc, 0, sizeof *pc);
  pc->best = -1;
  int n = weft_parts_choices(&sc->net);
  if (n > WEFT_MAX_PART_COMBOS)
    return weft_error_set(err, WEFT_EINPUT, sc->net.file, sc->net.part_line[0], 0, "Parts",
                          "the choices of parts make more than %d combinations",
                          WEFT_MAX_PART_COMBOS);
  pc->n = n;
  for (int d = 0; d < sc->net.ndims; d++)
    snprintf(pc->choice[d], sizeof pc->choice[d], "%s", sc->net.part[d]);
  for (int k = 0, r; k < n; k++)  /* mixed radix, dim 1 fastest */
    for (int d = 0, q = k; d < sc->net.ndims; d++) {
      r = count_choices(pc->choice[d]);
      pc->pick[k][d] = q % r;
      q /= r;
    }
  char builtin[WEFT_PATH_LEN];
  snprintf(builtin, sizeof builtin, "%s/../parts", zoo_dir ? zoo_dir : weft_zoo_default());
  WeftParts *cat;
  int rc = weft_parts_read(builtin, sc->parts_file[0] ? sc->parts_file : NULL, &cat, err);
  if (rc) return rc;
  WeftNetwork net0 = sc->net;
  WeftCostModel cm0 = sc->cost;
  WeftWholeResult *w = NULL;
  for (int k = 0; !rc && k < n; k++) {
    WeftSpec spec;
    WeftWholeResult res;
    w = &res;
    if ((rc = bind_combo(sc, &net0, &cm0, cat, pc, k, err))) break;
    weft_scenario_spec(sc, &spec);
    if ((rc = weft_whole_solve(&spec, settings, w, err))) break;
    pc->status[k] = w->result.status;
    pc->objective[k] = w->result.objective;
    pc->time_ns[k] = w->result.eval.time_ns;
    pc->cost_usd[k] = w->result.eval.cost_usd;
    if (w->result.status == WEFT_STATUS_SOLVED && better(pc, k)) pc->best = k;
  }
  if (!rc) rc = bind_combo(sc, &net0, &cm0, cat, pc, pc->best < 0 ? 0 : pc->best, err);
  if (rc) {  /* sc as it came */
    sc->net = net0;
    sc->cost = cm0;
  }
  weft_parts_free(cat);
  return rc;
}
