# _inputs.py — the inputs optimize, simulate and validate share, as the CLI
# reads them (cli/inputs.c, cli/model_opts.c): a scenario (file or dict),
# LIBRA's four files (or dicts), or a zoo model with a network and cost model;
# then the constraints, objective and loop given on top.
import ctypes
import math
import os
from ctypes import byref, c_double, c_void_p

from . import _lib
from ._core import (EINVAL, ENOMEM, KeywordTypeError, WeftError, Sources, c_path, c_text, choose,
                    fail, flag, int_value, is_path, items, lib, new_error, number, shown, to_text,
                    zoo_dir, zoo_path)

INPUT_KEYS = ("network", "cluster", "npus", "active", "fabric", "planes", "workload", "communicator", "cost_model",
              "parts", "parts_per_dim", "constraint", "objective", "loop", "npu_usd",
              "npu_power_w", "electricity_usd_per_kwh", "pue", "lifetime_years")
# The cost model's system figures (keyword: the file's key), set through
# weft_system_cost_set as the CLI's --npu-usd ... (docs/model.md "System cost").
SYSTEM_KEYS = (("npu_usd", b"Npu"), ("npu_power_w", b"NpuPowerW"),
               ("electricity_usd_per_kwh", b"ElectricityUsdPerKwh"), ("pue", b"Pue"),
               ("lifetime_years", b"LifetimeYears"))
OBJECTIVES = ("perf", "perf-per-cost", "cost-per-iteration")  # WeftObjective order
MAX_NPUS = 1 << 30  # a network's NPUs, as the readers allow
MODEL_KEYS = ("model", "device", "tp", "pp", "dp", "ep", "mb", "vp", "sp", "zero", "recompute",
              "order", "efficiency", "zoo", "pp_layers", "cp", "attention", "fp8", "schedule",
              "grad_bytes", "master_weights", "optimizer_states", "cuda_graphs",
              "overlap_grad_reduce", "overlap_param_gather", "ddp_bucket_size",
              "pp_account_embedding", "pp_account_loss", "recompute_num_layers",
              "recompute_method", "recompute_modules", "tp_comm_overlap",
              "overlap_p2p_communication", "etp",
              "cpu_offloading_num_layers", "cp_comm", "pp_layout", "attention_dropout",
              "hidden_dropout", "moe_permute_fusion", "moe_router_fusion", "tp_overlap_sms",
              "tp_overlap_aggregate", "tp_overlap_method", "tp_overlap_fp8_buf",
              "moe_a2a_overlap", "moe_dispatch_fp8", "fp8_amax_reduce",
              "cross_entropy", "activation_fusion", "fp8_param_gather", "moe_dispatcher",
              "fsdp", "norm_fusion", "rope_fusion", "reshard_after_forward", "moe_routing",
              "ga_steps", "layer_impl", "lora_rank", "lora_targets", "packed_sample_len",
              "cuda_graph_scope")
MAX_STAGES = 1024  # pp_layers entries (cli/model_opts.h)
LOOPS = ("no-overlap", "tp-dp-overlap", "fwd-ig-overlap")  # WeftLoop order


def given(kw, k):
    """Was keyword k given? (None, and False for a flag, mean absent.)"""
    v = kw.get(k)
    return v is not None and v is not False


# Words that name the same thing in another function (cli/opts.c SYNONYMS):
# an unknown one is pointed at its partner before any spelling guess.
SYNONYMS = (("npus", "servers"), ("servers", "npus"), ("gpus", "npus"), ("gpus", "servers"),
            ("num_gpus", "npus"), ("num_gpus", "servers"))


def check_keywords(func, kw, allowed):
    for k in kw:
        if k not in allowed:
            import difflib
            from ._options import cli_only
            why = cli_only(func, "--" + k.replace("_", "-")) if isinstance(k, str) else None
            if why:
                raise TypeError("%s() got an unexpected keyword argument %r: the CLI's --%s is "
                                "CLI-only (%s)" % (func, k, k.replace("_", "-"), why))
            near = [v for w, v in SYNONYMS if w == k and v in allowed][:1] or \
                difflib.get_close_matches(k, allowed, 1)
            raise TypeError("%s() got an unexpected keyword argument %r%s" %
                            (func, k, " (did you mean %r?)" % near[0] if near else ""))


class Scenario:
    """A WeftScenario the package owns (freed by free())."""

    def __init__(self):
        self.ptr = lib.weft_scenario_create()
        if not self.ptr:
            raise WeftError("out of memory", code=ENOMEM)
        self.sources = Sources()
        self.keep = []  # what the library borrows (stage layer lists)

    @property
    def sc(self):
        return self.ptr.contents

    def free(self):
        if self.ptr:
            lib.weft_scenario_free(self.ptr)
            self.ptr = None

    def spec(self):
        spec = _lib.WeftSpec()
        lib.weft_scenario_spec(self.ptr, byref(spec))
        return spec


def check_rc(rc, err, sources=None):
    if rc:
        raise (sources or Sources()).error(rc, err)


