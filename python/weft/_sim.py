# _sim.py — weft.simulate, weft.validate and optimize(refine_with_sim=True):
# `weft simulate|validate --json` and `weft optimize --refine-with-sim
# --json` as dicts (cli/sim_opts.c, simulate.c, validate.c, refine.c).
import time
from ctypes import byref, c_double, c_int

from . import _inputs, _lib, _libx
from ._core import (GAP_TOL_MIN, VERSION, WeftError, c_path, choose, fail, int_value, items, lib, new_error, num,
                    number, nums)
from ._inputs import check_rc
from ._lib import text

MAX_CHUNKS = 1000000
ASTRA_ENDPOINT_NS = 10.0  # WEFT_ASTRA_ENDPOINT_NS (include/weft/sim.h)
ASTRA_IN_FLIGHT = 1  # WEFT_SIM_ASTRA_IN_FLIGHT: ASTRA-sim's active chunks when in_flight is 0
SIM_KEYS = ("like", "bw", "chunks", "in_flight", "latency_ns", "endpoint_delay_ns", "algorithm",
            "astra_system", "export_astra1",
            "fidelity", "sharing", "max_work", "gap_tol")
KEYS = _inputs.INPUT_KEYS + _inputs.MODEL_KEYS + SIM_KEYS
ALGORITHMS = ("default", "ring", "direct", "hd")
REFINE_MAX_ITER = 8
REFINE_REL_TOL = 1e-4  # stop when a re-solve gains less than this (cli/refine.c)


def _per_dim(name, v, D, one_ok, lo, strict):
    vals = items(name, v)
    if not (len(vals) == D or (one_ok and len(vals) == 1)):
        dims = ",".join("B%d" % (d + 1) for d in range(D))
        raise fail("%s=%r: expected %s%d value%s, one per dim (%s), got %d" % (
            name, v, "1 value (every dim) or " if one_ok and D > 1 else "", D,
            "" if D == 1 else "s", dims, len(vals)), name)
    out = [number(name, x, lo, strict) for x in vals]
    return out * D if len(out) == 1 else out


