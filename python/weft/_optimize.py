# _optimize.py — weft.optimize: the CLI's `weft optimize --json` as a dict
# (cli/optimize.c, cli/report.c), over the same library calls.
import ctypes
import math
from ctypes import byref, c_double

from . import _inputs, _lib, _libx
from ._core import GAP_TOL_MIN, VERSION, Sources, c_path, fail, flag, int_value, lib, new_error, nums, num, number
from ._lib import text

OPTIMIZE_KEYS = (_inputs.INPUT_KEYS + _inputs.MODEL_KEYS +
                 ("gap_tol", "link_gbps", "max_links", "max_nodes", "time_limit",
                  "export_astra", "export_astra1", "refine_with_sim", "train_tokens"))
ASTRA_DEFAULT_HOP_NS = 500.0  # cli/astra1.c: ASTRA-sim's sample networks, when the network has none
SWITCH = 2  # WeftTopology
STATUS_SOLVED = 0
DIM_UNUSED = 1


def astra1_settings(net):
    """cli_astra1_settings: ASTRA-sim semantics, its endpoint delay, and the
    network's latency, or ASTRA-sim's sample 500 ns per hop when it has none."""
    from ._libx import WeftSimSettings
    from ._sim import ASTRA_ENDPOINT_NS
    s = WeftSimSettings()
    lib.weft_sim_settings_default(byref(s))
    s.like, s.endpoint_delay_ns = 1, ASTRA_ENDPOINT_NS
    have = any(net.latency_ns[d] > 0 for d in range(net.ndims))
    for d in range(net.ndims):
        s.latency_ns[d] = net.latency_ns[d] if have else \
            ASTRA_DEFAULT_HOP_NS * (2.0 if net.topology[d] == SWITCH else 1.0)
    return s


def settings(kw):
    st = _lib.WeftSettings()
    lib.weft_settings_default(byref(st))
    if kw.get("gap_tol") is not None:
        st.gap_tol = number("gap_tol", kw["gap_tol"], GAP_TOL_MIN, False, 1.0,
                                 "a number in [1e-14, 1]")
    if kw.get("max_nodes") is not None:  # whole links' branch and bound (--max-nodes)
        st.max_nodes = int_value("max_nodes", kw["max_nodes"], 1, 2 ** 31 - 1)
    if kw.get("time_limit") is not None:  # seconds, 0 = none (--time-limit)
        st.time_limit_s = number("time_limit", kw["time_limit"], 0.0, False)
    return st


def spares_total(net):
    """cli_spares_json's top-level npus and spares: only with spares."""
    work, bought = lib.weft_network_npus_total(byref(net)), lib.weft_network_npus_bought(byref(net))
    return {"npus": int(work), "spares": int(bought - work)} if bought > work else {}


def spares_dim(net, d):
    """cli_spares_json's "spares" of dim d: only with spares."""
    out = {"spares": net.spares[d]} if net.spares[d] > 0 else {}
    if net.fabric[d]:  # and its fabric shape when not LIBRA's fat-tree
        out["fabric"] = _lib.text(lib.weft_dim_shape_name(net.fabric[d]))
    if net.planes[d] > 1:
        out["planes"] = net.planes[d]
    return out


def eval_dict(ev, bw, D):
    return {"bw_gbps": nums(bw, D), "time_ns": num(ev.time_ns), "cost_usd": num(ev.cost_usd),
            "time_x_cost_ns_usd": num(ev.perf_per_cost)}


def set_links(net, kw):
    """link_gbps= and max_links= (lists, one per dim) onto the network, under
    the rule of weft_network_set_links (the CLI's --link-gbps, --max-links)."""
    lists = []
    for key in ("link_gbps", "max_links"):
        v = kw.get(key)
        if v is None:
            lists.append((None, 0))
            continue
        if isinstance(v, (str, bytes)) or not hasattr(v, "__len__"):
            raise fail("%s: expected a list of numbers, one per dim, got %r" % (key, v), key)
        arr = (c_double * max(len(v), 1))()
        for i, x in enumerate(v[:_lib.MAX_DIMS]):
            arr[i] = _entry(key, i, x)
        lists.append((arr, len(v)))
    if lists[0][0] is None and lists[1][0] is None:
        return
    err = new_error()
    rc = lib.weft_network_set_links(byref(net), lists[0][0], lists[0][1], lists[1][0],
                                    lists[1][1], b"link_gbps", b"max_links", byref(err))
    if rc:
        raise Sources().error(rc, err)


