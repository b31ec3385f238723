#!/usr/bin/env python3
"""check.py - how well weft's compute model predicts the measured tables
(docs/zoo.md, "Measured tables"), through the built library.

usage: scripts/measure/check.py gemm [DEVICE]    held-out GEMM shapes, per rule
       scripts/measure/check.py layer [DEVICE]   weft's layer vs DEVICE_layer.csv
       scripts/measure/check.py sac [DEVICE]     torchtitan_op vs DEVICE_sac_check.csv
       scripts/measure/check.py cp [DEVICE]      CP ring steps vs DEVICE_cp_flash_check.csv
       scripts/measure/check.py wgrad [DEVICE]   main_grad accumulation vs DEVICE_wgrad_accum.csv
       scripts/measure/check.py sustained [DEVICE]  a layer's burst and sustained step vs
                                                 DEVICE_sustained_layer.csv
       scripts/measure/check.py fp8layer [DEVICE]   a layer's GEMMs, FP8 and BF16, vs
                                                 DEVICE_fp8_layer_gemms.csv
       scripts/measure/check.py grouped [DEVICE]    MoE experts' GEMMs vs a public grouped-GEMM
                                                 benchmark (TE PR #2045)

gemm: the GEMM table is split three ways, each time the tables of the
training part are read by weft as a device's own (a scratch zoo), and every
held-out shape is predicted by
  datasheet  the device without tables (waves of tiles at gemm_efficiency);
  xla        the shape model with h100-xla's parameters (XLA's public table);
  fit        the shape model with parameters fitted to the training rows;
  weft       weft's rule (measured.c): the fit times the measured/fitted
             ratio of the 4 nearest training shapes in (ln m, ln n, ln k),
             weighted by 1 / distance;
  nearest    the efficiency of the nearest training shape in (ln m, ln n, ln k)
             (for comparison: pure interpolation, no model).
Splits: "tokens" holds out every zoo shape at 4096 tokens (trained on 1k and
16k: interpolation in the token count), "model" each model in turn (its
shapes unseen), "random" a seeded quarter. Printed per type (bf16, fp8,
fp8_fast): mean |error| of time, max |error|, and the time-weighted mean
(sum |predicted - measured| / sum measured: the error in a sum of GEMMs).

layer: for each row of DEVICE_layer.csv (one transformer layer's per-GPU
shard in plain PyTorch: RMSNorm, SDPA, SwiGLU or GeLU, no communication),
weft's forward and backward time of that layer (opcost.c's attention and
MLP blocks, each kernel launched eagerly as the layer was: opcost.c's
launch cost), with the tables and without (the datasheet rates), and the
share of weft's time in GEMMs. PyTorch's SDPA runs FlashAttention (not
cuDNN) unless told otherwise: the attention in this check is charged at the
flash rows (weft's default for Transformer Engine runs is cuDNN's).
sac: for each shape of DEVICE_sac_check.csv (sac_check.py: one Llama layer with
no checkpointing and with torchtitan's op policy, eager and compiled), what the
policy costs (its fwd+bwd less the no-checkpointing one's) against weft's
recompute_modules torchtitan_op (the recomputed GEMMs, opcost.c, at the tables'
burst rates), and the bytes the policy's forward keeps against weft's (the
activation memory of one layer more, weft.workload, less the layer's input,
which the measurement does not count).
cp: each kernel of DEVICE_cp_flash_check.csv (FlashAttention-2 at a CP ring
step's shapes, S x S causal, S x S/2 and S/2 x S unmasked, S up to 32K) against
weft's flash rows read as opcost.c reads them for a ring step (a forward's
m x n from the row of seq n and batch x heads x m / n, a backward's from the
square of the same area), burst rates.
wgrad: each weight-gradient GEMM of DEVICE_wgrad_accum.csv (cuBLASLt, adding
into an fp32 or bf16 main_grad against writing bf16) as weft charges it with
and without the accumulation (opcost.c wgrad_acc_ns, OC_WGRAD_HIDE): the
ratio of the two against the measured one (the table's own GEMM time cancels).
sustained: each layer of DEVICE_sustained_layer.csv (a Llama layer's shard run
eagerly in a burst and then back to back for seconds at the power limit) against
weft's layer (as `layer` computes it) at the tables' burst rates and with the
device's sustained factor (DEVICE_sustained.csv's, as weft's devices read it).
fp8layer: each layer of DEVICE_fp8_layer_gemms.csv (its twelve GEMMs run as one
sequence, BF16 and FP8; the mean over the file's runs) against the sum of weft's GEMM times for that layer's
attention and MLP blocks at the tables' burst rates (launch gaps included,
the weight gradients written, not added), and the FP8/BF16 ratio of each: the
tables alone, without the FP8 layer factor weft works out from these files.
(The _each file's GEMMs timed alone wait for each call's CPU dispatch, about
50 us for a scaled FP8 call: not kernel times, not compared.)
grouped: the experts' GEMMs of a rank as weft times them (one batch of g
GEMMs, their tiles in waves together) and the g GEMMs one after another, at
the tables' burst rates, against the rates Transformer Engine's maintainers
published for its grouped GEMM (TE PR #2045, "Cutlass GroupGEMM support for
H100 (SM90)", BF16: TE 2.2 and TE 2.7 multi-stream cuBLAS, the path
Megatron's TEGroupedMLP runs, and the CUTLASS grouped kernel). A check,
not an input: docs/zoo.md, "A public grouped-GEMM benchmark".
Needs the built library (make) and python3-yaml."""
import ctypes
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from ctypes import POINTER, byref, c_char_p, c_double, c_int, c_void_p

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
import weft  # noqa: E402,F401
from weft import _lib, _libx  # noqa: E402
from weft._core import lib  # noqa: E402

