# _topo.py — weft.topo: `weft topo --json` as a dict (cli/topo.c): a TopoOpt
# direct-connect fabric for one job next to an ideal switch, a Fat-tree of the
# same cost and an expander, each simulated with the flow engine.
import ctypes
import math
import os
from ctypes import byref, c_double, c_void_p

from . import _inputs, _lib, _libx
from ._core import (EINPUT, VERSION, WeftError, c_path, c_text, fail, flag, int_value, lib,
                    new_error, num, number, zoo_path)
from ._inputs import check_rc, device_name, given
from ._lib import text

KEYS = ("model", "device", "zoo", "traffic", "servers", "degree", "port_gbit", "tp",
        "ar_degree", "port_split", "kpaths", "prices", "radix", "tiers", "search",
        "iterations", "seconds", "seed", "max_work", "parts", "threads")
SPLITS = ("proportional", "rings", "best")
PORT_GBIT_MAX = 1e6  # a port above 1 Pbit/s is a typo
SECONDS_MAX = 1e9
MAX_DEGREE = 64
MAX_WORK = 2e12  # WEFT_TOPO_MAX_WORK: cli/topo.c's --max-work default
ARCH_DLRM = 1


class _Args:
    """cli/topo.c's parse(): the options with their defaults and ranges."""

    def __init__(self, kw):
        g = kw.get
        self.servers = int_value("servers", g("servers"), 2, 1 << 20) if g("servers") is not None \
            else 128
        self.degree = int_value("degree", g("degree"), 1, MAX_DEGREE) if g("degree") is not None \
            else 4
        self.tp = int_value("tp", g("tp"), 1, 1 << 20) if g("tp") is not None else 1
        ts = _libx.WeftTopoSettings()
        lib.weft_topo_settings_default(byref(ts))
        if g("ar_degree") is not None:
            ts.ar_degree = int_value("ar_degree", g("ar_degree"), 0, MAX_DEGREE)
        if g("kpaths") is not None:
            ts.kpaths = int_value("kpaths", g("kpaths"), 1, 16)
        self.radix = int_value("radix", g("radix"), 4, 4096) if g("radix") is not None else 32
        self.tiers = int_value("tiers", g("tiers"), 2, 3) if g("tiers") is not None else 2
        self.iterations = (int_value("iterations", g("iterations"), 0, 100000000)
                           if g("iterations") is not None else 1000)
        self.port_gbit = (number("port_gbit", g("port_gbit"), 0.0, True, PORT_GBIT_MAX,
                                 "a number in (0, 1e+06] Gbit/s")
                          if g("port_gbit") is not None else 100.0)
        self.seconds = (number("seconds", g("seconds"), 0.0, True, SECONDS_MAX,
                               "a number in (0, 1e+09] s") if g("seconds") is not None else 0.0)
        self.split = 2  # best: the fastest split by simulation
        if g("ar_degree") is not None:
            self.split = 0  # the split given
        if g("port_split") is not None:
            if g("port_split") not in SPLITS:
                raise fail("port_split=%r: expected proportional, rings or best" %
                           (g("port_split"),), "port_split")
            self.split = SPLITS.index(g("port_split"))
            if self.split != 0 and g("ar_degree") is not None:
                raise fail("ar_degree fixes the split: it goes with port_split='proportional' "
                           "only", "ar_degree")
        self.max_work = (number("max_work", g("max_work"), 0.0, False, math.inf,
                                "a non-negative number (0: no limit)")
                         if g("max_work") is not None else MAX_WORK)
        self.seed = (int_value("seed", g("seed"), 0, 999999999999999999)
                     if g("seed") is not None else 1)
        if given(kw, "model") == given(kw, "traffic"):
            raise fail("give model or traffic (one of them)", "model")
        flag("search", g("search"))
        if given(kw, "search") and not given(kw, "model"):
            raise fail("search needs model (it searches the model's parallelization)", "search")
        if not given(kw, "search") and any(g(k) is not None for k in
                                           ("iterations", "seconds", "seed")):
            raise fail("iterations, seconds and seed go with search", "search")
        ts.degree = self.degree
        ts.port_gbps = self.port_gbit / 8.0  # Gbit/s -> GB/s (bytes/ns)
        if self.split == 2:
            ts.ar_degree = -2  # WEFT_AR_DEGREE_BEST: --search's rebuilds too
        if self.split == 1 and self.degree >= 2:
            ts.ar_degree = self.degree - self.degree % 2
        self.ts = ts


