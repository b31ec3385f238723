# _codesign.py — weft.codesign: `weft codesign --json` as a dict (cli/codesign.c,
# cli/codesign_report.c): every parallelization on every network shape, solved
# exactly, streamed through the library's summary (counts, best, Pareto front).
import ctypes
import os
from ctypes import byref, c_char_p, c_double, c_int, c_size_t

from . import _inputs, _lib, _libx
from ._core import (GAP_TOL_MIN, KeywordTypeError, WeftError, Sources, c_path, c_text, choose, fail, flag,
                    int_value, items, lib, new_error, num, number, shown, zoo_dir)
from ._inputs import LOOPS, check_rc, constraints, device_name, given
from ._lib import text

KEYS = ("model", "workload", "npus", "device", "zoo", "network", "cluster", "blocks", "dims", "max_per_dim",
        "cost_dims", "parts_per_dim", "parts", "fabric", "planes", "cost_model", "constraint", "objective", "loop", "tp", "pp", "mb", "order",
        "all_orders", "sp", "zero", "recompute", "zero_list", "sp_list", "recompute_list",
        "interleave", "cp_list", "ep_list", "attention", "fp8", "cuda_graphs", "overlap_grad_reduce",
        "overlap_param_gather", "ddp_bucket_size", "tp_comm_overlap", "overlap_p2p_communication", "cp_comm", "attention_dropout", "hidden_dropout", "moe_permute_fusion", "moe_router_fusion", "moe_a2a_overlap", "moe_dispatch_fp8", "fp8_amax_reduce", "cross_entropy", "activation_fusion", "fp8_param_gather", "moe_dispatcher", "moe_routing", "ga_steps", "layer_impl", "lora_rank", "lora_targets", "packed_sample_len", "fsdp", "norm_fusion", "rope_fusion", "reshard_after_forward", "grad_bytes", "master_weights",
        "optimizer_states", "ep", "etp", "efficiency", "gap_tol", "threads", "top", "per_network",
        "npu_usd", "npu_power_w", "electricity_usd_per_kwh", "pue", "lifetime_years")
STATUS = ("ok", "no_memory", "invalid", "infeasible", "unbounded", "failed")
TOPOLOGIES = ("Ring", "FullyConnected", "Switch")
DEFAULT_TOP = 10
MAX_NETWORKS = 256  # network files and clusters named (the CLI's CS_MAX_NETWORKS)

_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]
_libc.free.restype = None


def _int_list(name, v, lo, hi, arr, maxn):
    vals = [int_value(name, x, lo, hi) for x in items(name, v)]
    for i, x in enumerate(vals):
        if x in vals[:i]:
            raise fail("%s=%r: %d is listed twice" % (name, v, x), name)
    if len(vals) > maxn:
        raise fail("%s=%r: at most %d values" % (name, v, maxn), name)
    for i, x in enumerate(vals):
        arr[i] = x
    return len(vals)


def _recompute(name, v):
    if v is None or v is False:
        return 0
    if v is True or v == "":
        return 1  # alone: full
    if not isinstance(v, str):
        raise KeywordTypeError("%s=%s: expected none, selective or full, or True (full) or "
                               "False" % (name, shown(v)), name)
    mode = c_int()
    if lib.weft_recompute_parse(c_text(name, v), byref(mode), byref(new_error())):
        raise fail("%s=%r: expected none, selective or full" % (name, v), name)
    return mode.value


