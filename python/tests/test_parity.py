# test_parity.py — every function's dict against json.loads of the CLI's
# --json for the same inputs: the package and the CLI stay in step.
import math
import os
import subprocess

import pytest

import weft
from helpers import CLI, G, GPT3, LIBRA, ROOT, cli, same

NOWALL = ("wall_time_ns",)  # the run's own wall clock


def on_off_parity(key, args, flags):
    """weft.optimize with key=True and without it against the CLI's --KEY on and
    off; key=False is the default. Returns the on and default answers."""
    flag = "--" + key.replace("_", "-")
    on = weft.optimize(**{key: True}, **args)
    same(on, cli("optimize", *flags, flag, "on"), skip=NOWALL)
    default = weft.optimize(**args)
    same(default, cli("optimize", *flags, flag, "off"), skip=NOWALL)
    assert weft.optimize(**{key: False}, **args) == default
    return on, default


def word_parity(key, values, args, flags):
    """weft.optimize with key=value against the CLI's --KEY value for each of
    values (a named option: --fp8-amax-reduce, --cross-entropy); the first
    value is the default. Returns each value's time_ns."""
    flag, t = "--" + key.replace("_", "-"), {}
    for v in values:
        got = weft.optimize(**{key: v}, **args)
        same(got, cli("optimize", *flags, flag, v), skip=NOWALL)
        t[v] = got["time_ns"]
    assert weft.optimize(**args)["time_ns"] == t[values[0]]
    return t


def refused(key, bad, args, flags, msg):
    """key=bad refused by weft.optimize naming the field, and --KEY bad by
    the CLI with exit status 2 and msg on stderr."""
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(**{key: bad}, **args)
    assert e.value.field == key
    r = subprocess.run([CLI, "optimize", *flags, "--" + key.replace("_", "-"), bad],
                       capture_output=True, text=True)
    assert r.returncode == 2 and msg in r.stderr


def dgx32(model, fp8=None):
    """Two DGX H100 nodes of 16 GPUs each at TP 8, PP 2 with sequence
    parallelism, the bandwidths fixed: the keywords, the matching CLI flags
    and the scenario's network part, for the one-option parity checks."""
    v = "data/validation/cost.yml"
    job = dict(model=model, tp=8, pp=2, **({"fp8": fp8} if fp8 else {}))
    args = dict(cluster="dgx-h100", npus=32, cost_model=v, constraint=["B1 = 450", "B2 = 50"],
                sp=True, **job)
    flags = ["--cluster", "dgx-h100", "--npus", "32", "--cost-model", v, "--constraint",
             "B1 = 450", "--constraint", "B2 = 50", "--model", model, "--tp", "8", "--pp", "2",
             "--sp"] + (["--fp8", fp8] if fp8 else [])
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 4]}, "cost_model": v,
          "constraints": ["B1 = 450", "B2 = 50"]}
    return job, args, flags, sc


def test_optimize_scenario():
    same(weft.optimize(GPT3), cli("optimize", GPT3))


@pytest.mark.skipif(not os.path.isdir(LIBRA), reason="LIBRA's input files not found")
def test_optimize_libra_default_run():
    files = dict(network=LIBRA + "/network/4d_network.yml", workload=LIBRA + "/workload/GPT_3.txt",
                 communicator=LIBRA + "/communicator/GPT_3_4d.yml",
                 cost_model=LIBRA + "/cost_model/4d_cost_model.yml")
    cons = ["sum = 1000", "B1 = 500", "B1 >= B2 >= B3", "B3 + B4 = 200"]
    py = weft.optimize(constraint=cons, loop="tp_dp_overlap", **files)
    args = [a for k, v in files.items() for a in ("--" + k.replace("_", "-"), v)]
    same(py, cli("optimize", *args, *[a for c in cons for a in ("--constraint", c)],
                 "--loop", "tp-dp-overlap"))
    assert abs(py["time_ns"] / 1e6 - 708.4387) < 5e-5  # LIBRA's published optimum


def test_optimize_files_and_options():
    py = weft.optimize(network=G + "network_4d.yml", workload=G + "gpt3_175b_tp16.txt",
                       communicator=G + "comm_tp16_dp256.yml", cost_model=G + "cost_4d.yml",
                       constraint=["sum = 1000", "B2 >= B3"], objective="perf-per-cost",
                       loop="tp-dp-overlap", gap_tol=1e-10)
    same(py, cli("optimize", "--network", G + "network_4d.yml", "--workload",
                 G + "gpt3_175b_tp16.txt", "--communicator", G + "comm_tp16_dp256.yml",
                 "--cost-model", G + "cost_4d.yml", "--constraint", "sum = 1000",
                 "--constraint", "B2 >= B3", "--objective", "perf-per-cost", "--loop",
                 "tp-dp-overlap", "--gap-tol", "1e-10"))


def test_optimize_model_from_zoo():
    py = weft.optimize(model="gpt3-175b", tp=8, pp=8, zero=1, sp=True, recompute="selective",
                       network=G + "network_4d.yml", cost_model=G + "cost_4d.yml",
                       constraint="sum = 1000")
    same(py, cli("optimize", "--model", "gpt3-175b", "--tp", "8", "--pp", "8", "--zero", "1",
                 "--sp", "--recompute", "selective", "--network", G + "network_4d.yml",
                 "--cost-model", G + "cost_4d.yml", "--constraint", "sum = 1000"))


def test_optimize_several_jobs():
    s = "tests/fixtures/scenario_multi.yml"
    same(weft.optimize(s), cli("optimize", s))


def test_optimize_infeasible_and_no_equal_split():
    bad = ["sum = 1000", "B1 >= 600", "B2 >= 600"]
    py = weft.optimize(GPT3, constraint=bad)
    assert py["status"] == "infeasible" and py["conflicts"]
    same(py, cli("optimize", GPT3, *[a for c in bad for a in ("--constraint", c)]))
    uneven = "B1 = 2*B2"  # no split with every B equal meets it
    py = weft.optimize(GPT3, constraint=uneven)
    assert py["equal_bw"] is None and py["equal_bw_none"]
    same(py, cli("optimize", GPT3, "--constraint", uneven))


def test_optimize_export_astra(tmp_path):
    weft.optimize(GPT3, export_astra=tmp_path / "py.yml")
    cli("optimize", GPT3, "--export-astra", str(tmp_path / "cli.yml"))
    assert (tmp_path / "py.yml").read_text() == (tmp_path / "cli.yml").read_text()
    # read back as the network: its bandwidth is the design simulated, its latency the steps'
    files = dict(workload=G + "gpt3_175b_tp16.txt", communicator=G + "comm_tp16_dp256.yml",
                 cost_model=G + "cost_4d.yml")
    py = weft.simulate(network=tmp_path / "py.yml", chunks=8, **files)
    assert py["bw_source"] == "network"
    same(py, cli("simulate", "--network", str(tmp_path / "py.yml"), "--chunks", "8",
                 *[a for k, v in files.items() for a in ("--" + k.replace("_", "-"), v)]),
         skip=NOWALL)


def test_zoo_listing_and_every_model():
    ref = cli("zoo")
    same(weft.zoo(), ref)
    # the same zoo found by default (the source tree's); an installed package has its copy
    skip = ("file",) if os.environ.get("WEFT_TEST_INSTALLED") == "1" else ()
    for m in ref["models"]:
        same(weft.zoo(m["name"]), cli("zoo", m["name"]), skip=skip)


def test_zoo_every_device_and_cluster():
    ref = cli("zoo")
    for kind in ("devices", "clusters"):
        for e in ref[kind]:
            one = weft.zoo(e["name"])
            assert one["kind"] == kind[:-1] and one["name"] == e["name"]
            same(one, cli("zoo", e["name"]))
    gb = weft.zoo("gb200-nvl72")
    assert [t["npus"] for t in gb["tiers"]] == [72, 0] and gb["device"] == "gb200"
    assert gb["tiers"][1]["fabric"] == "rail-optimized"


