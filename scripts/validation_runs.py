#!/usr/bin/env python3
"""validation_runs.py — weft's prediction for every published training run in
data/validation/runs.yml, next to the published iteration time, with the
error of each row and the mean and max |error| over the rows weft models.

usage: scripts/validation_runs.py [path/to/weft] [--nominal]

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
- model: the zoo entry, or the inline hyper-parameters written to a private
  zoo, with the run's global batch and sequence length;
- parallelization: the published TP, PP, DP, micro-batch (1 when not
  published), interleaving, sequence parallelism, ZeRO stage, recompute;
- compute: weft's default per-operator model (no --efficiency);
- loop: no-overlap (weft's default).
Needs python3-yaml (Debian).
"""
import json
import os
import subprocess
import sys
import tempfile

import yaml

DEVICE = {"a100-80gb": "a100", "a100-40gb": "a100-40gb", "h100-sxm": "h100", "h800": "h100"}
CLUSTER = {"a100-80gb": "dgx-a100", "a100-40gb": "dgx-a100", "h100-sxm": "dgx-h100",
           "h800": "dgx-h800"}
CLUSTERS = "data/zoo/clusters.yml"
NOMINAL = "--nominal" in sys.argv[1:]
MODEL_KEYS = ("layers", "hidden", "heads", "kv_heads", "ffn", "ffn_hidden", "vocab", "seq_len")


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def zoo_model(name, zoo="data/zoo/models"):
    return load(os.path.join(zoo, name + ".yml"))


def model_file(run, tmp):
    """A model .yml for the run: the zoo's or the inline one, its batch the run's."""
    m = run["model"]
    par = run["parallel"]
    if "zoo" in m:
        doc = zoo_model(m["zoo"])
    else:
        doc = {"name": run["id"], "title": run["id"], "arch": "transformer"}
        for k in MODEL_KEYS:
            if m.get(k) is not None:
                doc[k] = m[k]
        if "seq_len" not in doc:
            raise ValueError("no sequence length")
    doc["name"] = run["id"]
    if par.get("global_batch"):
        doc["global_batch"] = int(par["global_batch"])
    if m.get("seq_len"):
        doc["seq_len"] = int(m["seq_len"])
    path = os.path.join(tmp, run["id"] + ".yml")
    with open(path, "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False)
    return path


def network_file(run, specs, tmp):
    """The run's GPUs on its cluster preset: one dim for a node's worth or
    less, else the node's tier and the nodes' tier."""
    hw = run["hardware"]
    gpu, n = hw["gpu"], int(run["gpus"])
    name = CLUSTER[gpu]
    tiers = load(CLUSTERS)[name]["tiers"]
    node = int(hw.get("node_gpus") or tiers[0]["npus"])
    if node != tiers[0]["npus"]:
        raise ValueError("%d GPUs per node, cluster %s has %d" % (node, name, tiers[0]["npus"]))
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
    if (par.get("cp") or 1) > 1:
        raise ValueError("context parallelism (cp %d) is not modelled" % par["cp"])
    if "zoo" not in run["model"] and run["model"].get("attention") == "mla":
        raise ValueError("multi-head latent attention is not modelled")
    net, cons = network_file(run, specs, tmp)
    a = ["--model", model_file(run, tmp), "--device", DEVICE[gpu], "--network", net,
         "--cost-model", "data/validation/cost.yml"]
    for c in cons:
        a += ["--constraint", c]
    for k, flag in (("tp", "--tp"), ("pp", "--pp"), ("ep", "--ep"), ("vp", "--vp")):
        if par.get(k):
            a += [flag, str(int(par[k]))]
    mb = par.get("micro_batch")
    if not mb:
        mb = 1
        assumed.append("micro-batch 1")
    a += ["--mb", str(int(mb))]
    if par.get("sp"):
        a += ["--sp"]
    if par.get("zero"):
        a += ["--zero", str(int(par["zero"]))]
    rc = par.get("recompute")
    if rc == "full":
        a += ["--recompute"]
    elif rc == "selective":
        a += ["--recompute", "selective"]
    elif rc is None:
        assumed.append("no recompute")
    return a


def predict(weft, run, specs, tmp):
    assumed = []
    a = args_for(run, specs, tmp, assumed)
    p = subprocess.run([weft, "optimize"] + a + ["--json"], capture_output=True, text=True)
    if p.returncode != 0:
        msg = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        raise ValueError(msg.replace("weft: ", "", 1))
    return json.loads(p.stdout)["time_ns"] / 1e9, assumed


def main():
    weft = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "build/weft"
    os.environ["WEFT_ZOO"] = os.path.abspath("data/zoo")  # the presets this script reads
    runs = load("data/validation/runs.yml")["runs"]
    specs = load("data/validation/specs.yml")
    rows, errs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for run in runs:
            par, pub = run["parallel"], run.get("s_per_iter")
            shape = "%s x %s x %s" % (par.get("tp", 1), par.get("pp", 1), par.get("dp", "-"))
            try:
                if not pub:
                    raise ValueError("no published iteration time")
                t, assumed = predict(weft, run, specs, tmp)
                e = (t - pub) / pub
                errs.append(e)
                rows.append((run["id"], run["gpus"], shape, "%.2f" % pub, "%.2f" % t,
                             "%+.1f%%" % (100 * e), ", ".join(assumed)))
            except (ValueError, KeyError, OSError) as ex:
                rows.append((run["id"], run.get("gpus", "?"), shape,
                             "%.2f" % pub if pub else "-", "-", "not modelled", str(ex)))
    print("| run | GPUs | TP x PP x DP | published s/iter | weft s/iter | error | note |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s |" % " | ".join(str(x) for x in r))
    if errs:
        mae = sum(abs(e) for e in errs) / len(errs)
        print("\nmodelled %d of %d runs: mean |error| %.1f%%, max |error| %.1f%%"
              % (len(errs), len(rows), 100 * mae, 100 * max(abs(e) for e in errs)))
    else:
        print("\nno run modelled")


if __name__ == "__main__":
    main()
