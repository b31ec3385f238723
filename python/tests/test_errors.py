# test_errors.py — bad input raises weft.WeftError with the library's place
# and words: from a file (the same as the CLI's message), from a dict (its
# name and the entry's path in it), from a keyword.
import os
import re
import subprocess

import pytest

import weft
from helpers import CLI, G, GPT3

FILES = dict(workload=G + "gpt3_175b_tp16.txt", communicator=G + "comm_tp16_dp256.yml",
             cost_model=G + "cost_4d.yml")
NET = {"Topology": ["Ring", "FullyConnected", "Ring", "Switch"], "NpusCount": [4, 8, 1, 32],
       "CostDimension": ["Chiplet", "Package", "Node", "Pod"]}


def cli_error(*args):
    """The CLI's 'weft: FILE:LINE:COL: MSG' for args (exit 2), split up."""
    p = subprocess.run([CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 2
    m = re.match(r"weft: (.*?):(\d+):(\d+): (.*)\n", p.stderr.decode())
    assert m, p.stderr.decode()
    return m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)


def test_bad_network_file(tmp_path):
    path = tmp_path / "net.yml"
    path.write_text("Topology: [Ring, FullyConnected, Ring, Switch]\n"
                    "NpusCount: [4, 8, 1, 32]\nCostDimension: [Chiplet, Package, Node, Pod]\n")
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(network=path, **FILES)
    err = e.value
    ref = cli_error("optimize", "--network", str(path), *[a for k, v in FILES.items()
                                                          for a in ("--" + k.replace("_", "-"), v)])
    assert (err.file, err.line, err.column, err.message) == ref
    assert (err.file, err.line, err.column) == (str(path), 2, 19)  # the "1", by hand
    assert err.field == "NpusCount" and err.path is None and err.code == -5
    assert str(err) == "%s:2:19: %s" % (path, err.message)


def test_bad_network_dict():
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(network=NET, **FILES)
    err = e.value
    assert err.file == "<network>" and err.path == "NpusCount[2]" and err.field == "NpusCount"
    assert err.message == "NpusCount entry 3 must be > 1, got 1"
    assert err.line > 0 and err.column > 0  # in the JSON text the dict became
    assert str(err) == "<network>: NpusCount[2]: " + err.message


def test_bad_scenario_dict_names_the_entry(tmp_path):
    sc = {"network": G + "network_4d.yml", "cost_model": G + "cost_4d.yml",
          "workload": G + "gpt3_175b_tp16.txt", "communicator": G + "comm_tp16_dp256.yml",
          "constraints": ["sum = 1000", "B5 >= 1"]}
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(sc)
    err = e.value
    assert (err.file, err.path, err.field) == ("<scenario>", "constraints[1]", "constraint")
    path = tmp_path / "sc.yml"  # the same scenario as a file: the same words
    path.write_text("".join("%s: %s\n" % (k, os.path.abspath(v)) for k, v in sc.items()
                            if k != "constraints") +
                    "constraints:\n  - sum = 1000\n  - B5 >= 1\n")
    assert cli_error("optimize", str(path)) == (str(path), 7, 5, err.message)
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(dict(sc, constraints=["sum = 1000"], bandwith=3))
    assert (e.value.field, e.value.path) == ("bandwith", "bandwith")
    assert "unknown key 'bandwith'" in e.value.message


def test_missing_file_and_keyword_errors():
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(network="nope.yml", **FILES)
    assert e.value.file == "nope.yml" and e.value.code == -3  # WEFT_EIO
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(GPT3, constraint="B9 = 1")
    assert e.value.field == "constraint" and e.value.column == 1
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(model="gpt3-175b", tp=0, network=G + "network_4d.yml",
                      cost_model=G + "cost_4d.yml")
    assert e.value.field == "tp"
    with pytest.raises(weft.WeftError) as e:
        weft.simulate(GPT3, loop="overlap")
    assert e.value.field == "loop"
    with pytest.raises(weft.WeftError) as e:
        weft.simulate(GPT3, bw=[1, 2])
    assert e.value.field == "bw"
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(GPT3, network=G + "network_4d.yml")
    with pytest.raises(TypeError, match="did you mean 'constraint'"):
        weft.optimize(GPT3, constraints=["sum = 1000"])
    # a word for the same thing points at the function's own, as the CLI's
    with pytest.raises(TypeError, match="did you mean 'servers'"):
        weft.topo("llama3-8b", npus=16)
    with pytest.raises(TypeError, match="did you mean 'npus'"):
        weft.codesign("llama3-8b", num_gpus=16)
    with pytest.raises(weft.WeftError) as e:
        weft.zoo("no-such-model")
    assert e.value.code < 0
    with pytest.raises(weft.WeftError) as e:
        weft.workload("gpt3-175b", tp=7, network=G + "network_4d.yml")
    assert e.value.field == "tp"


def test_cluster_and_generator_errors():
    job = dict(model="megatron-22b", tp=8, cost_model="data/validation/cost.yml")
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(cluster="dgx-a100", **job)
    assert e.value.field == "npus"
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(cluster="dgx-a100", npus=12, **job)  # not whole nodes of 8
    assert (e.value.file, e.value.field) == ("cluster=dgx-a100 npus=12", "npus")
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(cluster="dgx-a10", npus=16, **job)
    assert "dgx-a100" in e.value.message  # the closest name
    # the generator's error, no file: said of the model, in the CLI's words
    p = subprocess.run([CLI, "optimize", "--model", "gpt3-175b", "--tp", "3", "--network",
                        G + "network_4d.yml", "--cost-model", G + "cost_4d.yml"],
                       stderr=subprocess.PIPE)
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(model="gpt3-175b", tp=3, network=G + "network_4d.yml",
                      cost_model=G + "cost_4d.yml")
    assert p.returncode == 2
    assert p.stderr.decode() == "weft: --model gpt3-175b: %s\n" % e.value.message.split(": ", 1)[1]
    assert e.value.message.startswith("model gpt3-175b: ")


def test_fp8_needs_an_fp8_rate():
    # the A100 has no FP8 rate: fp8=True is refused as the CLI's --fp8 and a
    # scenario's fp8: true are (field fp8), not run at the BF16 rate
    job = dict(model="megatron-22b", tp=8, cluster="dgx-a100", npus=16,
               cost_model="data/validation/cost.yml")
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(fp8=True, **job)
    assert e.value.field == "fp8" and "device 'a100' has no FP8 rate" in e.value.message
    p = subprocess.run([CLI, "optimize", "--model", "megatron-22b", "--tp", "8", "--cluster",
                        "dgx-a100", "--npus", "16", "--cost-model", "data/validation/cost.yml",
                        "--fp8"], stderr=subprocess.PIPE)
    assert p.returncode == 2 and "device 'a100' has no FP8 rate" in p.stderr.decode()
    assert weft.optimize(fp8=True, device="h100", **job)["status"]  # the H100 has one: no error


def test_topo_refuses_a_run_over_max_work():
    """weft.topo, like weft topo, refuses up front a run estimated over
    max_work (8192 servers of 64 ports: hours of matching), with the CLI's
    estimate; max_work is checked as a number."""
    with pytest.raises(weft.WeftError) as e:
        weft.topo("dlrm", servers=8192, degree=64)
    assert e.value.field == "max_work" and "estimated at 1.7e+13 steps" in str(e.value)
    p = subprocess.run([CLI, "topo", "--model", "dlrm", "--servers", "8192", "--degree", "64"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 2 and b"estimated at 1.7e+13 steps" in p.stderr
    with pytest.raises(weft.WeftError) as e:
        weft.topo("dlrm", max_work=-1)
    assert e.value.field == "max_work"


def test_model_without_prices_names_both_ways():
    """A zoo model with a network but neither a cost model nor priced parts:
    the error names the field and both ways out, as the CLI's (exit 2)."""
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(model="llama3-8b", cluster="dgx-h100", npus=16, tp=2)
    assert e.value.field == "cost_model"
    assert "parts_per_dim" in e.value.message
    p = subprocess.run([CLI, "optimize", "--model", "llama3-8b", "--cluster", "dgx-h100",
                        "--npus", "16", "--tp", "2"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    assert p.returncode == 2 and p.stdout == b""
    assert "--parts-per-dim" in p.stderr.decode()
    # and either one is enough: priced parts stand in for the cost model
    r = weft.optimize(model="llama3-8b", cluster="dgx-h100", npus=16, tp=2, recompute=True,
                      parts_per_dim=["nvlink4", "ndr"], objective="perf-per-cost")
    assert r["status"] == "solved"
