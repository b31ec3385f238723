#!/usr/bin/env python3
"""validation_runs.py — weft's prediction for every published training run in
data/validation/runs.yml, next to the published iteration time, with the
error of each row and the mean and max |error| over the rows weft models.

usage: scripts/validation_runs.py [path/to/weft] [--nominal] [--bands]

Nothing here is fitted: each run is mapped onto weft's inputs by fixed rules,
decided before looking at any result, and rows weft cannot express are listed
as "not modelled" with the reason, never dropped.
- device: the zoo preset for the run's GPU (DEVICE below);
- network: the cluster preset of the run's GPU (CLUSTER below,
  data/zoo/clusters.yml): one Switch dim per node (NVLink) and one over the
  nodes (InfiniBand), each with its NCCL efficiency and latency per step;
  the bandwidths are the preset's, fixed with constraints: nothing is
  optimised, the solver evaluates the design. --nominal drops the
  efficiency and latency (links at their nominal rate, no latency);
- model: the zoo entry (with the parts of ZOO_PARTS the run sets, e.g.
  `mtp_layers`), or the inline hyper-parameters written to a private zoo,
  with the run's global batch and sequence length; `attention_dropout` and
  `hidden_dropout` as the run's recipe sets them (absent: 0, or the zoo
  model's);
- parallelization: the published TP, CP, PP, DP, EP, expert TP (`etp`,
  Megatron's expert_tensor_parallel_size; absent: TP), micro-batch (when
  not published: 1 with a pipeline, else the largest divisor of the
  replica's batch that fits in memory; micro_batches()), interleaving, sequence parallelism, ZeRO stage, recompute,
  and what runs.yml records from each source: the attention kernel
  (`attention`), context parallelism's K, V exchange (`cp_comm`; absent:
  Megatron's p2p ring; torchtitan's: PyTorch's ring), ZeRO-3's
  implementation (`fsdp`; absent: flat; torchtitan's: fsdp2), the dense
  layers' code (`layer_impl`; absent: megatron; torchtitan's: torch), LoRA fine-tuning
  (`lora_rank`, `lora_targets`; absent: every parameter trains) and whether it
  keeps the parameters gathered (`reshard_after_forward`; absent: on;
  torchtitan with a pipeline: off), gradient precision (`grad_bytes`), FP8 GEMMs (precision
  fp8), TP and pipeline communication overlap (`tp_comm_overlap`,
  `overlap_p2p`; absent: weft's defaults, Megatron's: TP off, P2P on with
  interleaving) and the recipe's userbuffers settings per GEMM
  (`tp_overlap_sms`, its ub_tp_comm_overlap_cfg num_sm; absent: TE's 16;
  `tp_overlap_aggregate`, the ring exchanges with aggregate; absent: none;
  `tp_overlap_method`, a GEMM's method where not TE's; `tp_overlap_fp8_buf`,
  the pipelined reduce-scatters in FP8), DP gradient reduction under the backward
  (`overlap_grad_reduce`; absent: on), MoE token permutation as Transformer
  Engine's fused kernels (`moe_permute_fusion`; absent: Megatron's eager)
  and its router's (`moe_router_fusion`; absent: eager), the EP all-to-alls
  under the paired micro-batch's compute (`moe_a2a_overlap`; absent: off), the forward
  dispatch in FP8 (`moe_dispatch_fp8`; absent: off, the activations' width), delayed
  scaling's amax reduction group (`fp8_amax_reduce`; absent: stage), the loss's
  kernels (`cross_entropy`; absent: fused), the MLP's activation, RMSNorm and
  RoPE fused or eager (`activation_fusion`, `norm_fusion`, `rope_fusion`;
  absent: fused), the MoE dispatcher (`moe_dispatcher`), the optimizer's
  master weights (`master_weights`) and Adam's moments' precision
  (`optimizer_states`), CUDA graphs (`cuda_graphs`) and their scope (`cuda_graph_scope`), full recomputation of N
  layers (`recompute_num_layers`, `recompute_method`), the group order (`order`;
  absent: TP,DP,PP, the pipeline outermost as Megatron-Core, DeepSpeed and
  torchtitan lay their ranks; Llama 3's rows say TP,PP,DP) and
  per-stage layers, the pipeline schedule (`schedule`);
- batch: a global batch that is not a multiple of dp x micro-batch becomes
  the nearest multiple (ties: the smaller), and a published time derived
  from a FLOP rate is scaled to that batch (the same rate); listed among
  the row's assumptions;
- compute: weft's default per-operator model (no --efficiency);
- loop: no-overlap (weft's default).
Two tables follow the summaries, each comparing rows of one source that
differ in one setting only, so that everything else cancels: "precision
pairs" (the same run in BF16 and in FP8: the published FP8/BF16 time ratio
against weft's) and "scale pairs" (the same run at its fewest and its most
GPUs, the per-GPU work fixed: the published large/small time ratio against
weft's). They are diagnostics: they change no row's error.
--bands adds a second table: for each run that leaves its micro-batch or
its interleaving unpublished, weft's prediction over every value of them
that the run's batch, layers and memory allow, with a pipeline at least as
many micro-batches as stages (and a multiple of them when interleaved, as
Megatron requires): the error's band, next to the first table's error. It
says how far the unpublished settings alone move a row; it chooses nothing,
and the first table does not use it.
Needs python3-yaml (Debian).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# h100-gt: the H100 of torchtitan's Grand Teton hosts (96 GB HBM2e at 2.4 TB/s,
# 500 W limit): the zoo's h100-gt (the H100 SXM5's kernel tables at its HBM
# and an estimated 500 W clock, devices.yml), kept apart in the per-GPU
# summary, so the H100 SXM rows are compared with their own kind.
DEVICE = {"a100-80gb": "a100", "a100-40gb": "a100-40gb", "h100-sxm": "h100", "h800": "h800",
          "b200": "b200", "gb200": "gb200", "gb300": "gb300", "h100-gt": "h100-gt",
          "h200-sxm": "h200"}
CLUSTER = {"a100-80gb": "dgx-a100", "a100-40gb": "dgx-a100", "h100-sxm": "dgx-h100",
           "h800": "dgx-h800", "b200": "dgx-b200", "gb200": "gb200-nvl72", "gb300": "gb300-nvl72",
           "h100-gt": "dgx-h100",
           "h200-sxm": "dgx-h100"}  # H200 nodes: NVLink 4 and 8x 400 Gb/s, DGX H100's tiers
CLUSTERS = "data/zoo/clusters.yml"
NOMINAL = "--nominal" in sys.argv[1:]
BANDS = "--bands" in sys.argv[1:]
MODEL_KEYS = ("layers", "hidden", "heads", "kv_heads", "ffn", "ffn_hidden", "vocab", "seq_len",
              "attention_dropout", "hidden_dropout",  # dropout: the recipe's (absent: 0)
              "bias", "norm", "positions", "tied_embeddings")  # the family's traits (Nemotron)
ZOO_PARTS = ("mtp_layers",)  # e.g. DeepSeek-V3's multi-token prediction, on in Megatron's recipe


def load(path):
    import yaml  # here, so that the pair tables' functions import without it
    with open(path) as f:
        return yaml.safe_load(f)


def zoo_model(name, zoo="data/zoo/models"):
    return load(os.path.join(zoo, name + ".yml"))


def batch_rule(run):
    """The run's global batch as weft takes it: the published one, or the
    nearest multiple of dp x micro-batch when it is not one (ties: the
    smaller). Returns (batch, scale of the published time, note or None)."""
    par = run["parallel"]
    b = par.get("global_batch")
    if not b:
        return None, 1.0, None
    per = int(par.get("dp") or 1) * int(par.get("micro_batch") or 1)
    if b % per == 0:
        return int(b), 1.0, None
    lo = b // per * per
    hi = lo + per
    nb = lo if (b - lo <= hi - b and lo > 0) else hi
    return nb, nb / b, "global batch %d -> %d (nearest multiple of dp x micro-batch %d)" % (b, nb, per)


def model_file(run, tmp):
    """A model .yml for the run: the zoo's or the inline one, its batch the run's."""
    m = run["model"]
    par = run["parallel"]
    if "zoo" in m:
        doc = zoo_model(m["zoo"])
        for k in ZOO_PARTS + MODEL_KEYS:  # what the run's recipe adds or changes
            if m.get(k) is not None:   # (e.g. dgxc's truncated Grok-1: fewer layers)
                doc[k] = m[k]
    else:
        doc = {"name": run["id"], "title": run["id"], "arch": "transformer"}
        for k in MODEL_KEYS:
            if m.get(k) is not None:
                doc[k] = m[k]
        if "seq_len" not in doc:
            raise ValueError("no sequence length")
    doc["name"] = run["id"]
    batch = batch_rule(run)[0]
    if batch:
        doc["global_batch"] = batch
    if m.get("seq_len"):
        doc["seq_len"] = int(m["seq_len"])
    path = os.path.join(tmp, run["id"] + ".yml")
    with open(path, "w") as f:
        __import__("yaml").safe_dump(doc, f, sort_keys=False)
    return path


def network_file(run, specs, tmp):
    """The run's GPUs on its cluster preset: one dim for a node's worth or
    less, else the node's tier and the nodes' tier."""
    hw = run["hardware"]
    gpu, n = hw["gpu"], int(run["gpus"])
    name = hw.get("cluster") or CLUSTER[gpu]  # the run's own network when published
    tiers = load(CLUSTERS)[name]["tiers"]
    node = int(hw.get("node_gpus") or tiers[0]["npus"])
    if node != tiers[0]["npus"]:
        raise ValueError("%d GPUs per node, cluster %s has %d" % (node, name, tiers[0]["npus"]))
    if hw.get("segment"):  # GPUs used of each NVLink domain (Slurm's --segment): the rest idle
        node = int(hw["segment"])
        if not 0 < node <= tiers[0]["npus"]:
            raise ValueError("segment %d outside the %d-GPU domain" % (node, tiers[0]["npus"]))
    if n <= node:
        dims = [n]
    elif n % node:
        raise ValueError("%d GPUs are not whole nodes of %d" % (n, node))
    else:
        dims = [node, n // node]
    path = os.path.join(tmp, run["id"] + ".net.yml")
    with open(path, "w") as f:
        f.write("Cluster: %s\n" % name)
        f.write("NpusCount: [ %s ]\n" % ", ".join(str(d) for d in dims))
        if NOMINAL:
            f.write("Efficiency: [ %s ]\n" % ", ".join(["1"] * len(dims)))
            f.write("LatencyNs: [ %s ]\n" % ", ".join(["0"] * len(dims)))
    cons = ["B%d = %g" % (d + 1, tiers[d]["bw_gbps"]) for d in range(len(dims))]
    return path, cons


def args_for(run, specs, tmp, assumed):
    par = run["parallel"]
    gpu = run["hardware"]["gpu"]
    if gpu not in DEVICE:
        raise ValueError("no device preset for %s" % gpu)
    net, cons = network_file(run, specs, tmp)
    a = ["--model", model_file(run, tmp), "--device", DEVICE[gpu], "--network", net,
         "--cost-model", "data/validation/cost.yml"]
    for c in cons:
        a += ["--constraint", c]
    for k, flag in (("tp", "--tp"), ("cp", "--cp"), ("pp", "--pp"), ("ep", "--ep"),
                    ("etp", "--etp"), ("vp", "--vp"), ("grad_bytes", "--grad-bytes")):
        if par.get(k):
            a += [flag, str(int(par[k]))]
    if par.get("attention"):
        a += ["--attention", par["attention"]]
    if par.get("cp_comm"):  # CP's K, V exchange as published (Llama 3: all_gather)
        a += ["--cp-comm", par["cp_comm"]]
    for k, flag in (("tp_comm_overlap", "--tp-comm-overlap"),
                    ("overlap_p2p", "--overlap-p2p-communication"),
                    ("overlap_grad_reduce", "--overlap-grad-reduce"),
                    ("moe_permute_fusion", "--moe-permute-fusion"),
                    ("moe_router_fusion", "--moe-router-fusion"),
                    ("moe_a2a_overlap", "--moe-a2a-overlap"),
                    ("moe_dispatch_fp8", "--moe-dispatch-fp8"),
                    ("fp8_param_gather", "--fp8-param-gather")):
        if k in par:  # as the source ran it; absent: weft's default (Megatron's)
            a += [flag, "on" if par[k] else "off"]
    if par.get("tp_overlap_sms"):  # the recipe's ub_tp_comm_overlap_cfg num_sm per GEMM
        a += ["--tp-overlap-sms", ",".join("%s=%d" % (k, int(v))
                                           for k, v in par["tp_overlap_sms"].items())]
    if par.get("tp_overlap_aggregate"):  # the recipe's ring exchanges with aggregate
        a += ["--tp-overlap-aggregate", ",".join(par["tp_overlap_aggregate"])]
    if par.get("tp_overlap_fp8_buf"):  # the recipe's pipelined reduce-scatters in FP8
        a += ["--tp-overlap-fp8-buf", ",".join(par["tp_overlap_fp8_buf"])]
    if par.get("tp_overlap_method"):  # the recipe's methods where not TE's
        a += ["--tp-overlap-method", ",".join("%s=%s" % (k, v)
                                              for k, v in par["tp_overlap_method"].items())]
    if par.get("master_weights"):  # the optimizer's master weights as the recipe keeps them
        a += ["--master-weights", par["master_weights"]]
    if par.get("optimizer_states"):  # Adam's moments (a precision-aware optimizer's bf16)
        a += ["--optimizer-states", par["optimizer_states"]]
    if precision(run) == "fp8":
        a += ["--fp8", fp8_recipe(run)]
    if par.get("fp8_amax_reduce"):  # delayed scaling's amax group (tp: --tp-only-amax-red)
        a += ["--fp8-amax-reduce", par["fp8_amax_reduce"]]
    if par.get("cross_entropy"):  # the loss's kernels as the source's stack runs them
        a += ["--cross-entropy", par["cross_entropy"]]
    if par.get("moe_dispatcher"):  # the MoE token dispatcher (absent: alltoall)
        a += ["--moe-dispatcher", par["moe_dispatcher"]]
    if par.get("moe_routing"):  # the benchmark's token-to-expert routing (absent: random)
        a += ["--moe-routing", par["moe_routing"]]
    if par.get("ga_steps"):  # pipeline schedules a step (AutoModel's GA under PP)
        a += ["--ga-steps", str(int(par["ga_steps"]))]
    if par.get("fsdp"):  # ZeRO-3's implementation (absent: flat; torchtitan: fsdp2)
        a += ["--fsdp", par["fsdp"]]
    if par.get("layer_impl"):  # the dense layers' code (absent: megatron; torchtitan: torch)
        a += ["--layer-impl", par["layer_impl"]]
    if par.get("lora_rank"):  # LoRA fine-tuning: the adapters' rank and layers
        a += ["--lora-rank", str(int(par["lora_rank"]))]
        if par.get("lora_targets"):
            a += ["--lora-targets", ",".join(par["lora_targets"])]
    for k in ("activation_fusion", "norm_fusion", "rope_fusion",  # fused (absent: on) or eager
              "reshard_after_forward"):  # ZeRO-3 resharded (absent: on) or kept gathered
        if k in par:
            a += ["--" + k.replace("_", "-"), "on" if par[k] else "off"]
    # the ranks' order, innermost first: the row's, else PP outermost (Megatron-Core's
    # tp-cp-ep-dp-pp, DeepSpeed's pipe-data-model, torchtitan's pp-dp-cp-tp mesh), not
    # weft's TP,PP,DP default
    a += ["--order", par.get("order") or "TP,DP,PP"]
    if par.get("schedule"):  # the pipeline schedule as published (DeepSeek-V3: dualpipe)
        a += ["--schedule", par["schedule"]]
    if run.get("loop"):
        a += ["--loop", run["loop"]]
    for what in par.get("pp_account") or ():  # Megatron's uneven split
        a += ["--pp-account-" + what]
    if par.get("pp_layers"):
        a += ["--pp-layers", ",".join(str(int(x)) for x in par["pp_layers"])]
    if par.get("pp_layout"):  # Megatron's layout string: layers per model chunk
        a += ["--pp-layout", par["pp_layout"]]
    mb = par.get("micro_batch") or 1
    a += ["--mb", str(int(mb))]
    if par.get("sp"):
        a += ["--sp"]
    if par.get("cuda_graphs"):  # the recipe's CUDA graphs (cuda_graph_impl set)
        a += ["--cuda-graphs"]
    if par.get("cuda_graph_scope"):  # the sub-blocks they replay (cuda_graph_scope)
        a += ["--cuda-graph-scope", ",".join(par["cuda_graph_scope"])]
    if par.get("zero"):
        a += ["--zero", str(int(par["zero"]))]
    if par.get("cpu_offloading_num_layers"):  # Megatron's activation offloading
        a += ["--cpu-offloading-num-layers", str(int(par["cpu_offloading_num_layers"]))]
    rc = par.get("recompute")
    if rc == "full":
        a += ["--recompute"]
        if par.get("recompute_num_layers"):  # Megatron's recompute_num_layers / _method
            a += ["--recompute-num-layers", str(int(par["recompute_num_layers"])),
                  "--recompute-method", par.get("recompute_method") or "uniform"]
    elif rc == "selective":
        a += ["--recompute", "selective"]
        if par.get("recompute_modules"):
            a += ["--recompute-modules", ",".join(par["recompute_modules"])]
    elif rc is None:
        assumed.append("no recompute")
    return a


def precision(run):
    """fp8 (any FP8 recipe: delayed or current scaling, blockwise) or the
    16-bit one as published (bf16, fp16)."""
    p = str(run["parallel"].get("precision") or "").lower()
    return "fp8" if p.startswith("fp8") else p.split()[0] if p else "-"


def fp8_recipe(run):
    """The FP8 recipe a row's precision names (Transformer Engine's): fp8 is
    delayed scaling (TE's and NeMo 24.07's default), fp8-cs current scaling,
    fp8-mx MXFP8, fp8-blockwise 1x128 / 128x128 block scales (DeepSeek-V3)."""
    p = str(run["parallel"].get("precision") or "").lower()
    return {"fp8-cs": "current", "fp8-mx": "mxfp8", "fp8-blockwise": "blockwise"}.get(p, "delayed")


def run_set(run):
    """The source a row belongs to: its `set`, else its id's first word."""
    return run.get("set") or run["id"].split("-")[0]