def _spec(kw, npus):
    """The search's knobs (base_parallel, knob_lists, the degree lists)."""
    spec = _libx.WeftCodesignSpec()
    p = spec.base
    lib.weft_parallel_default(byref(p))
    if kw.get("zero") is not None:
        p.zero_stage = int_value("zero", kw["zero"], 0, 3)
    if kw.get("ep") is not None:
        p.ep = int_value("ep", kw["ep"], 1, 1 << 24)
    if kw.get("etp") is not None:
        p.expert_tp = int_value("etp", kw["etp"], 1, 1 << 24)
    p.recompute = _recompute("recompute", kw.get("recompute"))
    _inputs.device_knobs(kw, p)
    _inputs.precision(kw, p)
    if kw.get("order") is not None:
        order = kw["order"] if isinstance(kw["order"], str) else ",".join(kw["order"])
        err = new_error()
        if lib.weft_parallel_order_parse(c_text("order", order), p.order, byref(err)):
            raise fail("order=%r: %s" % (kw["order"], text(err.msg)), "order")
    if kw.get("efficiency") is not None:
        p.efficiency = number("efficiency", kw["efficiency"], 0.0, True, 1.0,
                              "a number in (0, 1]")
    for lst, one in (("zero_list", "zero"), ("sp_list", "sp"), ("recompute_list", "recompute"),
                     ("ep_list", "ep")):
        if given(kw, lst) and given(kw, one):
            raise fail("%s and %s: give one" % (lst, one), lst)
    if given(kw, "zero_list"):
        spec.nzero = _int_list("zero_list", kw["zero_list"], 0, 3, spec.zero, 4)
    if given(kw, "sp_list"):
        spec.nsp = _int_list("sp_list", [int(x) if isinstance(x, bool) else x
                                         for x in items("sp_list", kw["sp_list"])],
                             0, 1, spec.sp, 2)
    if given(kw, "interleave"):
        spec.nvp = _int_list("interleave", kw["interleave"], 1, 1 << 16, spec.vp,
                             _lib.MAX_CHOICES)
    if given(kw, "cp_list"):
        spec.ncp = _int_list("cp_list", kw["cp_list"], 1, 1 << 24, spec.cp, _lib.MAX_CHOICES)
    if given(kw, "ep_list"):
        spec.nep = _int_list("ep_list", kw["ep_list"], 1, 1 << 24, spec.ep, _lib.MAX_CHOICES)
    if given(kw, "recompute_list"):
        modes = [_recompute("recompute_list", x) if x != "" else None
                 for x in items("recompute_list", kw["recompute_list"])]
        if None in modes or len(set(modes)) != len(modes) or len(modes) > 3:
            raise fail("recompute_list=%r: expected distinct none, selective, full" %
                       (kw["recompute_list"],), "recompute_list")
        for i, m in enumerate(modes):
            spec.rc[i] = m
        spec.nrc = len(modes)
    if given(kw, "tp"):
        spec.ntp = _int_list("tp", kw["tp"], 1, npus, spec.tp, _lib.MAX_CHOICES)
    if given(kw, "pp"):
        spec.npp = _int_list("pp", kw["pp"], 1, npus, spec.pp, _lib.MAX_CHOICES)
    if given(kw, "mb"):
        spec.nmb = _int_list("mb", kw["mb"], 1, 1 << 24, spec.mb, _lib.MAX_CHOICES)
    lib.weft_settings_default(byref(spec.settings))
    if kw.get("gap_tol") is not None:
        spec.settings.gap_tol = number("gap_tol", kw["gap_tol"], GAP_TOL_MIN, False, 1.0,
                                 "a number in [1e-14, 1]")
    if kw.get("objective") is not None:
        spec.objective = choose("objective", kw["objective"], *_inputs.OBJECTIVES)
    if kw.get("loop") is not None:
        spec.loop = choose("loop", kw["loop"], *LOOPS)
    spec.all_orders = 1 if flag("all_orders", kw.get("all_orders")) else 0
    return spec


def _shape_all(nets, n, kw, drop):
    """fabric= and planes= onto every network (the CLI's shape_all): one they
    do not fit raises, or with drop (shapes over blocks) is left out; none
    left raises. Returns (networks kept, how many were left out)."""
    if kw.get("fabric") is None and kw.get("planes") is None:
        return n, 0
    kept, first = 0, None
    for k in range(n):
        t = _lib.WeftNetwork.from_buffer_copy(nets[k])
        try:
            _inputs.set_fabric(t, kw.get("fabric"))
            _inputs.set_planes(t, kw.get("planes"))
        except WeftError as e:
            if not drop:
                raise
            first = first or e
            continue
        nets[kept] = t
        kept += 1
    if kept == 0:
        raise fail("%s (every shape: none is left)" % first.msg, first.field)
    return kept, n - kept


def _bind_all(nets, n, kw, cost, sources, zoo, unbuilt=None):
    """parts_per_dim= onto every network, then, when some names a part, each
    bound (a choice expanded) with parts= over the catalog, the classes into
    cost (weft_codesign_parts; the CLI's bind_all); with unbuilt (a list, for
    shapes over blocks) a network its parts cannot build is left out
    (weft_codesign_parts_fit), unbuilt[0] counting them. Returns (a Python
    array of the networks or None when unchanged, their count, parts per
    network)."""
    names = kw.get("parts_per_dim")
    if names is not None:
        arr, _ = _inputs.parts_names(names)
        for k in range(n):
            err = new_error()
            check_rc(lib.weft_network_set_parts(byref(nets[k]), arr, len(names),
                                                b"parts_per_dim", byref(err)), err, sources)
    if not any(lib.weft_network_has_parts(byref(nets[k])) for k in range(n)):
        return None, n, None
    out, nout = ctypes.POINTER(_lib.WeftNetwork)(), c_int()
    dims, err = ctypes.POINTER(_lib.WeftDimParts * _lib.MAX_DIMS)(), new_error()
    f = c_path("parts", kw["parts"]) if kw.get("parts") is not None else None
    if unbuilt is None:
        check_rc(lib.weft_codesign_parts(nets, n, c_path("zoo", zoo), f, byref(cost),
                                         byref(out), byref(nout), byref(dims), byref(err)), err,
                 sources)
    else:
        dropped, why = c_int(), new_error()
        check_rc(lib.weft_codesign_parts_fit(nets, n, c_path("zoo", zoo), f, byref(cost),
                                             byref(out), byref(nout), byref(dims),
                                             byref(dropped), byref(why), byref(err)), err,
                 sources)
        unbuilt[0] = dropped.value
    # copies, so the C arrays can go at once
    parts = [[_lib.WeftDimParts.from_buffer_copy(dims[k][d]) for d in range(_lib.MAX_DIMS)]
             for k in range(nout.value)]
    arr = (_lib.WeftNetwork * nout.value)()
    ctypes.memmove(arr, out, ctypes.sizeof(arr))
    _libc.free(ctypes.cast(out, ctypes.c_void_p))
    _libc.free(ctypes.cast(dims, ctypes.c_void_p))
    return arr, nout.value, parts


