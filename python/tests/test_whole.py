# test_whole.py — whole links from Python: link_gbps= and max_links= give
# the CLI's --link-gbps/--max-links answer (one rule in every entry point),
# the network file's LinkGBps/MaxLinks the same, the optimum on weft's GPT-3
# example equals enumeration of every whole-link point, bad input raises.
import itertools

import pytest

import weft
from helpers import GPT3, cli, same

RATES = [100, 50, 50, 25]   # GB/s per link, dims 1..4 (tests/golden/inputs/net4_links.yml)
LIMITS = [8, 18, 8, 8]
LINKS_SCENARIO = "tests/golden/inputs/gpt3_links.yml"


def cli_links(*extra):
    return cli("optimize", GPT3, "--link-gbps", ",".join(map(str, RATES)),
               "--max-links", ",".join(map(str, LIMITS)), *extra)


@pytest.mark.parametrize("objective,loop", [("perf", "no-overlap"), ("perf-per-cost", "no-overlap"),
                                            ("perf", "tp-dp-overlap")])
def test_whole_parity(objective, loop):
    py = weft.optimize(GPT3, link_gbps=RATES, max_links=LIMITS, objective=objective, loop=loop)
    assert py["bnb"]["status"] == "tree closed" and py["status"] == "solved"
    same(py, cli_links("--objective", objective, "--loop", loop))


def test_whole_network_file_keys_equal_keywords():
    by_file = weft.optimize(LINKS_SCENARIO)
    same(by_file, cli("optimize", LINKS_SCENARIO))
    by_kw = weft.optimize(GPT3, link_gbps=RATES, max_links=LIMITS)
    assert by_file["links"] == by_kw["links"] and by_file["bw_gbps"] == by_kw["bw_gbps"]


def test_whole_optimum_is_best_whole_point():
    """Every whole-link point meeting 'sum = 1000' and B1 >= ... >= B4, each
    timed by a solve pinned to it: none is faster than the branch and bound's."""
    got = weft.optimize(GPT3, link_gbps=RATES, max_links=LIMITS)
    best, best_bw = None, None
    ranges = [range(1, m + 1) for m in LIMITS]
    for n in itertools.product(*ranges):
        bw = [k * r for k, r in zip(n, RATES)]
        if sum(bw) != 1000 or not all(bw[i] >= bw[i + 1] for i in range(3)):
            continue
        pinned = weft.optimize(GPT3, constraint=["B%d = %g" % (d + 1, b) for d, b in enumerate(bw)])
        assert pinned["status"] == "solved"
        if best is None or pinned["time_ns"] < best:
            best, best_bw = pinned["time_ns"], bw
    assert best_bw == got["bw_gbps"]
    assert got["time_ns"] == pytest.approx(best, rel=1e-9)
    assert got["continuous"]["lower_bound"] <= got["time_ns"]


def test_whole_bad_input():
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(GPT3, link_gbps=[100, -50, 50, 25])
    assert e.value.field == "link_gbps" and "entry 2" in str(e.value)
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(GPT3, link_gbps=[100, 50, 25])
    assert e.value.field == "link_gbps"
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(GPT3, link_gbps=[0, 50, 50, 25], max_links=[2, 0, 0, 0])
    assert "a link needs a rate above 0" in str(e.value)
    with pytest.raises(weft.WeftError) as e:  # a fixed dim no whole number of links meets
        weft.optimize(LINKS_SCENARIO, constraint="B1 = 450")
    assert e.value.field == "LinkGBps" and e.value.line == 6


def test_whole_infeasible_named():
    py = weft.optimize(GPT3, link_gbps=[150] * 4)
    assert py["status"] == "infeasible" and py["conflicts"] == ["sum = 1000"]
    same(py, cli("optimize", GPT3, "--link-gbps", "150,150,150,150"))


def test_whole_simulate_runs_the_whole_link_optimum():
    py = weft.simulate(LINKS_SCENARIO)
    assert py["bw_gbps"] == weft.optimize(LINKS_SCENARIO)["bw_gbps"] == [400, 300, 200, 100]
    same(py, cli("simulate", LINKS_SCENARIO), skip=("wall_time_ns",))


def test_whole_node_limit_said_as_such():
    py = weft.optimize(LINKS_SCENARIO, max_nodes=1)
    assert py["bnb"]["status"] == "node limit" and py["bnb"]["nodes"] == 1
    assert py["bnb"]["gap"] > 1e-3 and "not proven optimal" in py["message"]
    same(py, cli("optimize", LINKS_SCENARIO, "--max-nodes", "1"))
    with pytest.raises(weft.WeftError):
        weft.optimize(LINKS_SCENARIO, max_nodes=0)