def _entry(key, i, x):
    """One list entry as a float (the library judges its range)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise fail("%s entry %d: expected a number, got %r" % (key, i + 1, x), key)
    return float(x)


def choices_list(pc, D):
    """cli/parts_report.c's "part_choices": every combination of parts."""
    out = []
    for k in range(pc.n):
        ok = pc.status[k] == STATUS_SOLVED
        names = []
        for d in range(D):
            buf = ctypes.create_string_buffer(_lib.NAME_LEN)
            lib.weft_parts_choice_name(byref(pc), k, d, buf, _lib.NAME_LEN)
            names.append(buf.value.decode() or None)
        out.append({"parts": names, "status": lib.weft_status_name(pc.status[k]).decode(),
                    "objective": num(pc.objective[k]) if ok else None,
                    "time_ns": num(pc.time_ns[k]) if ok else None,
                    "cost_usd": num(pc.cost_usd[k]) if ok else None, "best": k == pc.best})
    return out


def parts_dict(sc, d, res, whole, solved):
    """cli/parts_report.c's entry of "parts": dim d's part, $ and W per GB/s,
    per-link counts and the whole network's bill of materials."""
    p, net = sc.parts[d], sc.net
    if not p.part:
        return {"dim": d + 1, "part": None}
    out = {"dim": d + 1, "part": text(p.part), "link_gbps": num(p.rate_gbps),
           "usd_per_gbps": num(p.usd_per_gbps), "w_per_gbps": num(p.w_per_gbps),
           "link_usd_per_gbps": num(p.link_usd_per_gbps),
           "nic_usd_per_gbps": num(p.nic_usd_per_gbps),
           "switch_usd_per_gbps": num(p.switch_usd_per_gbps), "tiers": p.tiers,
           "radix": p.radix, "oversubscription": num(p.oversub) if p.tiers else None,
           "switch": text(p.switch_name) or None, "attach": text(p.attach_name) or None,
           "uplink": text(p.uplink_name) or None,
           "per_link": {"endpoints": num(p.endpoints), "switch_ports": num(p.switch_ports),
                        "optics": num(p.optics), "cables": num(p.cables)}}
    if not solved:
        out["total"] = None
        return out
    bw = res.bw_gbps[d]
    links = whole.links[d] if whole is not None and whole.link_gbps[d] > 0 else bw / p.rate_gbps
    b = _libx.WeftPartsBom()  # the one writer: weft_parts_bom, as the CLI's
    lib.weft_parts_bom(byref(net), byref(p), d, bw, links, byref(b))
    out["total"] = {"links_per_npu": num(b.links), "endpoints": num(b.endpoints),
                    "switch_ports": num(b.switch_ports), "optics": num(b.optics),
                    "cables": num(b.cables), "switches": num(b.switches),
                    "cost_usd": num(b.cost_usd), "power_w": num(b.power_w)}
    return out


def whole_dict(w, net, D):
    """report.c's whole_json: links, link_gbps, max_links, bnb, continuous."""
    solved = w.result.status == STATUS_SOLVED
    c = w.continuous
    cont = {"status": lib.weft_status_name(c.status).decode()}
    if c.status == STATUS_SOLVED:
        cont.update({"bw_gbps": nums(c.bw_gbps, D), "time_ns": num(c.eval.time_ns),
                     "cost_usd": num(c.eval.cost_usd), "objective": num(c.objective),
                     "lower_bound": num(c.lower_bound)})
    return {
        "links": [w.links[d] if w.link_gbps[d] > 0 else None for d in range(D)]
        if solved else None,
        "link_gbps": nums(w.link_gbps, D),
        "max_links": [net.max_links[d] for d in range(D)],
        "bnb": {"status": lib.weft_bnb_status_name(w.bnb_status).decode(), "nodes": w.nodes,
                "unsettled": w.unsettled, "gap": num(w.result.gap)},
        "continuous": cont,
    }


def system_dict(o, sys, tokens, train_tokens):
    """report.c's system_json: the system block's figures (docs/model.md "System cost")."""
    out = {"npu_cost_usd": num(o.npu_cost_usd), "capex_usd": num(o.capex_usd),
           "network_power_w": num(o.network_power_w), "npu_power_w": num(o.npu_power_w),
           "power_w": num(o.power_w), "cost_per_iteration_usd": num(o.cost_per_iteration_usd),
           "npu_usd": num(sys.npu_usd), "npu_power_w_each": num(sys.npu_power_w),
           "electricity_usd_per_kwh": num(sys.electricity_usd_per_kwh), "pue": num(sys.pue),
           "lifetime_years": num(sys.lifetime_years)}
    if tokens > 0:
        out["tokens_per_iteration"] = num(tokens)
        out["usd_per_million_tokens"] = num(o.cost_per_iteration_usd / tokens * 1e6)
    if train_tokens:
        n = math.ceil(train_tokens / tokens)  # whole iterations, the last paid in full
        out.update({"train_tokens": num(train_tokens), "train_iterations": num(n),
                    "train_time_s": num(n * o.time_ns / 1e9),
                    "train_cost_usd": num(n * o.cost_per_iteration_usd)})
    return out