def _named_desc(nfiles, clusters):
    """"1 network file, 2 clusters (a, b)": what was named (the CLI's named_desc)."""
    parts = ["%d network file%s" % (nfiles, "s" if nfiles > 1 else "")] if nfiles else []
    if clusters:
        parts.append("%d cluster%s (%s)" % (len(clusters), "s" if len(clusters) > 1 else "",
                                             ", ".join(clusters)))
    return ", ".join(parts)


def _cluster_names(v):
    """cluster=: a preset's name or a list of them."""
    names = list(v) if isinstance(v, (list, tuple)) else [v]
    if not names or any(not isinstance(x, str) or not x for x in names):
        raise fail("cluster=%r: expected a cluster name or a list of them (weft zoo lists "
                   "them)" % (v,), "cluster")
    return names


def _unpriced(nets, n, kw):
    """Without cost_model every dim must be priced by its part (the CLI's
    cost_check): raises naming the first that is not."""
    if kw.get("cost_model") is not None:
        return
    for k in range(n):
        for d in range(nets[k].ndims):
            if not text(nets[k].part[d]):
                f = text(nets[k].file)
                raise fail("missing cost_model: %s%sdim %d has no part to price it (name one "
                           "with parts_per_dim, or give a cost model)" % (f, ": " if f else "",
                                                                          d + 1), "cost_model")


def _nets_from_files(nets, clusters, npus, cost, sources, zoo, kw):
    """Networks named, files or dicts then cluster presets (each the preset's
    network of npus GPUs): each with npus NPUs, one dim count; those naming
    parts bound, a choice expanded (weft_codesign_parts, as the CLI)."""
    nl = len(nets) + len(clusters)
    arr = (_lib.WeftNetwork * nl)()
    for k in range(nl):
        if k < len(nets):
            _inputs.read_network(nets[k], arr[k], sources, zoo, "<network %d>" % k
                                 if len(nets) > 1 else "<network>")
        else:
            _inputs.cluster_network(clusters[k - len(nets)], npus, arr[k], zoo)
        total = lib.weft_network_npus_bought(byref(arr[k]))  # spares are the cluster's too
        if total != float(npus):
            raise fail("%s: the network has %.0f NPUs, npus is %d" % (text(arr[k].file), total,
                                                                      npus), "npus")
        if arr[k].ndims != arr[0].ndims:
            raise fail("%s: %d dims, but %s has %d (constraints need one dim count)" % (
                text(arr[k].file), arr[k].ndims, text(arr[0].file), arr[0].ndims),
                "network" if k < len(nets) else "cluster")
    # each network, then its variants with part of a dim idle (weft_network_actives)
    out, na, err = ctypes.POINTER(_lib.WeftNetwork)(), c_size_t(), new_error()
    check_rc(lib.weft_network_actives(arr, nl, byref(out), byref(na), byref(err)), err)
    owner = ctypes.cast(out, ctypes.c_void_p).value
    n = na.value
    desc = _named_desc(len(nets), clusters)
    if n > nl:
        desc += " and %d with part of a dim idle (spares)" % (n - nl)
    arr = out
    n, _ = _shape_all(arr, n, kw, False)
    bound, nb, parts = _bind_all(arr, n, kw, cost, sources, zoo)
    if bound is not None:  # a Python copy: the C array can go
        _libc.free(owner)
        owner, arr = None, bound
        if nb != n:
            desc += ", %d networks with each choice of parts" % nb
        n = nb
    _unpriced(arr, n, kw)
    for k in range(n):
        err = new_error()
        check_rc(lib.weft_cost_per_gbps(byref(arr[k]), byref(cost),
                                        (c_double * _lib.MAX_DIMS)(), byref(err)), err, sources)
    return arr, n, owner, desc, parts


