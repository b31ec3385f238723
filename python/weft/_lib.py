# _lib.py — finding and loading libweft.so, the structs of the inputs and the
# bandwidth problem mirrored with ctypes (include/weft/*.h) and checked against
# the library's own sizes; _libx.py has the rest, bound when first needed.
import ctypes
import os
from ctypes import POINTER, Structure, c_char, c_char_p, c_double, c_int, c_size_t, c_void_p

# include/weft/core.h and the other headers' limits
MAX_DIMS = 16
MAX_COST_CLASSES = 32
MAX_CONSTRAINTS = 64
MAX_JOBS = 16
MAX_GROUPS = 8
NAME_LEN = 64
PATH_LEN = 512
NPHASES = 3
MAX_MODEL_LAYERS = 128
MAX_CHOICES = 64
TOPO_MAX_TABLES = 1024
REFINE_MAX_ITER = 32

_D = c_double * MAX_DIMS
_I = c_int * MAX_DIMS
_NAME = c_char * NAME_LEN
_PATH = c_char * PATH_LEN


def _s(name, fields):
    """A ctypes Structure named after its C type, fields in C order."""
    return type(name, (Structure,), {"_fields_": fields})


# ------------------------------------------------------------------ core, inputs
WeftError = _s("WeftError", [("code", c_int), ("file", _PATH), ("line", c_int), ("col", c_int),
                             ("field", _NAME), ("msg", c_char * 256)])
WeftNetwork = _s("WeftNetwork", [
    ("ndims", c_int), ("topology", _I), ("npus", _I), ("cost_dim", _NAME * MAX_DIMS),
    ("line", _I), ("file", _PATH), ("efficiency", _D), ("latency_ns", _D), ("design_gbps", _D),
    ("cluster", _NAME), ("cluster_device", _NAME), ("link_gbps", _D), ("max_links", _I),
    ("links_line", _I), ("max_links_line", _I), ("part", _NAME * MAX_DIMS),
    ("part_line", _I), ("spares", _I), ("fabric", _I), ("fabric_line", _I), ("planes", _I),
    ("planes_line", _I)])
WeftCostClass = _s("WeftCostClass", [
    ("name", _NAME), ("link_usd_per_gbps", c_double), ("switch_usd_per_gbps", c_double),
    ("nic_usd_per_gbps", c_double), ("has_link", c_int), ("has_switch", c_int),
    ("has_nic", c_int), ("line", c_int), ("power_w_per_gbps", c_double), ("has_power", c_int)])
WeftSystemCost = _s("WeftSystemCost", [
    ("npu_usd", c_double), ("npu_power_w", c_double), ("electricity_usd_per_kwh", c_double),
    ("pue", c_double), ("lifetime_years", c_double), ("has_npu_usd", c_int),
    ("has_npu_power_w", c_int), ("has_electricity", c_int), ("has_pue", c_int),
    ("has_lifetime", c_int), ("device_power_w", c_double)])
WeftCostModel = _s("WeftCostModel", [("nclasses", c_int),
                                     ("cls", WeftCostClass * MAX_COST_CLASSES), ("file", _PATH),
                                     ("sys", WeftSystemCost)])
WeftPhaseSpec = _s("WeftPhaseSpec", [("compute_ns", c_double), ("coll", c_int),
                                     ("size_bytes", c_double), ("group", c_int),
                                     ("calls", c_double), ("overlap_ns", c_double)])
WeftLayer = _s("WeftLayer", [("name", _NAME), ("phase", WeftPhaseSpec * NPHASES),
                             ("update_ns", c_double), ("line", c_int)])
WeftWorkload = _s("WeftWorkload", [
    ("nlayers", c_int), ("capacity", c_int), ("layers", POINTER(WeftLayer)),
    ("policy", c_char * 128), ("ngroups", c_int), ("group_name", (c_char * 16) * MAX_GROUPS),
    ("file", _PATH)])
WeftCommunicator = _s("WeftCommunicator", [
    ("ndims", c_int), ("group", _I * NPHASES), ("line", c_int * NPHASES), ("nextra", c_int),
    ("extra", _I * MAX_GROUPS), ("extra_name", (c_char * 16) * MAX_GROUPS),
    ("extra_line", c_int * MAX_GROUPS), ("file", _PATH)])
WeftConstraint = _s("WeftConstraint", [("coef", _D), ("cost_coef", c_double), ("rhs", c_double),
                                       ("rel", c_int), ("text", c_char * 128),
                                       ("origin", c_int)])