DT = {"bf16": 0, "fp8": 1, "fp8_fast": 2}
PHASES = 3
OC_ATTN, OC_MLP = 0, 1
OC_GEMM, OC_FUSED = 1, 2


class OcOp(ctypes.Structure):  # src/model/opcost.h
    _fields_ = [("name", c_char_p), ("phase", c_int), ("kind", c_int), ("batch", c_double),
                ("m", c_double), ("n", c_double), ("k", c_double), ("flops", c_double),
                ("bytes", c_double), ("fp8", c_int), ("once", c_int), ("mem", c_int), ("elems", c_double),
                ("causal", c_int), ("count", c_double), ("cp_role", c_int), ("cp_rank", c_int)]


DEV = POINTER(_libx.WeftDevice)
for name, res, args in (
        ("weft_measured_of", c_void_p, [DEV]),
        ("weft_measured_gemm_ns", c_double, [c_void_p, c_int, c_double, c_double, c_double, c_double]),
        ("weft_measured_gemm_fit", c_int, [c_void_p, c_int, POINTER(c_double)]),
        ("weft_measured_attention_ns", c_double, [c_void_p, c_int, c_int, c_int, c_double, c_double,
                                                  c_double, c_double]),
        ("weft_gemm_ns", c_double, [DEV, c_double, c_double, c_double, c_double, c_double]),
        ("weft_opcost_layer", None, [POINTER(_libx.WeftModel), POINTER(_lib.WeftParallel), c_void_p]),
        ("weft_opcost_ops", c_int, [c_void_p, c_int, POINTER(OcOp), c_int]),
        ("weft_opcost_op_ns", c_double, [DEV, POINTER(OcOp), c_double]),
        ("weft_opcost_launch_ns", c_double, [c_double, c_int]),
        ("weft_opcost_block_titan_rc_ns", c_double, [DEV, c_void_p, c_int]),
        ("weft_opcost_layer_op_ns", c_double, [DEV, c_void_p, POINTER(OcOp)]),
        ("weft_parallel_default", None, [POINTER(_lib.WeftParallel)])):
    f = getattr(lib, name)
    f.restype, f.argtypes = res, args


def rows_of(path):
    """(header, rows as dicts) of a measured CSV."""
    lines = [ln.rstrip("\r\n") for ln in open(path) if ln.strip() and not ln.startswith("#")]
    head = lines[0].split(",")
    return head, [dict(zip(head, ln.split(","))) for ln in lines[1:]]


def device_tables(device, kinds=("gemm", "attention", "memory", "launch")):
    """{kind: (header, rows)} of the device's measured tables that exist."""
    out = {}
    for k in kinds:
        p = os.path.join(ROOT, "data/measured/%s_%s.csv" % (device, k))
        if os.path.exists(p):
            out[k] = rows_of(p)
    return out


def device_block(device):
    """The device's entry of data/zoo/devices.yml, as text, without its measured key."""
    out, inside = [], False
    for ln in open(os.path.join(ROOT, "data/zoo/devices.yml")):
        if not ln.startswith((" ", "#")) and ln.strip():
            inside = ln.startswith(device + ":")
        if inside and not ln.strip().startswith("measured:"):
            out.append(ln)
    return "".join(out)