class Run:
    """cli_sim_prepare's CliSimRun: inputs, settings, problem, bandwidth."""

    def __init__(self, scenario, kw):
        s = _libx.WeftSimSettings()
        lib.weft_sim_settings_default(byref(s))
        solve = _lib.WeftSettings()
        lib.weft_settings_default(byref(solve))
        if kw.get("chunks") is not None:
            s.chunks = int_value("chunks", kw["chunks"], 1, MAX_CHUNKS)
        if kw.get("in_flight") is not None:
            s.in_flight = int_value("in_flight", kw["in_flight"], 0, MAX_CHUNKS)
        if kw.get("endpoint_delay_ns") is not None:
            s.endpoint_delay_ns = number("endpoint_delay_ns", kw["endpoint_delay_ns"], 0.0, False)
        if kw.get("fidelity") is not None:
            s.fidelity = choose("fidelity", kw["fidelity"], "dim", "link")
        if kw.get("sharing") is not None:
            s.sharing = choose("sharing", kw["sharing"], "maxmin", "fifo")
            if s.fidelity != 1:
                raise fail("sharing goes with fidelity='link' (a dim is shared equally)",
                           "sharing")
        if kw.get("like") is not None:  # --like weft|astra-sim
            s.like = choose("like", kw["like"], "weft", "astra-sim")
            if s.like and s.fidelity == 1:
                raise fail("like='astra-sim' runs at dim fidelity (ASTRA-sim's analytical "
                           "backend shares no links): drop fidelity='link'", "like")
            if s.like and kw.get("endpoint_delay_ns") is None:
                s.endpoint_delay_ns = ASTRA_ENDPOINT_NS
            if s.like and not s.in_flight:
                s.in_flight = ASTRA_IN_FLIGHT
        if kw.get("astra_system") is not None:  # cli/sim_opts.c's rules for --astra-system
            c_path("astra_system", kw["astra_system"])
            for k in ("chunks", "in_flight", "endpoint_delay_ns", "algorithm"):
                if kw.get(k) is not None:
                    raise fail("astra_system gives %s: drop one" % k, k)
            if kw.get("like") is not None and not s.like:
                raise fail("astra_system runs with like='astra-sim', not like='weft'", "like")
            if s.fidelity == 1:
                raise fail("astra_system runs at dim fidelity: drop fidelity='link'", "fidelity")
        if kw.get("export_astra1") is not None:
            c_path("export_astra1", kw["export_astra1"])  # a bad name refused before any work
        if kw.get("max_work") is not None:
            s.max_work = number("max_work", kw["max_work"], 0.0, False,
                                what="a non-negative number (0: no limit)")
        if kw.get("gap_tol") is not None:
            solve.gap_tol = number("gap_tol", kw["gap_tol"], GAP_TOL_MIN, False, 1.0,
                                 "a number in [1e-14, 1]")
            if kw.get("bw") is not None:
                raise fail("gap_tol is for the solve, which bw replaces: drop one", "gap_tol")
        self.set, self.prob = s, None
        self.scen = _inputs.load(scenario, kw)
        try:
            self._prepare(kw, solve)
        except BaseException:
            self.free()
            raise

    def _prepare(self, kw, solve):
        sc, s = self.scen.sc, self.set
        D = sc.net.ndims
        self.D = D
        self.bw = (c_double * _lib.MAX_DIMS)()
        if kw.get("bw") is not None:
            for d, x in enumerate(_per_dim("bw", kw["bw"], D, False, 0.0, True)):
                self.bw[d] = x
        if kw.get("latency_ns") is not None:
            for d, x in enumerate(_per_dim("latency_ns", kw["latency_ns"], D, True, 0.0, False)):
                s.latency_ns[d] = x
        else:  # the network's own latency per step is the default
            for d in range(_lib.MAX_DIMS):
                s.latency_ns[d] = sc.net.latency_ns[d]
        if kw.get("algorithm") is not None:
            algs = items("algorithm", kw["algorithm"])
            if not (len(algs) == D or len(algs) == 1):
                raise fail("algorithm=%r: expected 1 value (every dim) or %d, one per dim" %
                           (kw["algorithm"], D), "algorithm")
            for d in range(D):
                a = algs[d if len(algs) > 1 else 0]
                if a not in ALGORITHMS:
                    raise fail("algorithm=%r: %r is not default, ring, direct or hd" %
                               (kw["algorithm"], a), "algorithm")
                s.algorithm[d] = ALGORITHMS.index(a)
        if lib.weft_parts_choices(byref(sc.net)) > 1:
            # a choice of parts: the combination optimize picks, with or without bw
            choices, err = _lib.WeftPartChoices(), new_error()
            rc = lib.weft_parts_choose(self.scen.ptr, _inputs.zoo_path(kw.get("zoo")),
                                       byref(solve), byref(choices), byref(err))
            if rc:
                raise self.scen.sources.error(rc, err)
        if kw.get("astra_system") is not None:  # ASTRA-sim 1.0's system file: its settings
            err = new_error()
            rc = lib.weft_astra1_system_read(c_path("astra_system", kw["astra_system"]),
                                             byref(sc.net), byref(s), byref(err))
            check_rc(rc, err)
            if not s.in_flight:
                s.in_flight = ASTRA_IN_FLIGHT
        self.spec = self.scen.spec()
        if kw.get("export_astra1") is not None:
            astra1_check(self.spec)
        self.prob = _inputs.create_problem(self.spec, self.scen.sources)
        self.source = "given" if kw.get("bw") is not None else "optimum"
        self.opt = _lib.WeftResult()
        if kw.get("bw") is None and all(sc.net.design_gbps[d] > 0 for d in range(D)):
            for d in range(D):  # a design the network file carries
                self.bw[d] = sc.net.design_gbps[d]
            self.source = "network"
        if self.source == "optimum" and any(sc.net.link_gbps[d] > 0 for d in range(D)):
            w, err = _lib.WeftWholeResult(), new_error()  # the network's whole links' optimum
            rc = lib.weft_whole_solve(byref(self.spec), byref(solve), byref(w), byref(err))
            if rc:
                raise self.scen.sources.error(rc, err)
            self.opt = w.result
            if self.opt.status != 0:
                raise WeftError("no bandwidth to simulate: %s: %s (give bw)" % (
                    lib.weft_status_name(self.opt.status).decode(), text(self.opt.message)),
                    code=-7)
            for d in range(_lib.MAX_DIMS):
                self.bw[d] = self.opt.bw_gbps[d]
        elif self.source == "optimum":
            rc = lib.weft_problem_solve(self.prob, byref(solve), byref(self.opt))
            if rc < 0 or self.opt.status != 0:
                raise WeftError("no bandwidth to simulate: %s: %s (give bw)" % (
                    lib.weft_status_name(self.opt.status).decode(), text(self.opt.message)),
                    code=-7)
            for d in range(_lib.MAX_DIMS):
                self.bw[d] = self.opt.bw_gbps[d]

    def simulate(self):
        self.res, err = _libx.WeftSimResult(), new_error()
        t0 = time.perf_counter()
        rc = lib.weft_simulate(byref(self.spec), self.bw, byref(self.set), byref(self.res),
                               byref(err))
        self.wall_s = time.perf_counter() - t0
        check_rc(rc, err, self.scen.sources)

    def free(self):
        lib.weft_problem_free(self.prob)
        self.prob = None
        self.scen.free()

    def head(self):
        """cli_sim_json_head's members."""
        s, net, D = self.set, self.scen.sc.net, self.D
        return {
            "weft_version": VERSION,
            "loop": lib.weft_loop_name(self.spec.loop).decode(),
            "objective": lib.weft_objective_name(self.spec.objective).decode(),
            "bw_source": self.source,
            "bw_gbps": nums(self.bw, D),
            "settings": {"fidelity": "link" if s.fidelity == 1 else "dim",
                         "sharing": "fifo" if s.sharing == 1 else "maxmin", "chunks": s.chunks,
                         "in_flight": s.in_flight,
                         "endpoint_delay_ns": num(s.endpoint_delay_ns),
                         **({"like": "astra-sim"} if s.like else {})},
            "dims": [{"dim": d + 1, "topology": lib.weft_topology_name(net.topology[d]).decode(),
                      "npus": net.npus[d], **({"spares": net.spares[d]} if net.spares[d] else {}),
                      **({"fabric": text(lib.weft_dim_shape_name(net.fabric[d]))}
                         if net.fabric[d] else {}),
                      **({"planes": net.planes[d]} if net.planes[d] > 1 else {}),
                      "bw_gbps": num(self.bw[d]),
                      "algorithm": lib.weft_algorithm_name(s.algorithm[d]).decode(),
                      "latency_ns": num(s.latency_ns[d])} for d in range(D)],
        }

    def counters(self, out):
        r = self.res
        out.update({"events": r.events, "peak_events": r.peak_events, "flows": r.flows,
                    "peak_flows": r.peak_flows, "wall_time_ns": self.wall_s * 1e9})
        return out