WeftConstraints = _s("WeftConstraints", [("n", c_int), ("c", WeftConstraint * MAX_CONSTRAINTS),
                                         ("nreplaced", c_int),
                                         ("replaced", WeftConstraint * MAX_CONSTRAINTS)])
MAX_TIERS = 8
WeftDimParts = _s("WeftDimParts", [
    ("part", _NAME), ("rate_gbps", c_double), ("max_links", c_int), ("tiers", c_int),
    ("radix", c_int), ("oversub", c_double), ("endpoints", c_double),
    ("switch_ports", c_double), ("optics", c_double), ("cables", c_double),
    ("link_usd_per_gbps", c_double), ("nic_usd_per_gbps", c_double),
    ("switch_usd_per_gbps", c_double), ("usd_per_gbps", c_double), ("w_per_gbps", c_double),
    ("tier_switches", c_int * MAX_TIERS), ("switch_name", _NAME), ("attach_name", _NAME),
    ("uplink_name", _NAME), ("fabric", c_int), ("rails", c_double), ("ocs_ports", c_double),
    ("ocs_radix", c_int), ("planes", c_int)])
PART_TEXT_LEN = 256
WeftPart = _s("WeftPart", [
    ("name", _NAME), ("kind", c_int), ("title", c_char * PART_TEXT_LEN), ("rate_gbps", c_double),
    ("ports", c_int), ("max_per_npu", c_int), ("reach_m", c_double), ("price_usd", c_double),
    ("power_w", c_double), ("oversub", c_double), ("switch_part", _NAME), ("attach", _NAME),
    ("uplink", _NAME), ("estimate", c_int), ("source", c_char * PART_TEXT_LEN), ("user", c_int),
    ("line", c_int)])
MAX_PART_COMBOS = 64
WeftPartChoices = _s("WeftPartChoices", [
    ("n", c_int), ("best", c_int), ("choice", _NAME * MAX_DIMS),
    ("pick", _I * MAX_PART_COMBOS), ("status", c_int * MAX_PART_COMBOS),
    ("objective", c_double * MAX_PART_COMBOS), ("time_ns", c_double * MAX_PART_COMBOS),
    ("cost_usd", c_double * MAX_PART_COMBOS)])
WeftScenario = _s("WeftScenario", [
    ("net", WeftNetwork), ("cost", WeftCostModel), ("njobs", c_int),
    ("workload", c_void_p * MAX_JOBS), ("comm", WeftCommunicator * MAX_JOBS),
    ("weight", c_double * MAX_JOBS), ("job_name", _NAME * MAX_JOBS), ("cons", WeftConstraints),
    ("objective", c_int), ("loop", c_int), ("file", _PATH),
    ("tokens_per_iteration", c_double * MAX_JOBS), ("parts_file", _PATH),
    ("parts", WeftDimParts * MAX_DIMS)])

# ------------------------------------------------------------------ problem
WeftJob = _s("WeftJob", [("workload", c_void_p), ("comm", POINTER(WeftCommunicator)),
                         ("weight", c_double), ("name", _NAME)])
WeftSpec = _s("WeftSpec", [
    ("net", POINTER(WeftNetwork)), ("cost", POINTER(WeftCostModel)), ("njobs", c_int),
    ("jobs", WeftJob * MAX_JOBS), ("cons", POINTER(WeftConstraints)), ("objective", c_int),
    ("loop", c_int)])
WeftSettings = _s("WeftSettings", [("gap_tol", c_double), ("max_iter", c_int),
                                   ("max_nodes", c_int), ("time_limit_s", c_double)])
WeftJobTime = _s("WeftJobTime", [("time_ns", c_double), ("compute_ns", c_double),
                                 ("comm_ns", c_double * NPHASES),
                                 ("exposed_comm_ns", c_double * NPHASES)])
WeftEval = _s("WeftEval", [("time_ns", c_double), ("cost_usd", c_double),
                           ("perf_per_cost", c_double), ("job", WeftJobTime * MAX_JOBS),
                           ("npu_cost_usd", c_double), ("capex_usd", c_double),
                           ("network_power_w", c_double), ("npu_power_w", c_double),
                           ("power_w", c_double), ("cost_per_iteration_usd", c_double)])
WeftResult = _s("WeftResult", [
    ("status", c_int), ("ndims", c_int), ("bw_gbps", _D), ("dim_flags", _I), ("eval", WeftEval),
    ("objective", c_double), ("lower_bound", c_double), ("gap", c_double),
    ("iterations", c_int), ("tie_broken", c_int), ("nconflict", c_int),
    ("conflict", c_int * MAX_CONSTRAINTS), ("message", c_char * 256)])