def summary(title, keyed):
    """Mean and max |error| per key, in first-seen order."""
    print("\n| %s | runs | mean abs error | max abs error |" % title)
    print("|---|---|---|---|")
    for k, es in keyed.items():
        print("| %s | %d | %.1f%% | %.1f%% |" % (k, len(es), 100 * sum(abs(e) for e in es) / len(es),
                                                100 * max(abs(e) for e in es)))


def micro_batches(run):
    """The micro-batch sizes to try, in order, when the run does not publish
    one. With a pipeline, 1 (the most micro-batches: the smallest bubble).
    Without, the per-replica batch's divisors from the largest down: no bubble
    to shrink, and a gradient is synchronised once its last micro-batch's
    backward is done (Megatron's no_sync, FSDP's), so fewer micro-batches
    leave that synchronisation more compute to hide under; the first that
    fits in memory is taken."""
    par = run["parallel"]
    if par.get("micro_batch"):
        return [int(par["micro_batch"])]
    b, dp = par.get("global_batch"), int(par.get("dp") or 1)
    if int(par.get("pp") or 1) > 1 or not b or b % dp:
        return [1]
    per = b // dp
    return [d for d in range(per, 0, -1) if per % d == 0]


def predict(weft, run, specs, tmp):
    assumed = []
    note = batch_rule(run)[2]
    if note:
        assumed.append(note)
    tries = micro_batches(run)
    for mb in tries:
        a = args_for(run, specs, tmp, assumed)
        a[a.index("--mb") + 1] = str(mb)
        p = subprocess.run([weft, "optimize"] + a + ["--json"], capture_output=True, text=True)
        if p.returncode != 2 or "memory" not in p.stderr or mb == tries[-1]:
            break
    USED[run["id"]] = a  # the arguments of the answer (memory_table() re-reads them)
    if not run["parallel"].get("micro_batch"):
        assumed.insert(0, "micro-batch %d" % mb)
    if p.returncode != 0:
        msg = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        raise ValueError(msg.replace("weft: ", "", 1))
    return json.loads(p.stdout)["time_ns"] / 1e9, assumed