def topo(model=None, **kw):
    """A TopoOpt fabric for one job (a zoo model, or traffic= a CSV file) on
    servers= servers with degree= ports of port_gbit= Gbit/s, simulated next
    to an ideal switch, a Fat-tree of the same cost and an expander: `weft
    topo --json` as a dict. search=True alternates strategy and topology
    (iterations=, seconds=, seed=); tp=, ar_degree=, port_split=
    ("proportional" | "rings" | "best"), kpaths=, prices= (a YAML file),
    parts= (a parts catalog over the built-in one: the price table from its
    entries, prices= over it), radix=, tiers=, device=, zoo=, threads= (the
    fabrics simulated at once; the answer is the same) as the CLI's options."""
    _inputs.check_keywords("topo", kw, KEYS)
    if model is not None:
        kw = dict(kw, model=model)
    a = _Args(kw)
    err = new_error()
    threads = 0 if kw.get("threads") is None else int_value("threads", kw["threads"], 1, 4096)
    prices = _libx.WeftPrices()
    lib.weft_topo_prices_default(byref(prices))
    if kw.get("parts") is not None:  # cli/parts_prices.c: the catalog beside the zoo, parts over it
        cat = c_void_p()
        builtin = os.path.join(os.fsdecode(zoo_path(kw.get("zoo"))), "..", "parts").encode()
        check_rc(lib.weft_parts_read(builtin, c_path("parts", kw["parts"]), byref(cat),
                                     byref(err)), err)
        try:
            check_rc(lib.weft_topo_prices_parts(cat, byref(prices), byref(err)), err)
        finally:
            lib.weft_parts_free(cat)
    if kw.get("prices") is not None:
        check_rc(lib.weft_topo_prices_read_over(c_path("prices", kw["prices"]), byref(prices),
                                                byref(err)), err)
    t = ctypes.POINTER(_libx.WeftTraffic)()
    m, dev = _libx.WeftModel(), _libx.WeftDevice()
    rows, fabric, tt0 = [], c_void_p(), None
    try:
        if given(kw, "traffic"):
            check_rc(lib.weft_traffic_read_csv(c_path("traffic", kw["traffic"]), a.servers,
                                               byref(t), byref(err)), err)
            job = str(kw["traffic"])
        else:
            name, zoo = kw["model"], zoo_path(kw.get("zoo"))
            sname = str(name)
            if "/" in sname or ".yml" in sname:
                rc = lib.weft_model_read(c_path("model", name), byref(m), byref(err))
            else:
                rc = lib.weft_zoo_model(zoo, c_path("model", name), byref(m), byref(err))
            if not rc:
                rc = lib.weft_zoo_device(zoo, c_text("device", device_name(kw) or "a100"),
                                         byref(dev), byref(err))
            if not rc:
                rc = lib.weft_traffic_from_model(byref(m), byref(dev), a.servers, a.tp, None,
                                                 byref(t), byref(err))
            if rc and not err.file and err.msg:  # the generator's: say whose
                raise WeftError("model %s: %s" % (sname, text(err.msg)), "", err.line, err.col,
                                text(err.field), rc)
            check_rc(rc, err)
            job = text(m.name)
        _check_work(a, kw, t)
        search = None
        if given(kw, "search"):
            s, search = _libx.WeftTopoSearch(), _libx.WeftTopoSearchResult()
            lib.weft_topo_search_default(byref(s))
            s.model, s.dev = ctypes.pointer(m), ctypes.pointer(dev)
            s.nservers, s.topo = a.servers, a.ts
            s.iterations, s.seconds, s.seed, s.tp = a.iterations, a.seconds, a.seed, a.tp
            s.layer_choice = 1  # per table placed or replicated, per FC layer DP or MP
            check_rc(lib.weft_topo_search(byref(s), byref(search), byref(err)), err)
            fabric = c_void_p(search.fabric)
            lib.weft_traffic_free(t)  # the traffic of the strategy found
            t = ctypes.POINTER(_libx.WeftTraffic)()
            st = _libx.WeftStrategy(search.tp, search.placement if search.ntables else None,
                                    search.layer_mp)
            check_rc(lib.weft_traffic_from_strategy(byref(m), byref(dev), a.servers, byref(st),
                                                    byref(t), byref(err)), err)
        elif a.split == 2:  # the fastest split comes simulated
            tt0 = _libx.WeftTopoTime()
            check_rc(lib.weft_topo_build_best(t, byref(a.ts), byref(fabric), None, byref(tt0),
                                              byref(err)), err)
        else:
            check_rc(lib.weft_topo_build_split(t, byref(a.ts), a.split, byref(fabric), None,
                                               byref(err)), err)
        rows = _rows(a, kw, fabric, prices)
        fabric = None  # rows[0] owns it
        if tt0 is not None:
            rows[0]["t"] = tt0
        todo = rows[1:] if tt0 is not None else rows
        if todo:  # as the CLI: every fabric at once, threads= of them (0: every core)
            fs = (c_void_p * len(todo))(*[r["f"] for r in todo])
            tts = (_libx.WeftTopoTime * len(todo))()
            check_rc(lib.weft_fabric_simulate_many(fs, len(todo), t, threads, tts, byref(err)),
                     err)
            for r, tt in zip(todo, tts):
                r["t"] = tt
        return _report(a, job, t.contents, rows, search, m if search is not None else None)
    finally:
        for r in rows:
            lib.weft_fabric_free(r["f"])
        if fabric:
            lib.weft_fabric_free(fabric)
        lib.weft_traffic_free(t)


