# _zoo.py — weft.zoo and weft.workload: `weft zoo --json` and `weft workload
# --json` as dicts (cli/zoo.c, cli/workload.c), over the same library calls.
import ctypes
import math
import os
from ctypes import byref, c_int, c_void_p

from . import _inputs, _lib, _libx
from ._core import (ENOMEM, WeftError, c_path, choose, fail, flag, int_value, lib, new_error,
                    zoo_path)
from ._inputs import check_rc
from ._lib import text

ARCH = ("transformer", "dlrm", "cnn")


def _whole(v):
    """zoo's numbers: whole ones exactly (as ints), others as they are."""
    if not math.isfinite(v):
        return None
    return int(v) if v == math.floor(v) and abs(v) < 1e15 else v


def _model_dict(m):
    out = {"name": text(m.name), "title": text(m.title), "source": text(m.source),
           "file": text(m.file), "arch": ARCH[m.arch], "global_batch": m.global_batch}
    if m.arch == 0:
        for k in ("seq_len", "layers", "hidden", "heads", "kv_heads"):
            out[k] = getattr(m, k)
        for k in ("head_dim", "window", "window_full_every"):  # as `weft zoo --json`
            if getattr(m, k):
                out[k] = getattr(m, k)
        if m.sinks:
            out["sinks"] = True
        if m.mtp_layers:
            out["mtp_layers"] = m.mtp_layers
        for k in ("attention_dropout", "hidden_dropout"):  # as `weft zoo --json`
            if getattr(m, k):
                out[k] = _whole(getattr(m, k))
        out["ffn_hidden"] = m.ffn_hidden
        out["ffn"] = "swiglu" if m.ffn_matrices == 3 else "gelu"
        for k in ("vocab", "experts", "top_k", "moe_every"):
            out[k] = getattr(m, k)
        for k in ("shared_experts", "moe_ffn_hidden", "first_dense"):  # as `weft zoo --json`
            if getattr(m, k):
                out[k] = getattr(m, k)
        if m.bidirectional:
            out["mask"] = "bidirectional"
        if m.kv_lora_rank > 0:
            for k in ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
                      "v_head_dim"):
                out[k] = getattr(m, k)
    elif m.arch == 1:
        out["tables"] = m.tables
        out["table_rows"] = _whole(m.table_rows)
        for k in ("emb_dim", "pooling", "nbottom"):
            out[k] = getattr(m, k)
    out["params"] = _whole(lib.weft_model_params(byref(m)))
    if m.arch == 0 and m.experts > 0:
        out["active_params"] = _whole(lib.weft_model_active_params(byref(m)))
    if m.arch != 0:
        out["expanded_layers"] = [
            {"name": text(l.name), "fwd_flops": _whole(l.fwd_flops), "params": _whole(l.params),
             "act_elems": _whole(l.act_elems)} for l in m.layer[:m.nlayers]]
    return out


EST_NAMES = ("rate_gbps", "price_usd", "power_w")  # WEFT_PART_EST_* bits, in order


def _parts(d, parts_file):
    """`weft zoo --parts --json`: the catalog beside the zoo, parts_file over it."""
    cat, err = c_void_p(), new_error()
    builtin = os.path.join(os.fsdecode(d), "..", "parts").encode()
    check_rc(lib.weft_parts_read(builtin, c_path("parts_file", parts_file)
                                 if parts_file is not None else None, byref(cat), byref(err)),
             err)
    try:
        out = []
        for i in range(lib.weft_parts_count(cat)):
            p = lib.weft_parts_at(cat, i).contents
            out.append({"name": text(p.name), "kind": lib.weft_part_kind_name(p.kind).decode(),
                        "title": text(p.title) or None, "rate_gbps": _whole(p.rate_gbps),
                        "ports": p.ports, "max_per_npu": p.max_per_npu,
                        "reach_m": _whole(p.reach_m), "price_usd": _whole(p.price_usd),
                        "power_w": _whole(p.power_w), "oversubscription": _whole(p.oversub),
                        "switch": text(p.switch_part) or None, "attach": text(p.attach) or None,
                        "uplink": text(p.uplink) or None,
                        "estimate": [n for k, n in enumerate(EST_NAMES) if p.estimate & (1 << k)],
                        "source": text(p.source) or None})
        return {"parts": out}
    finally:
        lib.weft_parts_free(cat)


