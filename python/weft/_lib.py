# _lib.py — finding and loading libweft.so, the public structs mirrored with
# ctypes (include/weft/*.h) and checked against the library's own sizes.
import ctypes
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int, c_size_t,
                    c_ubyte, c_ulonglong, c_void_p, CFUNCTYPE)

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
    ("line", _I), ("file", _PATH), ("efficiency", _D), ("latency_ns", _D), ("design_gbps", _D)])
WeftCostClass = _s("WeftCostClass", [
    ("name", _NAME), ("link_usd_per_gbps", c_double), ("switch_usd_per_gbps", c_double),
    ("nic_usd_per_gbps", c_double), ("has_link", c_int), ("has_switch", c_int),
    ("has_nic", c_int), ("line", c_int)])
WeftCostModel = _s("WeftCostModel", [("nclasses", c_int),
                                     ("cls", WeftCostClass * MAX_COST_CLASSES), ("file", _PATH)])
WeftPhaseSpec = _s("WeftPhaseSpec", [("compute_ns", c_double), ("coll", c_int),
                                     ("size_bytes", c_double), ("group", c_int)])
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
                                       ("rel", c_int), ("text", c_char * 128)])
WeftConstraints = _s("WeftConstraints", [("n", c_int), ("c", WeftConstraint * MAX_CONSTRAINTS)])
WeftScenario = _s("WeftScenario", [
    ("net", WeftNetwork), ("cost", WeftCostModel), ("njobs", c_int),
    ("workload", c_void_p * MAX_JOBS), ("comm", WeftCommunicator * MAX_JOBS),
    ("weight", c_double * MAX_JOBS), ("job_name", _NAME * MAX_JOBS), ("cons", WeftConstraints),
    ("objective", c_int), ("loop", c_int), ("file", _PATH)])

# ------------------------------------------------------------------ problem
WeftJob = _s("WeftJob", [("workload", c_void_p), ("comm", POINTER(WeftCommunicator)),
                         ("weight", c_double), ("name", _NAME)])
WeftSpec = _s("WeftSpec", [
    ("net", POINTER(WeftNetwork)), ("cost", POINTER(WeftCostModel)), ("njobs", c_int),
    ("jobs", WeftJob * MAX_JOBS), ("cons", POINTER(WeftConstraints)), ("objective", c_int),
    ("loop", c_int)])
WeftSettings = _s("WeftSettings", [("gap_tol", c_double), ("max_iter", c_int)])
WeftJobTime = _s("WeftJobTime", [("time_ns", c_double), ("compute_ns", c_double),
                                 ("comm_ns", c_double * NPHASES),
                                 ("exposed_comm_ns", c_double * NPHASES)])
WeftEval = _s("WeftEval", [("time_ns", c_double), ("cost_usd", c_double),
                           ("perf_per_cost", c_double), ("job", WeftJobTime * MAX_JOBS)])
WeftResult = _s("WeftResult", [
    ("status", c_int), ("ndims", c_int), ("bw_gbps", _D), ("dim_flags", _I), ("eval", WeftEval),
    ("objective", c_double), ("lower_bound", c_double), ("gap", c_double),
    ("iterations", c_int), ("tie_broken", c_int), ("nconflict", c_int),
    ("conflict", c_int * MAX_CONSTRAINTS), ("message", c_char * 256)])

# ------------------------------------------------------------------ model
WeftModelLayer = _s("WeftModelLayer", [("name", _NAME), ("fwd_flops", c_double),
                                       ("params", c_double), ("act_elems", c_double)])
WeftModel = _s("WeftModel", [
    ("name", _NAME), ("title", c_char * 128), ("source", c_char * 256), ("arch", c_int),
    ("global_batch", c_int), ("seq_len", c_int), ("layers", c_int), ("hidden", c_int),
    ("heads", c_int), ("kv_heads", c_int), ("ffn_hidden", c_int), ("vocab", c_int),
    ("ffn_matrices", c_int), ("experts", c_int), ("top_k", c_int), ("moe_every", c_int),
    ("tables", c_int), ("emb_dim", c_int), ("pooling", c_int), ("table_rows", c_double),
    ("nbottom", c_int), ("nlayers", c_int), ("layer", WeftModelLayer * MAX_MODEL_LAYERS),
    ("file", _PATH)])