# ------------------------------------------------------------------ one input each
def read_network(v, net, sources, zoo, name="<network>"):
    """A network file or dict; its `Cluster: NAME` resolved in zoo."""
    err = new_error()
    z = c_path("zoo", zoo)
    if is_path(v):
        rc = lib.weft_network_read_zoo(c_path("network", v), z, byref(net), byref(err))
    elif isinstance(v, dict):
        rc = lib.weft_network_parse(to_text(v, name, sources), name.encode(), z, byref(net),
                                    byref(err))
    else:
        raise fail("network: expected a file name or a dict, got %s" % type(v).__name__,
                   "network")
    check_rc(rc, err, sources)


def cluster_network(cluster, npus, net, zoo):
    """The network of a cluster preset for npus GPUs (cluster=, npus=)."""
    from . import _libx
    c, err = _libx.WeftCluster(), new_error()
    where = "cluster=%s npus=%d" % (cluster, npus)
    rc = lib.weft_zoo_cluster(c_path("zoo", zoo), c_text("cluster", str(cluster)), byref(c),
                              byref(err))
    if not rc:
        rc = lib.weft_cluster_network(byref(c), npus, byref(net), byref(err))
    if rc and not err.file:  # weft_cluster_network's: say which keywords
        raise WeftError(_lib.text(err.msg), where, 0, 0, _lib.text(err.field), rc)
    check_rc(rc, err)
    net.file = where.encode()


def load_network(kw, net, sources):
    """network= (a file or dict) or cluster= with npus= (cli/inputs.c)."""
    zoo = zoo_dir(kw.get("zoo"))
    if kw.get("cluster") is not None:
        cluster_network(kw["cluster"], int_value("npus", kw["npus"], 2, MAX_NPUS), net, zoo)
    else:
        read_network(kw["network"], net, sources, zoo)
    set_active(net, kw.get("active"))
    set_fabric(net, kw.get("fabric"))
    set_planes(net, kw.get("planes"))


def set_planes(net, v):
    """planes= (a list, one per dim: planes a Switch dim's links are split
    over, 0 = as the dim is) onto the network, under the rule of
    weft_network_set_planes (the CLI's --planes)."""
    if v is None:
        return
    if isinstance(v, (str, bytes)) or not hasattr(v, "__len__"):
        raise fail("planes: expected a list of numbers, one per dim, got %r" % (v,), "planes")
    arr = (c_double * max(len(v), 1))()
    for i, x in enumerate(v[:_lib.MAX_DIMS]):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise fail("planes entry %d: expected a number, got %r" % (i + 1, x), "planes")
        arr[i] = float(x)
    err = new_error()
    check_rc(lib.weft_network_set_planes(byref(net), arr, len(v), b"", None, b"planes",
                                         byref(err)), err)


def set_fabric(net, v):
    """fabric= (a list, one per dim: fat-tree, rail-optimized, rail-only,
    torus, or "-" to keep the dim's) onto the network, under the rule of
    weft_network_set_fabric (the CLI's --fabric)."""
    if v is None:
        return
    if isinstance(v, (str, bytes)) or not hasattr(v, "__len__"):
        raise fail("fabric: expected a list of names, one per dim, got %r" % (v,), "fabric")
    for i, x in enumerate(v):
        if not isinstance(x, str):
            raise fail("fabric entry %d: expected a name, got %r" % (i + 1, x), "fabric")
    arr = (ctypes.c_char_p * max(len(v), 1))(*[x.encode() for x in v])
    err = new_error()
    check_rc(lib.weft_network_set_fabric(byref(net), arr, len(v), b"", None, b"fabric",
                                         byref(err)), err)


def set_active(net, v):
    """active= (a list, one per dim: NPUs that work, 0 = all) onto the network,
    under the rule of weft_network_set_active (the CLI's --active)."""
    if v is None:
        return
    if isinstance(v, (str, bytes)) or not hasattr(v, "__len__"):
        raise fail("active: expected a list of numbers, one per dim, got %r" % (v,), "active")
    arr = (c_double * max(len(v), 1))()
    for i, x in enumerate(v[:_lib.MAX_DIMS]):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise fail("active entry %d: expected a number, got %r" % (i + 1, x), "active")
        arr[i] = float(x)
    err = new_error()
    check_rc(lib.weft_network_set_active(byref(net), arr, len(v), b"", None, b"active",
                                         byref(err)), err)


def read_cost_model(v, cm, sources):
    err = new_error()
    if is_path(v):
        rc = lib.weft_cost_model_read(c_path("cost_model", v), byref(cm), byref(err))
    elif isinstance(v, dict):
        rc = lib.weft_cost_model_parse(to_text(v, "<cost_model>", sources), b"<cost_model>",
                                       byref(cm), byref(err))
    else:
        raise fail("cost_model: expected a file name or a dict, got %s" % type(v).__name__,
                   "cost_model")
    check_rc(rc, err, sources)