def _devices(d, err):
    nd = c_int()
    check_rc(lib.weft_zoo_devices(d, None, 0, byref(nd), byref(err)), err)
    cap = nd.value
    devs = (_libx.WeftDevice * max(cap, 1))()
    check_rc(lib.weft_zoo_devices(d, devs, cap, byref(nd), byref(err)), err)
    return devs[:min(nd.value, cap)]


def _clusters(d, err):
    if not os.path.exists(os.path.join(os.fsdecode(d), "clusters.yml")):
        return []
    nc = c_int()
    check_rc(lib.weft_zoo_clusters(d, None, 0, byref(nc), byref(err)), err)
    cap = nc.value
    cs = (_libx.WeftCluster * max(cap, 1))()
    check_rc(lib.weft_zoo_clusters(d, cs, cap, byref(nc), byref(err)), err)
    return cs[:min(nc.value, cap)]


def _cluster_dict(c):
    return {"name": text(c.name), "title": text(c.title), "device": text(c.device),
            "source": text(c.source),
            "tiers": [{"name": text(t.name),
                       "topology": lib.weft_topology_name(t.topology).decode(),
                       "npus": t.npus, "cost": text(t.cost), "bw_gbps": _whole(t.bw_gbps),
                       "efficiency": _whole(t.efficiency),
                       "latency_ns": _whole(t.latency_ns),
                       **({"fabric": text(lib.weft_dim_shape_name(t.fabric))} if t.fabric else {})}
                      for t in c.tier[:c.ntiers]]}


def _device_dict(v):
    """`weft zoo DEVICE --json` (cli/zoo_hw.c): figures the file gives, > 0."""
    out = {"kind": "device", "name": text(v.name), "title": text(v.title),
           "source": text(v.source)}
    for k in ("peak_flops", "peak_fp8_flops", "peak_fp4_flops", "peak_tf32_flops", "hbm_bytes",
              "hbm_bytes_per_s", "power_w", "host_bytes_per_s", "launch_cpu_ns"):
        if getattr(v, k) > 0:
            out[k] = _whole(getattr(v, k))
    out["compute_model"] = "per-operator" if v.sms > 0 else "per-flop"
    if v.sms > 0:
        if v.peak_vector_flops > 0:
            out["peak_vector_flops"] = _whole(v.peak_vector_flops)
        out["sms"], out["tile"] = v.sms, [v.tile_m, v.tile_n]
        for k in ("gemm_efficiency", "attention_efficiency", "hbm_efficiency", "gemm_eff_max"):
            if getattr(v, k) > 0:
                out[k] = _whole(getattr(v, k))
        if v.gemm_eff_max > 0:
            out["gemm_k0"], out["gemm_t0_ns"] = _whole(v.gemm_k0), _whole(v.gemm_t0_ns)
    if v.measured:
        mi, err = _libx.WeftMeasuredInfo(), new_error()
        if lib.weft_measured_info(byref(v), byref(mi), byref(err)) == 0:
            out["measured"] = _measured_dict(v, mi)
    return out