def astra1_check(spec):
    """cli_astra1_check: every job has ASTRA-sim 1.0's layout, before any work."""
    for j in range(spec.njobs):
        mp, err = c_int(), new_error()
        rc = lib.weft_astra1_mp_npus(spec.net, spec.jobs[j].workload, spec.jobs[j].comm,
                                     byref(mp), byref(err))
        check_rc(rc, err)  # names the group ASTRA-sim 1.0 cannot lay out


def astra1_export(path, spec, bw, s):
    """weft_astra1_export: DIR/network.json, system.txt, workload*.txt, all or none."""
    err = new_error()
    check_rc(lib.weft_astra1_export(c_path("export_astra1", path), byref(spec), bw, byref(s),
                                    byref(err)), err)


def _run(func, scenario, kw, body):
    _inputs.check_keywords(func, kw, KEYS)
    run = Run(scenario, kw)
    try:
        out = body(run)
        if kw.get("export_astra1") is not None:  # the design simulated, with its settings
            astra1_export(kw["export_astra1"], run.spec, run.bw, run.set)
        return out
    finally:
        run.free()


def simulate(scenario=None, **kw):
    """One training iteration of each job simulated event by event:
    `weft simulate --json` as a dict. Inputs and constraint=, objective=,
    loop= as weft.optimize; bw= (B1..BD in GB/s per NPU; default the optimum,
    or the design an ASTRA-sim network file carries), chunks=, in_flight=,
    like="astra-sim" (ASTRA-sim 1.0 semantics), latency_ns= (one value or one per dim), endpoint_delay_ns=, algorithm=
    ("default" | "ring" | "direct" | "hd", one or one per dim), fidelity=
    ("dim" | "link"), sharing= ("maxmin" | "fifo", link fidelity),
    max_work=, gap_tol=."""
    def body(run):
        run.simulate()
        r, D, out = run.res, run.D, run.head()
        out["time_ns"] = num(r.time_ns)
        jobs = []
        for j in range(r.njobs):
            sj = r.job[j]
            comp = (c_double * 3)()
            lib.weft_spec_phase_compute(byref(run.spec), j, comp)
            jobs.append({
                "name": text(run.scen.sc.job_name[j]), "weight": num(run.spec.jobs[j].weight),
                "time_ns": num(sj.t.time_ns), "compute_ns": num(sj.t.compute_ns),
                "collectives": sj.ncollectives,
                "phases": [{"phase": lib.weft_phase_name(ph).decode(), "compute_ns": num(comp[ph]),
                            "comm_ns": num(sj.t.comm_ns[ph]),
                            "exposed_comm_ns": num(sj.t.exposed_comm_ns[ph])} for ph in range(3)],
                "dims": [{"dim": d + 1, "bw_gbps": num(run.bw[d]),
                          "size_bytes": num(sj.dim_bytes[d]), "busy_ns": num(sj.dim_busy_ns[d]),
                          "util": num(sj.dim_util[d])} for d in range(D)]})
        out["jobs"] = jobs
        return run.counters(out)
    return _run("simulate", scenario, kw, body)


