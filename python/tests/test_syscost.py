# test_syscost.py — system cost (docs/model.md "System cost"): weft.optimize
# against the CLI's --json for every objective with a system cost, the
# system figures as keywords (the CLI's --npu-usd ...), train_tokens=, and
# bad figures raising WeftError as the CLI exits 2.
import pytest

import weft
from helpers import cli, same

I = "tests/golden/inputs/"
FILES = dict(network=I + "ring2x2_net.yml", workload=I + "sys2x2_wl.txt",
             communicator=I + "sys2x2_comm.yml")
ARGS = ["--network", I + "ring2x2_net.yml", "--workload", I + "sys2x2_wl.txt",
        "--communicator", I + "sys2x2_comm.yml"]


@pytest.mark.parametrize("objective", ["perf", "perf-per-cost", "cost-per-iteration"])
def test_every_objective_with_system_cost(objective):
    cons = ["sum = 400"] if objective == "perf" else []
    py = weft.optimize(cost_model=I + "sys2x2_cost.yml", objective=objective, constraint=cons,
                       **FILES)
    ref = cli("optimize", *ARGS, "--cost-model", I + "sys2x2_cost.yml", "--objective", objective,
              *[a for c in cons for a in ("--constraint", c)])
    same(py, ref)
    assert py["status"] == "solved" and "cost_per_iteration_usd" in py


def test_perf_per_cost_without_system_cost_unchanged():
    py = weft.optimize(cost_model=I + "sys2x2_net_cost.yml", objective="perf-per-cost",
                       constraint="sum = 400", **FILES)
    same(py, cli("optimize", *ARGS, "--cost-model", I + "sys2x2_net_cost.yml", "--objective",
                 "perf-per-cost", "--constraint", "sum = 400"))
    assert "capex_usd" not in py  # no system block without a system figure


def test_keywords_are_the_files_figures():
    py = weft.optimize(cost_model=I + "sys2x2_power_cost.yml", objective="cost_per_iteration",
                       npu_usd=20000, npu_power_w=700, electricity_usd_per_kwh=0.1, pue=1.2,
                       lifetime_years=3, **FILES)
    same(py, cli("optimize", *ARGS, "--cost-model", I + "sys2x2_cost.yml", "--objective",
                 "cost-per-iteration"))


def test_model_job_tokens():
    kw = dict(model="gpt3-175b", tp=8, pp=8, recompute="full",
              network="data/validation/dgx_a100_1536.yml", cost_model=I + "syscost.yml",
              objective="cost-per-iteration")
    py = weft.optimize(train_tokens=3e11, **kw)
    same(py, cli("optimize", "--model", "gpt3-175b", "--tp", "8", "--pp", "8", "--recompute",
                 "full", "--network", "data/validation/dgx_a100_1536.yml", "--cost-model",
                 I + "syscost.yml", "--objective", "cost-per-iteration", "--train-tokens",
                 "3e11"))
    assert py["tokens_per_iteration"] == 1536 * 2048 and py["train_iterations"] == 95368


def test_bad_figures():
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(cost_model=I + "sys2x2_cost.yml", pue=0.5, **FILES)
    assert "Pue (facility power over IT power) must be >= 1, got 0.5" in str(e.value)
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(cost_model=I + "bad_sys_npu_zero.yml", **FILES)
    assert e.value.line == 3 and e.value.field == "Npu"
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(cost_model=I + "sys2x2_cost.yml", train_tokens=1e9, **FILES)
    assert "needs one model job" in str(e.value)
    with pytest.raises(weft.WeftError):
        weft.optimize(cost_model=I + "sys2x2_cost.yml", objective="cost", **FILES)


def test_device_power_is_the_default_npu_power():
    """No NpuPowerW given: the device's power_w (gb200: 1200 W), in optimize
    and codesign alike, as the CLI; npu_power_w= still wins."""
    kw = dict(tp=8, pp=18, zero=1, recompute="full", cluster="gb200-nvl72", npus=18432,
              cost_model="data/validation/cost.yml", npu_usd=40000,
              objective="cost-per-iteration", constraint=["B1 = 900", "B2 = 50"])
    py = weft.optimize(model="llama3-405b", **kw)
    ref = cli("optimize", "--model", "llama3-405b", "--tp", "8", "--pp", "18", "--zero", "1",
              "--recompute", "full", "--cluster", "gb200-nvl72", "--npus", "18432",
              "--cost-model", "data/validation/cost.yml", "--npu-usd", "40000", "--objective",
              "cost-per-iteration", "--constraint", "B1 = 900", "--constraint", "B2 = 50")
    same(py, ref)
    assert py["npu_power_w"] == 18432 * 1200
    assert weft.optimize(model="llama3-405b", npu_power_w=1000, **kw)["npu_power_w"] == 18432e3
    ckw = dict(npus=18432, network="tests/fixtures/nvl72_256.yml",
               cost_model="tests/fixtures/nvl72_cost_npu.yml", ep_list=[8], tp=[2], zero=1,
               recompute="full", objective="cost-per-iteration", top=1)
    cs = weft.codesign("deepseek-v3", **ckw)
    same(cs, cli("codesign", "--model", "deepseek-v3", "--npus", "18432", "--network",
                 "tests/fixtures/nvl72_256.yml", "--cost-model",
                 "tests/fixtures/nvl72_cost_npu.yml", "--ep-list", "8", "--tp", "2", "--zero",
                 "1", "--recompute", "full", "--objective", "cost-per-iteration", "--top", "1"))
    assert cs["top"][0]["power_w"] == 18432 * 1200  # every GPU bought, spares too