def _measured_dict(v, mi):
    """cli/zoo_hw.c's "measured": the tables' files, rows and dates, the GEMM fits."""
    out = {"prefix": text(v.measured)}
    for i, name in enumerate(("gemm", "attention", "memory", "launch", "sustained")):
        if mi.file[i].value:
            out[name] = {"file": text(mi.file[i].value), "rows": mi.rows[i],
                         "date": text(mi.date[i].value)}
    out["gemm_fit"] = {t: [_whole(x) for x in mi.gemm_fit[i]]
                       for i, t in enumerate(("bf16", "fp8", "fp8_fast")) if mi.gemm_fit[i][0] > 0}
    out["launch_us"] = [_whole(x) if x >= 0 else None for x in mi.launch_us]
    out["sustained"] = {t: _whole(mi.sustained[i]) for i, t in enumerate(("bf16", "fp8", "fp8_fast"))}
    for k in ("clock", "mem_time", "fp8_layer"):  # another GPU on these tables (measured_clock,
        # _hbm_gbps); FP8 GEMMs in a layer (the tables' layer files or measured_fp8_layer)
        if getattr(mi, k) != 1:
            out[k] = _whole(getattr(mi, k))
    return out


def _is_model_name(d, name):
    """As cli/zoo.c: a path, or one of the zoo's model names."""
    if "/" in name or name.endswith((".yml", ".yaml")):
        return True
    n, err = c_int(), new_error()
    if lib.weft_zoo_list(d, None, 0, byref(n), byref(err)) or n.value <= 0:
        return False
    cap = n.value
    names = ((ctypes.c_char * _lib.NAME_LEN) * cap)()
    if lib.weft_zoo_list(d, names, cap, byref(n), byref(err)):
        return False
    return any(names[i].value.decode("utf-8", "replace") == name
               for i in range(min(n.value, cap)))


def _distance(a, b):
    """cli/opts.c distance: edit distance, capped at 9 (9 past 40 characters)."""
    if len(a) > 40 or len(b) > 40:
        return 9
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        diag, row[0] = row[0], i
        for j in range(1, len(b) + 1):
            up = row[j]
            row[j] = min(diag + (a[i - 1] != b[j - 1]), up + 1, row[j - 1] + 1)
            diag = up
    return min(row[len(b)], 9)


def _unknown(d, name, err):
    """cli/zoo_hw.c zoo_unknown: no model, device nor cluster is called name;
    the hint is a name equal but for case, else cli_suggest's closest."""
    n = c_int()
    cands = []
    if not lib.weft_zoo_list(d, None, 0, byref(n), byref(err)) and n.value > 0:
        cap = n.value
        names = ((ctypes.c_char * _lib.NAME_LEN) * cap)()
        if not lib.weft_zoo_list(d, names, cap, byref(n), byref(err)):
            cands += [text(names[i].value) for i in range(min(n.value, cap))]
    cands += [text(v.name) for v in _devices(d, err)] + [text(c.name) for c in _clusters(d, err)]
    hint = next((c for c in cands if c.lower() == name.lower()), None)
    if hint is None:
        bd = 3 + len(name.encode()) // 6
        for c in cands:
            k = _distance(name.encode(), c.encode())
            if k < bd:
                bd, hint = k, c
    if hint is not None:
        return fail("zoo: no model, device or cluster is called '%s': did you mean '%s'? "
                    "(weft zoo lists them)" % (name, hint), "name")
    return fail("zoo: no model, device or cluster is called '%s' (weft zoo lists them; a "
                "model file is named by its path)" % name, "name")


ZOO_KEYS = ("zoo", "parts", "parts_file")  # zoo()'s keywords after name (weft zoo's options)