def _nets_from_blocks(kw, npus, cost, sources, zoo):
    """Every shape over the building blocks (weft_network_shapes)."""
    names = items("blocks", kw["blocks"])
    D = len(names)
    if not 1 <= D <= _lib.MAX_DIMS:
        raise fail("blocks=%r: expected 1 to %d building blocks" % (kw["blocks"], _lib.MAX_DIMS),
                   "blocks")
    topo = (c_int * _lib.MAX_DIMS)()
    for d, n in enumerate(names):
        low = [t.lower() for t in TOPOLOGIES]
        if not isinstance(n, str) or n.lower() not in low:
            raise fail("blocks: unknown building block %r (Ring, FullyConnected or Switch)" %
                       (n,), "blocks")
        topo[d] = low.index(n.lower())
    if kw.get("dims") is not None:
        dims = int_value("dims", kw["dims"], 1, _lib.MAX_DIMS)
        if dims != D:
            raise fail("dims=%d, but blocks names %d building blocks (one per dim)" % (dims, D),
                       "dims")
    maxd = (c_int * _lib.MAX_DIMS)(*([-1] * _lib.MAX_DIMS))  # -1: the default bound
    if kw.get("max_per_dim") is not None:
        vals = items("max_per_dim", kw["max_per_dim"])
        bad = len(vals) != D
        for d, x in enumerate(vals[:D]):
            if x is None or x == "-":
                continue
            try:
                maxd[d] = int_value("max_per_dim", x, 0, npus)
            except WeftError:
                bad = True
            bad = bad or maxd[d] == 1
        if bad:
            raise fail("max_per_dim=%r: expected %d values, each None or - (the default), 0 "
                       "(no limit) or an integer in 2..%d" % (kw["max_per_dim"], D, npus),
                       "max_per_dim")
    cdims = ((ctypes.c_char * _lib.NAME_LEN) * _lib.MAX_DIMS)()
    if kw.get("cost_dims") is not None:
        cd = items("cost_dims", kw["cost_dims"])
        if len(cd) != D:
            raise fail("cost_dims names %d classes for %d dims" % (len(cd), D), "cost_dims")
        for d, n in enumerate(cd):
            b = c_text("cost_dims", str(n))
            if not b or len(b) >= _lib.NAME_LEN:
                raise fail("cost_dims=%r: expected names of 1 to %d characters" % (
                    kw["cost_dims"], _lib.NAME_LEN - 1), "cost_dims")
            cdims[d].value = b
    elif cost.nclasses == D:
        for d in range(D):
            cdims[d].value = cost.cls[d].name
    elif kw.get("parts_per_dim") is not None and len(kw["parts_per_dim"]) == D and all(
            x not in ("", "-") for x in _inputs.parts_names(kw["parts_per_dim"])[1]):
        pass  # each dim priced by its part: no class (the CLI's every_part)
    elif kw.get("cost_model") is None:  # no cost model to take classes from
        raise fail("missing cost_model: a dim without a part has no price (name a part for "
                   "each of the %d dims with parts_per_dim, or give a cost model)" % D,
                   "cost_model")
    else:
        raise fail("%s: %d cost classes for %d dims: name one per dim with cost_dims" % (
            text(cost.file), cost.nclasses, D), "cost_dims")
    bounds = []  # as the CLI's JSON: each dim's bound and where it came from
    for d in range(D):
        why = c_char_p()
        given = maxd[d] >= 0
        if not given:
            maxd[d] = lib.weft_block_default_max(topo[d], bytes(cdims[d].value), byref(why))
        b = {"dim": d + 1, "topology": TOPOLOGIES[topo[d]], "cost_class": text(cdims[d]),
             "max_npus": maxd[d] or None, "source": "--max-per-dim" if given else "default"}
        if not given:
            b["basis"] = why.value.decode()
        bounds.append(b)
    nets, n, err = ctypes.POINTER(_lib.WeftNetwork)(), c_size_t(), new_error()
    check_rc(lib.weft_network_shapes(topo, cdims, D, npus, maxd, byref(nets), byref(n),
                                     byref(err)), err)
    owner = ctypes.cast(nets, ctypes.c_void_p).value
    if n.value == 0:
        _libc.free(owner)
        raise fail("no network of %d dims (each at least 2 NPUs, at most %s) has %d NPUs "
                   "(max_per_dim changes the bounds)" % (
                       D, " x ".join(str(maxd[d] or "none") for d in range(D)), npus), "npus")
    try:
        nshapes, dropped = _shape_all(nets, n.value, kw, True)
        unbuilt = [0]  # shapes x choices of parts the parts cannot build: left out
        bound, nb, parts = _bind_all(nets, nshapes, kw, cost, sources, zoo, unbuilt)
        _unpriced(nets if bound is None else bound, nb, kw)
    except BaseException:
        _libc.free(owner)
        raise
    if bound is not None:
        _libc.free(owner)
        nets, owner = bound, None
    for k in range(nb):
        check = lib.weft_cost_per_gbps(byref(nets[k]), byref(cost),
                                       (c_double * _lib.MAX_DIMS)(), byref(err))
        if check:
            if owner:
                _libc.free(owner)
            raise Sources().error(check, err)
    desc = "%d shape%s of" % (nshapes, "s" if nshapes > 1 else "") + "".join(
        "%s%s (%s)" % (" x " if d else " ", TOPOLOGIES[topo[d]], text(cdims[d]) or "parts")
        for d in range(D))
    if kw.get("parts_per_dim") is not None:
        desc += ", parts " + ",".join(_inputs.parts_names(kw["parts_per_dim"])[1])
    if kw.get("fabric") is not None:
        desc += ", fabric " + ",".join(kw["fabric"])
    if kw.get("planes") is not None:
        desc += ", planes " + ",".join("%g" % x for x in kw["planes"])
    if dropped:
        desc += " (%d shape%s it does not fit left out)" % (dropped, "s" if dropped > 1 else "")
    if unbuilt[0]:
        desc += " (%d network%s its parts cannot build left out)" % (
            unbuilt[0], "s" if unbuilt[0] > 1 else "")
    if nb + unbuilt[0] != nshapes:  # a choice of parts made more
        desc += ": %d networks with each choice of parts" % nb
    return nets, nb, owner, desc, bounds, parts


def _shape_tag(net, d):
    """cli/codesign_text.c shape_tag: a dim's fabric and planes when not the
    default: [torus], [rail-opt], [rail-only], [2pl], [rail-opt+2pl]."""
    f, p = net.fabric[d], net.planes[d]
    ft = ("", "rail-opt", "rail-only", "torus")[f] if 0 < f < 4 else ""
    if not ft and p <= 1:
        return ""
    if p <= 1:
        return "[%s]" % ft
    return "[%s%s%dpl]" % (ft, "+" if ft else "", p)