def test_zoo_unknown_name_suggests():
    """A name that is no model, device nor cluster: the CLI's message and the
    closest name of the three (goldens zoo_unknown_*), not a list of models."""
    for name, near in (("gb200-nvl7", "gb200-nvl72"), ("GB200-NVL72", "gb200-nvl72"),
                       ("tpu-v5p-pods", "tpu-v5p-pod"), ("gpt4", None)):
        p = subprocess.run([CLI, "zoo", name], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert p.returncode == 2
        with pytest.raises(weft.WeftError) as e:
            weft.zoo(name)
        assert p.stderr.decode() == "weft: %s\n" % e.value.message, (p.stderr, e.value.message)
        assert ("did you mean '%s'?" % near in e.value.message) if near else "did you" not in \
            e.value.message


def test_zoo_device_with_measured_tables():
    mz = "tests/fixtures/mzoo"
    one = weft.zoo("fix", zoo=mz)
    assert one["measured"]["gemm"]["rows"] == 28 and one["measured"]["launch_us"] == [4.5, 1.2]
    same(one, cli("zoo", "--zoo", mz, "fix"))
    assert "measured" not in weft.zoo("off", zoo=mz)
    with pytest.raises(weft.WeftError) as e:
        weft.zoo("bad", zoo="tests/fixtures/mzoo_bad")
    assert e.value.line == 4 and e.value.field == "time_us"


def test_workload(tmp_path):
    args = dict(tp=8, pp=8, zero=1, network=G + "network_4d.yml")
    py = weft.workload("gpt3-175b", output=tmp_path / "py", **args)
    ref = cli("workload", "--model", "gpt3-175b", "--tp", "8", "--pp", "8", "--zero", "1",
              "--network", G + "network_4d.yml", "-o", str(tmp_path / "cli"))
    for k in ("workload", "communicator"):
        ref[k] = ref[k].replace(str(tmp_path / "cli"), str(tmp_path / "py"))
    # the CLI prints bubble_fraction with 6 digits and bytes and tokens whole
    tol = {"bubble_fraction": (5e-6, 0.0), "tokens": (0.0, 0.5)}
    tol.update({k: (0.0, 0.5) for k in ("params", "grads", "optimizer", "activations", "total",
                                         "capacity")})
    same(py, ref, tol=tol)
    for ext in (".txt", ".comm.yml"):
        assert (tmp_path / ("py" + ext)).read_text() == (tmp_path / ("cli" + ext)).read_text()
    bare = weft.workload("gpt3-175b", **args)  # nothing written
    assert bare["workload"] is None and bare["communicator"] is None
    assert bare["layers"] == py["layers"]


def test_workload_active(tmp_path):
    """active= as --active: the groups laid on 64 of each NVL72 rack's 72."""
    net = "tests/fixtures/nvl72_256.yml"
    args = dict(ep=64, pp=16, zero=1, recompute="full", order="tp,dp,pp", network=net)
    py = weft.workload("deepseek-v3", output=tmp_path / "py", active=[64, 0], **args)
    ref = cli("workload", "--model", "deepseek-v3", "--ep", "64", "--pp", "16", "--zero", "1",
              "--recompute", "full", "--order", "tp,dp,pp", "--network", net, "--active",
              "64,0", "-o", str(tmp_path / "cli"))
    for k in ("workload", "communicator"):
        ref[k] = ref[k].replace(str(tmp_path / "cli"), str(tmp_path / "py"))
    tol = {"bubble_fraction": (5e-6, 0.0), "tokens": (0.0, 0.5)}
    tol.update({k: (0.0, 0.5) for k in ("params", "grads", "optimizer", "activations", "total",
                                         "capacity")})
    tol.update({k: (1e-9, 0.0) for k in ("model_flops", "hw_flops")})  # printed with %.10g
    same(py, ref, tol=tol)
    assert py["dp"] == 64 * 256 // 16
    for ext in (".txt", ".comm.yml"):
        assert (tmp_path / ("py" + ext)).read_text() == (tmp_path / ("cli" + ext)).read_text()
    with pytest.raises(weft.WeftError):
        weft.workload("deepseek-v3", active=[64, 0, 0], **args)  # one entry per dim


def test_simulate_dim_and_link_fidelity():
    same(weft.simulate(GPT3, chunks=16, latency_ns=1000, loop="tp_dp_overlap"),
         cli("simulate", GPT3, "--chunks", "16", "--latency-ns", "1000", "--loop",
             "tp-dp-overlap"), skip=NOWALL)
    multi = "tests/fixtures/scenario_multi.yml"  # two jobs on 128 NPUs: every link, quickly
    same(weft.simulate(multi, bw=[400, 100], fidelity="link", sharing="fifo", chunks=4,
                       algorithm=["ring", "hd"]),
         cli("simulate", multi, "--bw", "400,100", "--fidelity", "link", "--sharing", "fifo",
             "--chunks", "4", "--algorithm", "ring,hd"), skip=NOWALL)
    same(weft.simulate("tests/fixtures/scenario_3d.yml", fidelity="link", chunks=4),
         cli("simulate", "tests/fixtures/scenario_3d.yml", "--fidelity", "link", "--chunks", "4"),
         skip=NOWALL)


def test_simulate_like_astra_sim():
    same(weft.simulate(GPT3, like="astra-sim", chunks=4),
         cli("simulate", GPT3, "--like", "astra-sim", "--chunks", "4"), skip=NOWALL)
    with pytest.raises(weft.WeftError) as e:
        weft.simulate(GPT3, like="astra-sim", fidelity="link")
    assert e.value.field == "like"


def test_model_attention_cp_fp8():
    args = dict(cluster="dgx-h100", npus=128, cost_model="data/validation/cost.yml",
                model="megatron-22b", tp=8, pp=2)
    flags = ["--cluster", "dgx-h100", "--npus", "128", "--cost-model", "data/validation/cost.yml",
             "--model", "megatron-22b", "--tp", "8", "--pp", "2"]
    new = weft.simulate(cp=2, attention="flash", fp8=True, grad_bytes=4, **args)
    same(new, cli("simulate", *flags, "--cp", "2", "--attention", "flash", "--fp8",
                  "--grad-bytes", "4"), skip=NOWALL)
    assert new != weft.simulate(cp=2, **args)  # attention, fp8 and grad_bytes reach the model
    with pytest.raises(weft.WeftError) as e:
        weft.simulate(cp=2, attention="fast", **args)
    assert e.value.field == "attention"


def test_fp8_recipes_and_cuda_graphs():
    # fp8= takes the recipe's name as --fp8 does (True: delayed), cuda_graphs=
    # is --cuda-graphs; each reaches the model; a bad name is refused (field fp8)
    args = dict(cluster="dgx-h100", npus=16, cost_model="data/validation/cost.yml",
                model="megatron-22b", tp=8, constraint=["B1 = 300", "B2 = 25"])
    flags = ["--cluster", "dgx-h100", "--npus", "16", "--cost-model", "data/validation/cost.yml",
             "--model", "megatron-22b", "--tp", "8", "--constraint", "B1 = 300",
             "--constraint", "B2 = 25"]
    cur = weft.optimize(fp8="current", cuda_graphs=True, **args)
    same(cur, cli("optimize", *flags, "--fp8", "current", "--cuda-graphs"), skip=NOWALL)
    same(weft.optimize(fp8=True, **args), cli("optimize", *flags, "--fp8"), skip=NOWALL)
    same(weft.optimize(fp8="blockwise", **args), cli("optimize", *flags, "--fp8", "blockwise"),
         skip=NOWALL)
    assert weft.optimize(fp8="delayed", **args) == weft.optimize(fp8=True, **args)
    assert weft.optimize(fp8="off", **args) == weft.optimize(**args)
    # graphs against eager launches on h100-xla: on the measured H100 every kernel of this
    # job outlasts the CPU's 8 us launch, so CUDA graphs change nothing there
    xla = dict(args, device="h100-xla")
    assert (weft.optimize(fp8="current", cuda_graphs=True, **xla)["time_ns"] !=
            weft.optimize(fp8="current", **xla)["time_ns"])
    assert cur["time_ns"] != weft.optimize(fp8="delayed", cuda_graphs=True, **args)["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(fp8="tensorwise", **args)
    assert e.value.field == "fp8"
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(fp8="mxfp8", **args)  # the H100 has no block-scaled tensor cores
    assert e.value.field == "fp8"
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(fp8="nvfp4", **args)  # nor an FP4 rate
    assert e.value.field == "fp8"
    # NVFP4 on HGX B200 as --fp8 nvfp4, its GEMMs at the FP4 rate: faster than MXFP8
    b200 = dict(args, cluster="dgx-b200", constraint=["B1 = 900", "B2 = 50"])
    bflags = [f.replace("dgx-h100", "dgx-b200").replace("B1 = 300", "B1 = 900")
              .replace("B2 = 25", "B2 = 50") for f in flags]
    nv = weft.optimize(fp8="nvfp4", **b200)
    same(nv, cli("optimize", *bflags, "--fp8", "nvfp4"), skip=NOWALL)
    assert nv["time_ns"] < weft.optimize(fp8="mxfp8", **b200)["time_ns"]


def test_gradient_buckets():
    # overlap_grad_reduce=, overlap_param_gather= and ddp_bucket_size= are
    # --overlap-grad-reduce on|off, --overlap-param-gather on|off and
    # --ddp-bucket-size; each reaches the model under tp-dp-overlap
    args = dict(cluster="dgx-h100", npus=128, cost_model="data/validation/cost.yml",
                model="llama2-70b", tp=8, pp=4, zero=1, sp=True, loop="tp-dp-overlap",
                constraint=["B1 = 300", "B2 = 50"])
    flags = ["--cluster", "dgx-h100", "--npus", "128", "--cost-model", "data/validation/cost.yml",
             "--model", "llama2-70b", "--tp", "8", "--pp", "4", "--zero", "1", "--sp",
             "--loop", "tp-dp-overlap", "--constraint", "B1 = 300", "--constraint", "B2 = 50"]
    off = weft.optimize(overlap_grad_reduce=False, overlap_param_gather=False, **args)
    same(off, cli("optimize", *flags, "--overlap-grad-reduce", "off", "--overlap-param-gather",
                  "off"), skip=NOWALL)
    small = weft.optimize(ddp_bucket_size=1e6, **args)
    same(small, cli("optimize", *flags, "--ddp-bucket-size", "1e6"), skip=NOWALL)
    default = weft.optimize(**args)
    # dp 128 / (8 x 4) = 4: Megatron's default bucket max(4e7, 4e6) = 4e7 parameters
    assert weft.optimize(overlap_grad_reduce=True, ddp_bucket_size=4e7, **args) == default
    assert off["time_ns"] > default["time_ns"] != small["time_ns"]
    # its text as the CLI's --ddp-bucket-size and a scenario's ddp_bucket_size read it
    assert weft.optimize(ddp_bucket_size="1e6", **args) == small
    for bad in (0, "1_000_000", "1e6x", True, float("nan"), 1e-310):
        with pytest.raises(weft.WeftError) as e:
            weft.optimize(ddp_bucket_size=bad, **args)
        assert e.value.field == "ddp_bucket_size"


def test_validate():
    same(weft.validate(GPT3, chunks=8, latency_ns=[1000, 0, 10, 5], endpoint_delay_ns=3,
                       in_flight=2),
         cli("validate", GPT3, "--chunks", "8", "--latency-ns", "1000,0,10,5",
             "--endpoint-delay-ns", "3", "--in-flight", "2"), skip=NOWALL)


def test_optimize_refine_with_sim():
    same(weft.optimize(GPT3, refine_with_sim=True, chunks=16, latency_ns=1000),
         cli("optimize", "--refine-with-sim", GPT3, "--chunks", "16", "--latency-ns", "1000"))


def test_codesign_blocks():
    py = weft.codesign("gpt3-175b", npus=4096, blocks=["Ring", "FullyConnected", "Ring", "Switch"],
                       cost_model=G + "cost_4d.yml", constraint="sum = 1000",
                       max_per_dim=[8, 8, 8, 0], top=5, threads=2)
    same(py, cli("codesign", "--model", "gpt3-175b", "--npus", "4096", "--blocks",
                 "Ring,FullyConnected,Ring,Switch", "--cost-model", G + "cost_4d.yml",
                 "--constraint", "sum = 1000", "--max-per-dim", "8,8,8,0", "--top", "5"))


def test_codesign_network_files_and_knob_lists():
    py = weft.codesign("gpt3-175b", npus=4096, network=G + "network_4d.yml",
                       cost_model=G + "cost_4d.yml", constraint=["sum = 1000", "B1 >= B2"],
                       zero_list=[0, 1], recompute_list="none,full", all_orders=True,
                       objective="perf-per-cost", tp=[4, 8, 16], mb="1,2")
    same(py, cli("codesign", "--model", "gpt3-175b", "--npus", "4096", "--network",
                 G + "network_4d.yml", "--cost-model", G + "cost_4d.yml", "--constraint",
                 "sum = 1000", "--constraint", "B1 >= B2", "--zero-list", "0,1",
                 "--recompute-list", "none,full", "--all-orders", "--objective",
                 "perf-per-cost", "--tp", "4,8,16", "--mb", "1,2"))


def test_codesign_ep_list_nvl72():
    """EP searched as a knob (ep_list= / --ep-list) on an NVL72 cluster, with
    its 64-of-72 variant: the same designs, EP and TP inside the rack."""
    kw = dict(npus=18432, network="tests/fixtures/nvl72_256.yml",
              cost_model="data/validation/cost.yml", ep_list=[8, 16, 32, 64], zero=1,
              recompute="full", constraint=["B1 = 900", "B2 = 50"], tp=[1, 2, 4], top=3)
    py = weft.codesign("deepseek-v3", **kw)
    ref = cli("codesign", "--model", "deepseek-v3", "--npus", "18432", "--network",
              "tests/fixtures/nvl72_256.yml", "--cost-model", "data/validation/cost.yml",
              "--ep-list", "8,16,32,64", "--zero", "1", "--recompute", "full", "--constraint",
              "B1 = 900", "--constraint", "B2 = 50", "--tp", "1,2,4", "--top", "3")
    same(py, ref)
    assert py["top"][0]["order"].split()[-1].startswith("ep")
    with pytest.raises(weft.WeftError):
        weft.codesign("deepseek-v3", ep=8, **kw)


def test_codesign_parts_system_cost():
    """README "Use": the networks' parts bound (a choice expanded), ranked by
    $ per iteration, the system figures and the winner's bill of materials."""
    C = os.path.join(os.path.dirname(G.rstrip("/")), "cost") + "/"
    py = weft.codesign("llama3-405b", npus=16384, device="h100",
                       network=[C + "h100_ib.yml", C + "h100_eth.yml"],
                       cost_model=C + "h100_system.yml", objective="cost-per-iteration",
                       zero_list=[1], sp=True, recompute_list="selective,full",
                       attention="flash", top=5, threads=2)
    same(py, cli("codesign", "--model", "llama3-405b", "--npus", "16384", "--device", "h100",
                 "--network", C + "h100_ib.yml", "--network", C + "h100_eth.yml",
                 "--cost-model", C + "h100_system.yml", "--objective", "cost-per-iteration",
                 "--zero-list", "1", "--sp", "--recompute-list", "selective,full",
                 "--attention", "flash", "--top", "5"))
    assert py["bill_of_materials"]["point"] == py["top"][0]["point"]
    assert py["networks"] == "2 network files, 3 networks with each choice of parts"


def test_codesign_blocks_parts_per_dim():
    """parts_per_dim= (a choice as a list) on every --blocks shape, as the CLI."""
    C = os.path.join(os.path.dirname(G.rstrip("/")), "cost") + "/"
    py = weft.codesign("llama3-405b", npus=16384, device="h100", blocks="Switch,Switch",
                       max_per_dim=[8, 0], parts_per_dim=["nvlink4", ["ndr", "xdr", "eth800"]],
                       cost_model=C + "h100_system.yml", objective="cost-per-iteration",
                       zero_list=[1], sp=True, recompute_list="selective,full",
                       attention="flash", top=3, threads=2)
    same(py, cli("codesign", "--model", "llama3-405b", "--npus", "16384", "--device", "h100",
                 "--blocks", "Switch,Switch", "--max-per-dim", "8,0", "--parts-per-dim",
                 "nvlink4,ndr|xdr|eth800", "--cost-model", C + "h100_system.yml",
                 "--objective", "cost-per-iteration", "--zero-list", "1", "--sp",
                 "--recompute-list", "selective,full", "--attention", "flash", "--top", "3"))


def test_topo():
    same(weft.topo("vgg16", servers=256, degree=4, radix=16, port_gbit=40),
         cli("topo", "--model", "vgg16", "--servers", "256", "--degree", "4", "--radix", "16",
             "--port-gbit", "40"))
    same(weft.topo("dlrm", servers=16, search=True, iterations=50, seed=3),
         cli("topo", "--model", "dlrm", "--servers", "16", "--search", "--iterations", "50",
             "--seed", "3"))
    same(weft.topo("dlrm", servers=16, port_split="best"),
         cli("topo", "--model", "dlrm", "--servers", "16", "--port-split", "best"))


def test_cluster_presets():
    """A network from a cluster preset (cluster=, npus=), or named by one."""
    v = "data/validation/cost.yml"
    job = dict(model="megatron-22b", tp=8, recompute=True, cost_model=v)
    args = ["--model", "megatron-22b", "--tp", "8", "--recompute", "--cost-model", v]
    cons = ["B1 = 300", "B2 = 25"]
    same(weft.optimize(cluster="dgx-a100", npus=16, constraint=cons, **job),
         cli("optimize", *args, "--cluster", "dgx-a100", "--npus", "16", "--constraint", cons[0],
             "--constraint", cons[1]))
    net = "tests/golden/inputs/net_cluster.yml"  # Cluster: dgx-a100, NpusCount: [8, 2]
    py = weft.optimize(network=net, constraint=cons, **job)
    same(py, cli("optimize", *args, "--network", net, "--constraint", cons[0], "--constraint",
                 cons[1]))
    assert weft.optimize(network={"Cluster": "dgx-a100", "NpusCount": [8, 2]}, constraint=cons,
                         **job) == py
    sim = weft.simulate(cluster="dgx-h100", npus=16, chunks=1, **job)  # the preset's links
    assert sim["bw_source"] == "network"
    same(sim, cli("simulate", *args, "--cluster", "dgx-h100", "--npus", "16", "--chunks", "1"),
         skip=NOWALL)


def test_presets_2026():
    """Every 2025-2026 preset as the CLI takes it: cluster=, and a network dict."""
    v = "data/validation/cost.yml"
    shapes = {"gb200-nvl72": ("gpt3-175b", 3, 1152), "gb300-nvl72": ("gpt3-175b", 3, 1152),
              "tpu-v5p-pod": ("megatron-22b", 4, 128), "tpu7x-pod": ("megatron-22b", 4, 128),
              "trn2-ultraserver": ("megatron-22b", 4, 128), "mi355x-8x": ("megatron-22b", 1, 16),
              "dgx-b200": ("megatron-22b", 1, 16), "llama3-h100-roce": ("megatron-22b", 1, 16)}
    for name, (model, pp, npus) in shapes.items():
        job = dict(model=model, tp=8, pp=pp, recompute=True, cost_model=v,
                   constraint=["sum <= 4000"])
        py = weft.optimize(cluster=name, npus=npus, **job)
        same(py, cli("optimize", "--model", model, "--tp", "8", "--pp", str(pp), "--recompute",
                     "--cost-model", v, "--constraint", "sum <= 4000", "--cluster", name,
                     "--npus", str(npus)))
        dims = [d["npus"] for d in py["dims"]]
        assert weft.optimize(network={"Cluster": name, "NpusCount": dims}, **job) == py


def test_fwd_ig_overlap_loop():  # the third loop, named as the CLI names it
    py = weft.optimize(GPT3, loop="FWD_IG_OVERLAP")
    assert py["loop"] == "fwd-ig-overlap"
    same(py, cli("optimize", GPT3, "--loop", "fwd-ig-overlap"))
    same(weft.simulate(GPT3, chunks=4, loop="fwd_ig_overlap"),
         cli("simulate", GPT3, "--chunks", "4", "--loop", "fwd-ig-overlap"), skip=NOWALL)


def test_codesign_takes_the_clusters_gpu():
    """codesign runs on the network's cluster's GPU as optimize does (the one
    rule, weft_job_device): dgx-h100 means h100 unless device= says; networks
    whose clusters run different GPUs are refused, naming both."""
    v = "data/validation/cost.yml"
    net = "tests/golden/inputs/net_cluster_h100.yml"  # Cluster: dgx-h100, NpusCount: [8, 2]
    kw = dict(npus=16, cost_model=v, tp=8, pp=[1, 2], mb=1, constraint=["B1 = 450", "B2 = 50"])
    args = ["--model", "megatron-22b", "--npus", "16", "--cost-model", v, "--tp", "8", "--pp",
            "1,2", "--mb", "1", "--constraint", "B1 = 450", "--constraint", "B2 = 50"]
    py = weft.codesign("megatron-22b", network=net, **kw)
    assert py["device"] == "h100"
    same(py, cli("codesign", *args, "--network", net))
    assert weft.codesign("megatron-22b", network=net, device="h100", **kw) == py
    assert weft.codesign("megatron-22b", network=net, device="a100", **kw)["device"] == "a100"
    with pytest.raises(weft.WeftError) as e:
        weft.codesign("megatron-22b", network=[net, "tests/golden/inputs/net_cluster.yml"], **kw)
    assert "h100 (cluster dgx-h100)" in str(e.value) and "a100 (cluster dgx-a100)" in str(e.value)


def test_codesign_cluster_is_its_network():
    """cluster= (--cluster) names a preset's network of npus GPUs to search,
    as a file naming the same cluster does: the same designs, times and GPU
    (the preset's), only what was named differs; several clusters, and
    files beside them, are searched in one run, as the CLI does."""
    v = "data/validation/cost.yml"
    net = "tests/golden/inputs/net_cluster_h100.yml"  # Cluster: dgx-h100, NpusCount: [8, 2]
    kw = dict(npus=16, cost_model=v, tp=8, pp=[1, 2], mb=1, constraint=["B1 = 450", "B2 = 50"])
    args = ["--model", "megatron-22b", "--npus", "16", "--cost-model", v, "--tp", "8", "--pp",
            "1,2", "--mb", "1", "--constraint", "B1 = 450", "--constraint", "B2 = 50"]
    by_cluster = weft.codesign("megatron-22b", cluster="dgx-h100", **kw)
    by_file = weft.codesign("megatron-22b", network=net, **kw)
    assert by_cluster["networks"] == "1 cluster (dgx-h100)"
    assert by_file["networks"] == "1 network file"
    assert by_cluster["device"] == "h100" and by_cluster["top"]
    same(by_cluster, by_file, skip=("networks",))
    same(by_cluster, cli("codesign", *args, "--cluster", "dgx-h100"))
    both = weft.codesign("megatron-22b", network=net, cluster=["dgx-h100", "h100-roce"],
                         per_network=True, **kw)
    assert both["networks"] == "1 network file, 2 clusters (dgx-h100, h100-roce)"
    assert [e["cluster"] for e in both["per_network"]] == ["dgx-h100", "dgx-h100", "h100-roce"]
    # three networks of one shape: each point's shape names its cluster
    assert {p["shape"] for p in both["top"]} <= {"dgx-h100 SW8xSW2", "h100-roce SW8xSW2"}
    assert all(not p["shape"].startswith("dgx") for p in by_cluster["top"])  # one cluster: no name
    same(both, cli("codesign", *args, "--network", net, "--cluster", "dgx-h100", "--cluster",
                   "h100-roce", "--per-network"))
    for bad, field in (("nope", "cluster"), ([], "cluster"), (["dgx-h100", 3], "cluster")):
        with pytest.raises(weft.WeftError) as e:
            weft.codesign("megatron-22b", cluster=bad, **kw)
        assert e.value.field == field, (bad, e.value)
    with pytest.raises(weft.WeftError) as e:
        weft.codesign("megatron-22b", cluster="dgx-h100", blocks="Switch,Switch", **kw)
    assert e.value.field == "network"
    with pytest.raises(weft.WeftError) as e:  # 16 GPUs: two dims; gb200-nvl72's one rack: one
        weft.codesign("megatron-22b", cluster=["dgx-h100", "gb200-nvl72"], **kw)
    assert "1 dims, but cluster=dgx-h100 npus=16 has 2" in str(e.value)


def test_codesign_parts_price_without_cost_model():
    """codesign takes the parts' prices alone, as optimize does: no cost_model
    (--cost-model) when every dim has a part; the same answer as with a cost
    model whose classes the parts replace; a dim left unpriced is named."""
    kw = dict(npus=16, tp=8, pp=[1, 2], mb=1, objective="perf-per-cost")
    args = ["--model", "megatron-22b", "--npus", "16", "--tp", "8", "--pp", "1,2", "--mb", "1",
            "--objective", "perf-per-cost", "--cluster", "dgx-h100"]
    py = weft.codesign("megatron-22b", cluster="dgx-h100", parts_per_dim=["nvlink4", "ndr"], **kw)
    assert py["top"] and py["top"][0]["shape"] == "SW8:nvlink4xSW2:ndr"
    same(py, cli("codesign", *args, "--parts-per-dim", "nvlink4,ndr"))
    with_model = weft.codesign("megatron-22b", cluster="dgx-h100", parts_per_dim=["nvlink4", "ndr"],
                               cost_model="data/validation/cost.yml", **kw)
    same(py, with_model)
    for bad, words in ((dict(parts_per_dim=["nvlink4", "-"]), "dim 2 has no part"),
                       (dict(), "missing cost_model")):
        with pytest.raises(weft.WeftError) as e:
            weft.codesign("megatron-22b", cluster="dgx-h100", **bad, **kw)
        assert e.value.field == "cost_model" and words in str(e.value)
    with pytest.raises(weft.WeftError) as e:  # over blocks: no class for the bare dim either
        weft.codesign("megatron-22b", npus=16, blocks="Switch,Switch",
                      parts_per_dim=["nvlink4", "-"], tp=8, pp=[1, 2], mb=1)
    assert e.value.field == "cost_model" and "a dim without a part" in str(e.value)
    p = subprocess.run([CLI, "codesign", *args, "--parts-per-dim", "nvlink4,-"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 2 and p.stdout == b""
    assert p.stderr.decode() == ("weft: missing --cost-model: --cluster dgx-h100 --npus 16: dim 2 "
                                 "has no part to price it (name one with --parts-per-dim, or give "
                                 "a cost model)\n")


def test_codesign_blocks_leave_out_what_parts_cannot_build():
    """Shapes over blocks the parts cannot build are left out, said on the
    networks line (nvlink4: one tier of 64-port NVSwitches, no uplink; of the
    7 two-dim shapes of 256, SW128xSW2 is out), as the CLI; a part name the
    catalog lacks is still bad input."""
    kw = dict(device="h100", npus=256, blocks="Switch,Switch", objective="perf-per-cost", tp=8,
              pp=1, mb=1, zero=1)
    py = weft.codesign("llama3-8b", parts_per_dim=["nvlink4", "ndr"], **kw)
    assert py["networks"] == ("7 shapes of Switch (parts) x Switch (parts), parts nvlink4,ndr "
                              "(1 network its parts cannot build left out)")
    assert py["points"] == 6 and all(not p["shape"].startswith("SW128") for p in py["top"])
    same(py, cli("codesign", "--model", "llama3-8b", "--device", "h100", "--npus", "256",
                 "--blocks", "Switch,Switch", "--parts-per-dim", "nvlink4,ndr", "--objective",
                 "perf-per-cost", "--tp", "8", "--pp", "1", "--mb", "1", "--zero", "1"))
    with pytest.raises(weft.WeftError) as e:
        weft.codesign("llama3-8b", parts_per_dim=["nvlink4", "nope"], **kw)
    assert "'nope'" in str(e.value)


def test_codesign_system_cost_options():
    """codesign takes the system cost's figures as optimize does (--npu-usd ...
    --lifetime-years, npu_usd= ...): given the values data/cost/h100_system.yml
    holds they give what the file gives; over a file they replace its own;
    bad values are refused naming the option."""
    base = dict(npus=16384, device="h100", network="data/cost/h100_ib.yml",
                objective="cost-per-iteration", zero_list=[1], sp=True, recompute_list=["full"],
                attention="flash", top=2)
    sysv = dict(npu_usd=25000, npu_power_w=700, electricity_usd_per_kwh=0.08, pue=1.2,
                lifetime_years=4)
    by_file = weft.codesign("llama3-405b", cost_model="data/cost/h100_system.yml", **base)
    by_kw = weft.codesign("llama3-405b", **sysv, **base)
    same(by_kw, by_file)
    assert by_kw["top"][0]["usd_per_million_tokens"] > 0
    flags = ["--npu-usd", "25000", "--npu-power-w", "700", "--electricity-usd-per-kwh", "0.08",
             "--pue", "1.2", "--lifetime-years", "4"]
    args = ["--model", "llama3-405b", "--npus", "16384", "--device", "h100", "--network",
            "data/cost/h100_ib.yml", "--objective", "cost-per-iteration", "--zero-list", "1",
            "--sp", "--recompute-list", "full", "--attention", "flash", "--top", "2"]
    same(by_kw, cli("codesign", *args, *flags))
    dearer = weft.codesign("llama3-405b", cost_model="data/cost/h100_system.yml", npu_usd=40000,
                           **base)
    top, ref = dearer["top"][0], by_file["top"][0]
    if top["point"] == ref["point"]:  # the same design: its capex 15,000 x 16,384 more
        assert math.isclose(top["capex_usd"] - ref["capex_usd"], 15000.0 * 16384, rel_tol=1e-9)
    assert top["cost_per_iteration_usd"] > ref["cost_per_iteration_usd"]
    with pytest.raises(weft.WeftError) as e:
        weft.codesign("llama3-405b", pue=0.5, **base)
    assert e.value.field == "pue"


def test_scenario_constraint_replaced_by_option():
    """constraint= on a scenario replaces the scenario's constraint over the
    same left-hand side (sum = 1000 by sum = 1200), as --constraint does;
    the dict says where each came from."""
    sc = "tests/fixtures/scenario_3d.yml"  # sum = 1000, B1 = 500, B1 >= B2 >= B3
    py = weft.optimize(sc, constraint=["sum = 1200", "B3 >= 100"])
    assert py["status"] == "solved"
    assert py["constraints"] == ["B1 = 500", "B1 >= B2", "B2 >= B3", "sum = 1200", "B3 >= 100"]
    assert py["constraint_origins"] == ["scenario"] * 3 + ["option"] * 2
    assert py["constraints_replaced"] == ["sum = 1000"]
    assert abs(sum(py["bw_gbps"]) - 1200) < 1e-6 * 1200
    same(py, cli("optimize", sc, "--constraint", "sum = 1200", "--constraint", "B3 >= 100"))


def test_optimizer_precision_keywords():
    """master_weights= and optimizer_states= are --master-weights and
    --optimizer-states (8 bytes per parameter for fp32 + bf16 moments), in
    optimize, workload and codesign."""
    v = "data/validation/cost.yml"
    job = dict(model="megatron-22b", tp=8, recompute=True, cost_model=v, cluster="dgx-h100",
               npus=16, constraint=["B1 = 450", "B2 = 50"])
    args = ["--model", "megatron-22b", "--tp", "8", "--recompute", "--cost-model", v,
            "--cluster", "dgx-h100", "--npus", "16", "--constraint", "B1 = 450",
            "--constraint", "B2 = 50"]
    py = weft.optimize(master_weights="fp32", optimizer_states="bf16", **job)
    same(py, cli("optimize", *args, "--master-weights", "fp32", "--optimizer-states", "bf16"))
    assert py["time_ns"] < weft.optimize(**job)["time_ns"]  # a shorter optimizer step
    n16 = {"Cluster": "dgx-h100", "NpusCount": [8, 2]}
    w = weft.workload("megatron-22b", network=n16, tp=8, master_weights="none",
                      optimizer_states="bf16")
    d = weft.workload("megatron-22b", network=n16, tp=8)
    assert abs(w["memory_bytes"]["optimizer"] / d["memory_bytes"]["optimizer"] - 4 / 12) < 1e-12
    # apex's param remainders: 2 bytes of master + 2 x 4 of moments = 10 of 12
    r = weft.workload("megatron-22b", network=n16, tp=8, master_weights="remainder")
    assert abs(r["memory_bytes"]["optimizer"] / d["memory_bytes"]["optimizer"] - 10 / 12) < 1e-12
    py = weft.optimize(master_weights="remainder", **job)
    same(py, cli("optimize", *args, "--master-weights", "remainder"))
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(master_weights="fp16", **job)
    assert "fp32, bf16, none or remainder" in str(e.value)
    net = "tests/golden/inputs/net_cluster_h100.yml"
    kw = dict(npus=16, cost_model=v, tp=8, pp=[1, 2], mb=1, constraint=["B1 = 450", "B2 = 50"],
              attention="flash", grad_bytes=4, optimizer_states="bf16", network=net)
    same(weft.codesign("megatron-22b", **kw),
         cli("codesign", "--model", "megatron-22b", "--npus", "16", "--cost-model", v, "--tp",
             "8", "--pp", "1,2", "--mb", "1", "--constraint", "B1 = 450", "--constraint",
             "B2 = 50", "--attention", "flash", "--grad-bytes", "4", "--optimizer-states",
             "bf16", "--network", net))


def test_codesign_merges_points_of_one_design():
    """Points that are one design (every figure equal) are one top entry,
    with the knobs that give it, as the CLI lists them."""
    v = "data/validation/cost.yml"
    net = "tests/golden/inputs/net_cluster_h100.yml"
    py = weft.codesign("megatron-22b", npus=16, network=net, cost_model=v, tp=[4, 8],
                       pp=[1, 2], mb=1, constraint=["B1 = 450", "B2 = 50"], attention="flash",
                       all_orders=True, recompute_list="none,selective,full", zero_list=[1, 2])
    same(py, cli("codesign", "--model", "megatron-22b", "--npus", "16", "--network", net,
                 "--cost-model", v, "--tp", "4,8", "--pp", "1,2", "--mb", "1", "--constraint",
                 "B1 = 450", "--constraint", "B2 = 50", "--attention", "flash", "--all-orders",
                 "--recompute-list", "none,selective,full", "--zero-list", "1,2"))
    keys = [(d["tp"], d["pp"], d["dp"], d["time_ns"], d["mem_bytes"]) for d in py["top"]]
    assert len(set(keys)) == len(keys) == 10
    assert all(d["order"].endswith(" none") for d in py["top"]
               if "none|" in d["equivalent_knobs"])


def test_active_npus():  # 64 of each NVL72 rack work, 8 are spares (docs/model.md "Active NPUs")
    kw = dict(model="deepseek-v3", tp=1, pp=16, ep=64, zero=1, recompute="full",
              order="tp,dp,pp", cluster="gb200-nvl72", npus=1152, active=[64, 0],
              cost_model="data/validation/cost.yml", constraint=["B1 = 900", "B2 = 50"])
    py = weft.optimize(**kw)
    same(py, cli("optimize", "--model", "deepseek-v3", "--tp", "1", "--pp", "16", "--ep", "64",
                 "--zero", "1", "--recompute", "full", "--order", "tp,dp,pp", "--cluster",
                 "gb200-nvl72", "--npus", "1152", "--active", "64,0", "--cost-model",
                 "data/validation/cost.yml", "--constraint", "B1 = 900", "--constraint",
                 "B2 = 50"))
    assert py["npus"] == 1024 and py["spares"] == 128
    assert py["dims"][0]["npus"] == 64 and py["dims"][0]["spares"] == 8
    # every GPU bought is paid for: 1152 x (18 x 900 + 57.4 x 50) $ (data/validation/cost.yml)
    assert abs(py["cost_usd"] - 1152 * (18 * 900 + 57.4 * 50)) < 1e-3
    with pytest.raises(weft.WeftError, match="active entry 1 must be a whole number"):
        weft.optimize(**dict(kw, active=[73, 0]))


def test_codesign_nvl72_uses_the_domain():  # docs/search.md "Active NPUs"
    net = "tests/fixtures/nvl72_256.yml"  # gb200-nvl72, 72 x 256 GPUs
    py = weft.codesign("deepseek-v3", npus=18432, network=net, cost_model="data/validation/cost.yml",
                       ep=64, zero=1, recompute="full", all_orders=True, tp=[1, 2], pp=[8, 16, 18],
                       constraint=["B1 <= 900", "B2 <= 50"], top=3)
    same(py, cli("codesign", "--model", "deepseek-v3", "--npus", "18432", "--network", net,
                 "--cost-model", "data/validation/cost.yml", "--ep", "64", "--zero", "1",
                 "--recompute", "full", "--all-orders", "--tp", "1,2", "--pp", "8,16,18",
                 "--constraint", "B1 <= 900", "--constraint", "B2 <= 50", "--top", "3"))
    # 64 of each rack work, 8 are spares; the preset's InfiniBand is rail-optimized
    assert py["top"][0]["shape"] == "SW64/72xSW256[rail-opt]"
    assert py["top"][0]["order"] == "TP-DP-PP"


def test_simulate_active_npus():  # the simulator runs the 64 working GPUs of each rack
    py = weft.simulate(model="llama2-70b", tp=8, pp=2, cluster="gb200-nvl72", npus=144,
                       active=[64, 0], cost_model="data/validation/cost.yml")
    same(py, cli("simulate", "--model", "llama2-70b", "--tp", "8", "--pp", "2", "--cluster",
                 "gb200-nvl72", "--npus", "144", "--active", "64,0", "--cost-model",
                 "data/validation/cost.yml"), skip=NOWALL)
    assert py["dims"][0]["npus"] == 64 and py["dims"][0]["spares"] == 8


def test_fabric_shapes():  # docs/model.md "Fabric shapes": rail-only drops the spine tier
    kw = dict(model="llama3-405b", tp=8, pp=16, zero=1, recompute="full", cluster="dgx-b200",
              npus=8192, parts_per_dim=["nvlink5", "ndr"],
              constraint=["B1 = 900", "B2 = 50"])
    got = {}
    for f in ("rail-optimized", "rail-only"):
        py = weft.optimize(**dict(kw, fabric=["-", f]))
        same(py, cli("optimize", "--model", "llama3-405b", "--tp", "8", "--pp", "16", "--zero",
                     "1", "--recompute", "full", "--cluster", "dgx-b200", "--npus", "8192",
                     "--parts-per-dim", "nvlink5,ndr", "--fabric", "-," + f, "--constraint",
                     "B1 = 900", "--constraint", "B2 = 50"))
        assert py["dims"][1]["fabric"] == f
        got[f] = py["parts"][1]["total"]["switches"]
    # 8 rails of 1024 nodes on 64-port switches: one 3-tier tree of 256 + 256 + 128, or
    # each rail its own 2 tiers of 32 + 16 (tests/unit/test_fabric.c)
    assert got == {"rail-optimized": 640, "rail-only": 384}
    with pytest.raises(weft.WeftError, match="fabric entry 1 is rail-only"):
        weft.optimize(**dict(kw, fabric=["rail-only", "-"]))


def test_simulate_fabric():  # a rail-optimized dim runs NCCL's ring per rail in the simulator
    py = weft.simulate(model="llama2-70b", tp=8, pp=2, cluster="dgx-b200", npus=64,
                       fabric=["-", "rail-optimized"], cost_model="data/validation/cost.yml")
    same(py, cli("simulate", "--model", "llama2-70b", "--tp", "8", "--pp", "2", "--cluster",
                 "dgx-b200", "--npus", "64", "--fabric", "-,rail-optimized", "--cost-model",
                 "data/validation/cost.yml"), skip=NOWALL)
    assert py["dims"][1]["fabric"] == "rail-optimized"
    # the same bytes in 2 x 7 ring steps instead of halving-doubling's 2 x 3: the dims are
    # as busy, the ring takes more step events (its extra latency hides under compute since
    # the gradient syncs go in Megatron's buckets)
    tree = weft.simulate(model="llama2-70b", tp=8, pp=2, cluster="dgx-b200", npus=64,
                         fabric=["-", "fat-tree"], cost_model="data/validation/cost.yml")
    assert py["events"] > tree["events"]
    for a, b in zip(py["jobs"][0]["dims"], tree["jobs"][0]["dims"]):
        assert a["size_bytes"] == b["size_bytes"]
        assert a["busy_ns"] == pytest.approx(b["busy_ns"], rel=1e-9)


def test_planes():  # docs/model.md "Fabric shapes": an 800G NIC as two 400G planes
    kw = dict(model="llama3-405b", tp=8, pp=16, zero=1, recompute="full", cluster="dgx-b200",
              npus=16384, parts_per_dim=["nvlink5", "xdr"],
              constraint=["B1 = 900", "B2 = 100"])
    py = weft.optimize(**dict(kw, planes=[0, 2]))
    same(py, cli("optimize", "--model", "llama3-405b", "--tp", "8", "--pp", "16", "--zero", "1",
                 "--recompute", "full", "--cluster", "dgx-b200", "--npus", "16384",
                 "--parts-per-dim", "nvlink5,xdr", "--planes", "0,2", "--constraint",
                 "B1 = 900", "--constraint", "B2 = 100"))
    # 8 rails of 2048 on Q3400s broken out to 288 ports of 400G: a plane has 8 x 15 = 120
    # leaves and 60 spines, two planes 360 (one plane of 144 ports: 232 + 232 + 116 = 580)
    assert py["dims"][1]["planes"] == 2 and py["parts"][1]["total"]["switches"] == 360
    with pytest.raises(weft.WeftError, match="planes entry 2 must be a whole number of planes"):
        weft.optimize(**dict(kw, planes=[0, 1.5]))


def test_codesign_torus_slices():  # every torus slice of 512 v5p chips (docs/zoo.md)
    kw = dict(npus=512, device="tpu-v5p", cost_model="data/tpu/v5p_system.yml",
              blocks=["Ring", "Ring", "Ring"], parts_per_dim=["ici-v5p"] * 3,
              fabric=["torus"] * 3, zero_list=[1], recompute_list=["selective"], top=3)
    py = weft.codesign("llama2-70b", **kw)
    same(py, cli("codesign", "--model", "llama2-70b", "--npus", "512", "--device", "tpu-v5p",
                 "--cost-model", "data/tpu/v5p_system.yml", "--blocks", "Ring,Ring,Ring",
                 "--parts-per-dim", "ici-v5p,ici-v5p,ici-v5p", "--fabric", "torus,torus,torus",
                 "--zero-list", "1", "--recompute-list", "selective", "--top", "3"))
    # the 10 shapes of rings <= 16 with 512 NPUs; 3 have a ring of 2 (not whole cubes)
    assert "(3 shapes it does not fit left out)" in py["networks"]
    assert all(d % 4 == 0 for t in py["top"] for d in
               [int(x.split(":")[0][1:]) for x in t["shape"].split("x")])


def test_workload_cluster(tmp_path):
    """workload on a cluster preset's network (cluster=, npus=), as --cluster --npus."""
    args = dict(tp=8, pp=8, zero=1, sp=True, recompute="selective")
    py = weft.workload("gpt3-175b", cluster="dgx-a100", npus=1024, output=tmp_path / "py", **args)
    ref = cli("workload", "--model", "gpt3-175b", "--cluster", "dgx-a100", "--npus", "1024",
              "--tp", "8", "--pp", "8", "--zero", "1", "--sp", "--recompute", "selective",
              "-o", str(tmp_path / "cli"))
    assert py["device"] == ref["device"] == "a100" and py["dp"] == ref["dp"] == 16
    for ext in (".txt", ".comm.yml"):
        assert (tmp_path / ("py" + ext)).read_text() == (tmp_path / ("cli" + ext)).read_text()
    with pytest.raises(weft.WeftError, match="cluster needs npus"):
        weft.workload("gpt3-175b", cluster="dgx-a100")


A1 = "data/astra-sim/inputs/"
A1_FILES = dict(network=A1 + "net_4d.yml", workload=A1 + "transformer.txt",
                communicator=A1 + "tp8_4d.yml", cost_model=A1 + "cost.yml")


@pytest.mark.parametrize("system", ["system_fifo_c1.txt", "system_fifo_c16_a2.txt"])
def test_simulate_astra_system_and_export(tmp_path, system):
    """astra_system= (an ASTRA-sim 1.0 system file, FIFO here) and
    export_astra1= as --astra-system and --export-astra1: the time ASTRA-sim
    itself reported (data/astra-sim/results.csv) and the same three files."""
    kw = dict(A1_FILES, bw=[400, 200, 100, 50], latency_ns=[500, 500, 500, 1000])
    py = weft.simulate(like="astra-sim", astra_system=A1 + system,
                       export_astra1=tmp_path / "py", **kw)
    args = [a for k, v in kw.items() for a in
            ("--" + k.replace("_", "-"), ",".join(map(str, v)) if isinstance(v, list) else v)]
    ref = cli("simulate", *args, "--like", "astra-sim", "--astra-system", A1 + system,
              "--export-astra1", str(tmp_path / "cli"))
    same(py, ref, skip=NOWALL)
    want = {"system_fifo_c1.txt": 3157433, "system_fifo_c16_a2.txt": 2111410}[system]
    assert py["time_ns"] == want
    names = sorted(os.listdir(tmp_path / "cli"))
    assert names == sorted(os.listdir(tmp_path / "py")) == ["network.json", "system.txt",
                                                             "workload.txt"]
    for n in names:
        assert (tmp_path / "py" / n).read_text() == (tmp_path / "cli" / n).read_text()
    assert (tmp_path / "py" / "system.txt").read_text().startswith("scheduling-policy: FIFO\n")
    with pytest.raises(weft.WeftError, match="astra_system gives chunks"):
        weft.simulate(like="astra-sim", astra_system=A1 + system, chunks=4, **kw)


def test_optimize_export_astra1(tmp_path):
    weft.optimize(GPT3, export_astra1=tmp_path / "py")
    cli("optimize", GPT3, "--export-astra1", str(tmp_path / "cli"))
    names = sorted(os.listdir(tmp_path / "cli"))
    assert names and names == sorted(os.listdir(tmp_path / "py"))
    for n in names:
        assert (tmp_path / "py" / n).read_text() == (tmp_path / "cli" / n).read_text()


def test_topo_parts_and_threads():
    """parts= (the price table from a parts catalog) and threads=, as --parts and --threads."""
    t = "tests/golden/inputs/"
    same(weft.topo(traffic=t + "topo_ar16.csv", servers=16, degree=2, radix=4,
                   parts=t + "parts_nic1200.yml", threads=2),
         cli("topo", "--traffic", t + "topo_ar16.csv", "--servers", "16", "--degree", "2",
             "--radix", "4", "--parts", t + "parts_nic1200.yml", "--threads", "2"))


def test_codesign_models_per_network():
    """Two models in one search (model= a list, --model a,b) and per_network=
    (--per-network): the same report, the domain sweep's best per file."""
    nets = ["data/domains/d%d.yml" % d for d in (8, 72)]
    kw = dict(npus=18432, device="gb200", network=nets, cost_model="data/validation/cost.yml",
              constraint=["B1 = 900", "B2 = 50"], ep_list=[1, 8], tp=[4, 8], zero=1,
              recompute="full", per_network=True, top=3)
    py = weft.codesign(["llama3-405b", "deepseek-v3"], **kw)
    args = ["--model", "llama3-405b,deepseek-v3", "--npus", "18432", "--device", "gb200"]
    for n in nets:
        args += ["--network", n]
    ref = cli("codesign", *args, "--cost-model", "data/validation/cost.yml", "--constraint",
              "B1 = 900", "--constraint", "B2 = 50", "--ep-list", "1,8", "--tp", "4,8",
              "--zero", "1", "--recompute", "full", "--per-network", "--top", "3")
    same(py, ref)
    assert py["model"] == "llama3-405b,deepseek-v3" and len(py["per_network"]) == 4
    assert weft.codesign("llama3-405b,deepseek-v3", **kw) == py


def test_codesign_default_ep_for_moe():
    """No ep nor ep_list on an MoE model: every divisor of its 256 experts is
    searched (weft_codesign_default_ep), as the CLI does."""
    kw = dict(npus=18432, network="tests/fixtures/nvl72_256.yml",
              cost_model="data/validation/cost.yml", zero=1, recompute="full",
              constraint=["B1 = 900", "B2 = 50"], tp=[2], pp=[8], top=2)
    py = weft.codesign("deepseek-v3", **kw)
    same(py, cli("codesign", "--model", "deepseek-v3", "--npus", "18432", "--network",
                 "tests/fixtures/nvl72_256.yml", "--cost-model", "data/validation/cost.yml",
                 "--zero", "1", "--recompute", "full", "--constraint", "B1 = 900",
                 "--constraint", "B2 = 50", "--tp", "2", "--pp", "8", "--top", "2"))
    assert py["points"] == 2 * 4 * 9  # 2 networks x 4 micro-batches x EP 1, 2, ..., 256
    assert " ep" in py["top"][0]["order"]


def test_pp_account_keywords():
    """pp_account_embedding= and pp_account_loss= are --pp-account-embedding
    and --pp-account-loss and the scenario keys of the same names: Megatron's
    uneven split, which lets megatron-22b's 48 layers run on PP-2 x VP-5
    (48 + 2 = 50 slots, chunks of 5, each end chunk 4), refused without it."""
    v = "data/validation/cost.yml"
    job = dict(model="megatron-22b", tp=8, pp=2, vp=5, recompute=True, cost_model=v,
               cluster="dgx-h100", npus=16, constraint=["B1 = 450", "B2 = 50"])
    args = ["--model", "megatron-22b", "--tp", "8", "--pp", "2", "--vp", "5", "--recompute",
            "--cost-model", v, "--cluster", "dgx-h100", "--npus", "16", "--constraint",
            "B1 = 450", "--constraint", "B2 = 50"]
    py = weft.optimize(pp_account_embedding=True, pp_account_loss=True, **job)
    same(py, cli("optimize", *args, "--pp-account-embedding", "--pp-account-loss"))
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 2]}, "cost_model": v,
          "workload": {"model": "megatron-22b", "tp": 8, "pp": 2, "virtual_stages": 5,
                       "recompute": True, "pp_account_embedding": True,
                       "pp_account_loss": True},
          "constraints": ["B1 = 450", "B2 = 50"]}
    assert weft.optimize(sc)["time_ns"] == py["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(**job)
    assert "virtual_stages" in str(e.value)
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(pp_account_embedding=True, **job)  # 49 slots on 10 chunks
    assert "pp_account" in str(e.value)


def test_recompute_num_layers_keywords():
    """recompute_num_layers= and recompute_method= are --recompute-num-layers
    and --recompute-method and the scenario keys of the same names: block
    recomputes the first N layers of each stage, fewer FLOPs than full."""
    v = "data/validation/cost.yml"
    job = dict(model="megatron-22b", tp=8, pp=2, recompute=True, cost_model=v,
               cluster="dgx-h100", npus=16, constraint=["B1 = 450", "B2 = 50"])
    args = ["--model", "megatron-22b", "--tp", "8", "--pp", "2", "--recompute",
            "--cost-model", v, "--cluster", "dgx-h100", "--npus", "16", "--constraint",
            "B1 = 450", "--constraint", "B2 = 50"]
    py = weft.optimize(recompute_method="block", recompute_num_layers=4, **job)
    same(py, cli("optimize", *args, "--recompute-method", "block", "--recompute-num-layers", "4"))
    assert py["time_ns"] < weft.optimize(**job)["time_ns"]  # 4 of 24 layers a stage again
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 2]}, "cost_model": v,
          "workload": {"model": "megatron-22b", "tp": 8, "pp": 2, "recompute": "full",
                       "recompute_method": "block", "recompute_num_layers": 4},
          "constraints": ["B1 = 450", "B2 = 50"]}
    assert weft.optimize(sc)["time_ns"] == py["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(recompute_method="blocks", **job)
    assert "uniform or block" in str(e.value)


def test_cpu_offloading_keywords():
    """cpu_offloading_num_layers= is --cpu-offloading-num-layers and the
    scenario key of the same name: 79 of Llama 2 70B's 80 layers offloaded
    leave one set in HBM, every copy in the open (TE's schedule), slower
    than 60; a device without host_gbps is refused, naming the field."""
    v = "data/validation/cost.yml"
    job = dict(model="llama2-70b", device="h100", zero=3, attention="flash", cost_model=v,
               cluster="dgx-h100", npus=64, constraint=["B1 = 450", "B2 = 50"])
    args = ["--model", "llama2-70b", "--device", "h100", "--zero", "3", "--attention", "flash",
            "--cost-model", v, "--cluster", "dgx-h100", "--npus", "64", "--constraint",
            "B1 = 450", "--constraint", "B2 = 50"]
    py = weft.optimize(cpu_offloading_num_layers=60, **job)
    same(py, cli("optimize", *args, "--cpu-offloading-num-layers", "60"))
    assert py["time_ns"] < weft.optimize(cpu_offloading_num_layers=79, **job)["time_ns"]
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 8]}, "cost_model": v,
          "workload": {"model": "llama2-70b", "device": "h100", "zero": 3, "attention": "flash",
                       "cpu_offloading_num_layers": 60},
          "constraints": ["B1 = 450", "B2 = 50"]}
    assert weft.optimize(sc)["time_ns"] == py["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(cpu_offloading_num_layers=60, **dict(job, device="mi300x"))
    assert "host_gbps" in str(e.value)


def test_zoo_recipe_keys():
    """head_dim, window, sinks and mtp_layers read by weft.zoo as by `weft zoo
    --json` (same keys, same order, same parameter count)."""
    for f in ("tests/fixtures/zoo/window.yml", "tests/fixtures/zoo/mtp.yml",
              "data/zoo/models/gpt-oss-120b.yml", "data/zoo/models/qwen3-30b-a3b.yml"):
        py = weft.zoo(f)
        same(py, cli("zoo", f))
    m = weft.zoo("tests/fixtures/zoo/mtp.yml")
    assert (m["head_dim"], m["window"], m["window_full_every"], m["sinks"], m["mtp_layers"]) == \
        (32, 128, 2, True, 1)
    # the module: a layer (23,040 + 17,280 + 120 + 4 sinks), projection 2 x 60 x 60, 3 norms
    assert m["params"] == 200948 + 40444 + 7200 + 180


def test_recompute_modules_keyword():
    """recompute_modules= (a list or a comma-separated text) is
    --recompute-modules and the scenario key: recomputing the MLP too costs
    time and saves activations."""
    v = "data/validation/cost.yml"
    job = dict(model="megatron-22b", tp=8, pp=2, recompute="selective", cost_model=v,
               cluster="dgx-h100", npus=16, constraint=["B1 = 450", "B2 = 50"])
    args = ["--model", "megatron-22b", "--tp", "8", "--pp", "2", "--recompute", "selective",
            "--cost-model", v, "--cluster", "dgx-h100", "--npus", "16", "--constraint",
            "B1 = 450", "--constraint", "B2 = 50"]
    py = weft.optimize(recompute_modules=["core_attn", "mlp"], **job)
    same(py, cli("optimize", *args, "--recompute-modules", "core_attn,mlp"))
    assert weft.optimize(recompute_modules="core_attn, mlp", **job)["time_ns"] == py["time_ns"]
    assert py["time_ns"] > weft.optimize(**job)["time_ns"]
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 2]}, "cost_model": v,
          "workload": {"model": "megatron-22b", "tp": 8, "pp": 2, "recompute": "selective",
                       "recompute_modules": ["core_attn", "mlp"]},
          "constraints": ["B1 = 450", "B2 = 50"]}
    assert weft.optimize(sc)["time_ns"] == py["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(recompute_modules=["mlpx"], **job)
    assert "mlpx" in str(e.value)


def test_recompute_modules_torchtitan_op():
    """recompute_modules="torchtitan_op" (torchtitan's op-level policy) is the
    CLI's --recompute-modules torchtitan_op and the scenario key: on a SwiGLU
    model it runs wk, wo and w3 again, so costs more than the core alone;
    with Megatron-Core's modules it is refused, naming the field."""
    v = "data/validation/cost.yml"
    job = dict(model="llama3-8b", tp=8, recompute="selective", attention="fa2", cost_model=v,
               cluster="dgx-h100", npus=8, constraint=["B1 = 450"])
    args = ["--model", "llama3-8b", "--tp", "8", "--recompute", "selective", "--attention", "fa2",
            "--cost-model", v, "--cluster", "dgx-h100", "--npus", "8", "--constraint", "B1 = 450"]
    py = weft.optimize(recompute_modules="torchtitan_op", **job)
    same(py, cli("optimize", *args, "--recompute-modules", "torchtitan_op"))
    assert py["time_ns"] > weft.optimize(**job)["time_ns"]
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8]}, "cost_model": v,
          "workload": {"model": "llama3-8b", "tp": 8, "recompute": "selective", "attention": "fa2",
                       "recompute_modules": ["torchtitan_op"]},
          "constraints": ["B1 = 450"]}
    assert weft.optimize(sc)["time_ns"] == py["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(recompute_modules=["torchtitan_op", "mlp"], **job)
    assert "stands alone" in str(e.value) and e.value.field == "recompute_modules"


def test_codesign_ep_list_refused_where_no_model_has_it():
    """An ep_list= entry that divides no model's experts is refused, as the CLI
    refuses --ep-list (goldens codesign_ep_list_*): before, each such point was
    only 'invalid', reported by an unrelated first reason."""
    kw = dict(npus=18432, device="gb200", network="data/domains/d72.yml",
              cost_model="data/validation/cost.yml", constraint=["B1 = 900", "B2 = 50"],
              tp=[8], zero=1)
    with pytest.raises(weft.WeftError, match="entry 2 is 7, which does not divide "
                       "deepseek-v3's 256 experts"):
        weft.codesign("deepseek-v3", ep_list=[8, 7], **kw)
    with pytest.raises(weft.WeftError, match="llama3-405b has no experts"):
        weft.codesign("llama3-405b", ep_list=[1, 8], **kw)
    with pytest.raises(weft.WeftError, match="entry 3 is 12, which divides the experts of none"):
        weft.codesign(["llama3-405b", "deepseek-v3"], ep_list=[1, 8, 12], **kw)


def test_comm_overlap():
    # tp_comm_overlap= and overlap_p2p_communication= are --tp-comm-overlap
    # on|off and --overlap-p2p-communication on|off: TP collectives under their
    # GEMMs (sequence parallel), pipeline send-recvs under other micro-batches'
    # compute (interleaved); each hides time, in both loops that honour it
    for loop in ("no-overlap", "tp-dp-overlap"):
        args = dict(cluster="dgx-h100", npus=128, cost_model="data/validation/cost.yml",
                    model="llama2-70b", tp=8, pp=4, vp=5, recompute="full", sp=True, loop=loop,
                    constraint=["B1 <= 450", "B2 <= 50"])
        flags = ["--cluster", "dgx-h100", "--npus", "128", "--cost-model",
                 "data/validation/cost.yml", "--model", "llama2-70b", "--tp", "8", "--pp", "4",
                 "--vp", "5", "--recompute", "full", "--sp", "--loop", loop,
                 "--constraint", "B1 <= 450", "--constraint", "B2 <= 50"]
        on = weft.optimize(tp_comm_overlap=True, **args)
        same(on, cli("optimize", *flags, "--tp-comm-overlap", "on"), skip=NOWALL)
        off = weft.optimize(overlap_p2p_communication=False, **args)
        same(off, cli("optimize", *flags, "--overlap-p2p-communication", "off"), skip=NOWALL)
        default = weft.optimize(**args)
        assert weft.optimize(tp_comm_overlap=False, overlap_p2p_communication=True,
                             **args) == default
        assert on["time_ns"] < default["time_ns"] < off["time_ns"]
    with pytest.raises(weft.WeftError) as e:  # Megatron asserts sequence parallelism too
        weft.optimize(tp_comm_overlap=True, **dict(args, sp=False))
    assert e.value.field == "tp_comm_overlap"


# The TP-overlap keyword tests' job: Llama 2 70B on TP 8 x PP 4 with
# Transformer Engine's TP overlap, as a keyword dict, the CLI's flags and a
# scenario's workload (each test adds its own key).
TPO_COST = "data/validation/cost.yml"
TPO_JOB = dict(model="llama2-70b", tp=8, pp=4, sp=True, tp_comm_overlap=True, cost_model=TPO_COST,
               cluster="dgx-h100", npus=64, constraint=["B1 <= 450", "B2 <= 50"])
TPO_ARGS = ["--model", "llama2-70b", "--tp", "8", "--pp", "4", "--sp", "--tp-comm-overlap", "on",
            "--cost-model", TPO_COST, "--cluster", "dgx-h100", "--npus", "64", "--constraint",
            "B1 <= 450", "--constraint", "B2 <= 50"]


def tpo_scenario(**workload):
    """The TP-overlap tests' job as a scenario, workload keys added."""
    w = {"model": "llama2-70b", "tp": 8, "pp": 4, "sequence_parallel": True,
         "tp_comm_overlap": True}
    w.update(workload)
    return {"network": {"cluster": "dgx-h100", "npus_count": [8, 8]}, "cost_model": TPO_COST,
            "workload": w, "constraints": ["B1 <= 450", "B2 <= 50"]}


def tpo_parity(key, value, text, flag, extra=None):
    """The TP-overlap job with keyword key=value: the same answer as the CLI
    with flag text, as key=text, and as the scenario key (extra: keywords
    both take, e.g. fp8); the Python result."""
    extra = extra or {}
    job = dict(TPO_JOB, **extra)
    args = TPO_ARGS + [a for k, v in extra.items() for a in ("--" + k.replace("_", "-"), v)]
    py = weft.optimize(**{key: value}, **job)
    same(py, cli("optimize", *args, flag, text), skip=NOWALL)
    assert weft.optimize(**{key: text}, **job)["time_ns"] == py["time_ns"]
    assert weft.optimize(tpo_scenario(**extra, **{key: value}))["time_ns"] == py["time_ns"]
    return py


def tpo_refused(key, cases, **extra):
    """Each (bad, msg) of cases: key=bad on the TP-overlap job refused, naming key."""
    for bad, msg in cases:
        with pytest.raises(weft.WeftError) as e:
            weft.optimize(**{key: bad}, **dict(TPO_JOB, **extra))
        assert msg in str(e.value) and e.value.field == key


def test_tp_overlap_sms_keyword():
    """tp_overlap_sms= (a dict or the text) is --tp-overlap-sms and the
    scenario key: the GPT-3 175B recipe's SMs per GEMM (dgxc-benchmarking
    gpt3_175b_hydra.yaml ub_tp_comm_overlap_cfg) take more SMs from the
    projection's and fc2's forward than TE's 16 but fewer from the wgrads and
    dgrads; a name TE does not give SMs, and one given twice, are refused."""
    sms = {"proj_fprop": 24, "fc2_fprop": 20, "qkv_wgrad": 8, "fc1_wgrad": 4, "qkv_dgrad": 4,
           "fc1_dgrad": 2}
    py = tpo_parity("tp_overlap_sms", sms, ",".join("%s=%d" % kv for kv in sms.items()),
                    "--tp-overlap-sms")
    default = weft.optimize(**TPO_JOB)["time_ns"]
    assert py["time_ns"] != default
    assert weft.optimize(tp_overlap_sms={"proj_fprop": 16}, **TPO_JOB)["time_ns"] == default
    tpo_refused("tp_overlap_sms", (({"qkv_fprop": 1}, "ring exchange"),
                                   ("fc1_wgrad=4,fc1_wgrad=2", "twice"),
                                   ({"fc2_fprop": 132}, "expected 0..131"), (24, "expected")))


def test_tp_overlap_aggregate_keyword():
    """tp_overlap_aggregate= (a list or the text) is --tp-overlap-aggregate and
    the scenario key (the Llama 3.1 405B recipe's aggregate on its four ring
    exchanges): the first chunk of each all-gather waits, so the step takes
    longer; a GEMM that is no ring exchange is refused."""
    rings = ["qkv_fprop", "fc1_fprop", "proj_dgrad", "fc2_dgrad"]
    py = tpo_parity("tp_overlap_aggregate", rings, ",".join(rings), "--tp-overlap-aggregate")
    assert weft.optimize(tp_overlap_aggregate=" ".join(rings), **TPO_JOB)["time_ns"] == \
        py["time_ns"]
    assert py["time_ns"] > weft.optimize(**TPO_JOB)["time_ns"]
    tpo_refused("tp_overlap_aggregate", ((["proj_fprop"], "no ring exchange"),))


def test_tp_overlap_method_keyword(tmp_path):
    """tp_overlap_method= (a dict or the text) is --tp-overlap-method and the
    scenario key, as a mapping or the text (the ring-exchange reduce-scatters
    NeMo's Llama 3 recipes run, and an fc1 dgrad pipelined as Megatron-Bridge's
    LoRA configs do): the step moves, TE's own methods named leave it as it
    was, and a method a GEMM does not take is refused with its field; in a
    scenario file, at its line."""
    meth = {"proj_fprop": "ring_exchange", "fc2_fprop": "ring_exchange", "fc1_dgrad": "pipeline"}
    text = ",".join("%s=%s" % kv for kv in meth.items())
    py = tpo_parity("tp_overlap_method", meth, text, "--tp-overlap-method")
    default = weft.optimize(**TPO_JOB)["time_ns"]
    assert py["time_ns"] != default
    te = {"proj_fprop": "pipeline", "fc2_fprop": "pipeline", "qkv_dgrad": "bulk"}
    assert weft.optimize(tp_overlap_method=te, **TPO_JOB)["time_ns"] == default
    assert weft.optimize(tpo_scenario(tp_overlap_method=text))["time_ns"] == py["time_ns"]
    tpo_refused("tp_overlap_method", (({"fc2_fprop": "bulk"}, "not bulk"),
                                      ({"qkv_fprop": "pipeline"}, "ring exchange only"),
                                      ("fc1_dgrad=pipeline,fc1_dgrad=bulk", "twice"),
                                      (3, "expected")))
    f = tmp_path / "s.yml"
    f.write_text("cost_model: %s/%s\nnetwork:\n  cluster: dgx-h100\n  npus_count: [8, 8]\n"
                 "workload:\n  model: llama2-70b\n  tp: 8\n  pp: 4\n  sequence_parallel: true\n"
                 "  tp_comm_overlap: true\n  tp_overlap_method:\n    fc1_wgrad: pipeline\n"
                 "constraints: ['B1 <= 450', 'B2 <= 50']\n" % (ROOT, TPO_COST))
    r = subprocess.run([CLI, "optimize", str(f)], capture_output=True, text=True)
    assert r.returncode == 2 and "s.yml:12:5:" in r.stderr and "fc1_wgrad takes bulk" in r.stderr


def test_tp_overlap_fp8_buf_keyword():
    """tp_overlap_fp8_buf= (a list or the text) is --tp-overlap-fp8-buf and the
    scenario key (the Llama 3 70B FP8 recipe's fp8_buf on proj_fprop and
    fc2_fprop): with FP8 GEMMs the reduce-scatters move half the bytes, so the
    step is faster; without FP8 it is read by nothing; a bulk one is
    refused naming the field."""
    names = ["proj_fprop", "fc2_fprop"]
    py = tpo_parity("tp_overlap_fp8_buf", names, ",".join(names), "--tp-overlap-fp8-buf",
                    extra={"fp8": "delayed"})
    job = dict(TPO_JOB, fp8="delayed")
    assert weft.optimize(tp_overlap_fp8_buf=" ".join(names), **job)["time_ns"] == py["time_ns"]
    assert py["time_ns"] < weft.optimize(**job)["time_ns"]
    bf16 = dict(job, fp8="off")
    assert weft.optimize(tp_overlap_fp8_buf=names, **bf16)["time_ns"] == \
        weft.optimize(**bf16)["time_ns"]
    tpo_refused("tp_overlap_fp8_buf", ((["fc1_wgrad"], "bulk reduce-scatter"),), fp8="delayed")


def test_cuda_graph_scope_keyword():
    """cuda_graph_scope= (a list or the text) is --cuda-graph-scope and the
    scenario key: on a GB200 (its Grace host launches slowest) graphs of the
    MLP alone leave the step between eager and all graphed; without
    cuda_graphs it is refused naming the field."""
    v = "data/validation/cost.yml"
    job = dict(model="llama3-8b", tp=2, sp=True, cost_model=v, device="gb200",
               cluster="gb200-nvl72", npus=8, constraint=["B1 <= 900"])
    args = ["--model", "llama3-8b", "--tp", "2", "--sp", "--cost-model", v, "--device", "gb200",
            "--cluster", "gb200-nvl72", "--npus", "8", "--constraint", "B1 <= 900"]
    py = weft.optimize(cuda_graphs=True, cuda_graph_scope=["mlp"], **job)
    same(py, cli("optimize", *args, "--cuda-graphs", "--cuda-graph-scope", "mlp"), skip=NOWALL)
    assert weft.optimize(cuda_graphs=True, cuda_graph_scope="mlp", **job)["time_ns"] == \
        py["time_ns"]
    eager, graphed = (weft.optimize(cuda_graphs=g, **job)["time_ns"] for g in (False, True))
    assert graphed < py["time_ns"] < eager
    sc = {"network": {"cluster": "gb200-nvl72", "npus_count": [8]}, "cost_model": v,
          "workload": {"model": "llama3-8b", "device": "gb200", "tp": 2,
                       "sequence_parallel": True, "cuda_graphs": True,
                       "cuda_graph_scope": ["mlp"]},
          "constraints": ["B1 <= 900"]}
    assert weft.optimize(sc)["time_ns"] == py["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(cuda_graph_scope=["mlp"], **job)
    assert "needs cuda_graphs" in str(e.value) and e.value.field == "cuda_graph_scope"

def test_etp_keyword(tmp_path):
    """etp= is --etp and the scenario key etp (Megatron-Core's
    expert_tensor_parallel_size, MoE parallel folding): qwen3-30b-a3b's EP 16
    on TP 2 x DP 8 (16 H100s) folds over every rank with ETP 1, and is refused
    without it (ETP = TP 2: 2 x 16 does not divide 16). The optimize answer,
    the workload's and the codesign's agree between the CLI and Python."""
    v = "data/validation/cost.yml"
    job = dict(model="qwen3-30b-a3b", tp=2, ep=16, sp=True, zero=1, recompute=True,
               cost_model=v, cluster="dgx-h100", npus=16, constraint=["B1 = 450", "B2 = 50"])
    args = ["--model", "qwen3-30b-a3b", "--tp", "2", "--ep", "16", "--sp", "--zero", "1",
            "--recompute", "--cost-model", v, "--cluster", "dgx-h100", "--npus", "16",
            "--constraint", "B1 = 450", "--constraint", "B2 = 50"]
    py = weft.optimize(etp=1, **job)
    same(py, cli("optimize", *args, "--etp", "1"))
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 2]}, "cost_model": v,
          "workload": {"model": "qwen3-30b-a3b", "tp": 2, "ep": 16, "etp": 1,
                       "sequence_parallel": True, "zero": 1, "recompute": True},
          "constraints": ["B1 = 450", "B2 = 50"]}
    assert weft.optimize(sc)["time_ns"] == py["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(**job)
    assert e.value.field == "ep" and "etp x ep = 2 x 16" in str(e.value)
    wl = dict(model="qwen3-30b-a3b", tp=2, ep=16, etp=1, sp=True, zero=1, recompute=True,
              cluster="dgx-h100", npus=16)
    tol = {"bubble_fraction": (5e-6, 0.0), "tokens": (0.0, 0.5)}  # as the CLI prints them
    tol.update({k: (0.0, 0.5) for k in ("params", "grads", "optimizer", "activations", "total",
                                         "capacity")})
    tol.update({k: (1e-9, 0.0) for k in ("model_flops", "hw_flops")})
    ref = cli("workload", "--model", "qwen3-30b-a3b", "--tp", "2", "--ep", "16", "--etp", "1",
              "--sp", "--zero", "1", "--recompute", "--cluster", "dgx-h100", "--npus", "16",
              "-o", str(tmp_path / "cli"))
    for k in ("workload", "communicator"):
        ref[k] = ref[k].replace(str(tmp_path / "cli"), str(tmp_path / "py"))
    same(weft.workload(output=tmp_path / "py", **wl), ref, tol=tol)
    for ext in (".txt", ".comm.yml"):
        assert (tmp_path / ("py" + ext)).read_text() == (tmp_path / ("cli" + ext)).read_text()
    assert "  ep: [ 8, 2 ]" in (tmp_path / "py.comm.yml").read_text()
    cs = dict(npus=16, blocks=["Switch", "Switch"], cost_model=v, tp=2, ep=16, etp=1, sp=True,
              zero=1, recompute="full", max_per_dim=[8, 0], cost_dims=["NVLink", "InfiniBand"],
              constraint="sum = 500")
    py = weft.codesign("qwen3-30b-a3b", **cs)
    same(py, cli("codesign", "--model", "qwen3-30b-a3b", "--npus", "16", "--blocks",
                 "Switch,Switch", "--cost-model", v, "--tp", "2", "--ep", "16", "--etp", "1",
                 "--sp", "--zero", "1", "--recompute", "full", "--max-per-dim", "8,0",
                 "--cost-dims", "NVLink,InfiniBand", "--constraint", "sum = 500"),
         skip=NOWALL)
    assert py["top"] and all(p["dp"] == 8 for p in py["top"])  # EP 16 folds only over 16
def test_moe_permute_fusion():
    # moe_permute_fusion= is --moe-permute-fusion on|off and the scenario key
    # moe_permute_fusion (Megatron-Core's --moe-permute-fusion; docs/zoo.md,
    # "Around the MoE GEMMs"): a MoE layer's
    # token permutation as Transformer Engine's fused kernels, fewer bytes
    # and kernels than the eager default; the same answer in every entry
    # point, and codesign takes it too
    v = "data/validation/cost.yml"
    args = dict(cluster="dgx-h100", npus=16, cost_model=v, model="qwen3-30b-a3b", ep=16,
                zero=1, recompute=True, constraint=["B1 = 450", "B2 = 50"])
    flags = ["--cluster", "dgx-h100", "--npus", "16", "--cost-model", v, "--model",
             "qwen3-30b-a3b", "--ep", "16", "--zero", "1", "--recompute", "--constraint", "B1 = 450",
             "--constraint", "B2 = 50"]
    on = weft.optimize(moe_permute_fusion=True, **args)
    same(on, cli("optimize", *flags, "--moe-permute-fusion", "on"), skip=NOWALL)
    default = weft.optimize(**args)
    same(default, cli("optimize", *flags, "--moe-permute-fusion", "off"), skip=NOWALL)
    assert weft.optimize(moe_permute_fusion=False, **args) == default
    assert on["time_ns"] < default["time_ns"]
    # moe_router_fusion= is --moe-router-fusion on|off (fewer router kernels)
    both = weft.optimize(moe_permute_fusion=True, moe_router_fusion=True, **args)
    same(both, cli("optimize", *flags, "--moe-permute-fusion", "on", "--moe-router-fusion",
                   "on"), skip=NOWALL)
    assert both["time_ns"] < on["time_ns"]
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 2]}, "cost_model": v,
          "workload": {"model": "qwen3-30b-a3b", "ep": 16, "zero": 1, "recompute": True,
                       "moe_permute_fusion": True},
          "constraints": ["B1 = 450", "B2 = 50"]}
    assert weft.optimize(sc)["time_ns"] == on["time_ns"]
    sc["workload"]["moe_router_fusion"] = True
    assert weft.optimize(sc)["time_ns"] == both["time_ns"]
    cs = dict(npus=16, blocks=["Switch", "Switch"], cost_model=v, tp=1, ep=16, zero=1,
              recompute="full", max_per_dim=[8, 0], cost_dims=["NVLink", "InfiniBand"], constraint="sum = 500",
              moe_permute_fusion=True)
    same(weft.codesign("qwen3-30b-a3b", **cs),
         cli("codesign", "--model", "qwen3-30b-a3b", "--npus", "16", "--blocks",
             "Switch,Switch", "--cost-model", v, "--tp", "1", "--ep", "16", "--zero", "1",
             "--recompute", "full", "--max-per-dim", "8,0", "--cost-dims", "NVLink,InfiniBand", "--constraint",
             "sum = 500", "--moe-permute-fusion", "on"), skip=NOWALL)
    with pytest.raises(weft.WeftError):
        weft.optimize(moe_permute_fusion="maybe", **args)


