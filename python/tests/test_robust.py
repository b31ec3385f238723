# test_robust.py — keyword values built to slip past the package (issue 21's
# hostile tester): a NUL inside text or a path (C strings end there), a flag
# given as text, a constraint given as a number, numbers beyond any double,
# text past the files' 256 MiB cap. Each is refused, naming its keyword.
import os
import subprocess

import pytest

import weft
from helpers import CLI, G, GPT3

FILES = dict(workload=G + "gpt3_175b_tp16.txt", communicator=G + "comm_tp16_dp256.yml",
             cost_model=G + "cost_4d.yml")
MODEL = dict(tp=8, pp=8, zero=1, network=G + "network_4d.yml")  # gpt3-175b on 4,096 NPUs
NET = {"Topology": ["Ring", "FullyConnected", "Ring", "Switch"], "NpusCount": [4, 8, 4, 32],
       "CostDimension": ["Chiplet", "Package", "Node", "Pod"]}


def refused(exc, field, call, *args, **kw):
    """call(*args, **kw) raises exc (a WeftError too) naming field."""
    with pytest.raises(exc) as e:
        call(*args, **kw)
    assert isinstance(e.value, weft.WeftError), e.value
    assert e.value.field == field, (e.value.field, str(e.value))
    return e.value


# ------------------------------------------------------------------ NUL
def test_nul_in_a_constraint_is_refused_not_cut():
    # 'sum = 1000\0B1 = 5' read by C as 'sum = 1000': the optimum without B1 = 5
    free = weft.optimize(GPT3, constraint="sum = 1000")
    assert free["bw_gbps"][0] != pytest.approx(5.0)  # so dropping B1 = 5 shows
    e = refused(ValueError, "constraint", weft.optimize, GPT3,
                constraint="sum = 1000\0B1 = 5")
    assert "embedded null character" in str(e) and str(e).startswith("constraint=")
    refused(ValueError, "constraint", weft.optimize, GPT3, constraint=["B1 >= 1", "sum = 1\0"])


def test_nul_in_paths_is_refused(tmp_path):
    # 'net.yml\0junk' opened net.yml
    for k in ("network", "workload", "communicator", "cost_model"):
        kw = dict(FILES, network=G + "network_4d.yml")
        kw[k] = kw[k] + "\0junk"
        refused(ValueError, k, weft.optimize, **kw)
        refused(ValueError, k, weft.optimize, **dict(kw, **{k: os.fsencode(kw[k])}))
    refused(ValueError, "scenario", weft.optimize, GPT3 + "\0x")
    refused(ValueError, "scenario", weft.simulate, GPT3 + "\0x")
    refused(ValueError, "export_astra", weft.optimize, GPT3,
            export_astra=str(tmp_path / "net.yml\0x"))
    refused(ValueError, "zoo", weft.zoo, zoo="data/zoo\0x")
    refused(ValueError, "name", weft.zoo, "gpt3-175b\0x")
    refused(ValueError, "prices", weft.topo, "vgg16", servers=16, prices="p.yml\0x")
    refused(ValueError, "traffic", weft.topo, traffic="t.csv\0x", servers=16)
    assert os.listdir(tmp_path) == []


def test_nul_in_names_and_text_is_refused(tmp_path):
    job = dict(cost_model=G + "cost_4d.yml", **MODEL)
    for k, v in (("device", "h100\0x"), ("recompute", "full\0x"), ("order", "TP,PP,DP\0"),
                 ("attention", "flash\0"), ("schedule", "1f1b\0"), ("model", "gpt3-175b\0x"),
                 ("zoo", "data/zoo\0")):
        kw = dict(job, model="gpt3-175b")
        kw[k] = v
        refused(ValueError, k, weft.optimize, **kw)
    refused(ValueError, "cluster", weft.optimize, model="megatron-22b", cluster="dgx-h100\0",
            npus=16, cost_model="data/validation/cost.yml")
    wl = open(FILES["workload"]).read()
    refused(ValueError, "workload", weft.optimize, **dict(FILES, network=G + "network_4d.yml",
                                                          workload=wl + "\0junk\n"))
    # workload(output='p\0x') wrote both files to p
    refused(ValueError, "output", weft.workload, "gpt3-175b", output=str(tmp_path / "p\0x"),
            **MODEL)
    assert os.listdir(tmp_path) == []
    code = dict(npus=16, blocks="Ring,Switch", cost_model="tests/golden/inputs/codesign_cost2.yml")
    refused(ValueError, "cost_dims", weft.codesign, "bert-large", cost_dims=["a\0", "b"], **code)
    refused(ValueError, "device", weft.codesign, "bert-large", device="a100\0", **code)
    refused(ValueError, "constraint", weft.codesign, "bert-large", constraint="sum = 1\0", **code)
    refused(ValueError, "device", weft.topo, "vgg16", servers=16, device="a100\0")


def test_nul_in_a_dict_is_refused():
    bad = dict(NET, CostDimension=["Chiplet", "Package\0x", "Node", "Pod"])
    e = refused(ValueError, "network", weft.optimize, network=bad, **FILES)
    assert "CostDimension[1]" in str(e)
    e = refused(ValueError, "scenario", weft.optimize,
                {"network": dict(NET, **{"Cost\0": 1}), "cost_model": FILES["cost_model"]})
    assert "network.Cost\\0" in str(e)
    ok = weft.optimize(network=NET, constraint="sum = 1000", **FILES)  # no NUL: read
    assert ok["bw_gbps"] is not None