def read_communicator(v, comm, sources):
    err = new_error()
    if is_path(v):
        rc = lib.weft_communicator_read(c_path("communicator", v), byref(comm), byref(err))
    elif isinstance(v, dict):
        rc = lib.weft_communicator_parse(to_text(v, "<communicator>", sources),
                                         b"<communicator>", byref(comm), byref(err))
    else:
        raise fail("communicator: expected a file name or a dict, got %s" % type(v).__name__,
                   "communicator")
    check_rc(rc, err, sources)


def read_workload(v):
    """A workload pointer (the caller frees it) and its job name: a file, or
    ASTRA-sim 1.0 text (a str with a line break)."""
    err = new_error()
    wl = c_void_p()
    if isinstance(v, str) and "\n" in v:
        rc = lib.weft_workload_parse(c_text("workload", v), b"<workload>", byref(wl),
                                     byref(err))
        name = "workload"
    elif is_path(v):
        p = os.fsdecode(v)
        rc = lib.weft_workload_read(c_path("workload", v), byref(wl), byref(err))
        name = p.rsplit("/", 1)[-1].split(".", 1)[0]  # as the CLI names the job
    else:
        raise fail("workload: expected a file name or ASTRA-sim text, got %s" %
                   type(v).__name__, "workload")
    check_rc(rc, err)
    return wl, name.encode()[:_lib.NAME_LEN - 1]


# ------------------------------------------------------------------ model options
def device_name(kw):
    """device=: the name, or None (the network's cluster's GPU, else a100);
    '' names no device and is refused, as --device ''."""
    d = kw.get("device")
    if d == "":
        raise fail("device='': an empty value (expected a device name)", "device")
    return d or None


def names_mask(kw, key, parse):
    """kw[key], a list of names or their text (as the CLI's LIST), as the
    bit mask the library's parse gives; refused naming key."""
    v = kw[key]
    if not isinstance(v, str):
        v = ",".join(str(x) for x in items(key, v))
    mask, err = ctypes.c_int(), new_error()
    if parse(c_text(key, v), byref(mask), byref(err)):
        raise fail(_lib.text(err.msg), key)
    return mask.value


def device_knobs(kw, par):
    """sp=, cuda_graphs= (booleans), fp8= (True: delayed, or off|delayed|
    current|mxfp8|blockwise|nvfp4), attention= (standard|flash|fa2|flex), cp_comm=
    (p2p|all_gather|torch_allgather|torch_alltoall), fp8_amax_reduce=
    (stage|tp|off), cross_entropy= (fused|megatron|te|torch|torch_nocast) and
    attention_dropout=, hidden_dropout=
    (probabilities; absent: the model's) into par, as --sp, --cuda-graphs,
    --fp8, --attention, --cp-comm, --fp8-amax-reduce, --cross-entropy,
    --attention-dropout and --hidden-dropout (every command taking a model);
    activation_fusion=, norm_fusion=, rope_fusion=, reshard_after_forward=
    (booleans, on by default) as --activation-fusion, --norm-fusion,
    --rope-fusion, --reshard-after-forward;
    fp8_param_gather= (a boolean, off by default) as --fp8-param-gather;
    moe_dispatcher= (alltoall|deepep|hybridep) as --moe-dispatcher;
    moe_routing= (random|blocked) as --moe-routing; layer_impl=
    (megatron|torch) as --layer-impl; fsdp= (flat|fsdp2) as --fsdp;
    lora_rank= (an int) and lora_targets= (a list or the text) as
    --lora-rank and --lora-targets; packed_sample_len= (an int) as
    --packed-sample-len."""
    par.sequence_parallel = 1 if flag("sp", kw.get("sp")) else 0
    par.cuda_graphs = 1 if flag("cuda_graphs", kw.get("cuda_graphs")) else 0
    for k, field in (("overlap_grad_reduce", "overlap_grad_reduce"),  # on by default
                     ("overlap_param_gather", "overlap_param_gather"),
                     ("tp_comm_overlap", "tp_comm_overlap"),  # off by default
                     ("overlap_p2p_communication", "overlap_p2p"),  # on (interleaved)
                     ("moe_permute_fusion", "moe_permute_fusion"),  # off by default
                     ("moe_router_fusion", "moe_router_fusion"),  # off by default
                     ("moe_a2a_overlap", "moe_a2a_overlap"),  # off by default
                     ("moe_dispatch_fp8", "moe_dispatch_fp8"),  # off by default
                     ("fp8_param_gather", "fp8_param_gather")):  # off by default
        if kw.get(k) is not None:
            setattr(par, field, 1 if flag(k, kw[k]) else 0)
    for k, field in (("activation_fusion", "activation_eager"),  # --activation-fusion,
                     ("norm_fusion", "norm_eager"),  # --norm-fusion, --rope-fusion:
                     ("rope_fusion", "rope_eager"),  # on by default
                     ("reshard_after_forward", "no_reshard")):
        if kw.get(k) is not None:
            setattr(par, field, 0 if flag(k, kw[k]) else 1)
    b = kw.get("ddp_bucket_size")
    if b is not None:  # --ddp-bucket-size N (a number or its text, as the CLI's 4e7)
        par.ddp_bucket_params = number("ddp_bucket_size", b, 1, False, 1e15,
                                       "a number of parameters in [1, 1e15]")
    for k in ("attention_dropout", "hidden_dropout"):  # --attention-dropout P, --hidden-dropout P
        p = kw.get(k)
        if p is None:
            continue  # the model's
        setattr(par, k, number(k, p, 0, False, 1.0, "a probability in [0, 1]"))
    f8 = kw.get("fp8")
    if isinstance(f8, str):  # --fp8 RECIPE
        mode = ctypes.c_int()
        if lib.weft_fp8_parse(c_text("fp8", f8), byref(mode), byref(new_error())):
            raise fail("fp8=%r: expected off, delayed, current, mxfp8, blockwise, nvfp4 or a "
                       "boolean" % (f8,), "fp8")
        par.fp8 = mode.value
    else:  # --fp8 alone: Transformer Engine's default recipe, delayed scaling
        par.fp8 = 1 if flag("fp8", f8) else 0
    for k, parse, expected in (("attention", lib.weft_attention_parse,
                                "standard, flash, fa2 or flex"),
                               ("fp8_amax_reduce", lib.weft_fp8_amax_reduce_parse,
                                "stage, tp or off"),
                               ("cp_comm", lib.weft_cp_comm_parse,
                                "p2p, all_gather, torch_allgather or torch_alltoall"),
                               ("cross_entropy", lib.weft_cross_entropy_parse,
                                "fused, megatron, te, torch or torch_nocast"),
                               ("moe_dispatcher", lib.weft_moe_dispatcher_parse,
                                "alltoall, deepep or hybridep"),
                               ("moe_routing", lib.weft_moe_routing_parse, "random or blocked"),
                               ("layer_impl", lib.weft_layer_impl_parse, "megatron or torch"),
                               ("fsdp", lib.weft_fsdp_parse, "flat or fsdp2")):
        v = kw.get(k)  # --attention, --fp8-amax-reduce, --cp-comm, --cross-entropy,
        # --moe-dispatcher, --moe-routing, --layer-impl, --fsdp: a name
        if v is None:
            continue
        kind = ctypes.c_int()
        if not isinstance(v, str) or parse(c_text(k, v), byref(kind), byref(new_error())):
            raise fail("%s=%r: expected %s" % (k, v, expected), k)
        setattr(par, k, kind.value)
    if kw.get("packed_sample_len") is not None:  # --packed-sample-len N
        par.packed_sample_len = int_value("packed_sample_len", kw["packed_sample_len"], 1, 1 << 24)
    if kw.get("lora_rank") is not None:  # --lora-rank N
        par.lora_rank = int_value("lora_rank", kw["lora_rank"], 1, 65536)  # WEFT_LORA_MAX_RANK
    if kw.get("lora_targets") is not None:  # --lora-targets LIST
        par.lora_targets = names_mask(kw, "lora_targets", lib.weft_lora_targets_parse)