def test_cp_comm():
    # cp_comm= is --cp-comm p2p|all_gather|torch_* (Megatron's --cp-comm-type): the
    # default is the P2P ring, its transfers hidden behind the ring's
    # kernels; all_gather the blocking gathers and scatter. The scenario key
    # cp_comm gives the same answer.
    args = dict(cluster="dgx-h100", npus=128, cost_model="data/validation/cost.yml",
                model="llama2-70b", tp=8, cp=2, pp=4, recompute="full", attention="flash",
                sp=True, constraint=["B1 <= 450", "B2 <= 50"])
    flags = ["--cluster", "dgx-h100", "--npus", "128", "--cost-model",
             "data/validation/cost.yml", "--model", "llama2-70b", "--tp", "8", "--cp", "2",
             "--pp", "4", "--recompute", "full", "--attention", "flash", "--sp",
             "--constraint", "B1 <= 450", "--constraint", "B2 <= 50"]
    ag = weft.optimize(cp_comm="all_gather", **args)
    same(ag, cli("optimize", *flags, "--cp-comm", "all_gather"), skip=NOWALL)
    ring = weft.optimize(**args)
    same(ring, cli("optimize", *flags, "--cp-comm", "p2p"), skip=NOWALL)
    assert weft.optimize(cp_comm="p2p", **args) == ring
    assert ring["time_ns"] != ag["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(cp_comm="ring", **args)
    assert e.value.field == "cp_comm"
    # PyTorch's ring (torchtitan's CP): the same steps, its eager fp32 merges
    # and sums on top, K, V with every query head; both rotate methods, in
    # every entry point; standard attention refused naming the field.
    for name in ("torch_allgather", "torch_alltoall"):
        t = weft.optimize(cp_comm=name, **args)
        same(t, cli("optimize", *flags, "--cp-comm", name), skip=NOWALL)
        assert t["time_ns"] > ring["time_ns"]
        sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 16]},
              "cost_model": "data/validation/cost.yml",
              "workload": {"model": "llama2-70b", "tp": 8, "cp": 2, "pp": 4,
                           "recompute": "full", "attention": "flash",
                           "sequence_parallel": True,
                           "cp_comm": name},
              "constraints": ["B1 <= 450", "B2 <= 50"]}
        assert weft.optimize(sc)["time_ns"] == t["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(cp_comm="torch_allgather", **dict(args, attention="standard"))
    assert e.value.field == "cp_comm"


def test_fsdp():
    # fsdp= is --fsdp flat|fsdp2 and the scenario key: FSDP2's copy-out and
    # copy-in kernels beside ZeRO-3's collectives, the same answer in every
    # entry point, slower than the flat default; fsdp2 without ZeRO-3 and a
    # bad name are refused naming the field.
    args = dict(cluster="dgx-h100", npus=8, cost_model="data/validation/cost.yml",
                model="llama3-8b", zero=3, loop="tp-dp-overlap", grad_bytes=4,
                recompute="full", constraint=["B1 = 450"])
    flags = ["--cluster", "dgx-h100", "--npus", "8", "--cost-model", "data/validation/cost.yml",
             "--model", "llama3-8b", "--zero", "3", "--loop", "tp-dp-overlap",
             "--grad-bytes", "4", "--recompute", "full", "--constraint", "B1 = 450"]
    f2 = weft.optimize(fsdp="fsdp2", **args)
    same(f2, cli("optimize", *flags, "--fsdp", "fsdp2"), skip=NOWALL)
    flat = weft.optimize(**args)
    assert weft.optimize(fsdp="flat", **args) == flat
    assert f2["time_ns"] > flat["time_ns"]
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8]},
          "cost_model": "data/validation/cost.yml", "loop": "tp-dp-overlap",
          "workload": {"model": "llama3-8b", "zero": 3, "grad_bytes": 4, "recompute": "full",
                       "fsdp": "fsdp2"},
          "constraints": ["B1 = 450"]}
    assert weft.optimize(sc)["time_ns"] == f2["time_ns"]
    for bad in (dict(args, zero=1, fsdp="fsdp2"), dict(args, fsdp="FSDP2")):
        with pytest.raises(weft.WeftError) as e:
            weft.optimize(**bad)
        assert e.value.field == "fsdp"