def _rel(an, si):
    """simulated / analytic - 1; None when analytic is 0."""
    return num(si / an - 1.0) if an != 0.0 else None


def _side(t, util):
    """One side of validate's comparison (analytic or simulated)."""
    return {"time_ns": num(t.time_ns), "compute_ns": num(t.compute_ns),
            "comm_ns": nums(t.comm_ns, 3), "exposed_comm_ns": nums(t.exposed_comm_ns, 3),
            "dim_util": [num(u) for u in util]}


def validate(scenario=None, **kw):
    """The analytic model next to the simulation at the same bandwidth:
    `weft validate --json` as a dict. Takes weft.simulate's keywords."""
    def body(run):
        ev = _lib.WeftEval()
        if lib.weft_problem_evaluate(run.prob, run.bw, byref(ev)):
            raise fail("the analytic model cannot be evaluated at this bandwidth (a dim with "
                       "traffic at 0 GB/s?)", "bw")
        run.simulate()
        D, out = run.D, run.head()
        out["time_ns"] = {"analytic": num(ev.time_ns), "simulated": num(run.res.time_ns),
                          "rel_error": _rel(ev.time_ns, run.res.time_ns)}
        jobs = []
        for j in range(run.res.njobs):
            a, s = ev.job[j], run.res.job[j].t
            nbytes = (c_double * _lib.MAX_DIMS)()
            lib.weft_spec_dim_bytes(byref(run.spec), j, nbytes)
            an_util = [nbytes[d] / (run.bw[d] * a.time_ns) if run.bw[d] * a.time_ns > 0 else 0.0
                       for d in range(D)]
            si_util = [run.res.job[j].dim_util[d] for d in range(D)]

            jobs.append({
                "name": text(run.scen.sc.job_name[j]), "weight": num(run.spec.jobs[j].weight),
                "analytic": _side(a, an_util), "simulated": _side(s, si_util),
                "rel_error": {"time": _rel(a.time_ns, s.time_ns),
                              "compute": _rel(a.compute_ns, s.compute_ns),
                              "comm": [_rel(a.comm_ns[p], s.comm_ns[p]) for p in range(3)],
                              "exposed_comm": [_rel(a.exposed_comm_ns[p], s.exposed_comm_ns[p])
                                               for p in range(3)],
                              "dim_util": [_rel(an_util[d], si_util[d]) for d in range(D)]}})
        out["jobs"] = jobs
        return run.counters(out)
    return _run("validate", scenario, kw, body)


def refine(scenario, kw):
    """optimize(refine_with_sim=True): `weft optimize --refine-with-sim --json`."""
    kw = {k: v for k, v in kw.items() if k != "refine_with_sim"}
    if kw.get("bw") is not None:
        raise fail("refine_with_sim chooses the bandwidth and simulates many designs: drop bw",
                   "bw")
    if kw.get("export_astra") is not None:
        raise fail("refine_with_sim reports two designs: drop export_astra", "export_astra")

    def body(run):
        st, rf, err = _lib.WeftSettings(), _libx.WeftRefine(), new_error()
        lib.weft_settings_default(byref(st))
        rc = lib.weft_refine_with_sim(byref(run.spec), byref(st), byref(run.set),
                                      REFINE_MAX_ITER, REFINE_REL_TOL, byref(rf), byref(err))
        check_rc(rc, err, run.scen.sources)
        D, out = run.D, run.head()
        out["optimum"] = {"bw_gbps": nums(run.bw, D), "analytic_time_ns": num(run.opt.eval.time_ns),
                          "simulated_time_ns": num(rf.first_simulated_ns)}
        out["refined"] = {"bw_gbps": nums(rf.bw_gbps, D), "analytic_time_ns": num(rf.analytic_ns),
                          "simulated_time_ns": num(rf.simulated_ns)}
        out["iterations"] = rf.iterations
        out["converged"] = bool(rf.converged)
        out["simulated_time_ns"] = nums(rf.sim_ns, rf.iterations + 1)
        return out
    return _run("optimize", scenario, kw, body)