def precision(kw, par):
    """grad_bytes= (2|4) and the optimizer's precision into par, as
    --grad-bytes, --master-weights and --optimizer-states."""
    if kw.get("grad_bytes") is not None:  # --grad-bytes 2|4
        gb = int_value("grad_bytes", kw["grad_bytes"], 2, 4)
        if gb == 3:
            raise fail("grad_bytes must be 2 or 4, got 3", "grad_bytes")
        par.grad_bytes = gb
    optimizer_bytes(kw, par)


def optimizer_bytes(kw, par):
    """master_weights= (fp32|bf16|none|remainder), optimizer_states= (fp32|bf16) into
    par.optimizer_bytes, as --master-weights and --optimizer-states."""
    mw, os_ = kw.get("master_weights"), kw.get("optimizer_states")
    if mw is None and os_ is None:
        return
    for k, v in (("master_weights", mw), ("optimizer_states", os_)):
        if v is not None and not isinstance(v, str):
            raise fail("%s=%r: expected %s" % (k, v, "fp32, bf16, none or remainder" if k ==
                                                  "master_weights" else "fp32 or bf16"), k)
    err, out = new_error(), c_double()
    if lib.weft_optimizer_precision(c_text("master_weights", mw) if mw else None,
                                    c_text("optimizer_states", os_) if os_ else None,
                                    byref(out), byref(err)):
        k = _lib.text(err.field)
        raise fail("%s=%r: expected %s" % (k, kw[k], "fp32, bf16, none or remainder" if k ==
                                              "master_weights" else "fp32 or bf16"), k)
    par.optimizer_bytes = out.value



def gemm_map(kw, par, key, form, parse):
    """key= ({"proj_fprop": 24, ...} or "proj_fprop=24,...") into par.<key>,
    as the CLI's flag and the scenario key: one text rule (parse); absent
    GEMMs keep TE's defaults. form names a value in the message."""
    v = kw.get(key)
    if v is None:
        return
    if isinstance(v, dict):
        v = ",".join("%s=%s" % (k, x) for k, x in v.items())
    elif not isinstance(v, str):
        raise fail("%s=%r: expected {GEMM: %s, ...} or 'GEMM=%s,...'" % (key, v, form, form),
                   key)
    err = new_error()
    if parse(c_text(key, v), getattr(par, key), byref(err)):
        raise fail(_lib.text(err.msg), key)