WeftDevice = _s("WeftDevice", [
    ("name", _NAME), ("title", c_char * 128), ("peak_flops", c_double), ("hbm_bytes", c_double),
    ("hbm_bytes_per_s", c_double), ("source", c_char * 256), ("peak_fp8_flops", c_double),
    ("peak_tf32_flops", c_double), ("peak_vector_flops", c_double), ("sms", c_int),
    ("tile_m", c_int), ("tile_n", c_int), ("gemm_efficiency", c_double),
    ("hbm_efficiency", c_double)])
WeftParallel = _s("WeftParallel", [
    ("tp", c_int), ("pp", c_int), ("dp", c_int), ("ep", c_int), ("micro_batch", c_int),
    ("virtual_stages", c_int), ("sequence_parallel", c_int), ("zero_stage", c_int),
    ("recompute", c_int), ("order", c_int * 3), ("efficiency", c_double),
    ("act_bytes", c_double), ("param_bytes", c_double), ("grad_bytes", c_double),
    ("optimizer_bytes", c_double), ("stage_layers", POINTER(c_int)), ("nstage_layers", c_int),
    ("optimizer_step", c_int)])
WeftMemory = _s("WeftMemory", [
    ("params_bytes", c_double), ("grads_bytes", c_double), ("optimizer_bytes", c_double),
    ("activations_bytes", c_double), ("total_bytes", c_double), ("capacity_bytes", c_double),
    ("fits", c_int)])
WeftGenInfo = _s("WeftGenInfo", [
    ("microbatches", c_int), ("layers_per_stage", c_int), ("bubble_fraction", c_double),
    ("samples", c_double), ("tokens", c_double), ("model_flops", c_double),
    ("hw_flops", c_double), ("mem", WeftMemory), ("critical_stage", c_int),
    ("memory_stage", c_int), ("pipeline_repeats", c_double), ("optimizer_ns", c_double)])

# ------------------------------------------------------------------ search
WeftCodesignSpec = _s("WeftCodesignSpec", [
    ("model", POINTER(WeftModel)), ("device", POINTER(WeftDevice)), ("base", WeftParallel),
    ("nnets", c_int), ("nets", POINTER(WeftNetwork)), ("cost", POINTER(WeftCostModel)),
    ("cons", POINTER(WeftConstraints)), ("objective", c_int), ("loop", c_int),
    ("settings", WeftSettings), ("ntp", c_int), ("tp", c_int * MAX_CHOICES), ("npp", c_int),
    ("pp", c_int * MAX_CHOICES), ("nmb", c_int), ("mb", c_int * MAX_CHOICES),
    ("all_orders", c_int), ("nzero", c_int), ("zero", c_int * 4), ("nsp", c_int),
    ("sp", c_int * 2), ("nrc", c_int), ("rc", c_int * 3), ("nvp", c_int),
    ("vp", c_int * MAX_CHOICES)])
WeftDesignPoint = _s("WeftDesignPoint", [
    ("net", c_int), ("par", WeftParallel), ("status", c_int), ("time_ns", c_double),
    ("cost_usd", c_double), ("objective", c_double), ("bw_gbps", _D),
    ("equal_bw_gbps", c_double), ("equal_time_ns", c_double), ("mem_bytes", c_double),
    ("gap", c_double), ("reason", c_char * 160)])
PROGRESS_FN = CFUNCTYPE(None, c_void_p, c_size_t, c_size_t)
WeftRunSettings = _s("WeftRunSettings", [("threads", c_int), ("progress", PROGRESS_FN),
                                         ("progress_ctx", c_void_p), ("rank", c_size_t),
                                         ("nranks", c_size_t)])
WeftIndexedPoint = _s("WeftIndexedPoint", [("index", c_size_t), ("pt", WeftDesignPoint)])
CHUNK_FN = CFUNCTYPE(c_int, c_void_p, c_size_t, POINTER(WeftDesignPoint), c_size_t)

