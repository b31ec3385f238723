# _libx.py — the structs and functions of the model zoo, the generator, the
# search, the simulator and the topologies (include/weft/model.h, search.h,
# sim.h, topo.h), bound to the library and checked against its sizes when a
# command that needs them is first used.
from ctypes import (POINTER, CFUNCTYPE, c_char, c_char_p, c_double, c_int, c_longlong, c_size_t, c_ubyte,
                    c_ulonglong, c_void_p)

from ._core import lib
from ._lib import (MAX_CHOICES, MAX_DIMS, MAX_JOBS, MAX_MODEL_LAYERS, MAX_TIERS, NAME_LEN,
                   PATH_LEN, REFINE_MAX_ITER, TOPO_MAX_TABLES, WeftCommunicator, WeftConstraints,
                   WeftCostModel, WeftDimParts, WeftError, WeftJobTime, WeftNetwork, WeftParallel,
                   WeftSettings, WeftSpec, _s, bind)

_D = c_double * MAX_DIMS
_I = c_int * MAX_DIMS
_NAME = c_char * NAME_LEN
_PATH = c_char * PATH_LEN

# ------------------------------------------------------------------ model
WeftModelLayer = _s("WeftModelLayer", [("name", _NAME), ("fwd_flops", c_double),
                                       ("params", c_double), ("act_elems", c_double)])
WeftModel = _s("WeftModel", [
    ("name", _NAME), ("title", c_char * 128), ("source", c_char * 256), ("arch", c_int),
    ("global_batch", c_int), ("seq_len", c_int), ("layers", c_int), ("hidden", c_int),
    ("heads", c_int), ("kv_heads", c_int), ("ffn_hidden", c_int), ("vocab", c_int),
    ("ffn_matrices", c_int), ("experts", c_int), ("top_k", c_int), ("moe_every", c_int),
    ("shared_experts", c_int), ("moe_ffn_hidden", c_int), ("first_dense", c_int),
    ("bidirectional", c_int), ("q_lora_rank", c_int), ("kv_lora_rank", c_int),
    ("qk_nope_head_dim", c_int), ("qk_rope_head_dim", c_int), ("v_head_dim", c_int),
    ("tables", c_int), ("emb_dim", c_int), ("pooling", c_int), ("table_rows", c_double),
    ("nbottom", c_int), ("nlayers", c_int), ("layer", WeftModelLayer * MAX_MODEL_LAYERS),
    ("file", _PATH), ("head_dim", c_int), ("window", c_int), ("window_full_every", c_int),
    ("sinks", c_int), ("mtp_layers", c_int), ("attention_dropout", c_double),
    ("hidden_dropout", c_double), ("linear_bias", c_int), ("layernorm", c_int),
    ("rotary", c_int), ("tied_embeddings", c_int), ("activation", c_int)])
WeftClusterTier = _s("WeftClusterTier", [
    ("name", _NAME), ("topology", c_int), ("npus", c_int), ("cost", _NAME), ("bw_gbps", c_double),
    ("efficiency", c_double), ("latency_ns", c_double), ("fabric", c_int)])
WeftCluster = _s("WeftCluster", [
    ("name", _NAME), ("title", c_char * 128), ("device", _NAME), ("source", c_char * 256),
    ("ntiers", c_int), ("tier", WeftClusterTier * MAX_DIMS)])
WeftDevice = _s("WeftDevice", [
    ("name", _NAME), ("title", c_char * 128), ("peak_flops", c_double), ("hbm_bytes", c_double),
    ("hbm_bytes_per_s", c_double), ("source", c_char * 256), ("peak_fp8_flops", c_double),
    ("peak_tf32_flops", c_double), ("peak_vector_flops", c_double), ("sms", c_int),
    ("tile_m", c_int), ("tile_n", c_int), ("gemm_efficiency", c_double),
    ("hbm_efficiency", c_double), ("attention_efficiency", c_double),
    ("gemm_eff_max", c_double), ("gemm_k0", c_double), ("gemm_t0_ns", c_double),
    ("peak_fp4_flops", c_double), ("power_w", c_double), ("measured", _PATH),
    ("host_bytes_per_s", c_double), ("measured_clock", c_double),
    ("measured_hbm_bytes_per_s", c_double), ("launch_cpu_ns", c_double),
    ("measured_fp8_layer", c_double)])