def scratch_zoo(tmp, device, tables):
    """tmp/zoo/devices.yml: the device as `with` (tables in tmp/measured/tab_*.csv) and as
    `without` (measured: none); tables {suffix: (header, rows)}."""
    os.makedirs(os.path.join(tmp, "zoo"), exist_ok=True)
    os.makedirs(os.path.join(tmp, "measured"), exist_ok=True)
    block = device_block(device).split("\n", 1)[1]
    with open(os.path.join(tmp, "zoo", "devices.yml"), "w") as f:
        f.write("with:\n" + block.rstrip("\n") + "\n  measured: tab\n")
        f.write("without:\n" + block.rstrip("\n") + "\n  measured: none\n")
    for suffix, (head, rows) in tables.items():
        with open(os.path.join(tmp, "measured", "tab_%s.csv" % suffix), "w") as f:
            f.write(",".join(head) + "\n")
            for r in rows:
                f.write(",".join(r[h] for h in head) + "\n")
    return os.path.join(tmp, "zoo")


def load(zoo, name):
    d, err = _libx.WeftDevice(), _lib.WeftError()
    if lib.weft_zoo_device(zoo.encode(), name.encode(), byref(d), byref(err)):
        sys.exit("check.py: %s: %s" % (name, _lib.text(err.msg)))
    return d


def shape_ns(d, eff, k0, t0, rate, m, n, k):
    e = _libx.WeftDevice()
    ctypes.memmove(byref(e), byref(d), ctypes.sizeof(e))
    e.gemm_eff_max, e.gemm_k0, e.gemm_t0_ns = eff, k0, t0
    return lib.weft_gemm_ns(byref(e), rate, 1, m, n, k)


# ------------------------------------------------------------------ gemm

def label_model(lab):
    return lab.split(" ")[0]


def label_tokens(lab):
    parts = [p for p in lab.split(" ") if p.startswith("t") and p[1:].isdigit()]
    return int(parts[0][1:]) if parts else 0


def predict_split(device, head, train, test):
    """{rule: {dtype: [errors]}} for the test rows, weft reading the train rows."""
    tmp = tempfile.mkdtemp(prefix="weft_check_")
    try:
        zoo = scratch_zoo(tmp, device, {"gemm": (head, train)})
        dw, dn = load(zoo, "with"), load(zoo, "without")
        xla = load(os.path.join(ROOT, "data/zoo"), device + "-xla") if device == "h100" else None
        t = lib.weft_measured_of(byref(dw))
        fits = {}
        for dt, i in DT.items():
            p = (c_double * 3)()
            if lib.weft_measured_gemm_fit(t, i, p):
                fits[dt] = tuple(p)
        train_eff = {}
        for r in train:
            m, n, k = (float(r[x]) for x in "mnk")
            train_eff.setdefault(r["dtype"], []).append(
                (math.log(m), math.log(n), math.log(k), 2 * m * n * k / (float(r["time_us"]) * 1e3)))
        out = {}
        for r in test:
            dt = r["dtype"]
            if dt not in fits:
                continue
            m, n, k = (float(r[x]) for x in "mnk")
            ns = float(r["time_us"]) * 1e3
            rate = dn.peak_flops if dt == "bf16" else dn.peak_fp8_flops
            pred = {"datasheet": lib.weft_gemm_ns(byref(dn), rate, 1, m, n, k),
                    "fit": shape_ns(dn, *fits[dt], rate, m, n, k),
                    "weft": lib.weft_measured_gemm_ns(t, DT[dt], 1, m, n, k)}
            if xla is not None:
                pred["xla"] = shape_ns(dn, xla.gemm_eff_max, xla.gemm_k0, xla.gemm_t0_ns, rate, m, n, k)
            q = (math.log(m), math.log(n), math.log(k))
            near = min(train_eff[dt], key=lambda e: sum((a - b) ** 2 for a, b in zip(e[:3], q)))
            pred["nearest"] = 2 * m * n * k / near[3]
            for rule, v in pred.items():
                out.setdefault(rule, {}).setdefault(dt, []).append((v / ns - 1, ns))
        return out
    finally:
        shutil.rmtree(tmp)