# ------------------------------------------------------------------ simulation
WeftSimSettings = _s("WeftSimSettings", [
    ("fidelity", c_int), ("chunks", c_int), ("in_flight", c_int), ("latency_ns", _D),
    ("endpoint_delay_ns", c_double), ("algorithm", _I), ("sharing", c_int),
    ("on_span", c_void_p), ("span_ctx", c_void_p), ("stage_spans", c_int),
    ("max_work", c_double)])
WeftSimJob = _s("WeftSimJob", [("t", WeftJobTime), ("dim_bytes", _D), ("dim_busy_ns", _D),
                               ("dim_util", _D), ("ncollectives", c_int)])
WeftSimResult = _s("WeftSimResult", [
    ("time_ns", c_double), ("njobs", c_int), ("ndims", c_int), ("job", WeftSimJob * MAX_JOBS),
    ("events", c_ulonglong), ("flows", c_ulonglong), ("peak_events", c_size_t),
    ("peak_flows", c_size_t)])
WeftRefine = _s("WeftRefine", [
    ("iterations", c_int), ("converged", c_int), ("status", c_int), ("bw_gbps", _D),
    ("analytic_ns", c_double), ("simulated_ns", c_double), ("first_simulated_ns", c_double),
    ("sim_ns", c_double * (REFINE_MAX_ITER + 1))])

# ------------------------------------------------------------------ topologies
WeftAllReduce = _s("WeftAllReduce", [("size", c_int), ("members", POINTER(c_int)),
                                     ("size_bytes", c_double)])
WeftDemand = _s("WeftDemand", [("src", c_int), ("dst", c_int), ("bytes", c_double)])
WeftTraffic = _s("WeftTraffic", [
    ("nservers", c_int), ("nallreduce", c_int), ("ar", POINTER(WeftAllReduce)),
    ("ndemand", c_int), ("demand", POINTER(WeftDemand)), ("compute_ns", c_double),
    ("cap_ar", c_int), ("cap_demand", c_int), ("index", POINTER(c_int)), ("cap_index", c_int)])
WeftTopoSettings = _s("WeftTopoSettings", [("degree", c_int), ("port_gbps", c_double),
                                           ("ar_degree", c_int), ("kpaths", c_int)])
WeftPrices = _s("WeftPrices", [
    ("nic_port_usd_per_gbps", c_double), ("transceiver_usd_per_gbps", c_double),
    ("switch_port_usd_per_gbps", c_double), ("patch_panel_port_usd", c_double),
    ("ocs_port_usd", c_double), ("fiber_usd", c_double), ("use_ocs", c_int)])
WeftTopoTime = _s("WeftTopoTime", [
    ("time_ns", c_double), ("compute_ns", c_double), ("comm_ns", c_double), ("ar_ns", c_double),
    ("mp_ns", c_double), ("max_link_util", c_double), ("flows", c_ulonglong)])
WeftTopoSearch = _s("WeftTopoSearch", [
    ("model", POINTER(WeftModel)), ("dev", POINTER(WeftDevice)), ("nservers", c_int),
    ("topo", WeftTopoSettings), ("iterations", c_int), ("seconds", c_double),
    ("rounds", c_int), ("seed", c_ulonglong), ("progress", c_void_p),
    ("progress_ctx", c_void_p), ("tp", c_int), ("layer_choice", c_int), ("fixed", c_void_p)])
WeftTopoSearchResult = _s("WeftTopoSearchResult", [
    ("tp", c_int), ("ntables", c_int), ("placement", c_int * TOPO_MAX_TABLES),
    ("layer_mp", c_ubyte * MAX_MODEL_LAYERS), ("time_ns", c_double),
    ("first_time_ns", c_double), ("iterations", c_int), ("accepted", c_int),
    ("rounds", c_int), ("fabric", c_void_p)])

