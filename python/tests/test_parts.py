# test_parts.py — the parts catalog from Python: parts_per_dim= and parts=
# give the CLI's --parts-per-dim/--parts answer, a network file's Parts: and
# a scenario's parts: the same, the bill of materials by hand, bad input raises.
import pytest

import weft
from helpers import GPT3, cli, same

G = "tests/golden/inputs/"
PARTS = ["nvlink5", "nvlink4", "nvlink4", "ndr"]
FILES = dict(workload="data/gpt3/gpt3_175b_tp16.txt",
             communicator="data/gpt3/comm_tp16_dp256.yml",
             constraint=["sum = 1000", "B1 >= B2 >= B3 >= B4"])


@pytest.mark.parametrize("objective", ["perf", "perf-per-cost"])
def test_parts_per_dim_parity(objective):
    py = weft.optimize(GPT3, parts_per_dim=PARTS, objective=objective)
    same(py, cli("optimize", GPT3, "--parts-per-dim", ",".join(PARTS), "--objective", objective))


def test_network_parts_key_parity_and_by_hand():
    py = weft.optimize(network=G + "parts_net4.yml", **FILES)
    same(py, cli("optimize", "--network", G + "parts_net4.yml", "--workload", FILES["workload"],
                 "--communicator", FILES["communicator"], "--constraint", "sum = 1000",
                 "--constraint", "B1 >= B2 >= B3 >= B4"))
    # B4: 32 NPUs on one QM9700 (radix 64): per NDR link a $2500 NIC, one of
    # 64 ports of a $30000 switch, two $600 optics, over 50 GB/s
    b4 = py["parts"][3]
    assert b4["tiers"] == 1 and b4["radix"] == 64
    assert b4["usd_per_gbps"] == pytest.approx((2500 + 30000 / 64 + 2 * 600) / 50, rel=1e-12)
    assert b4["total"]["switches"] == 4096 / 32 * 1  # 2 links x 32 NPUs fill one switch each
    assert sum(p["total"]["cost_usd"] for p in py["parts"]) == pytest.approx(py["cost_usd"],
                                                                              rel=1e-12)


def test_scenario_parts_and_override():
    sc = G + "parts_scenario.yml"
    py = weft.optimize(sc)
    same(py, cli("optimize", sc))
    # the scenario's parts: prices the NDR adapter at $3000
    assert py["parts"][3]["nic_usd_per_gbps"] == pytest.approx(3000 / 50, rel=1e-12)
    over = weft.optimize(sc, parts=G + "parts_nic1200.yml")  # the caller's file wins
    same(over, cli("optimize", sc, "--parts", G + "parts_nic1200.yml"))
    assert over["parts"][3]["nic_usd_per_gbps"] == pytest.approx(2500 / 50, rel=1e-12)


def test_bad_parts():
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(network=G + "bad_parts_name.yml", **FILES)
    assert e.value.line == 4 and e.value.field == "Parts"
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(GPT3, parts_per_dim=PARTS, parts=G + "bad_parts_price.yml")
    assert e.value.line == 5 and e.value.field == "price_usd"
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(GPT3, parts_per_dim=PARTS[:2])
    assert e.value.field == "parts_per_dim"
    with pytest.raises(weft.WeftError):
        weft.optimize(GPT3, parts_per_dim="nvlink4")


CHOICE = ["nvlink5", "nvlink4", ["nvlink4", "nvlink5"], ["ndr", "xdr", "eth400"]]


@pytest.mark.parametrize("objective", ["perf", "perf-per-cost"])
def test_choice_of_parts_is_the_best_combination(objective):
    """The choice's answer is the best of every combination solved on its
    own (each a whole-link solve given single parts), ties to the cheaper."""
    py = weft.optimize(GPT3, parts_per_dim=CHOICE, objective=objective)
    same(py, cli("optimize", GPT3, "--parts-per-dim", "nvlink5,nvlink4,nvlink4|nvlink5,"
                 "ndr|xdr|eth400", "--objective", objective))
    alone = []
    for b3 in CHOICE[2]:
        for b4 in CHOICE[3]:
            r = weft.optimize(GPT3, parts_per_dim=["nvlink5", "nvlink4", b3, b4],
                              objective=objective)
            assert r["status"] == "solved"
            alone.append((r["time_x_cost_ns_usd"] if objective != "perf" else r["time_ns"],
                          r["cost_usd"], [b3, b4]))
    best = min(alone, key=lambda t: (round(t[0], 3), t[1]))
    assert [p["part"] for p in py["parts"][2:]] == best[2]
    assert py["cost_usd"] == pytest.approx(best[1], rel=1e-12)
    assert len(py["part_choices"]) == 6 and sum(c["best"] for c in py["part_choices"]) == 1


