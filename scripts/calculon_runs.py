#!/usr/bin/env python3
"""calculon_runs.py — Calculon's predicted iteration time for the published
runs of data/validation/runs.yml it can express, next to the published time;
writes data/validation/calculon.yml (docs/validation_runs.md, "Calculon").

usage: /usr/bin/python3 scripts/calculon_runs.py CALCULON_CHECKOUT [--markdown [WEFT]]

Run by hand, not in CI. Calculon (github.com/calculon-ai/calculon) is not
vendored: clone it (the commit below), install Debian's python3-numpy,
python3-pandas, python3-psutil and python3-yaml (scripts/deps.sh --calculon)
and run this with Debian's python3. Without --markdown it prints the YAML
for data/validation/calculon.yml; with --markdown a table, and with WEFT (a
weft binary) weft's prediction beside each row (scripts/validation_runs.py).

Two sets of rows, both on Calculon's own system files, nothing fitted:
- "validation": Calculon's own `llm-validation` seqsel_tab5 cases (its model,
  execution and system files, unchanged): Korthikanti et al. Table 5.
- "mapped": every other run whose model and parallelization Calculon's
  inputs can say, by fixed rules (MAPPING below), with weft's harness's
  assumptions where the run publishes nothing (micro-batch 1, no
  recompute); the others are listed with the reason.
"""
import os
import subprocess
import sys
import traceback

import yaml

COMMIT = "caa4b11f8fe1fee3ba57adaacb7590d7deabd053"
SYSTEM = {"a100-80gb": "systems/a100_80g.json", "h100-sxm": "systems/h100_80g_nvl8.json"}
# Calculon's seqsel_tab5 cases: (model file, mode) -> our run id.
TAB5 = {("megatron-22B", "full"): "korthikanti-22b-full",
        ("megatron-22B", "seqsel"): "korthikanti-22b-seqsel",
        ("gpt3-175B", "full"): "korthikanti-175b-full",
        ("gpt3-175B", "seqsel"): "korthikanti-175b-seqsel",
        ("turing-530B", "full"): "korthikanti-530b-full",
        ("turing-530B", "seqsel"): "korthikanti-530b-seqsel",
        ("megatron-1T", "full"): "korthikanti-1t-full",
        ("megatron-1T", "seqsel"): "korthikanti-1t-seqsel"}
RECOMPUTE = {"full": "full", "selective": "attn_only", "none": "none", None: "none"}
MAPPING = """\
model: layers -> num_blocks, hidden, heads -> attn_heads, hidden/heads ->
  attn_size, ffn_hidden (default 4 x hidden) -> feedforward, seq_len ->
  seq_size; only GeLU MLPs with multi-head attention (kv_heads = heads):
  Calculon's block has no SwiGLU, grouped-query, latent attention or MoE.
system: Calculon's systems/a100_80g.json (A100 80GB runs) or
  systems/h100_80g_nvl8.json (H100 SXM runs), unchanged; bf16 runs use its
  float16 rates (the same peak on A100 and H100).
execution: num_procs, tensor_par, pipeline_par, data_par, batch_size,
  microbatch_size (1 when not published), pipeline_interleaving (vp, 1 when
  not published) as published; tensor_par_net 0, pipeline_par_net 1,
  data_par_net 1; recompute full -> full, selective -> attn_only, none or
  not published -> none; sequence parallel -> tensor_par_comm_type rs_ag
  with seq_par_ag_redo, else ar; ZeRO >= 1 -> optimizer_sharding. The rest
  as in Calculon's own Table 5 files: float16, fused_activation false,
  multihead attention, no TP or DP overlap, no offload, training."""


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def import_calculon(checkout):
    sys.path.insert(0, os.path.abspath(checkout))
    import calculon  # noqa: E402  (from the checkout)
    from calculon.llm import Llm  # noqa: E402
    return calculon, Llm


def commit_of(checkout):
    p = subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True,
                       text=True)
    return p.stdout.strip() if p.returncode == 0 else "unknown"


def predict(calculon, Llm, checkout, app_cfg, exe_cfg, system):
    """Calculon's total_time in s (its Llm.run, as llm-validation calls it)."""
    syst = calculon.System(calculon.io.read_json_file(os.path.join(checkout, system)))
    app = Llm.Application(app_cfg)
    exe = Llm.Execution.from_json(exe_cfg)
    model = Llm(app, _Quiet())
    model.compile(syst, exe)
    model.run(syst)
    return model.get_stats_json(False)["total_time"]


class _Quiet:
    """A logger that drops Calculon's messages."""

    def __getattr__(self, name):
        return lambda *a, **k: None