MIRRORED = (WeftError, WeftNetwork, WeftCostClass, WeftCostModel, WeftPhaseSpec, WeftLayer,
            WeftWorkload, WeftCommunicator,
            WeftConstraint, WeftConstraints, WeftScenario, WeftJob, WeftSpec, WeftSettings,
            WeftJobTime, WeftEval, WeftResult, WeftModelLayer, WeftModel, WeftDevice,
            WeftParallel, WeftMemory, WeftGenInfo, WeftCodesignSpec, WeftDesignPoint,
            WeftRunSettings, WeftIndexedPoint, WeftSimSettings, WeftSimJob, WeftSimResult,
            WeftRefine, WeftAllReduce, WeftDemand, WeftTraffic, WeftTopoSettings, WeftPrices,
            WeftTopoTime, WeftTopoSearch, WeftTopoSearchResult)

# ------------------------------------------------------------------ functions
P = POINTER
_ERR = P(WeftError)
# name: (restype, argtypes); every function the package calls, checked at load.
_PROTOS = {
    "weft_version": (c_char_p, []),
    "weft_sizeof": (c_size_t, [c_char_p]),
    "weft_strerror": (c_char_p, [c_int]),
    "weft_error_clear": (None, [_ERR]),
    "weft_error_format": (c_char_p, [_ERR, c_char_p, c_size_t]),
    "weft_topology_name": (c_char_p, [c_int]),
    "weft_network_npus_total": (c_double, [P(WeftNetwork)]),
    "weft_network_read": (c_int, [c_char_p, P(WeftNetwork), _ERR]),
    "weft_network_parse": (c_int, [c_char_p, c_char_p, P(WeftNetwork), _ERR]),
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
    "weft_scenario_create": (P(WeftScenario), []),
    "weft_scenario_free": (None, [P(WeftScenario)]),
    "weft_scenario_read_zoo": (c_int, [c_char_p, c_char_p, P(WeftScenario), _ERR]),
    "weft_scenario_parse": (c_int, [c_char_p, c_char_p, c_char_p, P(WeftScenario), _ERR]),
    "weft_scenario_spec": (None, [P(WeftScenario), P(WeftSpec)]),
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
    "weft_spec_phase_compute": (None, [P(WeftSpec), c_int, P(c_double)]),
    "weft_spec_dim_bytes": (None, [P(WeftSpec), c_int, P(c_double)]),
    "weft_astra_network_write": (c_int, [c_char_p, P(WeftNetwork), P(c_double), P(c_double),
                                         _ERR]),
    "weft_out_open": (c_int, [c_char_p, P(c_void_p), _ERR]),
    "weft_out_commit_all": (c_int, [P(c_void_p), c_int, _ERR]),
    "weft_out_discard": (None, [c_void_p]),
    "weft_workload_emit": (c_int, [c_void_p, c_void_p, _ERR]),
    "weft_communicator_emit": (c_int, [c_void_p, P(WeftCommunicator), _ERR]),
    "weft_model_read": (c_int, [c_char_p, P(WeftModel), _ERR]),
    "weft_zoo_model": (c_int, [c_char_p, c_char_p, P(WeftModel), _ERR]),
    "weft_zoo_device": (c_int, [c_char_p, c_char_p, P(WeftDevice), _ERR]),
    "weft_zoo_devices": (c_int, [c_char_p, P(WeftDevice), c_int, P(c_int), _ERR]),
    "weft_zoo_list": (c_int, [c_char_p, c_void_p, c_int, P(c_int), _ERR]),
    "weft_model_params": (c_double, [P(WeftModel)]),
    "weft_recompute_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_recompute_name": (c_char_p, [c_int]),
    "weft_parallel_default": (None, [P(WeftParallel)]),
    "weft_parallel_order_parse": (c_int, [c_char_p, P(c_int), _ERR]),
    "weft_generate": (c_int, [P(WeftModel), P(WeftDevice), P(WeftParallel), P(WeftNetwork),
                              c_int, c_void_p, P(WeftCommunicator), P(WeftGenInfo), _ERR]),
    "weft_sim_settings_default": (None, [P(WeftSimSettings)]),
    "weft_simulate": (c_int, [P(WeftSpec), P(c_double), P(WeftSimSettings), P(WeftSimResult),
                              _ERR]),
    "weft_algorithm_name": (c_char_p, [c_int]),
    "weft_phase_name": (c_char_p, [c_int]),
    "weft_refine_with_sim": (c_int, [P(WeftSpec), P(WeftSettings), P(WeftSimSettings), c_int,
                                     c_double, P(WeftRefine), _ERR]),
    "weft_network_shapes": (c_int, [P(c_int), c_void_p, c_int, c_int, P(c_int),
                                    P(P(WeftNetwork)), P(c_size_t), _ERR]),
    "weft_codesign_count": (c_int, [P(WeftCodesignSpec), P(c_size_t), _ERR]),
    "weft_codesign_stream": (c_int, [P(WeftCodesignSpec), P(WeftRunSettings), c_size_t,
                                     CHUNK_FN, c_void_p, _ERR]),
    "weft_codesign_summary_create": (c_void_p, [c_size_t]),
    "weft_codesign_summary_free": (None, [c_void_p]),
    "weft_codesign_summary_add": (c_int, [c_void_p, c_size_t, P(WeftDesignPoint)]),
    "weft_codesign_summary_count": (c_size_t, [c_void_p, c_int]),
    "weft_codesign_summary_example": (P(WeftIndexedPoint), [c_void_p, c_int]),
    "weft_codesign_summary_top": (c_size_t, [c_void_p, P(P(WeftIndexedPoint))]),
    "weft_codesign_summary_front": (c_size_t, [c_void_p, P(P(WeftIndexedPoint))]),
    "weft_point_status_name": (c_char_p, [c_int]),
    "weft_run_settings_default": (None, [P(WeftRunSettings)]),
    "weft_topo_settings_default": (None, [P(WeftTopoSettings)]),
    "weft_topo_prices_default": (None, [P(WeftPrices)]),
    "weft_topo_prices_read": (c_int, [c_char_p, P(WeftPrices), _ERR]),
    "weft_traffic_read_csv": (c_int, [c_char_p, c_int, P(P(WeftTraffic)), _ERR]),
    "weft_traffic_from_model": (c_int, [P(WeftModel), P(WeftDevice), c_int, c_int, P(c_int),
                                        P(P(WeftTraffic)), _ERR]),
    "weft_traffic_free": (None, [P(WeftTraffic)]),
    "weft_topo_build_split": (c_int, [P(WeftTraffic), P(WeftTopoSettings), c_int, P(c_void_p),
                                      P(c_int), _ERR]),
    "weft_topo_search_default": (None, [P(WeftTopoSearch)]),
    "weft_topo_search": (c_int, [P(WeftTopoSearch), P(WeftTopoSearchResult), _ERR]),
    "weft_fabric_switch": (c_int, [c_int, c_double, P(c_void_p), _ERR]),
    "weft_fabric_fattree_at_cost": (c_int, [c_int, c_int, c_int, c_double, P(WeftPrices),
                                            P(c_double), P(c_double), P(c_void_p), _ERR]),
    "weft_fabric_expander": (c_int, [c_int, c_int, c_double, c_ulonglong, P(c_void_p), _ERR]),
    "weft_fabric_free": (None, [c_void_p]),
    "weft_fabric_cost": (c_double, [c_void_p, P(WeftPrices)]),
    "weft_fabric_simulate": (c_int, [c_void_p, P(WeftTraffic), P(WeftTopoTime), _ERR]),
    "weft_fabric_strides": (c_int, [c_void_p, P(P(c_int))]),
    "weft_fabric_mp_links": (c_int, [c_void_p, P(P(c_int))]),
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
    for name, (res, args) in _PROTOS.items():
        try:
            f = getattr(lib, name)
        except AttributeError:
            raise WeftLoadError("weft: %s has no %s: it is older than this package (rebuild it "
                                "with make)" % (lib._name, name)) from None
        f.restype, f.argtypes = res, args
    check_abi(lib)
    return lib


def check_abi(lib):
    """Each mirrored struct must be as large as the library's: a header
    changed without this file (or an old library) fails here, not later."""
    bad = []
    for t in MIRRORED:
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


def path_arg(p):
    """A path (str, bytes, os.PathLike) as bytes for the library."""
    return os.fsencode(p)


DOUBLE_P = P(c_double)
INT_P = P(c_int)