WeftWholeResult = _s("WeftWholeResult", [
    ("result", WeftResult), ("continuous", WeftResult), ("links", _I), ("link_gbps", _D),
    ("nwhole", c_int), ("bnb_status", c_int), ("nodes", c_int), ("unsettled", c_int)])

# ------------------------------------------------------------------ parallelization
WeftParallel = _s("WeftParallel", [
    ("tp", c_int), ("pp", c_int), ("dp", c_int), ("ep", c_int), ("cp", c_int),
    ("attention", c_int), ("fp8", c_int), ("micro_batch", c_int),
    ("virtual_stages", c_int), ("sequence_parallel", c_int), ("zero_stage", c_int),
    ("recompute", c_int), ("order", c_int * 3), ("efficiency", c_double),
    ("act_bytes", c_double), ("param_bytes", c_double), ("grad_bytes", c_double),
    ("optimizer_bytes", c_double), ("stage_layers", POINTER(c_int)), ("nstage_layers", c_int),
    ("optimizer_step", c_int), ("schedule", c_int),
    ("merged_backward", c_int), ("cuda_graphs", c_int), ("overlap_grad_reduce", c_int),
    ("overlap_param_gather", c_int), ("ddp_bucket_params", c_double),
    ("pp_account_embedding", c_int), ("pp_account_loss", c_int),
    ("recompute_num_layers", c_int), ("recompute_method", c_int), ("recompute_modules", c_int),
    ("tp_comm_overlap", c_int), ("overlap_p2p", c_int), ("expert_tp", c_int),
    ("cpu_offloading_num_layers", c_int), ("cp_comm", c_int),
    ("pp_layout", c_char_p), ("attention_dropout", c_double), ("hidden_dropout", c_double),
    ("moe_permute_fusion", c_int), ("moe_router_fusion", c_int),
    ("tp_overlap_sms", c_int * 6),  # WEFT_TPO_NGEMMS
    ("tp_overlap_aggregate", c_int),
    ("tp_overlap_method", c_int * 6),  # WEFT_TPO_NGEMMS
    ("tp_overlap_fp8_buf", c_int),
    ("moe_a2a_overlap", c_int), ("moe_dispatch_fp8", c_int), ("fp8_amax_reduce", c_int),
    ("cross_entropy", c_int), ("activation_eager", c_int),
    ("norm_eager", c_int), ("rope_eager", c_int),
    ("fp8_param_gather", c_int), ("moe_dispatcher", c_int), ("fsdp", c_int),
    ("no_reshard", c_int), ("moe_routing", c_int), ("ga_steps", c_int),
    ("layer_impl", c_int), ("lora_rank", c_int), ("lora_targets", c_int),
    ("packed_sample_len", c_int), ("cuda_graph_scope", c_int)])

MIRRORED = (WeftError, WeftNetwork, WeftCostClass, WeftSystemCost, WeftCostModel, WeftPhaseSpec,
            WeftLayer, WeftWorkload, WeftCommunicator, WeftConstraint, WeftConstraints,
            WeftDimParts, WeftPartChoices, WeftPart, WeftScenario,
            WeftJob, WeftSpec, WeftSettings, WeftJobTime, WeftEval, WeftResult, WeftWholeResult,
            WeftParallel)