USED = {}  # run id -> the optimize arguments predict() answered with


def memory_gib(weft, args, tmp):
    """weft's memory of the most loaded NPU (GiB) for optimize's arguments,
    from `weft workload --json` (memory_bytes.total); None when refused."""
    a, i = [], 0
    while i < len(args):  # the workload command takes no cost model, constraints or loop
        if args[i] in ("--cost-model", "--constraint", "--loop"):
            i += 2
            continue
        a.append(args[i])
        i += 1
    p = subprocess.run([weft, "workload"] + a + ["-o", os.path.join(tmp, "mem"), "--json"],
                       capture_output=True, text=True)
    return json.loads(p.stdout)["memory_bytes"]["total"] / 2**30 if p.returncode == 0 else None


def memory_rows(weft, done, tmp):
    """(id, published GiB, weft GiB) where a source gives its peak memory
    (torchtitan's max_reserved); tmp: predict()'s, which holds the files
    its arguments name."""
    rows = []
    for run, _, _ in done:
        pub = (run.get("published") or {}).get("memory_gib")
        if pub and run["id"] in USED:
            g = memory_gib(weft, USED[run["id"]], tmp)
            if g:
                rows.append((run["id"], pub, g))
    return rows


def memory_table(rows):
    """Published peak memory against weft's model of the same run, as it falls."""
    if not rows:
        return
    print("\n| memory | published GiB | weft GiB | weft / published - 1 |")
    print("|---|---|---|---|")
    for i, pub, g in rows:
        print("| %s | %.1f | %.1f | %+.1f%% |" % (i, pub, g, 100 * (g / pub - 1)))
    e = [g / pub - 1 for _, pub, g in rows]
    print("\n%d runs publish their memory: weft's off by %+.1f%% on average (max |.| %.1f%%)"
          % (len(e), 100 * sum(e) / len(e), 100 * max(abs(x) for x in e)))


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def unpublished(run):
    """Which schedule settings the run leaves unpublished: (micro-batch,
    interleaving), as runs.yml's `assumed` list and null values say."""
    par = run["parallel"]
    said = {str(x).split()[0].rstrip(",") for x in run.get("assumed", [])}
    mb = not par.get("micro_batch") or "micro_batch" in said
    vp = (int(par.get("pp") or 1) > 1 and not par.get("pp_layers") and not par.get("pp_layout")
          and "vp" in said)
    return mb, vp