def _shape(net):
    abbr = ("R", "FC", "SW")
    return "x".join("%s%d%s" % (abbr[net.topology[d]] if 0 <= net.topology[d] < 3 else "?",
                                net.npus[d], ("/%d" % (net.npus[d] + net.spares[d])
                                              if net.spares[d] > 0 else "") +
                                (":" + text(net.part[d]) if text(net.part[d]) else "") +
                                _shape_tag(net, d))
                    for d in range(net.ndims))


def _order(spec, par):
    if spec.workloads:  # the trace's own parallelization
        return "trace"
    nm = ("TP", "PP", "DP")
    s = "-".join(nm[par.order[k]] if 0 <= par.order[k] <= 2 else "?" for k in range(3))
    if spec.nzero > 0:
        s += " z%d" % par.zero_stage
    if spec.nsp > 0:
        s += " sp%d" % par.sequence_parallel
    if spec.nrc > 0:
        s += " " + lib.weft_recompute_name(par.recompute).decode()
    if spec.nvp > 0:
        s += " vp%d" % par.virtual_stages
    if spec.ncp > 0:
        s += " cp%d" % par.cp
    if spec.nep > 0:
        s += " ep%d" % par.ep
    return s


def _merged_knobs(spec, pars):
    """cli/codesign_report.c's merged_knobs: each searched knob's values over
    a design's points joined by '|', the shown point's first."""
    if len(pars) <= 1:
        return _order(spec, pars[0])
    nm = ("TP", "PP", "DP")
    knobs = [(True, lambda p: "-".join(nm[p.order[k]] if 0 <= p.order[k] <= 2 else "?"
                                       for k in range(3))),
             (spec.nzero > 0, lambda p: "z%d" % p.zero_stage),
             (spec.nsp > 0, lambda p: "sp%d" % p.sequence_parallel),
             (spec.nrc > 0, lambda p: lib.weft_recompute_name(p.recompute).decode()),
             (spec.nvp > 0, lambda p: "vp%d" % p.virtual_stages),
             (spec.ncp > 0, lambda p: "cp%d" % p.cp),
             (spec.nep > 0, lambda p: "ep%d" % p.ep)]
    parts = []
    for searched, f in knobs:
        if searched:
            vals = []
            for p in pars:
                v = f(p)
                if v not in vals:
                    vals.append(v)
            parts.append("|".join(vals[:64]))
    return " ".join(parts)


def _clusters_differ(spec):
    """cs_clusters_differ: the networks do not all name the same preset."""
    first = text(spec.nets[0].cluster) if spec.nnets > 0 else ""
    return any(text(spec.nets[i].cluster) != first for i in range(1, spec.nnets))


def _point_shape(spec, p, clusters):
    """cs_point_shape: the shape after the model's name when several, and its
    cluster's ("-": none) when the networks name different ones."""
    net = spec.nets[p.net]
    s = _shape(net)
    if clusters:
        s = "%s %s" % (text(net.cluster) or "-", s)
    return "%s %s" % (text(spec.models[p.model].name), s) if spec.nmodels > 1 else s


def _model_names(spec):
    if spec.nmodels > 0:
        return ",".join(text(spec.models[k].name) for k in range(spec.nmodels))
    return text(spec.model.contents.name)


class _PerNet:
    """cli/codesign_pernet.c: the best OK design (by the objective, the first
    on a tie) of each model on each network file (its variants together)."""

    def __init__(self, spec):
        self.group, self.first = [], []
        for i in range(spec.nnets):
            f = text(spec.nets[i].file)
            g = next((k for k, j in enumerate(self.first)
                      if f and text(spec.nets[j].file) == f), None)
            if g is None:
                g = len(self.first)
                self.first.append(i)
            self.group.append(g)
        self.nmodels = spec.nmodels if spec.nmodels > 0 else 1
        self.best = {}

    def add(self, index, p):
        if p.status != 0:
            return
        c = (p.model, self.group[p.net])
        if c in self.best and not p.objective < self.best[c][1].objective:
            return
        q = _libx.WeftDesignPoint()
        ctypes.pointer(q)[0] = p
        self.best[c] = (index, q)

    def report(self, spec):
        out = []
        for m in range(self.nmodels):
            for g, first in enumerate(self.first):
                n = spec.nets[first]
                name = text(spec.models[m].name) if spec.nmodels > 0 else \
                    text(spec.model.contents.name)
                e = {"model": name, "cluster": text(n.cluster) or None, "network": _shape(n),
                     "domain": n.npus[0] + n.spares[0]}
                if (m, g) not in self.best:
                    e["point"] = None
                else:
                    index, p = self.best[(m, g)]
                    e.update({"point": index, "shape": _shape(spec.nets[p.net]),
                              "tp": p.par.tp, "pp": p.par.pp, "dp": p.par.dp, "ep": p.par.ep,
                              "mb": p.par.micro_batch, "order": _order(spec, p.par),
                              "time_ns": num(p.time_ns), "cost_usd": num(p.cost_usd),
                              "objective": num(p.objective)})
                out.append(e)
        return out