# ------------------------------------------------------------------ functions
P = POINTER
_ERR = P(WeftError)
# name: (restype, argtypes); every function of this group the package calls.
PROTOS = {
    "weft_version": (c_char_p, []),
    "weft_zoo_dir": (c_int, [ctypes.POINTER(ctypes.c_char), c_size_t, _ERR]),
    "weft_sizeof": (c_size_t, [c_char_p]),
    "weft_strerror": (c_char_p, [c_int]),
    "weft_error_clear": (None, [_ERR]),
    "weft_error_format": (c_char_p, [_ERR, c_char_p, c_size_t]),
    "weft_topology_name": (c_char_p, [c_int]),
    "weft_system_cost_set": (c_int, [P(WeftCostModel), c_char_p, c_double, _ERR]),
    "weft_cost_model_has_system": (c_int, [P(WeftCostModel)]),
    "weft_system_cost_resolved": (None, [P(WeftCostModel), P(WeftSystemCost)]),
    "weft_network_npus_total": (c_double, [P(WeftNetwork)]),
    "weft_network_npus_bought": (c_double, [P(WeftNetwork)]),
    "weft_network_set_active": (c_int, [P(WeftNetwork), P(c_double), c_int, c_char_p, P(c_int),
                                        c_char_p, P(WeftError)]),
    "weft_dim_shape_name": (c_char_p, [c_int]),
    "weft_network_set_planes": (c_int, [P(WeftNetwork), P(c_double), c_int, c_char_p, P(c_int),
                                        c_char_p, P(WeftError)]),
    "weft_network_set_fabric": (c_int, [P(WeftNetwork), P(c_char_p), c_int, c_char_p, P(c_int),
                                        c_char_p, P(WeftError)]),
    "weft_network_read": (c_int, [c_char_p, P(WeftNetwork), _ERR]),
    "weft_network_read_zoo": (c_int, [c_char_p, c_char_p, P(WeftNetwork), _ERR]),
    "weft_network_parse": (c_int, [c_char_p, c_char_p, c_char_p, P(WeftNetwork), _ERR]),
    "weft_cost_model_read": (c_int, [c_char_p, P(WeftCostModel), _ERR]),
    "weft_cost_model_parse": (c_int, [c_char_p, c_char_p, P(WeftCostModel), _ERR]),
    "weft_communicator_read": (c_int, [c_char_p, P(WeftCommunicator), _ERR]),
    "weft_communicator_parse": (c_int, [c_char_p, c_char_p, P(WeftCommunicator), _ERR]),
    "weft_communicator_check": (c_int, [P(WeftCommunicator), P(WeftNetwork), _ERR]),
    "weft_cost_per_gbps": (c_int, [P(WeftNetwork), P(WeftCostModel), P(c_double), _ERR]),
    "weft_workload_read": (c_int, [c_char_p, P(c_void_p), _ERR]),
    "weft_workload_parse": (c_int, [c_char_p, c_char_p, P(c_void_p), _ERR]),
    "weft_workload_create": (c_void_p, []),
    "weft_workload_free": (None, [c_void_p]),
    "weft_constraints_parse": (c_int, [P(WeftConstraints), c_char_p, c_int, _ERR]),
    "weft_constraints_override": (c_int, [P(WeftConstraints), c_char_p, c_int, _ERR]),
    "weft_scenario_create": (P(WeftScenario), []),
    "weft_scenario_free": (None, [P(WeftScenario)]),
    "weft_scenario_read_zoo": (c_int, [c_char_p, c_char_p, P(WeftScenario), _ERR]),
    "weft_scenario_read_parts": (c_int, [c_char_p, c_char_p, c_char_p, P(WeftScenario), _ERR]),
    "weft_scenario_bind_parts": (c_int, [P(WeftScenario), c_char_p, c_char_p, _ERR]),
    "weft_network_set_parts": (c_int, [P(WeftNetwork), P(c_char_p), c_int, c_char_p, _ERR]),
    "weft_network_has_parts": (c_int, [P(WeftNetwork)]),
    "weft_parts_choices": (c_int, [P(WeftNetwork)]),
    "weft_parts_read": (c_int, [c_char_p, c_char_p, P(c_void_p), _ERR]),
    "weft_parts_free": (None, [c_void_p]),
    "weft_parts_count": (c_int, [c_void_p]),
    "weft_parts_at": (P(WeftPart), [c_void_p, c_int]),
    "weft_part_kind_name": (c_char_p, [c_int]),
    "weft_parts_choose": (c_int, [P(WeftScenario), c_char_p, P(WeftSettings),
                                  P(WeftPartChoices), _ERR]),
    "weft_parts_choice_name": (c_char_p, [P(WeftPartChoices), c_int, c_int, c_char_p,
                                          c_size_t]),
    "weft_scenario_parse": (c_int, [c_char_p, c_char_p, c_char_p, P(WeftScenario), _ERR]),
    "weft_scenario_spec": (None, [P(WeftScenario), P(WeftSpec)]),
    "weft_job_device": (c_char_p, [P(WeftNetwork), c_int, c_char_p, _ERR]),
    "weft_scenario_add_model_job": (c_int, [P(WeftScenario), c_char_p, c_char_p, c_char_p,
                                            P(WeftParallel), _ERR]),
    "weft_objective_name": (c_char_p, [c_int]),
    "weft_loop_name": (c_char_p, [c_int]),
    "weft_status_name": (c_char_p, [c_int]),
    "weft_settings_default": (None, [P(WeftSettings)]),
    "weft_problem_create": (c_int, [P(WeftSpec), P(c_void_p), _ERR]),
    "weft_problem_free": (None, [c_void_p]),
    "weft_problem_solve": (c_int, [c_void_p, P(WeftSettings), P(WeftResult)]),
    "weft_problem_evaluate": (c_int, [c_void_p, P(c_double), P(WeftEval)]),
    "weft_problem_equal_bw": (c_int, [c_void_p, P(c_double), c_char_p, c_size_t]),
    "weft_whole_solve": (c_int, [P(WeftSpec), P(WeftSettings), P(WeftWholeResult), _ERR]),
    "weft_bnb_status_name": (c_char_p, [c_int]),
    "weft_network_set_links": (c_int, [P(WeftNetwork), P(c_double), c_int, P(c_double), c_int,
                                       c_char_p, c_char_p, _ERR]),
    "weft_spec_phase_compute": (None, [P(WeftSpec), c_int, P(c_double)]),
    "weft_spec_dim_bytes": (None, [P(WeftSpec), c_int, P(c_double)]),
    "weft_astra_network_write": (c_int, [c_char_p, P(WeftNetwork), P(c_double), P(c_double),
                                         _ERR]),
    "weft_recompute_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_recompute_method_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_recompute_modules_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_lora_targets_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_tp_overlap_sms_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_tp_overlap_aggregate_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_tp_overlap_method_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_tp_overlap_fp8_buf_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_cuda_graph_scope_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_attention_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_fp8_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_schedule_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_cp_comm_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_fp8_amax_reduce_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_cross_entropy_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_moe_dispatcher_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_moe_routing_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_layer_impl_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_fsdp_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_schedule_name": (c_char_p, [c_int]),
    "weft_parallel_default": (None, [P(WeftParallel)]),
    "weft_parallel_order_parse": (c_int, [c_char_p, P(c_int), _ERR]),
}