def tp_overlap_sms(kw, par):
    """tp_overlap_sms= into par.tp_overlap_sms (weft_tp_overlap_sms_parse)."""
    gemm_map(kw, par, "tp_overlap_sms", "SMS", lib.weft_tp_overlap_sms_parse)


def tp_overlap_method(kw, par):
    """tp_overlap_method= ({"proj_fprop": "ring_exchange", ...} or the text)
    into par.tp_overlap_method (weft_tp_overlap_method_parse)."""
    gemm_map(kw, par, "tp_overlap_method", "METHOD", lib.weft_tp_overlap_method_parse)


class ModelOpts:
    """model, device, zoo and the parallelization (cli_model_opts_apply)."""

    def __init__(self, kw):
        par = _lib.WeftParallel()
        lib.weft_parallel_default(byref(par))
        self.par = par
        self.model = kw.get("model")
        self.device = device_name(kw)  # None: the network's cluster's GPU, else a100
        self.device_given = given(kw, "device")
        self.zoo = zoo_dir(kw.get("zoo"))
        self.dp_given = given(kw, "dp")
        self.stages = None
        for k, field, lo, hi in (("tp", "tp", 1, 1 << 24), ("pp", "pp", 1, 1 << 24),
                                 ("dp", "dp", 1, 1 << 24), ("ep", "ep", 1, 1 << 24),
                                 ("etp", "expert_tp", 1, 1 << 24),
                                 ("mb", "micro_batch", 1, 1 << 24),
                                 ("cp", "cp", 1, 1 << 24),
                                 ("vp", "virtual_stages", 1, 1 << 16),
                                 ("zero", "zero_stage", 0, 3)):
            if kw.get(k) is not None:
                setattr(par, field, int_value(k, kw[k], lo, hi))
        device_knobs(kw, par)
        if kw.get("schedule") is not None:  # --schedule 1f1b|dualpipe
            kind = ctypes.c_int()
            if not isinstance(kw["schedule"], str) or lib.weft_schedule_parse(
                    c_text("schedule", kw["schedule"]), byref(kind), byref(new_error())):
                raise fail("schedule=%r: expected 1f1b or dualpipe" % (kw["schedule"],),
                           "schedule")
            par.schedule = kind.value
        precision(kw, par)
        # Megatron's uneven split (--pp-account-embedding, --pp-account-loss)
        par.pp_account_embedding = 1 if flag("pp_account_embedding",
                                             kw.get("pp_account_embedding")) else 0
        par.pp_account_loss = 1 if flag("pp_account_loss", kw.get("pp_account_loss")) else 0
        rc_mode = kw.get("recompute")
        if not isinstance(rc_mode, str):  # True alone: full, as --recompute alone
            rc_mode = flag("recompute", rc_mode) if rc_mode is None or isinstance(
                rc_mode, bool) else _bad_recompute(rc_mode)
        if rc_mode == "":  # --recompute '': no mode named (not none)
            raise fail("recompute='': an empty value (expected none, selective or full)",
                       "recompute")
        par.recompute = 1 if rc_mode else 0
        if isinstance(rc_mode, str) and rc_mode:
            mode = ctypes.c_int()
            if lib.weft_recompute_parse(c_text("recompute", rc_mode), byref(mode),
                                        byref(new_error())):
                raise fail("recompute=%r: expected none, selective or full" % rc_mode,
                           "recompute")
            par.recompute = mode.value
        if kw.get("recompute_num_layers") is not None:  # --recompute-num-layers N
            par.recompute_num_layers = int_value("recompute_num_layers",
                                                 kw["recompute_num_layers"], 1, 1 << 24)
        if kw.get("cpu_offloading_num_layers") is not None:  # --cpu-offloading-num-layers N
            par.cpu_offloading_num_layers = int_value(
                "cpu_offloading_num_layers", kw["cpu_offloading_num_layers"], 0, 1 << 24)
        if kw.get("ga_steps") is not None:  # --ga-steps N
            par.ga_steps = int_value("ga_steps", kw["ga_steps"], 1, 1 << 24)
        if kw.get("recompute_method") is not None:  # --recompute-method uniform|block
            kind = ctypes.c_int()
            if not isinstance(kw["recompute_method"], str) or lib.weft_recompute_method_parse(
                    c_text("recompute_method", kw["recompute_method"]), byref(kind),
                    byref(new_error())):
                raise fail("recompute_method=%r: expected uniform or block"
                           % (kw["recompute_method"],), "recompute_method")
            par.recompute_method = kind.value
        if kw.get("recompute_modules") is not None:  # --recompute-modules LIST
            par.recompute_modules = names_mask(kw, "recompute_modules",
                                               lib.weft_recompute_modules_parse)
        tp_overlap_sms(kw, par)
        tp_overlap_method(kw, par)
        for key, parse in (("tp_overlap_aggregate", lib.weft_tp_overlap_aggregate_parse),
                           ("tp_overlap_fp8_buf", lib.weft_tp_overlap_fp8_buf_parse),
                           ("cuda_graph_scope", lib.weft_cuda_graph_scope_parse)):
            if kw.get(key) is not None:  # --tp-overlap-aggregate LIST, ... (a list or the text)
                setattr(par, key, names_mask(kw, key, parse))
        if kw.get("pp_layers") is not None:
            layers = [int_value("pp_layers", x, 1, 1 << 24) for x in items("pp_layers",
                                                                          kw["pp_layers"])]
            if not layers or len(layers) > MAX_STAGES:
                raise fail("pp_layers: expected 1 to %d layer counts" % MAX_STAGES, "pp_layers")
            self.stages = (ctypes.c_int * len(layers))(*layers)
            par.stage_layers = self.stages
            par.nstage_layers = len(layers)
            if kw.get("pp") is None:
                par.pp = len(layers)  # the list says how many stages
        self.layout = None
        if kw.get("pp_layout") is not None:  # --pp-layout STR (Megatron's layout)
            self.layout = c_text("pp_layout", kw["pp_layout"])
            par.pp_layout = self.layout
        if kw.get("order") is not None:
            order = kw["order"]
            if not isinstance(order, str):
                order = ",".join(str(x) for x in order)
            err = new_error()
            if lib.weft_parallel_order_parse(c_text("order", order), par.order, byref(err)):
                raise fail("order=%r: %s" % (kw["order"], _lib.text(err.msg)), "order")
        if kw.get("efficiency") is not None:
            par.efficiency = number("efficiency", kw["efficiency"], 1e-6, False, 1.0,
                                    "a number in [1e-6, 1]")  # WEFT_MIN_EFFICIENCY

    def load(self, net=None):
        """The model and device; dp from the NPUs tp x pp leave on net."""
        from . import _libx
        err = new_error()
        m, d = _libx.WeftModel(), _libx.WeftDevice()
        dev = lib.weft_job_device(byref(net) if net is not None else None, 1 if net is not None
                                  else 0, c_text("device", self.device) if self.device else None,
                                  None)
        self.device = dev.decode()  # weft_job_device: the one rule of every entry point
        rc = lib.weft_zoo_model(c_path("zoo", self.zoo), c_path("model", self.model), byref(m),
                                byref(err))
        if not rc:
            rc = lib.weft_zoo_device(c_path("zoo", self.zoo), dev, byref(d), byref(err))
        check_rc(rc, err)
        if not self.dp_given and net is not None:
            n = lib.weft_network_npus_total(byref(net))
            cp = max(self.par.cp, 1)
            tp_pp = float(self.par.tp) * cp * self.par.pp
            if n / tp_pp != float(int(n / tp_pp)):
                raise WeftError(("tp x cp x pp" if cp > 1 else "tp x pp") +
                                " = %.0f does not divide the network's %.0f NPUs" % (tp_pp, n),
                                _lib.text(net.file), 0, 0, "tp")
            self.par.dp = int(n / tp_pp)
        return m, d