def _design(spec, ip, system, clusters):
    p = ip.pt
    net = spec.nets[p.net]
    d = {"point": ip.index, "net": p.net, "shape": _point_shape(spec, p, clusters), "tp": p.par.tp,
            "pp": p.par.pp, "dp": p.par.dp, "mb": p.par.micro_batch, "order": _order(spec, p.par),
            "time_ns": num(p.time_ns), "cost_usd": num(p.cost_usd), "objective": num(p.objective),
            "bw_gbps": [num(p.bw_gbps[d]) for d in range(net.ndims)],
            "equal_time_ns": num(p.equal_time_ns) if p.equal_time_ns > 0 else None,
            "mem_bytes": num(p.mem_bytes), "gap": num(p.gap)}
    if system:  # docs/model.md "System cost"
        d.update({"capex_usd": num(p.capex_usd), "power_w": num(p.power_w),
                  "cost_per_iteration_usd": num(p.cost_per_iteration_usd),
                  "usd_per_million_tokens": num(p.cost_per_iteration_usd / p.tokens * 1e6)
                  if p.tokens > 0 else None})
    return d


def _bom(spec, ip, parts, system, sysc):
    """The best design's bill of materials (weft_parts_bom), as the CLI's."""
    p = ip.pt
    net = spec.nets[p.net]
    dims, cost, power = [], 0.0, 0.0
    for d in range(net.ndims):
        dp = parts[p.net][d]
        if not dp.part:
            continue
        links = float(round(p.bw_gbps[d] / dp.rate_gbps))
        b = _libx.WeftPartsBom()
        lib.weft_parts_bom(byref(net), byref(dp), d, p.bw_gbps[d], links, byref(b))
        dims.append({"dim": d + 1, "part": text(dp.part),
                     "switch": text(dp.switch_name) or None,
                     "switches_by_tier": [num(b.tier_switches[t]) for t in range(b.tiers)],
                     "total": {"links_per_npu": num(b.links), "endpoints": num(b.endpoints),
                               "switch_ports": num(b.switch_ports), "optics": num(b.optics),
                               "cables": num(b.cables), "switches": num(b.switches),
                               "cost_usd": num(b.cost_usd), "power_w": num(b.power_w)}})
        cost += b.cost_usd
        power += b.power_w
    npus = None
    if system:
        n = lib.weft_network_npus_bought(byref(net))  # spares included
        npus = {"count": int(n), "cost_usd": num(n * sysc.npu_usd),
                "power_w": num(n * sysc.npu_power_w)}
        cost += n * sysc.npu_usd
        power += n * sysc.npu_power_w
    return {"point": ip.index, "dims": dims, "npus": npus, "cost_usd": num(cost),
            "power_w": num(power)}


MODEL_ONLY = ("tp", "pp", "mb", "order", "all_orders", "sp", "zero", "recompute", "zero_list",
              "sp_list", "recompute_list", "interleave", "cp_list", "ep_list", "attention", "fp8",
              "cuda_graphs", "overlap_grad_reduce", "overlap_param_gather", "ddp_bucket_size",
              "tp_comm_overlap", "overlap_p2p_communication", "cp_comm", "attention_dropout", "hidden_dropout", "moe_permute_fusion", "moe_router_fusion", "moe_a2a_overlap", "moe_dispatch_fp8", "fp8_amax_reduce", "cross_entropy", "activation_fusion", "fp8_param_gather", "moe_dispatcher", "moe_routing", "ga_steps", "layer_impl", "lora_rank", "lora_targets", "packed_sample_len", "fsdp", "norm_fusion", "rope_fusion", "reshard_after_forward", "grad_bytes", "master_weights",
              "optimizer_states", "ep", "etp", "efficiency")


def _trace_name(path):
    """The job's name: "trace " and the trace set's prefix, its last part."""
    base = os.path.basename(path.rstrip("/") or path)
    return "trace " + (base[:-5] if base.endswith(".0.et") and len(base) > 5 else base)


def _trace_read(trace, nets, nnets, parts):
    """weft_codesign_trace_read over the networks (the CLI's read_trace)."""
    arr = (_lib.WeftNetwork * nnets)()
    ctypes.memmove(arr, nets, ctypes.sizeof(arr))
    n, dropped = c_int(nnets), c_int()
    wls, comms = ctypes.POINTER(ctypes.c_void_p)(), ctypes.POINTER(_lib.WeftCommunicator)()
    why, err = new_error(), new_error()
    check_rc(lib.weft_codesign_trace_read(c_path("workload", trace), arr, byref(n), byref(wls),
                                          byref(comms), byref(dropped), byref(why), byref(err)),
             err)
    if dropped.value and parts is not None:
        lib.weft_codesign_trace_free(wls, comms, n.value)
        raise fail("workload %s fits %d of the %d networks, and parts are bound to each: give "
                   "the networks it fits (the first left out: %s%s%s)" % (
                       trace, n.value, nnets, text(why.file), ": " if text(why.file) else "",
                       text(why.msg)), "workload")
    return arr, n.value, wls, comms, dropped.value