def band(weft, run, specs, tmp, pub):
    """weft's times over the unpublished micro-batches and interleavings that
    weft accepts (divisibility, memory): (settings tried, accepted, min, max
    error) or None when the run publishes both."""
    free_mb, free_vp = unpublished(run)
    if not (free_mb or free_vp):
        return None
    par = run["parallel"]
    batch, dp = batch_rule(run)[0], int(par.get("dp") or 1)
    mbs = divisors(batch // dp) if free_mb and batch and batch % dp == 0 else [par.get("micro_batch") or 1]
    pp, vps = int(par.get("pp") or 1), [int(par.get("vp") or 1)]
    if free_vp:
        model = run["model"]
        layers = int((zoo_model(model["zoo"]) if "zoo" in model else model)["layers"])
        vps = divisors(layers // pp) if layers % pp == 0 else [1]
    errs, tried = [], 0
    for mb in mbs:
        for vp in vps:
            m = batch // (dp * mb) if batch else 1
            if pp > 1 and (m < pp or (vp > 1 and m % pp)):
                continue  # 1F1B with fewer micro-batches than stages; Megatron's interleaving needs m % pp == 0
            tried += 1
            a = args_for(run, specs, tmp, [])
            a[a.index("--mb") + 1] = str(mb)
            if "--vp" in a:
                a[a.index("--vp") + 1] = str(vp)
            elif vp > 1:
                a += ["--vp", str(vp)]
            p = subprocess.run([weft, "optimize"] + a + ["--json"], capture_output=True, text=True)
            if p.returncode == 0:
                errs.append((json.loads(p.stdout)["time_ns"] / 1e9 - pub) / pub)
    what = " and ".join(x for x, f in (("micro-batch", free_mb), ("vp", free_vp)) if f)
    return what, tried, len(errs), min(errs) if errs else None, max(errs) if errs else None


# Settings only an FP8 row can have: a precision pair's rows differ in them too.
FP8_ONLY = ("fp8_param_gather", "fp8_amax_reduce", "moe_dispatch_fp8", "tp_overlap_fp8_buf")


def _key(run, drop):
    """A row's settings less the keys in drop, as a hashable string."""
    par = {k: v for k, v in run["parallel"].items() if k not in drop}
    if "precision" in par:
        par["precision"] = precision(run)  # one spelling: FP8 and fp8 are one
    return json.dumps([run_set(run), run["model"], run["hardware"], run.get("loop"), par],
                      sort_keys=True, default=str)


def _ratio_table(title, head, groups):
    """Rows (label, published ratio, weft ratio); the mean and max of the
    ratios' disagreement (weft / published - 1)."""
    if not groups:
        return
    print("\n| %s | published %s | weft %s | weft / published - 1 |" % (title, head, head))
    print("|---|---|---|---|")
    d = []
    for label, rp, rw in groups:
        d.append(rw / rp - 1)
        print("| %s | %.3f | %.3f | %+.1f%% |" % (label, rp, rw, 100 * d[-1]))
    print("\n%d %s: weft's ratio off by %+.1f%% on average (mean |.| %.1f%%, max |.| %.1f%%)"
          % (len(d), title, 100 * sum(d) / len(d), 100 * sum(abs(x) for x in d) / len(d),
             100 * max(abs(x) for x in d)))


def _stem(run, what):
    """A row's id less its precision suffix (what "precision") or its GPU
    count (what "gpus"): rows of one release and run share it."""
    i = run["id"]
    if what == "precision":
        return re.sub(r"-(fp8|bf16)$", "", i)
    return re.sub(r"-%d(?=-|$)" % run["gpus"], "-N", i)


def pair_groups(done):
    """The precision pairs and the scale pairs of the modelled rows (run,
    published s, weft's s): two lists of (label, published ratio, weft's
    ratio), FP8 over BF16 and most GPUs over fewest."""
    prec, scale = {}, {}
    for run, pub, t in done:
        k = _stem(run, "precision") + _key(run, ("precision",) + FP8_ONLY) + str(run["gpus"])
        prec.setdefault(k, {})[precision(run)] = (run, pub, t)
        k = _stem(run, "gpus") + _key(run, ("dp", "global_batch"))
        scale.setdefault(k, []).append((run["gpus"], run, pub, t))
    pg, sg = [], []
    for k in prec.values():
        if "bf16" in k and "fp8" in k:
            (rb, pb, tb), (rf, pf, tf) = k["bf16"], k["fp8"]
            pg.append(("%s / %s" % (rf["id"], rb["id"]), pf / pb, tf / tb))
    for k in scale.values():
        k.sort(key=lambda x: x[0])
        (g0, r0, p0, t0), (g1, r1, p1, t1) = k[0], k[-1]
        if g1 > g0:
            sg.append(("%s / %s" % (r1["id"], r0["id"]), p1 / p0, t1 / t0))
    return pg, sg


def pairs(done):
    pg, sg = pair_groups(done)
    _ratio_table("precision pairs", "FP8/BF16", pg)
    _ratio_table("scale pairs", "large/small", sg)


def main():
    weft = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "build/weft"
    os.environ["WEFT_ZOO"] = os.path.abspath("data/zoo")  # the presets this script reads
    runs = load("data/validation/runs.yml")["runs"]
    specs = load("data/validation/specs.yml")
    rows, errs, bands, done = [], [], [], []
    by_set, by_prec = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in runs:
            par, pub = run["parallel"], run.get("s_per_iter")
            shape = "%s x %s x %s" % (par.get("tp", 1), par.get("pp", 1), par.get("dp", "-"))
            try:
                if not pub:
                    raise ValueError("no published iteration time")
                t, assumed = predict(weft, run, specs, tmp)
                if "directly" not in str(run.get("formula", "")):
                    pub *= batch_rule(run)[1]  # a rate: the same rate at weft's batch
                e = (t - pub) / pub
                errs.append(e)
                done.append((run, pub, t))
                by_set.setdefault(run_set(run), []).append(e)
                by_prec.setdefault("%s %s" % (run["hardware"]["gpu"], precision(run)), []).append(e)
                rows.append((run["id"], run["gpus"], shape, "%.2f" % pub, "%.2f" % t,
                             "%+.1f%%" % (100 * e), ", ".join(assumed)))
                b = band(weft, run, specs, tmp, pub) if BANDS else None
                if b:
                    bands.append((run["id"], b[0], "%d of %d" % (b[2], b[1]),
                                  "%+.1f%% to %+.1f%%" % (100 * b[3], 100 * b[4]) if b[2] else "-",
                                  "%+.1f%%" % (100 * e)))
            except (ValueError, KeyError, OSError) as ex:
                why = str(ex).replace(tmp + os.sep, "")  # the row's model file, not its temp dir
                rows.append((run["id"], run.get("gpus", "?"), shape,
                             "%.2f" % pub if pub else "-", "-", "not modelled", why))
        mem = memory_rows(weft, done, tmp)  # before tmp goes: the runs' model files are in it
    print("| run | GPUs | TP x PP x DP | published s/iter | weft s/iter | error | note |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s |" % " | ".join(str(x) for x in r))
    if errs:
        mae = sum(abs(e) for e in errs) / len(errs)
        print("\nmodelled %d of %d runs: mean |error| %.1f%%, max |error| %.1f%%"
              % (len(errs), len(rows), 100 * mae, 100 * max(abs(e) for e in errs)))
        summary("source", by_set)
        summary("GPU, precision", by_prec)
        pairs(done)
        memory_table(mem)
    else:
        print("\nno run modelled")
    if BANDS:
        print("\n| run | unpublished | settings weft accepts | error band | table's error |")
        print("|---|---|---|---|---|")
        for r in bands:
            print("| %s |" % " | ".join(str(x) for x in r))


if __name__ == "__main__":
    main()
