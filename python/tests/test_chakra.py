# test_chakra.py — Chakra traces from Python as from the CLI: weft.workload
# (chakra=) writes byte for byte the files `weft workload --chakra` writes,
# and optimize/simulate take the trace set as workload= (no communicator)
# with the CLI's answer and the text workload's optimum.
import os
import subprocess

import pytest
import weft

from helpers import CLI, ROOT, cli, same

NET = os.path.join(ROOT, "data/astra-sim2/inputs/fc4_sw2.yml")
COST = os.path.join(ROOT, "data/astra-sim/inputs/cost.yml")
ARGS = dict(tp=4, pp=2, compact=True, chunks=4, loop="tp-dp-overlap")


def test_workload_chakra_matches_cli(tmp_path):
    (tmp_path / "py").mkdir()
    weft.workload("bert-large", network=NET, output=str(tmp_path / "py" / "w"),
                  chakra=str(tmp_path / "py" / "tr"), **ARGS)
    (tmp_path / "cli").mkdir()
    subprocess.run([CLI, "workload", "--model", "bert-large", "--network", NET, "--tp", "4",
                    "--pp", "2", "--compact", "--chunks", "4", "--loop", "tp-dp-overlap",
                    "-o", str(tmp_path / "cli" / "w"), "--chakra", str(tmp_path / "cli" / "tr")],
                   check=True, stdout=subprocess.DEVNULL)
    py, ref = tmp_path / "py" / "tr", tmp_path / "cli" / "tr"
    names = sorted(os.listdir(ref))
    assert sorted(os.listdir(py)) == names and "w.7.et" in names and "system.json" in names
    for n in names:
        assert (py / n).read_bytes() == (ref / n).read_bytes(), n


def test_optimize_on_traces(tmp_path):
    weft.workload("bert-large", network=NET, output=str(tmp_path / "w"),
                  chakra=str(tmp_path / "tr"), **ARGS)
    kw = dict(network=NET, cost_model=COST, constraint="sum = 400")
    got = weft.optimize(workload=str(tmp_path / "tr"), **kw)
    text = weft.optimize(workload=str(tmp_path / "w.txt"),
                         communicator=str(tmp_path / "w.comm.yml"), **kw)
    assert got["bw_gbps"] == text["bw_gbps"] and got["time_ns"] == text["time_ns"]
    ref = cli("optimize", "--network", NET, "--workload", str(tmp_path / "tr"),
              "--cost-model", COST, "--constraint", "sum = 400")
    same(got, ref, skip=("wall_time_ns", "jobs"))
    with pytest.raises(weft.WeftError, match="drop communicator"):
        weft.optimize(workload=str(tmp_path / "tr"), communicator=str(tmp_path / "w.comm.yml"), **kw)


def test_codesign_workload_trace(tmp_path):
    """codesign(workload=TRACE) searches the network alone: on each file the
    time of the model pinned to the trace's parallelization; refusals."""
    weft.workload("bert-large", network=NET, output=str(tmp_path / "w"),
                  chakra=str(tmp_path / "tr"), tp=4, pp=2, compact=True)
    nets = [NET, os.path.join(ROOT, "tests/golden/inputs/cs_trace_r4_sw2.yml"),
            os.path.join(ROOT, "tests/golden/inputs/cs_trace_sw4_sw2.yml")]
    common = dict(network=nets, cost_model=COST, constraint="sum = 400")
    a = weft.codesign(workload=str(tmp_path / "tr"), **common)
    b = weft.codesign("bert-large", npus=8, tp=4, pp=2, mb=1, **common)
    assert a["points"] == 3 and a["model"] == "trace tr"
    for x, y in zip(sorted(a["top"], key=lambda p: p["net"]),
                    sorted(b["top"], key=lambda p: p["net"])):
        assert (x["shape"], x["time_ns"], x["cost_usd"]) == (y["shape"], y["time_ns"],
                                                             y["cost_usd"])
    same(a, cli("codesign", "--workload", str(tmp_path / "tr"), "--network", nets[0],
                "--network", nets[1], "--network", nets[2], "--cost-model", COST,
                "--constraint", "sum = 400"))
    with pytest.raises(weft.WeftError, match="tp goes with model"):
        weft.codesign(workload=str(tmp_path / "tr"), tp=2, **common)
    with pytest.raises(weft.WeftError, match="give one"):
        weft.codesign("bert-large", workload=str(tmp_path / "tr"), **common)


def test_codesign_workload_keys_classified():
    """Every codesign keyword is either refused with workload= (a model's)
    or one a trace's search takes: a new option must be put on one side."""
    from weft import _codesign
    takes = {"model", "workload", "npus", "device", "zoo", "network", "cluster", "blocks", "dims",
             "max_per_dim", "cost_dims", "parts_per_dim", "parts", "fabric", "planes",
             "cost_model", "constraint", "objective", "loop", "gap_tol", "threads", "top",
             "per_network", "npu_usd", "npu_power_w", "electricity_usd_per_kwh", "pue",
             "lifetime_years"}
    assert set(_codesign.KEYS) == takes | set(_codesign.MODEL_ONLY)
    assert not takes & set(_codesign.MODEL_ONLY)