def model_of(run):
    m = run["model"]
    doc = load(os.path.join("data/zoo/models", m["zoo"] + ".yml")) if "zoo" in m else m
    if m.get("attention") or doc.get("moe"):
        raise ValueError("not a dense multi-head transformer (%s)" % (m.get("attention") or "MoE"))
    if (doc.get("ffn") or "gelu") != "gelu":
        raise ValueError("%s MLP: Calculon's block is a GeLU MLP" % doc["ffn"])
    heads = int(doc["heads"])
    if doc.get("kv_heads") and int(doc["kv_heads"]) != heads:
        raise ValueError("grouped-query attention (%d KV heads)" % doc["kv_heads"])
    hidden = int(doc["hidden"])
    seq = int(m.get("seq_len") or doc["seq_len"])
    return {"hidden": hidden, "feedforward": int(doc.get("ffn_hidden") or 4 * hidden),
            "seq_size": seq, "attn_heads": heads, "attn_size": hidden // heads,
            "num_blocks": int(doc["layers"])}


def execution_of(run, assumed):
    p = run["parallel"]
    if (p.get("cp") or 1) > 1 or (p.get("ep") or 1) > 1:
        raise ValueError("context or expert parallelism")
    mb = p.get("micro_batch")
    if not mb:
        mb = 1
        assumed.append("micro-batch 1")
    if p.get("recompute") is None:
        assumed.append("no recompute")
    sp = bool(p.get("sp"))
    return {"num_procs": int(run["gpus"]), "tensor_par": int(p.get("tp") or 1),
            "pipeline_par": int(p.get("pp") or 1), "data_par": int(p.get("dp") or 1),
            "tensor_par_net": 0, "pipeline_par_net": 1, "data_par_net": 1,
            "batch_size": int(p["global_batch"]), "microbatch_size": int(mb),
            "datatype": "float16", "fused_activation": False, "attention_type": "multihead",
            "activation_recompute": RECOMPUTE[p.get("recompute")],
            "pipeline_interleaving": int(p.get("vp") or 1),
            "optimizer_sharding": (p.get("zero") or 0) >= 1,
            "tensor_par_comm_type": "rs_ag" if sp else "ar", "tensor_par_overlap": "none",
            "seq_par_ag_redo": sp, "data_par_overlap": False, "weight_offload": False,
            "activations_offload": False, "optimizer_offload": False, "training": True}


def rows(checkout):
    calculon, Llm = import_calculon(checkout)
    runs = {r["id"]: r for r in load("data/validation/runs.yml")["runs"]}
    out = []
    for (model, mode), rid in TAB5.items():  # Calculon's own validation, its files
        app = calculon.io.read_json_file(os.path.join(checkout, "models", model + ".json"))
        exe = calculon.io.read_json_file(
            os.path.join(checkout, "validation", "seqsel", "tab5", "%s_%s.json" % (model, mode)))
        # The mapping rules must give exactly Calculon's own inputs here.
        same = model_of(runs[rid]) == app and execution_of(runs[rid], []) == exe
        if not same:
            print("calculon_runs.py: the mapping of %s differs from Calculon's %s_%s files"
                  % (rid, model, mode), file=sys.stderr)
        t = predict(calculon, Llm, checkout, app, exe, "systems/a100_80g.json")
        out.append({"run": rid, "set": "validation", "mapping_reproduces": same,
                    "inputs": "models/%s.json, validation/seqsel/tab5/%s_%s.json, "
                              "systems/a100_80g.json" % (model, model, mode),
                    "published_s": runs[rid]["s_per_iter"], "calculon_s": t})
    for rid, run in runs.items():
        if any(r["run"] == rid for r in out):
            continue
        row = {"run": rid, "set": "mapped", "published_s": run.get("s_per_iter")}
        assumed = []
        try:
            gpu = run["hardware"]["gpu"]
            app, exe = model_of(run), execution_of(run, assumed)
            if gpu not in SYSTEM:
                raise ValueError("no Calculon system file for %s" % gpu)
            row["inputs"] = SYSTEM[gpu]
            row["calculon_s"] = predict(calculon, Llm, checkout, app, exe, SYSTEM[gpu])
        except (ValueError, KeyError, Llm.Error) as ex:
            row["not_modelled"] = str(ex.args[0] if ex.args else ex)
        except AssertionError as ex:  # Calculon checks some inputs with assert
            last = traceback.extract_tb(ex.__traceback__)[-1]
            row["not_modelled"] = "Calculon: %s" % (ex.args[0] if ex.args else last.line)
        if assumed:
            row["assumed"] = ", ".join(assumed)
        out.append(row)
    for r in out:
        if "calculon_s" in r and r["published_s"]:
            r["error_pct"] = 100.0 * (r["calculon_s"] - r["published_s"]) / r["published_s"]
    return out


def summary(out, which):
    e = [abs(r["error_pct"]) for r in out if r["set"] in which and "error_pct" in r]
    return (len(e), sum(e) / len(e), max(e)) if e else (0, 0.0, 0.0)