def zoo(name=None, zoo=None, parts=False, parts_file=None):
    """The model zoo: `weft zoo --json` (models, devices, clusters) as a dict,
    or with name `weft zoo NAME --json`: a model (a zoo name or a model .yml),
    else a device ("kind": "device") or a cluster preset ("kind": "cluster").
    zoo= is the zoo directory ($WEFT_ZOO, else the source tree's data/zoo).
    parts=True: `weft zoo --parts --json`, the parts catalog beside the zoo
    (parts_file= a user's catalog over it, as --parts-file)."""
    d = zoo_path(zoo)
    err = new_error()
    if parts_file is not None and not flag("parts", parts):
        raise fail("parts_file goes with parts=True", "parts_file")
    if flag("parts", parts):
        if name is not None:
            raise fail("parts=True lists the parts catalog: drop name", "name")
        return _parts(d, parts_file)
    if name is not None:
        cname = c_path("name", name)
        sname = os.fsdecode(cname)
        if not _is_model_name(d, sname):
            for v in _devices(d, err):
                if text(v.name) == sname:
                    return _device_dict(v)
            for c in _clusters(d, err):
                if text(c.name) == sname:
                    return dict({"kind": "cluster"}, **_cluster_dict(c))
            raise _unknown(d, sname, err)
        m = _libx.WeftModel()
        check_rc(lib.weft_zoo_model(d, cname, byref(m), byref(err)), err)
        return _model_dict(m)
    n = c_int()
    check_rc(lib.weft_zoo_list(d, None, 0, byref(n), byref(err)), err)
    cap = n.value
    names = ((ctypes.c_char * _lib.NAME_LEN) * max(cap, 1))()
    check_rc(lib.weft_zoo_list(d, names, cap, byref(n), byref(err)), err)
    models = []
    for i in range(min(n.value, cap)):  # a file added between the two calls is left out
        m = _libx.WeftModel()
        check_rc(lib.weft_zoo_model(d, names[i].value, byref(m), byref(err)), err)
        models.append({"name": text(m.name), "arch": ARCH[m.arch],
                       "params": _whole(lib.weft_model_params(byref(m))),
                       "title": text(m.title), "source": text(m.source)})
    devices = []
    for v in _devices(d, err):
        e = {"name": text(v.name), "title": text(v.title), "peak_flops": _whole(v.peak_flops),
             "hbm_bytes": _whole(v.hbm_bytes), "hbm_bytes_per_s": _whole(v.hbm_bytes_per_s)}
        for k in ("peak_fp4_flops", "power_w"):  # only when the file gives them, as the CLI
            if getattr(v, k) > 0:
                e[k] = _whole(getattr(v, k))
        e["source"] = text(v.source)
        devices.append(e)
    out = {"models": models, "devices": devices}
    clusters = [_cluster_dict(c) for c in _clusters(d, err)]
    if clusters:  # the CLI leaves the key out when there are none
        out["clusters"] = clusters
    return out


WORKLOAD_KEYS = _inputs.MODEL_KEYS + ("network", "cluster", "npus", "active", "output", "compact",
                                        "chakra", "loop", "chunks")


def _chakra(dirname, prefix, net, wl, comm, kw):
    """chakra=DIR: the Chakra trace set (and the design's ASTRA-sim 2.0 files
    when the network carries one), as `weft workload --chakra DIR`."""
    prefix = os.fsdecode(prefix).rsplit("/", 1)[-1]
    if not prefix:
        raise fail("chakra: output=PREFIX must end in a name (the traces' prefix)", "output")
    loop = choose("loop", kw["loop"], *_inputs.LOOPS) if kw.get("loop") is not None else 0
    s = _libx.WeftSimSettings()
    lib.weft_sim_settings_default(byref(s))
    if kw.get("chunks") is not None:
        s.chunks = int_value("chunks", kw["chunks"], 1, 1000000)  # as --chunks
    design = all(net.design_gbps[d] > 0 for d in range(net.ndims))
    err = new_error()
    check_rc(lib.weft_chakra_export(c_path("chakra", dirname), prefix.encode(), byref(net), wl,
                                    byref(comm), loop, net.design_gbps if design else None,
                                    byref(s), byref(err)), err)