def check_network(kw):
    """cli_network_check: network, or cluster with npus."""
    if given(kw, "cluster") and given(kw, "network"):
        raise fail("give network or cluster, not both (a network names its cluster with "
                   "'Cluster: NAME')", "cluster")
    if given(kw, "cluster") != given(kw, "npus"):
        raise fail("cluster needs npus (the GPUs of its network)" if given(kw, "cluster") else
                   "npus goes with cluster (a network file gives its own NPUs)", "npus")
    if given(kw, "npus"):
        int_value("npus", kw["npus"], 2, MAX_NPUS)


def check_inputs(scenario, kw):
    """cli_inputs_check: a scenario or files, model options with a model."""
    if scenario is not None and given(kw, "active"):
        raise fail("active goes with network or cluster (a scenario's network file says "
                   "'Active: [...]')", "active")
    if scenario is not None and given(kw, "planes"):
        raise fail("planes goes with network or cluster (a scenario's network file says "
                   "'Planes: [...]')", "planes")
    if scenario is not None and given(kw, "fabric"):
        raise fail("fabric goes with network or cluster (a scenario's network file says "
                   "'Fabric: [...]')", "fabric")
    if scenario is not None and any(given(kw, k) for k in
                                    ("network", "cluster", "npus", "workload", "communicator",
                                     "cost_model", "model")):
        raise fail("give a scenario or network/cluster/workload/communicator/cost_model/model, "
                   "not both")
    check_network(kw)
    if not given(kw, "model"):
        for k in MODEL_KEYS:
            if k not in ("model", "zoo") and given(kw, k):
                raise fail("%s goes with model (a job from the model zoo)" % k, k)


def _parts_price(kw):
    """parts_per_dim= names a part for every dim (cli/inputs.c parts_price)."""
    v = kw.get("parts_per_dim")
    return v is not None and isinstance(v, (list, tuple)) and len(v) > 0 and \
        all(isinstance(x, str) and x.strip() not in ("", "-") for x in v)


