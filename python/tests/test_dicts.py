# test_dicts.py — a dict shaped as a YAML file gives the same answer as the
# file: scenario, network, cost model, communicator, for every command that
# reads them. The dicts are written out by hand from data/gpt3/*.yml.
import weft
from helpers import G, GPT3

NET = {"Topology": ["Ring", "FullyConnected", "Ring", "Switch"], "NpusCount": [4, 8, 4, 32],
       "CostDimension": ["Chiplet", "Package", "Node", "Pod"]}
COST = {"Chiplet": {"Link": 2.0}, "Package": {"Link": 4.0}, "Node": {"Link": 4.0},
        "Pod": {"Link": 7.8, "Switch": 18.0, "Nic": 31.6}}
COMM = {"Forward": [4, 4, -1, -1], "InputGrad": [4, 4, -1, -1], "WeightGrad": [-1, 2, 4, 32]}
SCENARIO = {"network": NET, "cost_model": COST, "workload": G + "gpt3_175b_tp16.txt",
            "communicator": COMM, "constraints": ["sum = 1000", "B1 >= B2 >= B3 >= B4"],
            "objective": "perf", "loop": "no-overlap"}


def nowall(d):
    d.pop("wall_time_ns")
    return d


def test_scenario_dict_is_the_file():
    assert weft.optimize(SCENARIO) == weft.optimize(GPT3)
    files = dict(SCENARIO, network=G + "network_4d.yml", cost_model=G + "cost_4d.yml",
                 communicator=G + "comm_tp16_dp256.yml")  # paths from the working directory
    assert weft.optimize(files) == weft.optimize(GPT3)
    assert nowall(weft.simulate(SCENARIO, chunks=8)) == nowall(weft.simulate(GPT3, chunks=8))
    assert nowall(weft.validate(SCENARIO, chunks=8)) == nowall(weft.validate(GPT3, chunks=8))


def test_input_dicts_are_the_files():
    files = dict(network=G + "network_4d.yml", workload=G + "gpt3_175b_tp16.txt",
                 communicator=G + "comm_tp16_dp256.yml", cost_model=G + "cost_4d.yml")
    dicts = dict(files, network=NET, communicator=COMM, cost_model=COST)
    assert weft.optimize(constraint="sum = 1000", **dicts) == \
        weft.optimize(constraint="sum = 1000", **files)
    text = open(files["workload"]).read()  # the workload as ASTRA-sim text
    a = weft.optimize(constraint="sum = 1000", **dict(files, workload=text))
    b = weft.optimize(constraint="sum = 1000", **files)
    assert a["jobs"][0].pop("name") == "workload" and b["jobs"][0].pop("name") == "gpt3_175b_tp16"
    assert a == b
    model = dict(model="gpt3-175b", tp=8, pp=8, zero=1, constraint="sum = 1000")
    assert weft.optimize(network=NET, cost_model=COST, **model) == \
        weft.optimize(network=files["network"], cost_model=files["cost_model"], **model)


def test_workload_and_codesign_take_dicts():
    assert weft.workload("gpt3-175b", tp=8, pp=8, zero=1, network=NET) == \
        weft.workload("gpt3-175b", tp=8, pp=8, zero=1, network=G + "network_4d.yml")
    kw = dict(npus=4096, constraint="sum = 1000", tp=[8, 16], mb=[1])
    assert weft.codesign("gpt3-175b", network=[NET], cost_model=COST, **kw) == \
        weft.codesign("gpt3-175b", network=G + "network_4d.yml", cost_model=G + "cost_4d.yml",
                      **kw)