def _check_work(a, kw, t):
    """cli/topo.c's check_work(): refuse a run estimated over max_work."""
    w = _libx.WeftTopoWork()
    if lib.weft_topo_work(t, byref(a.ts), a.split, a.iterations if given(kw, "search") else 0,
                          byref(w)):
        return
    if not a.max_work > 0 or w.work <= a.max_work:
        return
    raise fail("this run is estimated at %.2g steps, over max_work %.2g (an upper estimate: "
               "%.2g wiring and routing indexes, %.2g matching rounds, %.2g simulation, %.2g "
               "strategy search), with %s of routing indexes at once; fewer servers or ports, "
               "port_split='rings' (one wiring, no matching), or max_work=N to run it anyway "
               "(0: no limit)" % (w.work, a.max_work, w.index, w.matching, w.simulation,
                                  w.search, _bytes(w.bytes)), "max_work", EINPUT)


def _bytes(b):
    """cli_format_bytes: 512 kB, 14.5 MB, 2.10 GB."""
    if b < 1e6:
        return "%.0f kB" % (b / 1e3)
    if b < 1e9:
        return "%.1f MB" % (b / 1e6)
    return "%.2f GB" % (b / 1e9)


def _rows(a, kw, f, prices):
    """TopoOpt's fabric, then the baselines that can be built (cmd_topo)."""
    def row(name, fab, note):
        return {"name": name, "f": fab, "cost": lib.weft_fabric_cost(fab, byref(prices)),
                "note": note}
    rows = [row("topoopt", f, "%d x %g Gbit/s ports" % (a.degree, a.port_gbit))]
    err = new_error()
    nic = a.ts.port_gbps * a.degree
    b = c_void_p()
    if not lib.weft_fabric_switch(a.servers, nic, byref(b), byref(err)):
        rows.append(row("ideal switch", b, "%g Gbit/s per server" % (nic * 8)))
    b, fnic, over, tiers = c_void_p(), c_double(nic), c_double(0), a.tiers
    frc = lib.weft_fabric_fattree_at_cost(a.servers, a.radix, tiers, rows[0]["cost"],
                                          byref(prices), byref(fnic), byref(over), byref(b),
                                          byref(err))
    if frc == -5 and kw.get("tiers") is None and text(err.field) == "radix":
        tiers = 3  # too many servers for 2 tiers of this radix: the 3-tier tree
        fnic.value, over.value = nic, 0.0
        frc = lib.weft_fabric_fattree_at_cost(a.servers, a.radix, tiers, rows[0]["cost"],
                                              byref(prices), byref(fnic), byref(over), byref(b),
                                              byref(err))
    if not frc:
        rows.append(row("fat-tree (same cost)", b, "%d-tier, %g Gbit/s NIC, %.2f:1" %
                        (tiers, fnic.value * 8, over.value)))
    b = c_void_p()
    if a.servers * a.degree % 2 == 0 and not lib.weft_fabric_expander(
            a.servers, a.degree, a.ts.port_gbps, 1, byref(b), byref(err)):
        rows.append(row("expander", b, "random %d-regular" % a.degree))
    return rows


def _report(a, job, t, rows, sr, m=None):
    st = ctypes.POINTER(ctypes.c_int)()
    ns = lib.weft_fabric_strides(rows[0]["f"], byref(st))
    pairs = ctypes.POINTER(ctypes.c_int)()
    nmp = lib.weft_fabric_mp_links(rows[0]["f"], byref(pairs))
    out = {"weft_version": VERSION, "job": job, "servers": a.servers, "degree": a.degree,
           "port_gbit": num(a.port_gbit), "allreduce_groups": t.nallreduce,
           "mp_pairs": t.ndemand, "compute_ns": num(t.compute_ns),
           "strides": [st[k] for k in range(ns)], "mp_links": nmp}
    if sr is not None:
        out["search"] = {"moves": sr.iterations, "accepted": sr.accepted, "rebuilds": sr.rounds,
                         "tp": sr.tp,
                         "tables_replicated": sum(1 for k in range(sr.ntables)
                                                  if sr.placement[k] == -1),
                         "mp_layers": [text(m.layer[k].name) for k in range(m.nlayers)
                                       if sr.layer_mp[k]],
                         "first_time_ns": num(sr.first_time_ns), "time_ns": num(sr.time_ns)}
    t0 = rows[0]["t"].time_ns
    out["fabrics"] = [{"name": r["name"], "cost_usd": num(r["cost"]),
                       "time_ns": num(r["t"].time_ns), "comm_ns": num(r["t"].comm_ns),
                       "speedup": num(r["t"].time_ns / t0) if t0 else None,
                       "max_link_util": num(r["t"].max_link_util), "flows": r["t"].flows,
                       "note": r["note"]} for r in rows]
    return out