def llama3_8b_dgx():
    """Llama 3 8B on one DGX H100 at ZeRO-3, tp-dp-overlap, B1 fixed: the
    optimize keywords and the matching CLI flags (the attention checks)."""
    args = dict(cluster="dgx-h100", npus=8, cost_model="data/validation/cost.yml",
                model="llama3-8b", zero=3, loop="tp-dp-overlap", constraint=["B1 = 450"])
    flags = ["--cluster", "dgx-h100", "--npus", "8", "--cost-model", "data/validation/cost.yml",
             "--model", "llama3-8b", "--zero", "3", "--loop", "tp-dp-overlap",
             "--constraint", "B1 = 450"]
    return args, flags


def llama3_8b_dgx_scenario(attention):
    """llama3_8b_dgx() as a scenario, with the attention kernel named."""
    return {"network": {"cluster": "dgx-h100", "npus_count": [8]},
            "cost_model": "data/validation/cost.yml", "loop": "tp-dp-overlap",
            "workload": {"model": "llama3-8b", "zero": 3, "attention": attention},
            "constraints": ["B1 = 450"]}


def test_attention_fa2():
    # attention="fa2" is --attention fa2 (FlashAttention-2, PyTorch SDPA's flash
    # backend: the measured tables' flash rows) and the scenario key: the same
    # answer in every entry point, slower than TE's fused kernel on the H100
    # (its cuDNN rows run faster), and a bad name names the field.
    args, flags = llama3_8b_dgx()
    fa2 = weft.optimize(attention="fa2", **args)
    same(fa2, cli("optimize", *flags, "--attention", "fa2"), skip=NOWALL)
    te = weft.optimize(attention="flash", **args)
    assert fa2["time_ns"] > te["time_ns"]
    sc = llama3_8b_dgx_scenario("fa2")
    assert weft.optimize(sc)["time_ns"] == fa2["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(attention="fa3", **args)
    assert e.value.field == "attention"


def test_ga_steps():
    # ga_steps= is --ga-steps N and the scenario key (docs/zoo.md, "Gradient
    # accumulation under a pipeline"): megatron-22b on PP 2 (its global batch
    # 4 on DP 2: 2 micro-batches) as 2 schedules of 1 fills and drains the
    # pipeline twice, so it runs slower than one schedule of 2, and ga_steps 1
    # is the default; the same in every entry point; a count that does not
    # divide the micro-batches refused, naming the field
    job, args, flags, sc = dgx32("megatron-22b")
    one = weft.optimize(**args)
    two = weft.optimize(ga_steps=2, **args)
    same(two, cli("optimize", *flags, "--ga-steps", "2"), skip=NOWALL)
    assert two["time_ns"] > one["time_ns"]
    assert weft.optimize(ga_steps=1, **args)["time_ns"] == one["time_ns"]
    sc["workload"] = dict(job, sequence_parallel=True, ga_steps=2)
    assert weft.optimize(sc)["time_ns"] == two["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(ga_steps=3, **args)
    assert e.value.field == "ga_steps"
    r = subprocess.run([CLI, "optimize", *flags, "--ga-steps", "0"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "--ga-steps" in r.stderr


def test_attention_flex():
    # attention="flex" is --attention flex (PyTorch's FlexAttention: FA2's rows
    # at its published H100 speed over them) and the scenario key: the same
    # answer in every entry point, faster than fa2 (its attention kernels only:
    # the difference is under the attention's share), refused with context
    # parallelism and with attention dropout, naming the field.
    args, flags = llama3_8b_dgx()
    flex = weft.optimize(attention="flex", **args)
    same(flex, cli("optimize", *flags, "--attention", "flex"), skip=NOWALL)
    fa2 = weft.optimize(attention="fa2", **args)
    assert fa2["time_ns"] * 0.8 < flex["time_ns"] < fa2["time_ns"]
    sc = llama3_8b_dgx_scenario("flex")
    assert weft.optimize(sc)["time_ns"] == flex["time_ns"]
    for bad in (dict(cp=2), dict(attention_dropout=0.1)):
        with pytest.raises(weft.WeftError) as e:
            weft.optimize(attention="flex", **dict(args, **bad))
        assert e.value.field == "attention"
    r = subprocess.run([CLI, "optimize", *flags, "--attention", "flex", "--cp", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "attention flex with cp = 2" in r.stderr


def test_pp_layout_keyword(tmp_path):
    """pp_layout= is --pp-layout and the scenario key of the same name:
    Megatron's layout string, chunks of unequal layers (megatron-22b's 48 on
    PP-2 x VP-2 as 11, 12, 13, 12), timed in Megatron's interleaved order;
    its errors name the field and the position."""
    v = "data/validation/cost.yml"
    lay = "Et*11|t*12|t*13|t*12L"
    job = dict(model="megatron-22b", tp=8, pp=2, vp=2, recompute=True, cost_model=v,
               cluster="dgx-h100", npus=16, constraint=["B1 = 450", "B2 = 50"])
    args = ["--model", "megatron-22b", "--tp", "8", "--pp", "2", "--vp", "2", "--recompute",
            "--cost-model", v, "--cluster", "dgx-h100", "--npus", "16", "--constraint",
            "B1 = 450", "--constraint", "B2 = 50"]
    py = weft.optimize(pp_layout=lay, **job)
    same(py, cli("optimize", *args, "--pp-layout", lay))
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 2]}, "cost_model": v,
          "workload": {"model": "megatron-22b", "tp": 8, "pp": 2, "virtual_stages": 2,
                       "recompute": True, "pp_layout": lay},
          "constraints": ["B1 = 450", "B2 = 50"]}
    assert weft.optimize(sc)["time_ns"] == py["time_ns"]
    wl = dict(tp=8, pp=2, vp=2, recompute=True, cluster="dgx-h100", npus=16)
    w = weft.workload("megatron-22b", pp_layout=lay, output=tmp_path / "py", **wl)
    ref = cli("workload", "--model", "megatron-22b", "--tp", "8", "--pp", "2", "--vp", "2",
              "--recompute", "--cluster", "dgx-h100", "--npus", "16", "--pp-layout", lay,
              "-o", str(tmp_path / "cli"))
    for k in ("workload", "communicator"):
        ref[k] = ref[k].replace(str(tmp_path / "cli"), str(tmp_path / "py"))
    tol = {"bubble_fraction": (5e-6, 0.0), "tokens": (0.0, 0.5)}  # as the CLI prints them
    tol.update({k: (0.0, 0.5) for k in ("params", "grads", "optimizer", "activations", "total",
                                         "capacity")})
    tol.update({k: (1e-9, 0.0) for k in ("model_flops", "hw_flops")})
    same(w, ref, tol=tol)
    for ext in (".txt", ".comm.yml"):
        assert (tmp_path / ("py" + ext)).read_text() == (tmp_path / ("cli" + ext)).read_text()
    names = [x.split()[0] for x in (tmp_path / "py.txt").read_text().splitlines()[2:]]
    assert "L12.attn" in names and "L37.attn" in names  # stage 1: layers 12-23 and 37-48
    assert "L24.attn" not in names and "L36.attn" not in names
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(pp_layout="Et*11|t*12|t*13|t*11L", **job)
    assert e.value.field == "pp_layout" and "47 transformer layers t" in str(e.value)
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(pp_layout="Et*11|t*12|t*13|t*12L|", **job)
    assert e.value.field == "pp_layout" and "5 chunks" in str(e.value)


def test_dropout_keywords():
    """attention_dropout= and hidden_dropout= are --attention-dropout and
    --hidden-dropout and the scenario keys of the same names; absent, the
    model's (the zoo's GPT-3 175B: Megatron's 0.1 on both). Dropout off is
    faster (no fused-attention slowdown, no mask bytes) and keeps fewer
    activations; out-of-range values are refused, naming the field."""
    v = "data/validation/cost.yml"
    job = dict(model="gpt3-175b", attention="flash", sp=True, tp=8, pp=8, cost_model=v,
               cluster="dgx-h100", npus=64, constraint=["B1 = 450", "B2 = 50"])
    args = ["--model", "gpt3-175b", "--attention", "flash", "--sp", "--tp", "8", "--pp", "8",
            "--cost-model", v, "--cluster", "dgx-h100", "--npus", "64", "--constraint",
            "B1 = 450", "--constraint", "B2 = 50"]
    off = weft.optimize(attention_dropout=0, hidden_dropout=0, **job)
    same(off, cli("optimize", *args, "--attention-dropout", "0", "--hidden-dropout", "0"),
         skip=NOWALL)
    on = weft.optimize(**job)
    assert weft.optimize(attention_dropout=0.1, hidden_dropout=0.1, **job) == on
    assert on["time_ns"] > off["time_ns"]
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 8]}, "cost_model": v,
          "workload": {"model": "gpt3-175b", "attention": "flash", "sequence_parallel": True,
                       "tp": 8, "pp": 8, "attention_dropout": 0, "hidden_dropout": 0},
          "constraints": ["B1 = 450", "B2 = 50"]}
    assert weft.optimize(sc)["time_ns"] == off["time_ns"]
    wj = dict(model="gpt3-175b", attention="flash", sp=True, tp=8, pp=8, cluster="dgx-h100",
              npus=64)
    act_on = weft.workload(**wj)["memory_bytes"]["activations"]
    act_off = weft.workload(hidden_dropout=0, **wj)["memory_bytes"]["activations"]
    # the two masks, 1 byte an element of s b h / t (SP), of the first stage's 12
    # layers x 8 micro-batches in flight: 96 x 2 x 2048 x 12288 / 8
    assert act_on - act_off == 96 * 2 * 2048 * 12288 / 8
    for k in ("attention_dropout", "hidden_dropout"):
        with pytest.raises(weft.WeftError) as e:
            weft.optimize(**dict(job, **{k: 1.5}))
        assert e.value.field == k