class WeftLoadError(ImportError):
    """libweft.so cannot be found or does not match this package."""


def _candidates():
    """Where libweft.so is looked for, in order (see python/README.md)."""
    env = os.environ.get("WEFT_LIB")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, n) for n in ("libweft.so.0", "libweft.so")]
    # the repository's build/, two levels up from python/weft/
    out.append(os.path.join(os.path.dirname(os.path.dirname(here)), "build", "libweft.so.0"))
    out.append("libweft.so.0")  # the system loader (make install, ldconfig)
    return out, False


def load():
    """The library, its prototypes set and its struct sizes checked."""
    paths, forced = _candidates()
    lib, tried = None, []
    for p in paths:
        if os.sep in p and not os.path.exists(p) and not forced:
            tried.append(p + " (absent)")
            continue
        try:
            lib = ctypes.CDLL(p)
            break
        except OSError as e:
            tried.append("%s (%s)" % (p, e))
    if lib is None:
        raise WeftLoadError("weft: cannot load libweft.so: tried " + "; ".join(tried) +
                            " (run make, or set WEFT_LIB to the library's path)")
    bind(lib, PROTOS, MIRRORED)
    return lib


class CString(c_char_p):
    """A char* argument that cannot carry a NUL inside: the package's
    keywords pass _core.c_text/c_path first (a ValueError naming the
    keyword); this is the backstop for any string that would not, so that no
    bytes after a NUL are ever silently dropped (ctypes.ArgumentError)."""

    @classmethod
    def from_param(cls, v):
        if isinstance(v, bytes) and b"\0" in v:
            raise ValueError("embedded null byte in a string for the library")
        return c_char_p.from_param(v)


def bind(lib, protos, structs):
    """Set each function's prototype (char* arguments as CString) and check
    each struct's size."""
    for name, (res, args) in protos.items():
        try:
            f = getattr(lib, name)
        except AttributeError:
            raise WeftLoadError("weft: %s has no %s: it is older than this package (rebuild it "
                                "with make)" % (lib._name, name)) from None
        f.restype, f.argtypes = res, [CString if a is c_char_p else a for a in args]
    check_abi(lib, structs)


def check_abi(lib, structs=MIRRORED):
    """Each mirrored struct must be as large as the library's: a header
    changed without this package (or an old library) fails here, not later."""
    bad = []
    for t in structs:
        n = lib.weft_sizeof(t.__name__.encode())
        if n != ctypes.sizeof(t):
            bad.append("%s: library %d bytes, package %d" % (t.__name__, n, ctypes.sizeof(t)))
    if bad:
        raise WeftLoadError("weft: %s (version %s) does not match this package's structs: %s"
                            % (lib._name, lib.weft_version().decode(), "; ".join(bad)))


def text(b):
    """A C char array or char* as str (bytes that are not UTF-8 replaced)."""
    if isinstance(b, bytes):
        return b.decode("utf-8", "replace")
    return bytes(b).split(b"\0", 1)[0].decode("utf-8", "replace")