def gemm(device, split=None):
    head, rows = rows_of(os.path.join(ROOT, "data/measured/%s_gemm.csv" % device))
    if split is None:  # each split in its own process: weft keeps 8 table sets a process
        print("| split | rule | bf16 | fp8 | fp8_fast |")
        print("|---|---|---|---|---|")
        for s in ("tokens", "model", "random"):
            sys.stdout.flush()
            subprocess.run([sys.executable, __file__, "gemm", device, s], check=True)
        return
    if split == "tokens":
        parts = [([r for r in rows if label_tokens(r["label"]) != 4096],
                  [r for r in rows if label_tokens(r["label"]) == 4096])]
    elif split == "model":
        models = sorted({label_model(r["label"]) for r in rows} - {"square"})
        parts = [([r for r in rows if label_model(r["label"]) != mo],
                  [r for r in rows if label_model(r["label"]) == mo]) for mo in models]
    else:
        rnd = random.Random(25)
        pick = [rnd.random() < 0.25 for _ in rows]
        parts = [([r for r, p in zip(rows, pick) if not p], [r for r, p in zip(rows, pick) if p])]
    errs = {}
    for train, test in parts:
        for rule, by in predict_split(device, head, train, test).items():
            for dt, e in by.items():
                errs.setdefault(rule, {}).setdefault(dt, []).extend(e)
    for rule in ("datasheet", "xla", "fit", "nearest", "weft"):
        if rule not in errs:
            continue
        cells = []
        for dt in DT:
            e = [(abs(x), ns) for x, ns in errs[rule].get(dt, [])]
            cells.append("%.1f%% / %.1f%% / %.1f%%" % (
                100 * sum(x for x, _ in e) / len(e), 100 * max(x for x, _ in e),
                100 * sum(x * ns for x, ns in e) / sum(ns for _, ns in e)) if e else "-")
        print("| %s | %s | %s |" % (split, rule, " | ".join(cells)))


# ------------------------------------------------------------------ layer

GATED = ("llama",)  # measure.py's MODELS: the Llama 3 shapes have a gated (SwiGLU) MLP


def layer_times(d, r, flash, launch=True):
    """(fwd ns, bwd ns, GEMM share) of weft's attention + MLP blocks for a layer row."""
    m, par = _libx.WeftModel(), _lib.WeftParallel()
    lib.weft_parallel_default(byref(par))
    m.hidden, m.heads, m.kv_heads = int(r["hidden"]), int(r["heads"]), int(r["kv_heads"])
    m.seq_len, m.ffn_hidden, m.layers = int(r["seq"]), int(r["ffn"]), 1
    m.ffn_matrices = 3 if r["name"].startswith(GATED) else 2
    par.tp, par.pp, par.dp, par.micro_batch = int(r["tp"]), 1, 1, int(r["batch"])
    par.attention, par.act_bytes = 1, 2.0
    layer = ctypes.create_string_buffer(4096)
    lib.weft_opcost_layer(byref(m), byref(par), layer)
    t = lib.weft_measured_of(byref(d))
    ns, gemm_ns = [0.0] * PHASES, 0.0
    for blk in (OC_ATTN, OC_MLP):
        ops = (OcOp * 256)()
        for i in range(lib.weft_opcost_ops(layer, blk, ops, 256)):
            op = ops[i]
            x = lib.weft_opcost_op_ns(byref(d), byref(op), 2.0)
            if op.kind == OC_FUSED and flash and t:  # PyTorch's SDPA: FlashAttention
                bwd = op.phase != 0
                fl = 4 * op.batch * op.m * op.n * op.k * (2.5 if bwd else 1) * (0.5 if op.causal else 1)
                x = lib.weft_measured_attention_ns(t, 1, bwd, op.causal, op.n, op.k, op.batch, fl)
            if launch:  # each kernel launched eagerly, as the layer ran (opcost.c)
                x = lib.weft_opcost_launch_ns(x, 0)
            ns[op.phase] += x
            gemm_ns += x if op.kind == OC_GEMM else 0
    return ns[0], ns[1] + ns[2], gemm_ns / sum(ns)