def bind_parts(s, kw):
    """parts_per_dim= onto the network, then the catalog (built-in beside the
    zoo, parts= over it) bound, as cli/inputs.c's bind_parts."""
    sc, err = s.sc, new_error()
    names = kw.get("parts_per_dim")
    if names is not None:
        arr, joined = parts_names(names)
        check_rc(lib.weft_network_set_parts(byref(sc.net), arr, len(names), b"parts_per_dim",
                                            byref(err)), err, s.sources)
    f = c_path("parts", kw["parts"]) if kw.get("parts") is not None else None
    if f is None and names is None and sc.parts_file:
        return  # a scenario's, bound
    if f is None and sc.parts_file:
        f = bytes(sc.parts_file)  # rebind with the scenario's
    check_rc(lib.weft_scenario_bind_parts(s.ptr, zoo_path(kw.get("zoo")), f, byref(err)), err,
             s.sources)


def parts_names(names):
    """parts_per_dim= checked: a C array of the names (a choice as "a|b") and
    the joined texts (optimize's and codesign's one reader)."""
    if isinstance(names, (str, bytes)) or not isinstance(names, (list, tuple)):
        raise fail("parts_per_dim: expected a list of part names, one per dim, got %r" %
                   (names,), "parts_per_dim")
    joined = []
    for i, x in enumerate(names):  # a list on a dim: a choice of parts ("a|b")
        ok = isinstance(x, str) or (isinstance(x, (list, tuple)) and len(x) > 1 and
                                    all(isinstance(y, str) for y in x))
        if not ok:
            raise fail("parts_per_dim entry %d: expected a part name or a list of them, "
                       "got %r" % (i + 1, x), "parts_per_dim")
        joined.append(x.strip() if isinstance(x, str) else "|".join(y.strip() for y in x))
    arr = (ctypes.c_char_p * max(len(names), 1))(*[c_text("parts_per_dim", x)
                                                  for x in joined])
    return arr, joined


def _chakra(v):
    """1 when workload= names a Chakra trace set (a directory or PREFIX of
    PREFIX.RANK.et), as the CLI's --workload tells them apart."""
    from . import _libx  # noqa: F401 (declares weft_chakra_*)
    return is_path(v) and lib.weft_chakra_is_trace(c_path("workload", v)) == 1


def _load_files(s, kw):
    chakra = kw.get("workload") is not None and _chakra(kw["workload"])
    if chakra and kw.get("communicator") is not None:
        raise fail("workload %s is a Chakra trace set: its communicator groups come from the "
                   "traces; drop communicator" % os.fsdecode(kw["workload"]), "communicator")
    missing = [k for k in ("network", "workload", "communicator", "cost_model")
               if kw.get(k) is None and not (k == "network" and given(kw, "cluster")) and
               not (k == "communicator" and chakra) and
               not (k == "cost_model" and (_parts_price(kw) or given(kw, "network")))]
    if missing:
        raise fail("missing %s (or give a scenario, or model=...)" % ", ".join(missing),
                   missing[0])
    sc = s.sc
    load_network(kw, sc.net, s.sources)
    if kw.get("cost_model") is None and not _parts_price(kw) and \
            not lib.weft_network_has_parts(byref(sc.net)):
        raise fail("missing cost_model (the network names no Parts; or give a scenario, or "
                   "model=...)", "cost_model")
    if kw.get("cost_model") is not None:
        read_cost_model(kw["cost_model"], sc.cost, s.sources)
    bind_parts(s, kw)
    if chakra:  # the workload and its communicator from the traces
        wl, err = c_void_p(), new_error()
        check_rc(lib.weft_chakra_read(c_path("workload", kw["workload"]), byref(sc.net),
                                      byref(wl), byref(sc.comm[0]), byref(err)), err)
        name = os.fsdecode(kw["workload"]).rstrip("/").rsplit("/", 1)[-1].split(".", 1)[0]
        name = name.encode()[:_lib.NAME_LEN - 1]
    else:
        read_communicator(kw["communicator"], sc.comm[0], s.sources)
        wl, name = read_workload(kw["workload"])
    sc.workload[0] = wl
    sc.njobs = 1  # sc owns the workload from here
    sc.weight[0] = 1.0
    sc.job_name[0].value = name
    err = new_error()
    rc = lib.weft_communicator_check(byref(sc.comm[0]), byref(sc.net), byref(err))
    if not rc:
        rc = lib.weft_cost_per_gbps(byref(sc.net), byref(sc.cost),
                                    (c_double * _lib.MAX_DIMS)(), byref(err))
    check_rc(rc, err, s.sources)