HEADER = """\
# Calculon's predictions for the published runs of runs.yml. GENERATED by
# scripts/calculon_runs.py (do not edit by hand); reproduce with
#   git clone https://github.com/calculon-ai/calculon /tmp/calculon
#   git -C /tmp/calculon checkout {commit}
#   scripts/deps.sh --calculon   # Debian: python3-numpy, -pandas, -psutil, -yaml
#   /usr/bin/python3 scripts/calculon_runs.py /tmp/calculon > data/validation/calculon.yml
# Calculon: Isaev, McDonald, Dennison, Vuduc, "Calculon: a Methodology and
# Tool for High-Level Co-Design of Systems and Large Language Models", SC23
# (doi 10.1145/3581784.3607102). Its `calculon llm-validation` prints the
# "validation" rows' times (seqsel_tab5) with error = 1 - predicted/profiled;
# here error_pct = (calculon_s - published_s) / published_s, weft's sign
# (positive: predicted slower than measured).
#
# set: validation = Calculon's own seqsel_tab5 case (its files, unchanged;
#      mapping_reproduces: the rules below turn the run of runs.yml into
#      exactly those files' inputs);
#      mapped = runs.yml's run on Calculon's system file by these rules:
{mapping}
"""


def as_yaml(out, commit):
    mapping = "\n".join("#   " + line for line in MAPPING.splitlines())
    text = HEADER.format(commit=commit, mapping=mapping)
    text += "calculon_commit: %s\n" % commit
    n, mae, mx = summary(out, ("validation",))
    text += ("validation_summary: {runs: %d, mean_abs_error_pct: %.2f, max_abs_error_pct: %.2f}\n"
             % (n, mae, mx))
    n, mae, mx = summary(out, ("validation", "mapped"))
    text += ("all_summary: {runs: %d, mean_abs_error_pct: %.2f, max_abs_error_pct: %.2f}\n"
             % (n, mae, mx))
    text += "runs:\n"
    for r in out:
        keys = ["run", "set", "published_s", "calculon_s", "error_pct", "mapping_reproduces",
                "inputs", "assumed", "not_modelled"]
        parts = []
        for k in keys:
            if k not in r:
                continue
            v = r[k]
            if isinstance(v, bool):
                v = "true" if v else "false"
            elif isinstance(v, float):
                v = "%.4f" % v if k == "calculon_s" else "%.2f" % v
            elif isinstance(v, str) and k != "set":
                v = '"%s"' % v.replace('"', "'")
            parts.append("%s: %s" % (k, v))
        text += "  - {%s}\n" % ", ".join(parts)
    return text


def weft_rows(weft):
    """run id -> (weft s/iter, error) from scripts/validation_runs.py's table."""
    p = subprocess.run([sys.executable, "scripts/validation_runs.py", weft],
                       capture_output=True, text=True)
    got = {}
    for line in p.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 6 and cells[5].endswith("%"):
            got[cells[0]] = (cells[4], cells[5])
    return got


def as_markdown(out, weft):
    w = weft_rows(weft) if weft else {}
    print("| run | set | published s/iter | Calculon s/iter | Calculon error |%s note |"
          % (" weft s/iter | weft error |" if weft else ""))
    print("|---|---|---|---|---|%s---|" % ("---|---|" if weft else ""))
    for r in out:
        pub = "%.2f" % r["published_s"] if r["published_s"] else "-"
        if "calculon_s" in r:
            c, e = "%.2f" % r["calculon_s"], "%+.1f%%" % r["error_pct"]
        else:
            c, e = "-", "not modelled"
        cols = [r["run"], r["set"], pub, c, e]
        if weft:
            cols += list(w.get(r["run"], ("-", "not modelled")))
        cols.append(r.get("not_modelled") or r.get("assumed") or "")
        print("| %s |" % " | ".join(cols))
    for label, which in (("Calculon's validation", ("validation",)),
                         ("all Calculon rows", ("validation", "mapped"))):
        n, mae, mx = summary(out, which)
        print("\n%s: %d runs, mean |error| %.1f%%, max |error| %.1f%%" % (label, n, mae, mx))


def main():
    args = [a for a in sys.argv[1:]]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    checkout = args[0]
    commit = commit_of(checkout)
    if commit != COMMIT:
        print("calculon_runs.py: %s is at %s, the recorded numbers are of %s"
              % (checkout, commit, COMMIT), file=sys.stderr)
    out = rows(checkout)
    if "--markdown" in args:
        i = args.index("--markdown")
        as_markdown(out, args[i + 1] if i + 1 < len(args) else None)
    else:
        sys.stdout.write(as_yaml(out, commit))


if __name__ == "__main__":
    main()