def test_zoo_parts_parity():
    py = weft.zoo(parts=True)
    same(py, cli("zoo", "--parts"))
    ndr = [p for p in py["parts"] if p["name"] == "ndr"][0]
    assert ndr["rate_gbps"] == 50 and ndr["estimate"] == ["price_usd", "power_w"]
    mine = weft.zoo(parts=True, parts_file=G + "parts_ndr3000.yml")
    same(mine, cli("zoo", "--parts", "--parts-file", G + "parts_ndr3000.yml"))
    assert [p["price_usd"] for p in mine["parts"] if p["name"] == "ndr"] == [3000]
    with pytest.raises(weft.WeftError) as e:
        weft.zoo(parts=True, parts_file=G + "bad_parts_price.yml")
    assert e.value.line == 5 and e.value.field == "price_usd"


def test_part_dims_keep_their_rate_and_limit():
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(GPT3, parts_per_dim=PARTS, link_gbps=[50, 25, 25, 25])
    assert e.value.field == "link_gbps" and "part 'ndr'" in str(e.value)
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(GPT3, parts_per_dim=PARTS, max_links=[8, 18, 30, 4])
    assert e.value.field == "max_links"
    py = weft.optimize(GPT3, parts_per_dim=PARTS, max_links=[8, 18, 10, 4])
    same(py, cli("optimize", GPT3, "--parts-per-dim", ",".join(PARTS), "--max-links",
                 "8,18,10,4"))
    assert py["max_links"] == [8, 18, 10, 4]


def test_spares_have_parts():
    # 64 of each rack's 72 GPUs work: the bill of materials counts the 1152
    # GPUs bought (18 NVLink 5 links each, 18 NVSwitch chips a rack), as the
    # CLI's, and its total is the optimizer's network cost
    args = dict(model="deepseek-v3", tp=1, pp=16, ep=64, zero=1, recompute="full",
                order="tp,dp,pp", network=G + "parts_active_nvl72.yml",
                cost_model="data/validation/cost.yml", constraint=["B1 = 900", "B2 = 50"])
    py = weft.optimize(**args)
    same(py, cli("optimize", "--model", "deepseek-v3", "--tp", "1", "--pp", "16", "--ep", "64",
                 "--zero", "1", "--recompute", "full", "--order", "tp,dp,pp", "--network",
                 G + "parts_active_nvl72.yml", "--cost-model", "data/validation/cost.yml",
                 "--constraint", "B1 = 900", "--constraint", "B2 = 50"))
    b1 = py["parts"][0]["total"]
    assert (b1["endpoints"], b1["switches"]) == (1152 * 18, 16 * 18)
    assert sum(p["total"]["cost_usd"] for p in py["parts"]) == pytest.approx(py["cost_usd"],
                                                                              rel=1e-12)


SIM_CHOICE = [["nvlink4", "nvlink5"], "nvlink4", ["nvlink4", "nvlink5"], ["ndr", "xdr"]]


@pytest.mark.parametrize("func", ["simulate", "validate"])
def test_simulate_and_validate_run_the_chosen_parts(func):
    """With a choice of parts, simulate and validate run at the optimum of
    the combination optimize picks (its bandwidths, found by optimize), not
    the first combination's (nvlink4 x3 + ndr: another optimum here);
    the CLI says the same."""
    kw = dict(parts_per_dim=SIM_CHOICE, objective="perf-per-cost")
    opt = weft.optimize(GPT3, **kw)
    first = weft.optimize(GPT3, parts_per_dim=["nvlink4", "nvlink4", "nvlink4", "ndr"],
                          objective="perf-per-cost")
    assert opt["bw_gbps"] != first["bw_gbps"]
    py = getattr(weft, func)(GPT3, **kw)
    assert py["bw_source"] == "optimum"
    assert py["bw_gbps"] == opt["bw_gbps"]
    ref = cli(func, GPT3, "--parts-per-dim", "nvlink4|nvlink5,nvlink4,nvlink4|nvlink5,ndr|xdr",
              "--objective", "perf-per-cost")
    assert ref["bw_gbps"] == opt["bw_gbps"]