def _load_model(s, kw):
    has_net = given(kw, "network") or given(kw, "cluster")
    if not has_net or (kw.get("cost_model") is None and not _parts_price(kw)):
        need = ([] if has_net else ["network (or cluster)"]) + \
            ([] if kw.get("cost_model") is not None or _parts_price(kw)
             else ["cost_model (or parts_per_dim: its parts carry their prices)"])
        raise fail("model needs %s" % " and ".join(need), need[0].split()[0])
    for k in ("workload", "communicator"):
        if kw.get(k) is not None:
            raise fail("model generates the workload and communicator: drop %s" % k, k)
    mo = ModelOpts(kw)
    if not mo.dp_given:
        mo.par.dp = 0  # NPUs / (tp x pp), on the network read below
    sc = s.sc
    load_network(kw, sc.net, s.sources)
    if kw.get("cost_model") is not None:
        read_cost_model(kw["cost_model"], sc.cost, s.sources)
    bind_parts(s, kw)
    err = new_error()
    rc = lib.weft_cost_per_gbps(byref(sc.net), byref(sc.cost), (c_double * _lib.MAX_DIMS)(),
                                byref(err))
    check_rc(rc, err, s.sources)
    rc = lib.weft_scenario_add_model_job(s.ptr, c_path("zoo", mo.zoo), c_path("model", mo.model),
                                         c_text("device", mo.device) if mo.device else None,
                                         byref(mo.par), byref(err))
    if rc and not err.file and rc != EINVAL:  # the generator's: say whose
        raise WeftError("model %s: %s" % (mo.model, _lib.text(err.msg)), "", err.line, err.col,
                        _lib.text(err.field), rc)
    check_rc(rc, err, s.sources)
    s.keep.append(mo)
    rc = lib.weft_communicator_check(byref(sc.comm[0]), byref(sc.net), byref(err))
    check_rc(rc, err, s.sources)


def constraints(v):
    """constraint=: one expression, or a list or tuple of them (each a str)."""
    if v is None:
        return []
    texts = [v] if isinstance(v, str) else list(v) if isinstance(v, (list, tuple)) else None
    if texts is None or not all(isinstance(c, str) for c in texts):
        raise KeywordTypeError("constraint=%s: expected text such as 'sum = 1000', or a list of "
                               "them" % shown(v), "constraint")
    return texts


def _bad_recompute(v):
    raise KeywordTypeError("recompute=%s: expected none, selective or full, or True (full) or "
                           "False" % shown(v), "recompute")


def apply_system(cost, kw):
    """npu_usd= ... lifetime_years= onto a cost model (weft_system_cost_set,
    the CLI's cli_system_apply)."""
    err = new_error()
    for key, field in SYSTEM_KEYS:
        if kw.get(key) is None:
            continue
        x = number(key, kw[key], -math.inf, False)
        if lib.weft_system_cost_set(byref(cost), field, x, byref(err)):
            raise WeftError("%s=%r: %s" % (key, kw[key], _lib.text(err.msg)), "", 0, 0, key,
                            err.code)


def apply_options(s, kw):
    """Constraints, objective and loop on top of what was read."""
    sc = s.sc
    err = new_error()
    for c in constraints(kw.get("constraint")):
        # on a scenario's: replaces its constraints over the same left-hand side
        if lib.weft_constraints_override(byref(sc.cons), c_text("constraint", c), sc.net.ndims,
                                         byref(err)):
            raise WeftError("constraint %r: column %d: %s" % (c, err.col, _lib.text(err.msg)),
                            "", 0, err.col, _lib.text(err.field) or "constraint", err.code)
    apply_system(sc.cost, kw)
    if kw.get("objective") is not None:
        sc.objective = choose("objective", kw["objective"], *OBJECTIVES)
    if kw.get("loop") is not None:
        sc.loop = choose("loop", kw["loop"], *LOOPS)
    elif kw.get("model") is not None and kw.get("schedule") == "dualpipe":
        sc.loop = LOOPS.index("fwd-ig-overlap")  # as the CLI: what DualPipe's pairs are for


def load(scenario, kw):
    """A Scenario from the inputs (the caller frees it)."""
    check_inputs(scenario, kw)
    s = Scenario()
    try:
        if scenario is not None:
            err = new_error()
            zoo = zoo_path(kw.get("zoo"))
            if isinstance(scenario, dict):
                rc = lib.weft_scenario_parse(to_text(scenario, "<scenario>", s.sources),
                                             b"<scenario>", zoo, s.ptr, byref(err))
            elif is_path(scenario):  # parts=: the caller's catalog over the scenario's
                rc = lib.weft_scenario_read_parts(c_path("scenario", scenario), zoo,
                                                  c_path("parts", kw["parts"])
                                                  if kw.get("parts") is not None else None,
                                                  s.ptr, byref(err))
            else:
                raise fail("scenario: expected a file name or a dict, got %s" %
                           type(scenario).__name__, "scenario")
            check_rc(rc, err, s.sources)
            if kw.get("parts_per_dim") is not None or \
                    (kw.get("parts") is not None and isinstance(scenario, dict)):
                bind_parts(s, kw)
                check_rc(lib.weft_cost_per_gbps(byref(s.sc.net), byref(s.sc.cost),
                                                (c_double * _lib.MAX_DIMS)(), byref(err)),
                         err, s.sources)
        elif given(kw, "model"):
            _load_model(s, kw)
        else:
            _load_files(s, kw)
        apply_options(s, kw)
    except BaseException:
        s.free()
        raise
    return s


def create_problem(spec, sources=None):
    """weft_problem_create: the problem pointer (the caller frees it)."""
    p, err = c_void_p(), new_error()
    rc = lib.weft_problem_create(byref(spec), byref(p), byref(err))
    check_rc(rc, err, sources)
    return p