def codesign(model=None, **kw):
    """Co-design: every parallelization (tp x pp x dp, micro-batch, order,
    and the knob lists) on every network shape, each solved exactly; `weft
    codesign --json` as a dict. Required: model, npus=, cost_model= (unless
    parts price every dim), and network= (one or a list of files or dicts)
    and/or cluster= (a preset's name or a list of them: its network of npus
    GPUs), or blocks= ("Ring,Switch" or a list). Lists (tp=, pp=, mb=, zero_list=, sp_list=, recompute_list=,
    interleave=, cp_list=, ep_list=, max_per_dim=, cost_dims=) are Python lists or comma-separated
    text. model= may name several models (a list, or "a,b"), searched in one
    run; per_network=True adds "per_network", the best design of each model
    on each network file (--per-network). No feasible design returns the dict with status counts and empty
    top and pareto (the CLI exits 1)."""
    _inputs.check_keywords("codesign", kw, KEYS)
    if model is not None:
        kw = dict(kw, model=model)
    trace = kw.get("workload")
    if trace is not None:  # a Chakra trace set: the network and bandwidth searched alone
        if kw.get("model") is not None:
            raise fail("model and workload: give one (a trace is the model's work already)",
                       "model")
        for k in MODEL_ONLY:
            if _inputs.given(kw, k):
                raise fail("%s goes with model, not workload: the trace fixes the "
                           "parallelization and the per-rank work (only the network and "
                           "bandwidth are searched)" % k, k)
        if kw.get("npus") is None:
            nr = lib.weft_chakra_ranks(c_path("workload", trace))
            if nr < 2 or nr > 1 << 30:
                raise fail("workload %s: %s" % (trace, "a trace set of 2..2^30 ranks expected"
                           if nr else "not a Chakra trace set: no PREFIX.0.et (a directory "
                           "must hold exactly one)"), "workload")
            kw = dict(kw, npus=nr)
    # cost_model may be left out when parts price the network, as optimize's
    # rule: parts_per_dim=, or a network's Parts (checked once read)
    priced = kw.get("parts_per_dim") is not None or kw.get("network") is not None
    missing = [k for k in ("model", "npus", "cost_model") if kw.get(k) is None and
               not (trace is not None and k == "model") and not (k == "cost_model" and priced)]
    if missing:
        raise fail("missing %s" % ", ".join(missing), missing[0])
    has_nets = kw.get("network") is not None or kw.get("cluster") is not None
    if has_nets == (kw.get("blocks") is not None):
        raise fail("give network (files or dicts, or cluster names) or blocks, one of the two",
                   "network")
    if has_nets and any(kw.get(k) is not None for k in ("dims", "max_per_dim", "cost_dims")):
        raise fail("dims, max_per_dim and cost_dims go with blocks, not network or cluster",
                   "dims")
    npus = int_value("npus", kw["npus"], 2, 1 << 30)
    threads = int_value("threads", kw["threads"], 1, 4096) if kw.get("threads") is not None \
        else 0
    top = int_value("top", kw["top"], 0, 1 << 30) if kw.get("top") is not None else DEFAULT_TOP
    spec = _spec(kw, npus)

    zoo = zoo_dir(kw.get("zoo"))
    texts = constraints(kw.get("constraint"))
    m, d, cost, err, src = (_libx.WeftModel(), _libx.WeftDevice(), _lib.WeftCostModel(),
                            new_error(), Sources())
    if trace is not None:  # the job named after the trace set; no model read
        names, models = [], (_libx.WeftModel * 1)()
        models[0].name = _trace_name(str(trace)).encode()[:_lib.NAME_LEN - 1]
    else:
        names = items("model", kw["model"])
        if not names or any(not isinstance(x, (str, os.PathLike)) or not str(x) for x in names):
            raise fail("model=%r: expected a model name (or file) or a list of them" %
                       (kw["model"],), "model")
        models = (_libx.WeftModel * len(names))()
    for k, x in enumerate(names):
        check_rc(lib.weft_zoo_model(c_path("zoo", zoo), c_path("model", str(x)), byref(models[k]),
                                    byref(err)), err)
        if any(text(models[j].name) == text(models[k].name) for j in range(k)):
            raise fail("model=%r: %s is listed twice" % (kw["model"], text(models[k].name)),
                       "model")
    m = models[0]
    if kw.get("cost_model") is not None:  # else the parts' prices alone (_unpriced)
        _inputs.read_cost_model(kw["cost_model"], cost, src)
    _inputs.apply_system(cost, kw)  # npu_usd= ... over the file's, as the CLI
    owner, summary, wls, comms, nwl = None, None, None, None, 0
    try:
        if has_nets:
            v = kw.get("network")
            files = [] if v is None else list(v) if isinstance(v, (list, tuple)) else [v]
            clusters = [] if kw.get("cluster") is None else _cluster_names(kw["cluster"])
            if len(files) + len(clusters) > MAX_NETWORKS:
                raise fail("at most %d networks: %d network and %d cluster given" % (
                    MAX_NETWORKS, len(files), len(clusters)), "cluster" if clusters else "network")
            nets, nnets, owner, desc, parts = _nets_from_files(files, clusters, npus, cost, src,
                                                               zoo, kw)
            bounds = None
        else:
            nets, nnets, owner, desc, bounds, parts = _nets_from_blocks(kw, npus, cost, src,
                                                                        zoo)
        if trace is not None:  # the trace on every network; those it does not fit left out
            nets, nnets, wls, comms, dropped = _trace_read(trace, nets, nnets, parts)
            nwl = nnets
            if dropped:  # "3 shapes of ...; the trace fits 2", as the CLI
                desc += "; the trace fits %d" % nnets
        # the device as every command takes it: device=, the clusters' GPU, a100
        net_ptr = ctypes.cast(nets, ctypes.POINTER(_lib.WeftNetwork))
        given = device_name(kw)
        dev = lib.weft_job_device(net_ptr, nnets, c_text("device", given) if given else None,
                                  byref(err))
        if dev is None:
            check_rc(err.code or -5, err, src)
        check_rc(lib.weft_zoo_device(c_path("zoo", zoo), dev, byref(d), byref(err)), err)
        cons = _lib.WeftConstraints()
        for c in texts:
            if lib.weft_constraints_parse(byref(cons), c_text("constraint", c), nets[0].ndims,
                                          byref(err)):
                raise WeftError("constraint %r: column %d: %s" % (c, err.col, text(err.msg)),
                                "", 0, err.col, "constraint", err.code or -5)
        spec.model, spec.device = ctypes.pointer(m), ctypes.pointer(d)
        if len(models) > 1:  # several models in one search, the model outermost
            spec.nmodels = len(models)
            spec.models = ctypes.cast(models, ctypes.POINTER(_libx.WeftModel))
        if trace is not None:
            spec.workloads, spec.comms = wls, comms
        elif kw.get("ep") is None and not _inputs.given(kw, "ep_list"):  # an MoE model: its EPs
            spec.nep = lib.weft_codesign_default_ep(models, len(models), spec.ep,
                                                    _lib.MAX_CHOICES)
        cost.sys.device_power_w = d.power_w  # NpuPowerW when none is given, as the CLI
        spec.nnets = nnets
        spec.nets = ctypes.cast(nets, ctypes.POINTER(_lib.WeftNetwork))
        spec.cost, spec.cons = ctypes.pointer(cost), ctypes.pointer(cons)
        n = c_size_t()
        check_rc(lib.weft_codesign_count(byref(spec), byref(n), byref(err)), err)
        summary = lib.weft_codesign_summary_create(top)
        if not summary:
            raise WeftError("out of memory", code=-2)
        failure = []
        pernet = _PerNet(spec) if flag("per_network", kw.get("per_network")) else None

        def take(ctx, first, pts, count):
            try:
                for j in range(count):
                    if pernet:
                        pernet.add(first + j, pts[j])
                    if lib.weft_codesign_summary_add(summary, first + j, byref(pts[j])):
                        raise WeftError("out of memory keeping the best designs", code=-2)
                return 0
            except BaseException as e:  # stop the stream; raised below
                failure.append(e)
                return -1
        rs = _libx.WeftRunSettings()
        lib.weft_run_settings_default(byref(rs))
        rs.threads = threads
        fn = _libx.CHUNK_FN(take)
        rc = lib.weft_codesign_stream(byref(spec), byref(rs), 0, fn, None, byref(err))
        if failure:
            raise failure[0]
        check_rc(rc, err)
        system = bool(lib.weft_cost_model_has_system(byref(cost))) or \
            spec.objective == _inputs.OBJECTIVES.index("cost-per-iteration")
        sysc = _lib.WeftSystemCost()
        lib.weft_system_cost_resolved(byref(cost), byref(sysc))
        return _report(spec, summary, n.value, npus, desc, bounds, texts, top, parts, system,
                       sysc, pernet)
    finally:
        lib.weft_codesign_summary_free(summary)
        if wls:
            lib.weft_codesign_trace_free(wls, comms, nwl)
        if owner:
            _libc.free(owner)