def test_moe_a2a_overlap():
    # moe_a2a_overlap= is --moe-a2a-overlap on|off and the scenario key
    # moe_a2a_overlap (Megatron-Core's --overlap-moe-expert-parallel-comm;
    # docs/zoo.md, "MoE all-to-all overlap"): the paired micro-batches' EP
    # all-to-alls under the other pass's compute; the same answer in every
    # entry point, codesign too; refused where Megatron-Core refuses it
    v = "data/validation/cost.yml"
    args = dict(cluster="dgx-h100", npus=16, cost_model=v, model="qwen3-30b-a3b", ep=16,
                zero=1, mb=1, recompute="selective", constraint=["B1 = 450", "B2 = 50"])
    flags = ["--cluster", "dgx-h100", "--npus", "16", "--cost-model", v, "--model",
             "qwen3-30b-a3b", "--ep", "16", "--zero", "1", "--mb", "1", "--recompute", "selective", "--constraint", "B1 = 450",
             "--constraint", "B2 = 50"]
    on, default = on_off_parity("moe_a2a_overlap", args, flags)
    assert on["time_ns"] < default["time_ns"]
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 2]}, "cost_model": v,
          "workload": {"model": "qwen3-30b-a3b", "ep": 16, "zero": 1, "micro_batch": 1, "recompute": "selective",
                       "moe_a2a_overlap": True},
          "constraints": ["B1 = 450", "B2 = 50"]}
    assert weft.optimize(sc)["time_ns"] == on["time_ns"]
    cs = dict(npus=16, blocks=["Switch", "Switch"], cost_model=v, tp=1, ep=16, zero=1,
              recompute="selective", max_per_dim=[8, 0], cost_dims=["NVLink", "InfiniBand"], constraint="sum = 500",
              moe_a2a_overlap=True)
    same(weft.codesign("qwen3-30b-a3b", **cs),
         cli("codesign", "--model", "qwen3-30b-a3b", "--npus", "16", "--blocks",
             "Switch,Switch", "--cost-model", v, "--tp", "1", "--ep", "16", "--zero", "1",
             "--recompute", "selective", "--max-per-dim", "8,0", "--cost-dims", "NVLink,InfiniBand", "--constraint",
             "sum = 500", "--moe-a2a-overlap", "on"), skip=NOWALL)
    with pytest.raises(weft.WeftError) as e:  # Megatron-Core: no full recomputation
        weft.optimize(moe_a2a_overlap=True, **dict(args, recompute="full"))
    assert e.value.field == "moe_a2a_overlap"