def _write(prefix, wl, comm):
    """PREFIX.txt and PREFIX.comm.yml, both or neither (weft_out_commit_all)."""
    prefix = os.fsdecode(c_path("output", prefix))
    if not prefix:
        raise fail("output: expected a file prefix, got ''", "output")
    paths = (prefix + ".txt", prefix + ".comm.yml")
    outs = [c_void_p(), c_void_p()]
    err = new_error()
    try:
        for o, p in zip(outs, paths):
            check_rc(lib.weft_out_open(c_path("output", p), byref(o), byref(err)), err)
        rc = lib.weft_workload_emit(outs[0], wl, byref(err))
        if not rc:
            rc = lib.weft_communicator_emit(outs[1], byref(comm), byref(err))
        check_rc(rc, err)
        both = (c_void_p * 2)(outs[0], outs[1])
        outs = None  # commit_all frees them, whatever happens
        check_rc(lib.weft_out_commit_all(both, 2, byref(err)), err)
    finally:
        if outs is not None:
            lib.weft_out_discard(outs[0])
            lib.weft_out_discard(outs[1])
    return paths


def workload(model=None, **kw):
    """A zoo model's per-NPU workload under a parallelization: `weft workload
    --json` as a dict. network= (a file or dict), or cluster= with npus= (a
    cluster preset's network), is required; tp=, pp=, ...
    as weft.optimize's; active= (a list per dim: NPUs that work, 0 = all) as
    --active; compact=True merges identical layers; output=PREFIX
    writes PREFIX.txt and PREFIX.comm.yml (both or neither), whose names the
    dict's "workload" and "communicator" then give (None without output)."""
    _inputs.check_keywords("workload", kw, WORKLOAD_KEYS)
    if model is None and kw.get("model") is None:
        raise fail("workload needs model and network", "model")
    kw = dict(kw, model=model if model is not None else kw["model"])
    if not (_inputs.given(kw, "network") or _inputs.given(kw, "cluster")):
        raise fail("workload needs model and network (or cluster and npus)", "network")
    _inputs.check_network(kw)
    compact = flag("compact", kw.get("compact"))
    if kw.get("output") is not None:
        c_path("output", kw["output"])  # a bad name refused before any work
    mo = _inputs.ModelOpts(kw)
    net = _lib.WeftNetwork()
    src = _inputs.Sources()
    _inputs.load_network(dict(kw, zoo=mo.zoo), net, src)
    _inputs.set_active(net, kw.get("active"))  # the rule of --active (weft_network_set_active)
    m, d = mo.load(net)
    wl = lib.weft_workload_create()
    if not wl:
        raise WeftError("out of memory", code=ENOMEM)
    try:
        comm, gi, err = _lib.WeftCommunicator(), _libx.WeftGenInfo(), new_error()
        rc = lib.weft_generate(byref(m), byref(d), byref(mo.par), byref(net),
                               1 if compact else 0, wl, byref(comm), byref(gi),
                               byref(err))
        check_rc(rc, err, src)
        paths = (None, None)
        if kw.get("output") is not None:
            paths = _write(kw["output"], wl, comm)
        if kw.get("chakra") is not None:
            if kw.get("output") is None:
                raise fail("chakra needs output=PREFIX (the traces' prefix)", "chakra")
            _chakra(kw["chakra"], kw["output"], net, wl, comm, kw)
        p, mem = mo.par, gi.mem
        nlayers = ctypes.cast(wl, ctypes.POINTER(_lib.WeftWorkload)).contents.nlayers
        return {"model": text(m.name), "device": text(d.name), "tp": p.tp, "cp": p.cp,
                "pp": p.pp, "dp": p.dp, "ep": p.ep, "micro_batch": p.micro_batch,
                "microbatches": gi.microbatches, "layers": nlayers,
                "schedule": lib.weft_schedule_name(p.schedule).decode(),
                "bubble_fraction": gi.bubble_fraction, "tokens": gi.tokens,
                "model_flops": gi.model_flops, "hw_flops": gi.hw_flops,
                "memory_bytes": {"params": mem.params_bytes, "grads": mem.grads_bytes,
                                 "optimizer": mem.optimizer_bytes,
                                 "activations": mem.activations_bytes,
                                 "total": mem.total_bytes, "capacity": mem.capacity_bytes},
                "workload": paths[0], "communicator": paths[1]}
    finally:
        lib.weft_workload_free(wl)