WeftMeasuredInfo = _s("WeftMeasuredInfo", [
    ("file", _PATH * 5), ("date", (c_char * 64) * 5), ("rows", c_int * 5),
    ("gemm_fit", (c_double * 3) * 3), ("launch_us", c_double * 2), ("sustained", c_double * 3),
    ("clock", c_double), ("mem_time", c_double), ("fp8_layer", c_double)])
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
    ("vp", c_int * MAX_CHOICES), ("ncp", c_int), ("cp", c_int * MAX_CHOICES),
    ("nep", c_int), ("ep", c_int * MAX_CHOICES), ("nmodels", c_int),
    ("models", POINTER(WeftModel)), ("workloads", POINTER(c_void_p)),
    ("comms", POINTER(WeftCommunicator))])
WeftDesignPoint = _s("WeftDesignPoint", [
    ("net", c_int), ("par", WeftParallel), ("status", c_int), ("time_ns", c_double),
    ("cost_usd", c_double), ("objective", c_double), ("bw_gbps", _D),
    ("equal_bw_gbps", c_double), ("equal_time_ns", c_double), ("mem_bytes", c_double),
    ("gap", c_double), ("capex_usd", c_double), ("power_w", c_double),
    ("cost_per_iteration_usd", c_double), ("tokens", c_double), ("reason", c_char * 160),
    ("model", c_int)])
WeftPartsBom = _s("WeftPartsBom", [
    ("links", c_double), ("npus_total", c_double), ("endpoints", c_double),
    ("switch_ports", c_double), ("optics", c_double), ("cables", c_double),
    ("switches", c_double), ("cost_usd", c_double), ("power_w", c_double), ("tiers", c_int),
    ("tier_switches", c_double * MAX_TIERS)])
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
    ("max_work", c_double), ("progress", PROGRESS_FN), ("progress_ctx", c_void_p),
    ("like", c_int), ("astra_policy", c_int)])
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
WeftTopoWork = _s("WeftTopoWork", [
    ("work", c_double), ("index", c_double), ("matching", c_double), ("simulation", c_double),
    ("search", c_double), ("bytes", c_double)])
WeftTopoSearch = _s("WeftTopoSearch", [
    ("model", POINTER(WeftModel)), ("dev", POINTER(WeftDevice)), ("nservers", c_int),
    ("topo", WeftTopoSettings), ("iterations", c_int), ("seconds", c_double),
    ("rounds", c_int), ("seed", c_ulonglong), ("progress", c_void_p),
    ("progress_ctx", c_void_p), ("tp", c_int), ("layer_choice", c_int), ("fixed", c_void_p)])
WeftStrategy = _s("WeftStrategy", [("tp", c_int), ("placement", POINTER(c_int)),
                                   ("layer_mp", POINTER(c_ubyte))])
WeftTopoSearchResult = _s("WeftTopoSearchResult", [
    ("tp", c_int), ("ntables", c_int), ("placement", c_int * TOPO_MAX_TABLES),
    ("layer_mp", c_ubyte * MAX_MODEL_LAYERS), ("time_ns", c_double),
    ("first_time_ns", c_double), ("iterations", c_int), ("accepted", c_int),
    ("rounds", c_int), ("fabric", c_void_p)])


MIRRORED = (WeftModelLayer, WeftModel, WeftClusterTier, WeftCluster, WeftDevice, WeftMeasuredInfo,
            WeftMemory,
            WeftGenInfo, WeftCodesignSpec, WeftDesignPoint, WeftRunSettings, WeftIndexedPoint,
            WeftPartsBom,
            WeftSimSettings, WeftSimJob, WeftSimResult, WeftRefine, WeftAllReduce, WeftDemand, WeftTraffic, WeftTopoSettings,
            WeftPrices, WeftTopoTime, WeftTopoWork, WeftTopoSearch, WeftTopoSearchResult)