def test_moe_dispatch_fp8():
    # moe_dispatch_fp8= is --moe-dispatch-fp8 on|off and the scenario key
    # moe_dispatch_fp8 (DeepSeek-V3's FP8 dispatch; docs/zoo.md, "Expert
    # parallelism"): with FP8 GEMMs the forward dispatch moves half the
    # bytes, so the iteration is no slower; off (the default) as without the
    # key; the same answer in every entry point, codesign too; refused
    # without FP8, naming the field
    v = "data/validation/cost.yml"
    args = dict(cluster="dgx-h100", npus=16, cost_model=v, model="qwen3-30b-a3b", ep=16,
                zero=1, mb=1, recompute="selective", fp8="delayed", loop="no-overlap",
                constraint=["B1 = 450", "B2 = 50"])
    flags = ["--cluster", "dgx-h100", "--npus", "16", "--cost-model", v, "--model",
             "qwen3-30b-a3b", "--ep", "16", "--zero", "1", "--mb", "1", "--recompute", "selective",
             "--fp8", "delayed", "--loop", "no-overlap", "--constraint", "B1 = 450",
             "--constraint", "B2 = 50"]
    on, default = on_off_parity("moe_dispatch_fp8", args, flags)
    assert on["time_ns"] < default["time_ns"]
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 2]}, "cost_model": v,
          "loop": "no-overlap",
          "workload": {"model": "qwen3-30b-a3b", "ep": 16, "zero": 1, "micro_batch": 1,
                       "recompute": "selective", "fp8": "delayed", "moe_dispatch_fp8": True},
          "constraints": ["B1 = 450", "B2 = 50"]}
    assert weft.optimize(sc)["time_ns"] == on["time_ns"]
    cs = dict(npus=16, blocks=["Switch", "Switch"], cost_model=v, tp=1, ep=16, zero=1,
              recompute="selective", fp8="delayed", device="h100", max_per_dim=[8, 0],
              cost_dims=["NVLink", "InfiniBand"], constraint="sum = 500", moe_dispatch_fp8=True)
    same(weft.codesign("qwen3-30b-a3b", **cs),
         cli("codesign", "--model", "qwen3-30b-a3b", "--npus", "16", "--blocks",
             "Switch,Switch", "--cost-model", v, "--tp", "1", "--ep", "16", "--zero", "1",
             "--recompute", "selective", "--fp8", "delayed", "--device", "h100", "--max-per-dim", "8,0",
             "--cost-dims", "NVLink,InfiniBand", "--constraint", "sum = 500",
             "--moe-dispatch-fp8", "on"), skip=NOWALL)
    with pytest.raises(weft.WeftError) as e:  # the dispatch quantizes FP8 GEMMs' inputs
        weft.optimize(moe_dispatch_fp8=True, **dict(args, fp8="off"))
    assert e.value.field == "moe_dispatch_fp8"
    bf16 = [f for f in flags if f not in ("--fp8", "delayed")]
    r = subprocess.run([CLI, "optimize", *bf16, "--moe-dispatch-fp8", "on"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "moe_dispatch_fp8 needs FP8 GEMMs" in r.stderr


def test_fp8_amax_reduce():
    # fp8_amax_reduce= is --fp8-amax-reduce stage|tp|off and the scenario key
    # (docs/zoo.md, "FP8"): delayed scaling's amax all-reduce over the stage's
    # ranks (TP 8 x DP 2 on two DGX H100s: 25.2 us), TP's alone (one node:
    # 15.0 us) or none; so stage > tp > off, each the same in every entry
    # point; refused without delayed scaling, naming the field
    job, args, flags, sc = dgx32("megatron-22b", fp8="delayed")
    v = sc["cost_model"]
    t = word_parity("fp8_amax_reduce", ("stage", "tp", "off"), args, flags)
    assert t["stage"] > t["tp"] > t["off"]
    sc["workload"] = dict(job, sequence_parallel=True, fp8_amax_reduce="tp")
    assert weft.optimize(sc)["time_ns"] == t["tp"]
    cs = dict(npus=32, blocks=["Switch", "Switch"], cost_model=v, tp=8, pp=2, sp=True,
              fp8="delayed", device="h100", max_per_dim=[8, 0], cost_dims=["NVLink", "InfiniBand"],
              constraint="sum = 500", fp8_amax_reduce="off")
    same(weft.codesign("megatron-22b", **cs),
         cli("codesign", "--model", "megatron-22b", "--npus", "32", "--blocks", "Switch,Switch",
             "--cost-model", v, "--tp", "8", "--pp", "2", "--sp", "--fp8", "delayed",
             "--device", "h100", "--max-per-dim", "8,0", "--cost-dims", "NVLink,InfiniBand",
             "--constraint", "sum = 500", "--fp8-amax-reduce", "off"), skip=NOWALL)
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(fp8_amax_reduce="dp", **args)
    assert e.value.field == "fp8_amax_reduce"
    cur = [f if f != "delayed" else "current" for f in flags]
    r = subprocess.run([CLI, "optimize", *cur, "--fp8-amax-reduce", "tp"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "fp8_amax_reduce tp needs fp8 delayed" in r.stderr


def test_cross_entropy():
    # cross_entropy= is --cross-entropy fused|megatron|te|torch|torch_nocast
    # and the scenario key (docs/zoo.md, "The loss"): the loss's kernels move
    # 10 (te), 12 (torch_nocast), 32 (fused, the default), 36 (torch, its
    # casts included) and 52 (megatron) bytes a logit, so the times order te
    # < torch_nocast < fused < megatron and torch_nocast < torch; each the
    # same in every entry point; a wrong name refused naming the field
    job, args, flags, sc = dgx32("megatron-22b")
    v = sc["cost_model"]
    t = word_parity("cross_entropy", ("fused", "megatron", "te", "torch", "torch_nocast"), args,
                    flags)
    assert t["te"] < t["torch_nocast"] < t["fused"] < t["megatron"]
    assert t["torch_nocast"] < t["torch"]
    sc["workload"] = dict(job, sequence_parallel=True, cross_entropy="te")
    assert weft.optimize(sc)["time_ns"] == t["te"]
    cs = dict(npus=32, blocks=["Switch", "Switch"], cost_model=v, tp=8, pp=2, sp=True,
              device="h100", max_per_dim=[8, 0], cost_dims=["NVLink", "InfiniBand"],
              constraint="sum = 500", cross_entropy="torch")
    same(weft.codesign("megatron-22b", **cs),
         cli("codesign", "--model", "megatron-22b", "--npus", "32", "--blocks", "Switch,Switch",
             "--cost-model", v, "--tp", "8", "--pp", "2", "--sp", "--device", "h100",
             "--max-per-dim", "8,0", "--cost-dims", "NVLink,InfiniBand", "--constraint",
             "sum = 500", "--cross-entropy", "torch"), skip=NOWALL)
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(cross_entropy="native", **args)
    assert e.value.field == "cross_entropy"
    r = subprocess.run([CLI, "optimize", *flags, "--cross-entropy", "native"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--cross-entropy 'native'" in r.stderr


def test_activation_fusion():
    # activation_fusion= is --activation-fusion on|off and the scenario key
    # (docs/zoo.md, "The MLP's activation"): on, the default, one fused
    # kernel each way; off, eager PyTorch's kernels (SwiGLU: 5 tensors
    # forward and 13 backward against 3 and 5), so slower; the same in every
    # entry point; a non-boolean refused naming the field
    job, args, flags, sc = dgx32("llama3-8b")
    on = weft.optimize(activation_fusion=True, **args)
    off = weft.optimize(activation_fusion=False, **args)
    same(on, cli("optimize", *flags, "--activation-fusion", "on"), skip=NOWALL)
    same(off, cli("optimize", *flags, "--activation-fusion", "off"), skip=NOWALL)
    assert weft.optimize(**args) == on
    assert off["time_ns"] > on["time_ns"]
    sc["workload"] = dict(job, sequence_parallel=True, activation_fusion=False)
    assert weft.optimize(sc)["time_ns"] == off["time_ns"]
    refused("activation_fusion", "eager", args, flags, "--activation-fusion must be on or off")


def test_reshard_after_forward():
    # reshard_after_forward= is --reshard-after-forward on|off and the
    # scenario key: off keeps ZeRO-3's parameters gathered for the step (one
    # gather, the gradients reduced once) and holds them and their sums in
    # memory; the same in every entry point; refused without ZeRO-3 naming
    # the field
    args = dict(cluster="dgx-h100", npus=16, cost_model="data/validation/cost.yml",
                model="llama3-8b", pp=2, zero=3, fsdp="fsdp2", grad_bytes=4, recompute="full",
                loop="tp-dp-overlap", constraint=["B1 = 450", "B2 = 50"])
    flags = ["--cluster", "dgx-h100", "--npus", "16", "--cost-model", "data/validation/cost.yml",
             "--model", "llama3-8b", "--pp", "2", "--zero", "3", "--fsdp", "fsdp2",
             "--grad-bytes", "4", "--recompute", "full", "--loop", "tp-dp-overlap",
             "--constraint", "B1 = 450", "--constraint", "B2 = 50"]
    kept = weft.optimize(reshard_after_forward=False, **args)
    same(kept, cli("optimize", *flags, "--reshard-after-forward", "off"), skip=NOWALL)
    on = weft.optimize(**args)
    same(on, cli("optimize", *flags, "--reshard-after-forward", "on"), skip=NOWALL)
    assert kept["time_ns"] != on["time_ns"]
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 2]},
          "cost_model": "data/validation/cost.yml", "loop": "tp-dp-overlap",
          "workload": {"model": "llama3-8b", "pp": 2, "zero": 3, "fsdp": "fsdp2", "grad_bytes": 4,
                       "recompute": "full", "reshard_after_forward": False},
          "constraints": ["B1 = 450", "B2 = 50"]}
    assert weft.optimize(sc)["time_ns"] == kept["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(reshard_after_forward=False, **dict(args, zero=1, fsdp="flat"))
    assert e.value.field == "reshard_after_forward"


def test_norm_rope_fusion():
    # norm_fusion= and rope_fusion= are --norm-fusion and --rope-fusion on|off
    # and the scenario keys (docs/zoo.md, "Eager norms and RoPE"): off runs
    # torchtitan's RMSNorm and apply_rotary_emb as eager PyTorch's kernels,
    # so slower, the same in every entry point; a non-boolean refused naming
    # the field
    job, args, flags = dgx32("llama3-8b")[:3]
    sc = dgx32("llama3-8b")[3]
    for key in ("norm_fusion", "rope_fusion"):
        flag = "--" + key.replace("_", "-")
        on = weft.optimize(**{key: True}, **args)
        off = weft.optimize(**{key: False}, **args)
        same(on, cli("optimize", *flags, flag, "on"), skip=NOWALL)
        same(off, cli("optimize", *flags, flag, "off"), skip=NOWALL)
        assert weft.optimize(**args) == on
        assert off["time_ns"] > on["time_ns"]
        sc["workload"] = dict(job, sequence_parallel=True, **{key: False})
        assert weft.optimize(sc)["time_ns"] == off["time_ns"]
        with pytest.raises(weft.WeftError) as e:
            weft.optimize(**{key: "eager"}, **args)
        assert e.value.field == key
        r = subprocess.run([CLI, "optimize", *flags, flag, "eager"], capture_output=True,
                           text=True)
        assert r.returncode == 2 and flag + " must be on or off" in r.stderr


def test_fp8_param_gather():
    # fp8_param_gather= is --fp8-param-gather on|off and the scenario key
    # (docs/zoo.md, "FP8 parameters"): on, the distributed optimizer's
    # all-gathers move the FP8 GEMMs' weights at 1 byte, so the exposed
    # weight-grad communication does not grow; the same in every entry point;
    # refused without FP8 GEMMs or with ZeRO 0, naming the field
    job, args, flags, sc = dgx32("llama3-8b", fp8="delayed")
    args, flags = dict(args, zero=1), flags + ["--zero", "1"]
    on, off = on_off_parity("fp8_param_gather", args, flags)
    assert on["jobs"][0]["exposed_comm_ns"][2] <= off["jobs"][0]["exposed_comm_ns"][2]
    assert on["jobs"][0]["comm_ns"][2] < off["jobs"][0]["comm_ns"][2]
    sc["workload"] = dict(job, sequence_parallel=True, zero=1, fp8_param_gather=True)
    assert weft.optimize(sc)["time_ns"] == on["time_ns"]
    for bad in (dict(args, fp8="off"), dict(args, zero=0)):
        with pytest.raises(weft.WeftError) as e:
            weft.optimize(fp8_param_gather=True, **bad)
        assert e.value.field == "fp8_param_gather"
    r = subprocess.run([CLI, "optimize", *flags[:-4], "--fp8-param-gather", "on"],
                       capture_output=True, text=True)  # flags less --fp8 delayed --zero 1
    assert r.returncode == 2 and "fp8_param_gather needs fp8 delayed" in r.stderr
    r = subprocess.run([CLI, "optimize", *flags, "--fp8-param-gather", "yes"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--fp8-param-gather must be on or off" in r.stderr


def qwen3_ep16():
    """Qwen3-30B-A3B on two DGX H100 nodes at EP 16, ZeRO-1, full recompute,
    the bandwidths fixed: the cost model's path, the job's keywords, the
    optimize keywords and the matching CLI flags (the MoE option checks)."""
    v = "data/validation/cost.yml"
    job = dict(model="qwen3-30b-a3b", tp=1, ep=16, zero=1, recompute="full")
    args = dict(cluster="dgx-h100", npus=16, cost_model=v, constraint=["B1 = 450", "B2 = 50"],
                **job)
    flags = ["--cluster", "dgx-h100", "--npus", "16", "--cost-model", v, "--constraint",
             "B1 = 450", "--constraint", "B2 = 50", "--model", "qwen3-30b-a3b", "--tp", "1",
             "--ep", "16", "--zero", "1", "--recompute", "full"]
    return v, job, args, flags


def test_moe_dispatcher():
    # moe_dispatcher= is --moe-dispatcher alltoall|deepep|hybridep and the
    # scenario key (docs/zoo.md, "MoE dispatchers"): the flex dispatcher's
    # backends send a token once per destination rank, so on Qwen3-30B-A3B
    # (128 experts top 8 on EP 16) they move less and run faster than the
    # all-to-all dispatcher, the default; the same in every entry point; a
    # wrong name refused naming the field, and the flex backends with the
    # experts on TP
    v, job, args, flags = qwen3_ep16()
    t = word_parity("moe_dispatcher", ("alltoall", "deepep", "hybridep"), args, flags)
    assert t["hybridep"] < t["alltoall"] and t["deepep"] < t["alltoall"]
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 2]}, "cost_model": v,
          "constraints": ["B1 = 450", "B2 = 50"],
          "workload": dict(job, moe_dispatcher="deepep")}
    assert weft.optimize(sc)["time_ns"] == t["deepep"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(moe_dispatcher="flex", **args)
    assert e.value.field == "moe_dispatcher"
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(moe_dispatcher="deepep", **dict(args, tp=2, ep=8, sp=True))
    assert e.value.field == "moe_dispatcher" and "etp = 2" in str(e.value)
    r = subprocess.run([CLI, "optimize", *flags, "--moe-dispatcher", "flex"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "expected alltoall, deepep or hybridep" in r.stderr


def test_moe_routing():
    # moe_routing= is --moe-routing random|blocked and the scenario key
    # (docs/zoo.md, "MoE routing"): Qwen3-30B-A3B on EP 16 (8 experts a
    # rank, top 8) with DeepEP sends a blocked token to 1 rank, a randomly
    # routed one to 16 (1 - C(120, 8) / C(128, 8)) = 6.6 ranks, so blocked
    # moves less and runs faster; with the all-to-all dispatcher (a copy per
    # expert) the routing changes nothing; the same in every entry point; a
    # wrong name refused naming the field, and blocked on a dense model
    v, job, args, flags = qwen3_ep16()
    t = word_parity("moe_routing", ("random", "blocked"),
                    dict(args, moe_dispatcher="deepep"), flags + ["--moe-dispatcher", "deepep"])
    assert t["blocked"] < t["random"]
    a2a = word_parity("moe_routing", ("random", "blocked"), args, flags)
    assert a2a["blocked"] == a2a["random"]
    sc = {"network": {"cluster": "dgx-h100", "npus_count": [8, 2]}, "cost_model": v,
          "constraints": ["B1 = 450", "B2 = 50"],
          "workload": dict(job, moe_dispatcher="deepep", moe_routing="blocked")}
    assert weft.optimize(sc)["time_ns"] == t["blocked"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(moe_routing="fake", **args)
    assert e.value.field == "moe_routing"
    with pytest.raises(weft.WeftError) as e:
        weft.optimize(moe_routing="blocked", **dict(args, model="llama3-8b", ep=1))
    assert e.value.field == "moe_routing" and "has no experts" in str(e.value)
    r = subprocess.run([CLI, "optimize", *flags, "--moe-routing", "fake"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "expected random or blocked" in r.stderr


def test_layer_impl():
    # layer_impl= is --layer-impl megatron|torch and the scenario key
    # (docs/zoo.md, "Torch layers"): Llama 3 8B at TP 8 with SP written as
    # torchtitan's modules runs separate projections, gradient sums and
    # DTensor's layout copies around every SP collective, so it is slower
    # than Megatron's fused layers; under async TP too (its input-gradient
    # reduce-scatter blocks where Transformer Engine hides it); the same in
    # every entry point; a wrong name refused naming the field
    job, args, flags, sc = dgx32("llama3-8b")
    t = word_parity("layer_impl", ("megatron", "torch"), args, flags)
    assert t["torch"] > t["megatron"]
    a = word_parity("layer_impl", ("megatron", "torch"), dict(args, tp_comm_overlap=True),
                    flags + ["--tp-comm-overlap", "on"])
    assert a["megatron"] < a["torch"] and a["torch"] < t["torch"]
    sc["workload"] = dict(job, sequence_parallel=True, layer_impl="torch")
    assert weft.optimize(sc)["time_ns"] == t["torch"]
    refused("layer_impl", "dtensor", args, flags, "expected megatron or torch")


def test_value_text_as_every_entry_point_reads_it():
    """A keyword's text is read as the CLI reads the option and a scenario
    the key: ASCII decimal digits (not 1_000, not other scripts' digits), no
    denormal number, no empty name; what one entry point refuses, the
    others refuse too (each naming the field), and what they accept gives
    one answer."""
    job = dict(model="llama3-8b", device="h100", network=G + "network_4d.yml",
               cost_model=G + "cost_4d.yml", constraint="sum = 1000", tp=8, pp=4)
    flags = ["--model", "llama3-8b", "--device", "h100", "--network", G + "network_4d.yml",
             "--cost-model", G + "cost_4d.yml", "--constraint", "sum = 1000", "--tp", "8",
             "--pp", "4"]
    refused = [("tp", "0_8", "--tp"), ("tp", "\u0668", "--tp"), ("pp", "+\u0664", "--pp"),
               ("efficiency", "0.4_0", "--efficiency"),
               ("hidden_dropout", "1e-310", "--hidden-dropout"),
               ("hidden_dropout", "1e-400", "--hidden-dropout"),
               ("attention_dropout", 1e-310, "--attention-dropout"),
               ("ddp_bucket_size", "4_0", "--ddp-bucket-size"),
               ("device", "", "--device"), ("recompute", "", "--recompute")]
    for key, v, flag in refused:
        with pytest.raises(weft.WeftError) as e:
            weft.optimize(**dict(job, **{key: v}))
        assert e.value.field == key, (key, v)
        arg = v if isinstance(v, str) else repr(v)
        i = flags.index(flag) if flag in flags else len(flags)  # the option given once
        argv = flags[:i] + flags[i + 2:] + [flag, arg]
        p = subprocess.run([CLI, "optimize", *argv], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        assert p.returncode == 2 and flag in p.stderr.decode(), (flag, arg, p.stderr.decode())
    base = weft.optimize(**job)
    # text the three read alike: 04 and +4 are 4 (the files' integers), 2.5e1 a number
    same(weft.optimize(**dict(job, grad_bytes="04")),
         cli("optimize", *flags, "--grad-bytes", "04"), skip=NOWALL)
    assert weft.optimize(**dict(job, grad_bytes="+4")) == weft.optimize(**dict(job, grad_bytes=4))
    assert weft.optimize(**dict(job, ddp_bucket_size="4e7")) == \
        weft.optimize(**dict(job, ddp_bucket_size=4e7))
    assert weft.optimize(**dict(job, hidden_dropout="0.1")) == \
        weft.optimize(**dict(job, hidden_dropout=0.1))
    assert base["time_ns"] > 0


def test_scenario_takes_the_cli_spellings():
    """A scenario's workload takes mb, vp and sp (the CLI's and Python's
    names) as micro_batch, virtual_stages and sequence_parallel: one answer;
    both spellings of one key are refused, and an error lands on the key as
    written."""
    net = {"cluster": "dgx-h100", "npus_count": [8, 4]}  # tp 8 x pp 4: 128 micro-batches
    cost, cons = "data/validation/cost.yml", ["B1 = 450", "B2 = 50"]
    wl = {"model": "llama3-8b", "device": "h100", "tp": 8, "pp": 4}
    short = weft.optimize({"network": net, "cost_model": cost, "constraints": cons,
                           "workload": dict(wl, mb=1, vp=2, sp=True)})
    long_ = weft.optimize({"network": net, "cost_model": cost, "constraints": cons,
                           "workload": dict(wl, micro_batch=1, virtual_stages=2,
                                            sequence_parallel=True)})
    kw = weft.optimize(cluster="dgx-h100", npus=32, cost_model=cost, constraint=cons, mb=1,
                       vp=2, sp=True, **wl)
    assert short["time_ns"] == long_["time_ns"] == kw["time_ns"]
    with pytest.raises(weft.WeftError) as e:
        weft.optimize({"network": net, "cost_model": cost, "constraints": cons,
                       "workload": dict(wl, mb=1, micro_batch=1)})
    assert "duplicate key" in str(e.value)
    with pytest.raises(weft.WeftError) as e:
        weft.optimize({"network": net, "cost_model": cost, "constraints": cons,
                       "workload": dict(wl, vp=0)})
    assert e.value.field == "vp" and "vp must be" in str(e.value)


def test_lora():
    # lora_rank= and lora_targets= are --lora-rank and --lora-targets and the
    # scenario keys (docs/zoo.md, "LoRA"): the base frozen, so faster than full
    # training and with less memory; targets as a list or the text alike; the
    # same in every entry point; bad values refused naming the field, and
    # codesign takes them too
    job, args, flags, sc = dgx32("llama3-8b", fp8="current")
    args, flags = dict(args, zero=1), flags + ["--zero", "1"]
    full = weft.optimize(**args)
    lora = weft.optimize(lora_rank=16, lora_targets=["qkv", "linear_fc1"], **args)
    same(lora, cli("optimize", *flags, "--lora-rank", "16", "--lora-targets", "qkv,fc1"),
         skip=NOWALL)
    assert weft.optimize(lora_rank=16, lora_targets="qkv fc1", **args) == lora
    assert lora["time_ns"] < full["time_ns"]
    sc["workload"] = dict(job, sequence_parallel=True, zero=1, lora_rank=16,
                          lora_targets=["linear_qkv", "fc1"])
    assert weft.optimize(sc)["time_ns"] == lora["time_ns"]
    for kw, field in ((dict(lora_rank=0), "lora_rank"), (dict(lora_rank="x"), "lora_rank"),
                      (dict(lora_rank=8, lora_targets="dense"), "lora_targets"),
                      (dict(lora_targets="qkv"), "lora_targets")):
        with pytest.raises(weft.WeftError) as e:
            weft.optimize(**kw, **args)
        assert e.value.field == field
    r = subprocess.run([CLI, "optimize", *flags, "--lora-rank", "16", "--lora-targets", "dense"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--lora-targets 'dense'" in r.stderr
    r = subprocess.run([CLI, "optimize", *flags, "--lora-rank", "0"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "--lora-rank must be an integer in 1..65536" in r.stderr


def test_packed_sample_len():
    # packed_sample_len= is --packed-sample-len and the scenario key
    # (docs/zoo.md, "Packed samples"): the attention within samples of that
    # many tokens, so faster than the whole sequence; the sequence's own
    # length changes nothing; the same in every entry point; refused
    # naming the field
    job, args, flags, sc = dgx32("llama3-8b")
    args, flags = dict(args, attention="flash"), flags + ["--attention", "flash"]
    whole = weft.optimize(**args)
    packed = weft.optimize(packed_sample_len=512, **args)
    same(packed, cli("optimize", *flags, "--packed-sample-len", "512"), skip=NOWALL)
    assert packed["time_ns"] < whole["time_ns"]
    assert weft.optimize(packed_sample_len=8192, **args)["time_ns"] == whole["time_ns"]
    sc["workload"] = dict(job, sequence_parallel=True, attention="flash", packed_sample_len=512)
    assert weft.optimize(sc)["time_ns"] == packed["time_ns"]
    for v in (0, 8193, "x"):
        with pytest.raises(weft.WeftError) as e:
            weft.optimize(packed_sample_len=v, **args)
        assert e.value.field == "packed_sample_len"