def system_of(s, spec, kw):
    """(resolved system figures, tokens per iteration, train tokens) when the
    report shows the system block, else None; train_tokens= checked as
    --train-tokens."""
    tt = kw.get("train_tokens")
    tokens = s.sc.tokens_per_iteration[0] if spec.njobs == 1 else 0.0
    if tt is not None:
        tt = number("train_tokens", tt, 0.0, True, 1e30)
        if not tokens > 0:
            raise fail("train_tokens needs one model job (model=, or a scenario whose one "
                       "workload is a model mapping): only there are the tokens per iteration "
                       "known", "train_tokens")
    if not (lib.weft_cost_model_has_system(byref(s.sc.cost)) or spec.objective == _inputs.OBJECTIVES.index("cost-per-iteration")):
        return None
    sys = _lib.WeftSystemCost()
    lib.weft_system_cost_resolved(byref(s.sc.cost), byref(sys))
    return sys, tokens, tt


def report(spec, sc, res, equal, equal_bw, equal_none, whole=None, system=None, choices=None):
    """report_json's object."""
    D, solved = res.ndims, res.status == STATUS_SOLVED
    net = spec.net.contents
    cons = [text(spec.cons.contents.c[i].text) for i in range(spec.cons.contents.n)] \
        if spec.cons else []
    out = {
        "weft_version": VERSION,
        "objective": lib.weft_objective_name(spec.objective).decode(),
        "loop": lib.weft_loop_name(spec.loop).decode(),
        "status": lib.weft_status_name(res.status).decode(),
        "gap": num(res.gap),
        "lower_bound": num(res.lower_bound) if solved else None,
        "iterations": res.iterations,
        "message": text(res.message),
        "constraints": cons,
        "constraint_origins": ["scenario" if spec.cons.contents.c[i].origin == 0 else "option"
                               for i in range(len(cons))],
        "constraints_replaced": [text(spec.cons.contents.replaced[i].text)
                                 for i in range(spec.cons.contents.nreplaced)]
        if spec.cons else [],
        "conflicts": [cons[res.conflict[i]] for i in range(res.nconflict)],
        **spares_total(net),
        "dims": [{"dim": d + 1, "topology": lib.weft_topology_name(net.topology[d]).decode(),
                  "npus": net.npus[d], **spares_dim(net, d),
                  "bw_gbps": num(res.bw_gbps[d]) if solved else None,
                  "used": not (res.dim_flags[d] & DIM_UNUSED)} for d in range(D)],
    }
    if whole is not None:
        out.update(whole_dict(whole, net, D))
    if choices is not None:
        out["part_choices"] = choices_list(choices, D)
    if lib.weft_network_has_parts(byref(net)):
        out["parts"] = [parts_dict(sc, d, res, whole, solved) for d in range(D)]
    if not solved:
        out.update({"bw_gbps": None, "time_ns": None, "cost_usd": None, "equal_bw": None})
        return out
    o = res.eval
    out["bw_gbps"] = nums(res.bw_gbps, D)
    out["time_ns"] = num(o.time_ns)
    out["cost_usd"] = num(o.cost_usd)
    out["time_x_cost_ns_usd"] = num(o.perf_per_cost)
    if system is not None:
        out.update(system_dict(o, *system))
    out["tie_broken"] = bool(res.tie_broken)
    out["jobs"] = [{"name": text(sc.job_name[j]), "weight": num(spec.jobs[j].weight),
                    "time_ns": num(o.job[j].time_ns), "compute_ns": num(o.job[j].compute_ns),
                    "comm_ns": nums(o.job[j].comm_ns, 3),
                    "exposed_comm_ns": nums(o.job[j].exposed_comm_ns, 3)}
                   for j in range(spec.njobs)]
    if equal is not None:
        out["equal_bw"] = eval_dict(equal, equal_bw, D)
        out["speedup"] = num(equal.time_ns / o.time_ns) if o.time_ns else None
    else:
        out["equal_bw"] = None
        out["equal_bw_none"] = equal_none
        out["speedup"] = None
    return out