P = POINTER
_ERR = P(WeftError)
PROTOS = {
    "weft_out_open": (c_int, [c_char_p, P(c_void_p), _ERR]),
    "weft_out_commit_all": (c_int, [P(c_void_p), c_int, _ERR]),
    "weft_out_discard": (None, [c_void_p]),
    "weft_workload_emit": (c_int, [c_void_p, c_void_p, _ERR]),
    "weft_communicator_emit": (c_int, [c_void_p, P(WeftCommunicator), _ERR]),
    "weft_model_read": (c_int, [c_char_p, P(WeftModel), _ERR]),
    "weft_zoo_model": (c_int, [c_char_p, c_char_p, P(WeftModel), _ERR]),
    "weft_zoo_device": (c_int, [c_char_p, c_char_p, P(WeftDevice), _ERR]),
    "weft_zoo_cluster": (c_int, [c_char_p, c_char_p, P(WeftCluster), _ERR]),
    "weft_zoo_clusters": (c_int, [c_char_p, P(WeftCluster), c_int, P(c_int), _ERR]),
    "weft_cluster_network": (c_int, [P(WeftCluster), c_int, P(WeftNetwork), _ERR]),
    "weft_zoo_devices": (c_int, [c_char_p, P(WeftDevice), c_int, P(c_int), _ERR]),
    "weft_measured_info": (c_int, [P(WeftDevice), P(WeftMeasuredInfo), _ERR]),
    "weft_zoo_list": (c_int, [c_char_p, c_void_p, c_int, P(c_int), _ERR]),
    "weft_model_params": (c_double, [P(WeftModel)]),
    "weft_model_active_params": (c_double, [P(WeftModel)]),
    "weft_recompute_name": (c_char_p, [c_int]),
    "weft_optimizer_precision": (c_int, [c_char_p, c_char_p, P(c_double), _ERR]),
    "weft_generate": (c_int, [P(WeftModel), P(WeftDevice), P(WeftParallel), P(WeftNetwork),
                              c_int, c_void_p, P(WeftCommunicator), P(WeftGenInfo), _ERR]),
    "weft_sim_settings_default": (None, [P(WeftSimSettings)]),
    "weft_astra1_system_read": (c_int, [c_char_p, P(WeftNetwork), P(WeftSimSettings), _ERR]),
    "weft_astra1_export": (c_int, [c_char_p, P(WeftSpec), P(c_double), P(WeftSimSettings), _ERR]),
    "weft_astra1_mp_npus": (c_int, [P(WeftNetwork), c_void_p, P(WeftCommunicator), P(c_int),
                                    _ERR]),
    "weft_chakra_export": (c_int, [c_char_p, c_char_p, P(WeftNetwork), c_void_p,
                                   P(WeftCommunicator), c_int, P(c_double), P(WeftSimSettings),
                                   _ERR]),
    "weft_chakra_read": (c_int, [c_char_p, P(WeftNetwork), P(c_void_p), P(WeftCommunicator),
                                 _ERR]),
    "weft_chakra_is_trace": (c_int, [c_char_p]),
    "weft_chakra_ranks": (c_longlong, [c_char_p]),
    "weft_codesign_trace_read": (c_int, [c_char_p, P(WeftNetwork), P(c_int), P(P(c_void_p)),
                                         P(P(WeftCommunicator)), P(c_int), _ERR, _ERR]),
    "weft_codesign_trace_free": (None, [P(c_void_p), P(WeftCommunicator), c_int]),
    "weft_simulate": (c_int, [P(WeftSpec), P(c_double), P(WeftSimSettings), P(WeftSimResult),
                              _ERR]),
    "weft_algorithm_name": (c_char_p, [c_int]),
    "weft_phase_name": (c_char_p, [c_int]),
    "weft_refine_with_sim": (c_int, [P(WeftSpec), P(WeftSettings), P(WeftSimSettings), c_int,
                                     c_double, P(WeftRefine), _ERR]),
    "weft_network_shapes": (c_int, [P(c_int), c_void_p, c_int, c_int, P(c_int),
                                    P(P(WeftNetwork)), P(c_size_t), _ERR]),
    "weft_block_default_max": (c_int, [c_int, c_char_p, P(c_char_p)]),
    "weft_network_actives": (c_int, [P(WeftNetwork), c_size_t, P(P(WeftNetwork)), P(c_size_t),
                                     _ERR]),
    "weft_codesign_count": (c_int, [P(WeftCodesignSpec), P(c_size_t), _ERR]),
    "weft_codesign_default_ep": (c_int, [P(WeftModel), c_int, P(c_int), c_int]),
    "weft_codesign_stream": (c_int, [P(WeftCodesignSpec), P(WeftRunSettings), c_size_t,
                                     CHUNK_FN, c_void_p, _ERR]),
    "weft_codesign_summary_create": (c_void_p, [c_size_t]),
    "weft_codesign_summary_free": (None, [c_void_p]),
    "weft_codesign_summary_add": (c_int, [c_void_p, c_size_t, P(WeftDesignPoint)]),
    "weft_codesign_summary_count": (c_size_t, [c_void_p, c_int]),
    "weft_codesign_summary_example": (P(WeftIndexedPoint), [c_void_p, c_int]),
    "weft_codesign_summary_top": (c_size_t, [c_void_p, P(P(WeftIndexedPoint))]),
    "weft_codesign_summary_front": (c_size_t, [c_void_p, P(P(WeftIndexedPoint))]),
    "weft_codesign_summary_same": (c_size_t, [c_void_p, c_size_t, P(P(WeftIndexedPoint))]),
    "weft_point_status_name": (c_char_p, [c_int]),
    "weft_codesign_parts": (c_int, [P(WeftNetwork), c_int, c_char_p, c_char_p,
                                    P(WeftCostModel), P(P(WeftNetwork)), P(c_int),
                                    P(P(WeftDimParts * MAX_DIMS)), _ERR]),
    "weft_codesign_parts_fit": (c_int, [P(WeftNetwork), c_int, c_char_p, c_char_p,
                                        P(WeftCostModel), P(P(WeftNetwork)), P(c_int),
                                        P(P(WeftDimParts * MAX_DIMS)), P(c_int), _ERR, _ERR]),
    "weft_parts_bom": (None, [P(WeftNetwork), P(WeftDimParts), c_int, c_double,
                              c_double, P(WeftPartsBom)]),
    "weft_run_settings_default": (None, [P(WeftRunSettings)]),
    "weft_topo_settings_default": (None, [P(WeftTopoSettings)]),
    "weft_topo_prices_default": (None, [P(WeftPrices)]),
    "weft_topo_prices_read": (c_int, [c_char_p, P(WeftPrices), _ERR]),
    "weft_topo_prices_read_over": (c_int, [c_char_p, P(WeftPrices), _ERR]),
    "weft_topo_prices_parts": (c_int, [c_void_p, P(WeftPrices), _ERR]),
    "weft_traffic_read_csv": (c_int, [c_char_p, c_int, P(P(WeftTraffic)), _ERR]),
    "weft_traffic_from_model": (c_int, [P(WeftModel), P(WeftDevice), c_int, c_int, P(c_int),
                                        P(P(WeftTraffic)), _ERR]),
    "weft_traffic_free": (None, [P(WeftTraffic)]),
    "weft_topo_build_split": (c_int, [P(WeftTraffic), P(WeftTopoSettings), c_int, P(c_void_p),
                                      P(c_int), _ERR]),
    "weft_topo_build_best": (c_int, [P(WeftTraffic), P(WeftTopoSettings), P(c_void_p), P(c_int),
                                     P(WeftTopoTime), _ERR]),
    "weft_topo_work": (c_int, [P(WeftTraffic), P(WeftTopoSettings), c_int,
                               c_int, P(WeftTopoWork)]),
    "weft_traffic_from_strategy": (c_int, [P(WeftModel), P(WeftDevice), c_int, P(WeftStrategy),
                                           P(P(WeftTraffic)), _ERR]),
    "weft_layer_splittable": (c_int, [P(WeftModel), c_int]),
    "weft_topo_search_default": (None, [P(WeftTopoSearch)]),
    "weft_topo_search": (c_int, [P(WeftTopoSearch), P(WeftTopoSearchResult), _ERR]),
    "weft_fabric_switch": (c_int, [c_int, c_double, P(c_void_p), _ERR]),
    "weft_fabric_fattree_at_cost": (c_int, [c_int, c_int, c_int, c_double, P(WeftPrices),
                                            P(c_double), P(c_double), P(c_void_p), _ERR]),
    "weft_fabric_expander": (c_int, [c_int, c_int, c_double, c_ulonglong, P(c_void_p), _ERR]),
    "weft_fabric_free": (None, [c_void_p]),
    "weft_fabric_cost": (c_double, [c_void_p, P(WeftPrices)]),
    "weft_fabric_simulate": (c_int, [c_void_p, P(WeftTraffic), P(WeftTopoTime), _ERR]),
    "weft_fabric_simulate_many": (c_int, [P(c_void_p), c_int, P(WeftTraffic), c_int,
                                          P(WeftTopoTime), _ERR]),
    "weft_fabric_strides": (c_int, [c_void_p, P(P(c_int))]),
    "weft_fabric_mp_links": (c_int, [c_void_p, P(P(c_int))]),
}
bind(lib, PROTOS, MIRRORED)