def _report(spec, summary, n, npus, desc, bounds, texts, top, parts, system, sysc, pernet=None):
    status = {}
    for s, tok in enumerate(STATUS):
        entry = {"count": lib.weft_codesign_summary_count(summary, s),
                 "meaning": lib.weft_point_status_name(s).decode()}
        ex = lib.weft_codesign_summary_example(summary, s)
        if ex and s != 0:
            entry["example_point"] = ex.contents.index
            entry["example_reason"] = text(ex.contents.pt.reason)
        status[tok] = entry
    best = ctypes.POINTER(_libx.WeftIndexedPoint)()
    clusters = _clusters_differ(spec)
    ntop = min(lib.weft_codesign_summary_top(summary, byref(best)), top)
    top_list = []
    for k in range(ntop):  # a design and the points merged into it (same figures)
        same = ctypes.POINTER(_libx.WeftIndexedPoint)()
        ns = lib.weft_codesign_summary_same(summary, k, byref(same))
        members = [same[j] for j in range(ns)] if ns else [best[k]]
        d = _design(spec, members[0], system, clusters)
        d["equivalent_points"] = [m.index for m in members[1:]]
        d["equivalent_knobs"] = _merged_knobs(spec, [m.pt.par for m in members])
        top_list.append(d)
    front = ctypes.POINTER(_libx.WeftIndexedPoint)()
    nfront = lib.weft_codesign_summary_front(summary, byref(front))
    return {"model": _model_names(spec), "device": text(spec.device.contents.name),
            "npus": npus, "objective": lib.weft_objective_name(spec.objective).decode(),
            "loop": lib.weft_loop_name(spec.loop).decode(), "networks": desc,
            "bounds": bounds, "constraints": list(texts), "points": n, "status": status, "top": top_list,
            **({"bill_of_materials": _bom(spec, best[0], parts, system, sysc)}
               if ntop > 0 and parts else {}),
            **({"per_network": pernet.report(spec)} if pernet else {}),
            "pareto": [_design(spec, front[k], system, clusters) for k in range(nfront)]}