def optimize(scenario=None, **kw):
    """Solve the bandwidth problem exactly; `weft optimize --json` as a dict.

    Inputs as the CLI takes them: a scenario (a file name or a dict shaped as
    the YAML file), or network=, workload=, communicator=, cost_model= (file
    names; the YAML ones may be dicts, the workload ASTRA-sim text), or
    model= (with tp=, pp=, dp=, ep=, mb=, vp=, sp=, zero=, recompute=,
    order=, efficiency=, pp_layers=, pp_layout=, device=, zoo=) with
    network= and cost_model=. Then constraint= (one expression or a list),
    objective= ("perf" | "perf-per-cost" | "cost-per-iteration"), loop=
    ("no-overlap" | "tp-dp-overlap" | "fwd-ig-overlap"), the cost model's
    system figures
    npu_usd=, npu_power_w=, electricity_usd_per_kwh=, pue=, lifetime_years=
    (as --npu-usd ...; docs/model.md "System cost"), train_tokens= (a model
    job: the time and cost to train that many tokens),
    gap_tol=, link_gbps= and max_links= (lists, one entry per dim: whole
    links, as --link-gbps and --max-links; the dict then has links,
    link_gbps, max_links, bnb and continuous; max_nodes= and time_limit=
    stop the branch and bound, as --max-nodes and --time-limit), parts= (a
    parts catalog file over the built-in one, as --parts) and parts_per_dim=
    (a list of part names, one per dim, as --parts-per-dim: the dict then
    has "parts", each dim's part, $ and W per GB/s and bill of materials),
    export_astra=
    (a file name), export_astra1= (a directory: the optimum as ASTRA-sim 1.0
    analytical inputs, as --export-astra1). A problem without a solution
    returns its dict (status "infeasible", "unbounded", ... and the message,
    as the CLI prints it before exiting 1); bad input raises WeftError.
    refine_with_sim=True runs `weft optimize --refine-with-sim`, taking
    weft.simulate's settings (chunks=, latency_ns=, ...)."""
    if flag("refine_with_sim", kw.get("refine_with_sim")):
        from ._sim import refine
        return refine(scenario, kw)
    _inputs.check_keywords("optimize", kw, OPTIMIZE_KEYS)
    for k in ("export_astra", "export_astra1"):
        if kw.get(k) is not None:
            c_path(k, kw[k])  # a bad name refused before any work
    st = settings(kw)
    s = _inputs.load(scenario, kw)
    prob = None
    try:
        set_links(s.sc.net, kw)
        choices = None  # a choice of parts: each combination solved, the best kept
        if lib.weft_parts_choices(byref(s.sc.net)) > 1:
            choices, err = _lib.WeftPartChoices(), new_error()
            rc = lib.weft_parts_choose(s.ptr, _inputs.zoo_path(kw.get("zoo")), byref(st),
                                       byref(choices), byref(err))
            if rc:
                raise s.sources.error(rc, err)
        spec = s.spec()
        if kw.get("export_astra1") is not None:
            from ._sim import astra1_check
            astra1_check(spec)
        system = system_of(s, spec, kw)
        prob = _inputs.create_problem(spec, s.sources)
        whole = None
        if any(s.sc.net.link_gbps[d] > 0 for d in range(s.sc.net.ndims)):
            whole, err = _lib.WeftWholeResult(), new_error()
            rc = lib.weft_whole_solve(byref(spec), byref(st), byref(whole), byref(err))
            if rc:
                raise s.sources.error(rc, err)
            res = whole.result
        else:
            res = _lib.WeftResult()
            lib.weft_problem_solve(prob, byref(st), byref(res))
        solved = res.status == STATUS_SOLVED
        equal = equal_bw = equal_none = None
        if solved:  # the best equal split that meets the constraints, if any
            bw = (c_double * _lib.MAX_DIMS)()
            why = ctypes.create_string_buffer(256)
            if lib.weft_problem_equal_bw(prob, bw, why, 256):
                equal = _lib.WeftEval()
                lib.weft_problem_evaluate(prob, bw, byref(equal))
                equal_bw = bw
            else:
                equal_none = text(why.value)
        path = kw.get("export_astra")
        if path is not None and solved:
            err = new_error()
            rc = lib.weft_astra_network_write(c_path("export_astra", path), byref(s.sc.net),
                                              res.bw_gbps, None, byref(err))
            if rc:
                raise s.sources.error(rc, err)
        if kw.get("export_astra1") is not None and solved:
            from ._sim import astra1_export
            astra1_export(kw["export_astra1"], spec, res.bw_gbps, astra1_settings(s.sc.net))
        return report(spec, s.sc, res, equal, equal_bw, equal_none, whole, system, choices)
    finally:
        lib.weft_problem_free(prob)
        s.free()