def layer(device):
    path = os.path.join(ROOT, "data/measured/%s_layer.csv" % device)
    _, rows = rows_of(path)
    tmp = tempfile.mkdtemp(prefix="weft_check_")
    try:
        tables = device_tables(device)
        zoo = scratch_zoo(tmp, device, tables)
        dw, dn = load(zoo, "with"), load(zoo, "without")
        print("| layer | TP | seq | measured fwd ms | weft fwd | error | measured bwd ms | weft bwd "
              "| error | datasheet fwd / bwd error | GEMM share |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        errs, gb = [], []
        for r in rows:
            f, b, share = layer_times(dw, r, True)
            f0, b0, _ = layer_times(dn, r, False)
            mf, mb = float(r["fwd_us"]) * 1e3, float(r["bwd_us"]) * 1e3
            ef, eb = f / mf - 1, b / mb - 1
            errs += [abs(ef), abs(eb)]
            if share >= 0.8:
                gb += [abs(ef), abs(eb)]
            print("| %s | %s | %s | %.3f | %.3f | %+.1f%% | %.3f | %.3f | %+.1f%% | %+.1f%% / %+.1f%% "
                  "| %.0f%% |" % (r["name"], r["tp"], r["seq"], mf / 1e6, f / 1e6, 100 * ef, mb / 1e6,
                                  b / 1e6, 100 * eb, 100 * (f0 / mf - 1), 100 * (b0 / mb - 1),
                                  100 * share))
        print("\n%d layers: mean |error| %.1f%%, max %.1f%%; GEMM-bound (GEMM share >= 80%%, %d "
              "passes): mean %.1f%%, max %.1f%%" % (len(rows), 100 * sum(errs) / len(errs),
                                                    100 * max(errs), len(gb),
                                                    100 * sum(gb) / max(len(gb), 1),
                                                    100 * max(gb or [0])))
    finally:
        shutil.rmtree(tmp)


# ------------------------------------------------------------------ sac

def sac_kept_bytes(r, tmp):
    """The bytes one more layer adds to weft's activation memory under torchtitan_op."""
    out = []
    for layers in (2, 3):
        path = os.path.join(tmp, "m%d.yml" % layers)
        with open(path, "w") as f:
            f.write("name: sac\narch: transformer\nlayers: %d\nhidden: %s\nheads: %s\nkv_heads: %s\n"
                    "ffn: swiglu\nffn_hidden: %s\nvocab: 128\nseq_len: %s\nglobal_batch: %s\n"
                    % (layers, r["hidden"], r["heads"], r["kv_heads"], r["ffn"], r["seq"],
                       8 * int(r["batch"])))
        w = weft.workload(path, cluster="dgx-h100", npus=8, dp=8, mb=int(r["batch"]),
                          attention="fa2", recompute="selective", recompute_modules="torchtitan_op")
        out.append(w["memory_bytes"]["activations"])
    return out[1] - out[0]


def sac(device):
    _, rows = rows_of(os.path.join(ROOT, "data/measured/%s_sac_check.csv" % device))
    tmp = tempfile.mkdtemp(prefix="weft_check_")
    try:
        tables = device_tables(device)
        dw = load(scratch_zoo(tmp, device, tables), "with")
        base = {(r["name"], r["batch"], r["compiled"]): r for r in rows if r["mode"] == "none"}
        print("| layer | batch | seq | compiled | recomputed ms | weft | error | kept MiB | weft | error |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        errs = []
        for r in rows:
            if r["mode"] != "op":
                continue
            m, par = _libx.WeftModel(), _lib.WeftParallel()
            lib.weft_parallel_default(byref(par))
            m.hidden, m.heads, m.kv_heads = int(r["hidden"]), int(r["heads"]), int(r["kv_heads"])
            m.seq_len, m.ffn_hidden, m.layers, m.ffn_matrices = int(r["seq"]), int(r["ffn"]), 1, 3
            par.tp, par.pp, par.dp, par.micro_batch = 1, 1, 1, int(r["batch"])
            par.attention, par.act_bytes = 1, 2.0
            layer = ctypes.create_string_buffer(4096)
            lib.weft_opcost_layer(byref(m), byref(par), layer)
            ns = sum(lib.weft_opcost_block_titan_rc_ns(byref(dw), layer, b) for b in (OC_ATTN, OC_MLP))
            meas = (float(r["fwdbwd_us"]) - float(base[(r["name"], r["batch"], r["compiled"])]["fwdbwd_us"])) * 1e3
            tokens = int(r["batch"]) * int(r["seq"])
            kept = (sac_kept_bytes(r, tmp) - 2 * tokens * int(r["hidden"])) / 2**20
            mk = float(r["saved_mib"])
            e1, e2 = ns / meas - 1, kept / mk - 1
            if r["compiled"] == "1":
                errs += [abs(e1), abs(e2)]
            print("| %s | %s | %s | %s | %.2f | %.2f | %+.1f%% | %.0f | %.0f | %+.1f%% |"
                  % (r["name"], r["batch"], r["seq"], "yes" if r["compiled"] == "1" else "no",
                     meas / 1e6, ns / 1e6, 100 * e1, mk, kept, 100 * e2))
        print("\ncompiled rows: mean |error| %.1f%%, max %.1f%%"
              % (100 * sum(errs) / max(len(errs), 1), 100 * max(errs or [0])))
    finally:
        shutil.rmtree(tmp)


# ------------------------------------------------------------------ cp

def cp(device):
    _, rows = rows_of(os.path.join(ROOT, "data/measured/%s_cp_flash_check.csv" % device))
    tmp = tempfile.mkdtemp(prefix="weft_check_")
    try:
        tables = device_tables(device, ("gemm", "attention"))
        t = lib.weft_measured_of(byref(load(scratch_zoo(tmp, device, tables), "with")))
        print("| heads | q | kv | causal | measured fwd ms | weft | error | measured bwd ms | weft | error |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        errs = []
        for r in rows:
            h, m, n, c = int(r["heads"]), int(r["q"]), int(r["kv"]), int(r["causal"])
            out = []
            for bwd in (0, 1):
                fl = 4.0 * h * m * n * 128 * (2.5 if bwd else 1) * (0.5 if c else 1)
                seq, bh = float(n), float(h)
                if not c and m != n:  # opcost.c's measured_other for a ring step
                    seq, bh = (math.sqrt(m * n), h) if bwd else (n, h * m / n)
                out.append(lib.weft_measured_attention_ns(t, 1, bwd, c, seq, 128.0, bh, fl))
            mf, mb = float(r["fwd_us"]) * 1e3, float(r["bwd_us"]) * 1e3
            ef, eb = out[0] / mf - 1, out[1] / mb - 1
            errs += [abs(ef), abs(eb)]
            print("| %d | %d | %d | %s | %.2f | %.2f | %+.1f%% | %.2f | %.2f | %+.1f%% |"
                  % (h, m, n, "yes" if c else "no", mf / 1e6, out[0] / 1e6, 100 * ef, mb / 1e6,
                     out[1] / 1e6, 100 * eb))
        print("\n%d kernels: mean |error| %.1f%%, max %.1f%%" % (len(rows), 100 * sum(errs) / len(errs),
                                                              100 * max(errs)))
    finally:
        shutil.rmtree(tmp)


# ------------------------------------------------------------------ wgrad

def wgrad(device):
    _, rows = rows_of(os.path.join(ROOT, "data/measured/%s_wgrad_accum.csv" % device))
    t = {(r["m"], r["n"], r["t"], r["dtype"], r["out"], r["beta"]): float(r["time_us"]) for r in rows}
    tmp = tempfile.mkdtemp(prefix="weft_check_")
    try:
        tables = device_tables(device, ("gemm",))
        d = load(scratch_zoo(tmp, device, tables), "with")
        print("| m | n | t | GEMM | main_grad | measured | weft | error |")
        print("|---|---|---|---|---|---|---|---|")
        errs = []
        for key in sorted({k[:3] for k in t}, key=lambda k: (int(k[2]), int(k[0]), int(k[1]))):
            m, n, tok = (float(x) for x in key)
            for dt in ("fp8", "bf16"):
                for out, gb in (("bf16", 2.0), ("fp32", 4.0)):
                    meas = t[key + (dt, out, "1")] / t[key + (dt, "bf16", "0")]
                    ns = []
                    for zero in (3, 1):  # ZeRO-3: written; 1: added into main_grad
                        mo, par = _libx.WeftModel(), _lib.WeftParallel()
                        lib.weft_parallel_default(byref(par))
                        mo.hidden, mo.heads, mo.kv_heads, mo.seq_len, mo.ffn_hidden = 64, 1, 1, 64, 64
                        mo.layers, mo.ffn_matrices = 1, 2
                        par.tp = par.pp = par.dp = par.micro_batch = 1
                        par.act_bytes, par.grad_bytes, par.zero_stage = 2.0, gb, zero
                        layer = ctypes.create_string_buffer(4096)
                        lib.weft_opcost_layer(byref(mo), byref(par), layer)
                        op = OcOp(b"g", 2, OC_GEMM, 1.0, m, n, tok, 2 * m * n * tok, 0.0, 1 if dt == "fp8" else 0)
                        ns.append(lib.weft_opcost_layer_op_ns(byref(d), layer, byref(op)))
                    w = ns[1] / ns[0]
                    e = w / meas - 1
                    errs.append(abs(e))
                    print("| %d | %d | %d | %s | %s | %.3f | %.3f | %+.1f%% |" % (m, n, tok, dt, out, meas, w, 100 * e))
        print("\n%d GEMMs: mean |error| %.1f%%, max %.1f%% (time with main_grad / time writing bf16)"
              % (len(errs), 100 * sum(errs) / len(errs), 100 * max(errs)))
    finally:
        shutil.rmtree(tmp)


# ------------------------------------------------------------------ sustained

SUSTAINED_LAYERS = {  # sustained_layer.py's shards as layer rows (the model's heads, TP)
    "llama3-8b-tp1": dict(name="llama3-8b", hidden=4096, ffn=14336, heads=32, kv_heads=8, seq=4096, tp=1),
    "llama3-70b-tp4": dict(name="llama3-70b", hidden=8192, ffn=28672, heads=64, kv_heads=8, seq=8192, tp=4),
    "llama3-405b-tp8": dict(name="llama3-405b", hidden=16384, ffn=53248, heads=128, kv_heads=8, seq=8192,
                            tp=8)}


def sustained(device):
    _, rows = rows_of(os.path.join(ROOT, "data/measured/%s_sustained_layer.csv" % device))
    tmp = tempfile.mkdtemp(prefix="weft_check_")
    try:
        burst_dev = load(scratch_zoo(tmp, device, device_tables(device)), "with")
        full_dev = load(os.path.join(ROOT, "data/zoo"), device)
        print("| layer | measured burst ms | weft burst | error | measured sustained ms (x burst) | weft "
              "sustained (x burst) | error |")
        print("|---|---|---|---|---|---|---|")
        for name, spec in SUSTAINED_LAYERS.items():
            rr = [r for r in rows if r["name"] == name]
            if not rr:
                continue
            burst = float([r for r in rr if r["second"] == "-1"][0]["step_ms"])
            steady = sorted(float(r["step_ms"]) for r in rr if int(r["second"]) >= 5)
            sus = steady[len(steady) // 2]
            r = {k: str(v) for k, v in spec.items()}
            r["batch"] = "1"
            wb, ws = (sum(layer_times(d, r, True)[:2]) / 1e6 for d in (burst_dev, full_dev))
            print("| %s | %.2f | %.2f | %+.1f%% | %.2f (x%.3f) | %.2f (x%.3f) | %+.1f%% |"
                  % (name, burst, wb, 100 * (wb / burst - 1), sus, sus / burst, ws, ws / wb,
                     100 * (ws / sus - 1)))
    finally:
        shutil.rmtree(tmp)


# ------------------------------------------------------------------ fp8layer

FP8_LAYERS = {  # fp8_layer_gemms.py's shards (the model's heads, TP, tokens, MLP matrices)
    "llama3-8b-tp1": (4096, 14336, 32, 8, 4096, 1, 3),
    "llama3-70b-tp4": (8192, 28672, 64, 8, 8192, 4, 3),
    "llama3-405b-tp8": (16384, 53248, 128, 8, 8192, 8, 3),
    "gpt3-175b-tp4": (12288, 49152, 96, 96, 2048, 4, 2),
    "nemotron4-340b-tp8": (18432, 73728, 96, 8, 4096, 8, 2)}


def layer_gemm_ns(d, spec, fp8):
    """weft's GEMM time of one layer's attention and MLP blocks (launch gaps in, weights' gradients
    written: ZeRO-3)."""
    h, ffn, heads, kv, seq, tp, fm = spec
    m, par = _libx.WeftModel(), _lib.WeftParallel()
    lib.weft_parallel_default(byref(par))
    m.hidden, m.heads, m.kv_heads, m.seq_len, m.ffn_hidden, m.layers, m.ffn_matrices = \
        h, heads, kv, seq, ffn, 1, fm
    par.tp, par.pp, par.dp, par.micro_batch, par.zero_stage = tp, 1, 1, 1, 3
    par.attention, par.act_bytes, par.fp8 = 1, 2.0, 1 if fp8 else 0
    layer = ctypes.create_string_buffer(4096)
    lib.weft_opcost_layer(byref(m), byref(par), layer)
    ns = 0.0
    for blk in (OC_ATTN, OC_MLP):
        ops = (OcOp * 256)()
        for i in range(lib.weft_opcost_ops(layer, blk, ops, 256)):
            if ops[i].kind == OC_GEMM and ops[i].batch == 1 and ops[i].name not in (b"score", b"context"):
                ns += lib.weft_opcost_launch_ns(lib.weft_opcost_layer_op_ns(byref(d), layer, byref(ops[i])), 1)
    return ns


def fp8layer(device):
    _, rows = rows_of(os.path.join(ROOT, "data/measured/%s_fp8_layer_gemms.csv" % device))
    runs = {}  # (name, dtype): the runs' sequence times
    for r in rows:
        runs.setdefault((r["name"], r["dtype"]), []).append(float(r["seq_us"]))
    meas = {k: sum(v) / len(v) for k, v in runs.items()}
    spread = {}  # name: the FP8/BF16 ratio's range over the runs (the runs in order)
    for (name, dt), v in runs.items():
        if dt == "fp8" and (name, "bf16") in runs:
            q = [a / b for a, b in zip(v, runs[(name, "bf16")])]
            spread[name] = (min(q), max(q))
    tmp = tempfile.mkdtemp(prefix="weft_check_")
    try:
        d = load(scratch_zoo(tmp, device, device_tables(device, ("gemm",))), "with")
        print("| layer | BF16 measured ms | weft | error | FP8 measured ms | weft | error | FP8/BF16 measured "
              "(runs' range) | weft | weft / measured - 1 |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name, spec in FP8_LAYERS.items():
            if (name, "bf16") not in meas or (name, "fp8") not in meas:
                continue
            mb, mf = meas[(name, "bf16")] / 1e3, meas[(name, "fp8")] / 1e3
            wb, wf = layer_gemm_ns(d, spec, False) / 1e6, layer_gemm_ns(d, spec, True) / 1e6
            lo, hi = spread[name]
            print("| %s | %.2f | %.2f | %+.1f%% | %.2f | %.2f | %+.1f%% | %.3f (%.3f-%.3f) | %.3f | %+.1f%% |"
                  % (name, mb, wb, 100 * (wb / mb - 1), mf, wf, 100 * (wf / mf - 1), mf / mb, lo, hi,
                     wf / wb, 100 * (wf / wb / (mf / mb) - 1)))
    finally:
        shutil.rmtree(tmp)


# TE PR #2045 (NVIDIA/TransformerEngine, 2025-08): (g, m, n, k) and TFLOP/s of
# general_grouped_gemm, BF16: TE 2.2 multi-stream, TE 2.7 multi-stream, CUTLASS
# grouped (the maintainers' update, TE 2.7 and CUDA 12.9).
TE2045 = [((8, 4096, 768, 2048), 508.77, 627.903, 650.574),
          ((16, 2048, 768, 2048), 398.81, 553.945, 636.927)]


def grouped(device):
    tmp = tempfile.mkdtemp(prefix="weft_check_")
    try:
        d = load(scratch_zoo(tmp, device, device_tables(device, ("gemm",))), "with")
        t = lib.weft_measured_of(byref(d))
        print("| g x (m x n x k) | TE 2.2 multi-stream | TE 2.7 multi-stream | CUTLASS grouped "
              "| weft, as a batch | weft, each alone |")
        print("|---|---|---|---|---|---|")
        for i, ((g, m, n, k), te22, te27, cutlass) in enumerate(TE2045):
            fl = 2.0 * g * m * n * k
            batch = lib.weft_measured_gemm_ns(t, DT["bf16"], g, m, n, k)
            alone = g * lib.weft_measured_gemm_ns(t, DT["bf16"], 1, m, n, k)
            print("| %d x (%d x %d x %d) | %.0f%s | %.0f | %.0f | %.0f | %.0f |"
                  % (g, m, n, k, te22, " TFLOP/s" if i == 0 else "", te27, cutlass, fl / batch / 1e3,
                     fl / alone / 1e3))
    finally:
        shutil.rmtree(tmp)


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("gemm", "layer", "sac", "cp", "wgrad", "sustained",
                                                "fp8layer", "grouped"):
        sys.exit(__doc__)
    device = sys.argv[2] if len(sys.argv) > 2 else "h100"
    # a device with measured tables (data/measured/DEVICE_gemm.csv), as every check reads
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", device) or not os.path.isfile(
            os.path.join(ROOT, "data/measured/%s_gemm.csv" % device)):
        sys.stderr.write("check.py: device '%s' has no measured tables "
                         "(data/measured/%s_gemm.csv)\n" % (device, device))
        sys.exit(2)
    if sys.argv[1] == "gemm":
        gemm(device, sys.argv[3] if len(sys.argv) > 3 else None)
    elif sys.argv[1] == "sac":
        sac(device)
    elif sys.argv[1] == "cp":
        cp(device)
    elif sys.argv[1] == "wgrad":
        wgrad(device)
    elif sys.argv[1] == "sustained":
        sustained(device)
    elif sys.argv[1] == "fp8layer":
        fp8layer(device)
    elif sys.argv[1] == "grouped":
        grouped(device)
    else:
        layer(device)


if __name__ == "__main__":
    main()