# ------------------------------------------------------------------ flags
def test_flags_take_booleans_only():
    # sp="false" turned sequence parallelism on (activation memory 5.41 -> 0.96 GB)
    plain = weft.workload("gpt3-175b", **MODEL)
    assert weft.workload("gpt3-175b", sp=False, **MODEL) == plain
    sp = weft.workload("gpt3-175b", sp=True, **MODEL)
    assert sp["memory_bytes"]["activations"] < plain["memory_bytes"]["activations"]
    for k in ("sp", "fp8", "compact"):
        for v in ("false", "true", 1, 0, "", [False]):
            if k == "fp8" and isinstance(v, str):  # fp8= also takes a recipe's name
                e = refused(weft.WeftError, k, weft.workload, "gpt3-175b", **dict(MODEL, fp8=v))
                assert "expected off, delayed, current, mxfp8, blockwise, nvfp4 or a boolean" in str(e)
                continue
            e = refused(TypeError, k, weft.workload, "gpt3-175b", **dict(MODEL, **{k: v}))
            assert "expected True or False" in str(e)
    refused(TypeError, "recompute", weft.workload, "gpt3-175b", recompute=1, **MODEL)
    refused(TypeError, "refine_with_sim", weft.optimize, GPT3, refine_with_sim="no")
    refused(TypeError, "search", weft.topo, "dlrm", servers=16, search="false")
    code = dict(npus=16, blocks="Ring,Switch", cost_model="tests/golden/inputs/codesign_cost2.yml")
    refused(TypeError, "all_orders", weft.codesign, "bert-large", all_orders="no", **code)
    refused(TypeError, "sp", weft.codesign, "bert-large", sp="false", **code)
    refused(TypeError, "recompute", weft.codesign, "bert-large", recompute=2, **code)


# ------------------------------------------------------------------ types, numbers, size
def test_constraint_of_the_wrong_type():
    for v in (1000, 1000.0, {"sum": 1000}, ["sum = 1000", 5]):
        e = refused(TypeError, "constraint", weft.optimize, GPT3, constraint=v)
        assert "expected text such as 'sum = 1000'" in str(e)
    code = dict(npus=16, blocks="Ring,Switch", cost_model="tests/golden/inputs/codesign_cost2.yml")
    refused(TypeError, "constraint", weft.codesign, "bert-large", constraint=1000, **code)


def cli_words(*args):
    p = subprocess.run([CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 2
    return p.stderr.decode().rstrip("\n").rsplit(": ", 1)[1]


def test_numbers_beyond_a_double():
    # float(10**400) raised a bare OverflowError; the CLI's 1e400 is out of --gap-tol's range
    e = refused(weft.WeftError, "gap_tol", weft.optimize, GPT3, gap_tol=10 ** 400)
    assert str(e) == "gap_tol=<an integer of 401 digits>: " + cli_words(
        "optimize", GPT3, "--gap-tol", "1e400")
    e = refused(weft.WeftError, "gap_tol", weft.optimize, GPT3, gap_tol=-10 ** 5000)
    assert "digits>: expected a number in [1e-14, 1]" in str(e)
    refused(weft.WeftError, "bw", weft.simulate, GPT3, bw=[10 ** 400] * 4)
    refused(weft.WeftError, "efficiency", weft.workload, "gpt3-175b", efficiency=10 ** 400,
            **MODEL)
    e = refused(weft.WeftError, "chunks", weft.simulate, GPT3, chunks=10 ** 400)
    assert str(e) == "chunks=<an integer of 401 digits>: expected an integer in 1..1000000"
    assert cli_words("simulate", GPT3, "--chunks", "1" + "0" * 400) == \
        "expected an integer in 1..1000000"


def test_text_past_the_input_cap():
    # the CLI's file reader refuses more than 256 MiB; text from Python the same
    big = "#" * (256 * 1024 * 1024) + "\n"  # comments only: 1 byte over the cap
    e = refused(weft.WeftError, "", weft.optimize, network=G + "network_4d.yml",
                **dict(FILES, workload=big))
    assert (e.file, e.message) == ("<workload>", "larger than 256 MiB, the most an input "
                                                 "(file or text) may be")


def test_every_char_pointer_is_guarded():
    # the backstop under the keywords' checks: no char* argument of any bound
    # function carries bytes past a NUL to the library
    import ctypes
    from weft import _core, _lib, _libx
    for protos in (_lib.PROTOS, _libx.PROTOS):
        for name in protos:
            f = getattr(_core.lib, name)
            assert ctypes.c_char_p not in (f.argtypes or []), name
    assert _core.lib.weft_sizeof(b"WeftError") == ctypes.sizeof(_lib.WeftError)
    with pytest.raises(ctypes.ArgumentError, match="embedded null byte"):
        _core.lib.weft_sizeof(b"WeftError\0x")


def test_gap_tol_out_of_range_refused_up_front():
    # a gap no double can certify (or none at all) is refused before any work,
    # naming the keyword and its range, as --gap-tol is
    for bad in (1e-300, 0, 2, -1):
        with pytest.raises(weft.WeftError) as e:
            weft.optimize("data/gpt3_4096npu_4d.yml", gap_tol=bad)
        assert e.value.field == "gap_tol" and "[1e-14, 1]" in e.value.message
    assert weft.optimize("data/gpt3_4096npu_4d.yml", gap_tol=1e-12)["status"] == "solved"
