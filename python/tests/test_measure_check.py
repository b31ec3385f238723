# test_measure_check.py — scripts/measure/check.py against the measured
# tables it reads, so that the script cannot drift from the library it
# binds by ctypes (it once read opcost.c's operators through a stale
# struct layout and printed every layer at 0% GEMMs). The bounds are the
# device's: the layer check's GEMM-bound rows, the torchtitan policy's
# bytes under torch.compile, FlashAttention-2's ring-step kernels and the
# main_grad accumulation's cost to a weight-gradient GEMM (docs/zoo.md),
# not training runs.
import os
import re
import subprocess
import sys

from helpers import ROOT

CHECK = os.path.join(ROOT, "scripts", "measure", "check.py")


def run(*args):
    p = subprocess.run([sys.executable, CHECK, *args], cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_layer_check_reads_the_operators():
    out = run("layer", "h100")
    shares = [int(x) for x in re.findall(r"\| (\d+)% \|\n", out)]
    assert len(shares) == 22 and min(shares) >= 30  # every layer has GEMMs
    m = re.search(r"GEMM-bound \(GEMM share >= 80%, (\d+) passes\): mean ([\d.]+)%, max ([\d.]+)%", out)
    assert m and int(m.group(1)) >= 8 and float(m.group(2)) <= 5.0 and float(m.group(3)) <= 10.0


def test_sac_check_kept_bytes_match_compiled():
    out = run("sac", "h100")
    rows = [r.split("|") for r in out.splitlines() if r.startswith("| llama")]
    compiled = [r for r in rows if r[4].strip() == "yes"]
    assert len(compiled) == 3
    for r in compiled:  # weft's kept MiB equals the compiled policy's, to the MiB
        assert abs(float(r[8]) - float(r[9])) <= 1.0, r
        assert abs(float(r[7].strip().rstrip("%"))) < 25.0, r  # recompute time, noisy


def test_cp_check_ring_kernels():
    out = run("cp", "h100")
    m = re.search(r"(\d+) kernels: mean \|error\| ([\d.]+)%, max ([\d.]+)%", out)
    assert m and int(m.group(1)) == 14 and float(m.group(2)) <= 5.0 and float(m.group(3)) <= 15.0


def test_wgrad_check_accumulation_model():
    out = run("wgrad", "h100")
    m = re.search(r"(\d+) GEMMs: mean \|error\| ([\d.]+)%, max ([\d.]+)%", out)
    assert m and int(m.group(1)) == 88 and float(m.group(2)) <= 8.0 and float(m.group(3)) <= 40.0


def test_sustained_check_bounds():
    """weft's layer at burst rates within 5% of the measured burst; with the
    sustained factor (an 8192^3 GEMM's) at or above the measured sustained
    step, by at most 10%: the GEMM's power is the upper bound of a layer's."""
    out = run("sustained", "h100")
    rows = [r.split("|") for r in out.splitlines() if r.startswith("| llama")]
    assert len(rows) == 3
    for r in rows:
        assert abs(float(r[4].strip().rstrip("%"))) <= 5.0, r
        assert 0.0 <= float(r[7].strip().rstrip("%")) <= 10.0, r


def test_fp8layer_check_bf16_gemms():
    """A layer's BF16 GEMMs in sequence within 10% of weft's tables (the FP8
    ones are what the check is about: docs/zoo.md)."""
    out = run("fp8layer", "h100")
    rows = [r.split("|") for r in out.splitlines() if r.startswith("| llama") or r.startswith("| gpt")
            or r.startswith("| nemotron")]
    assert len(rows) == 5
    for r in rows:
        assert abs(float(r[4].strip().rstrip("%"))) <= 10.0, r
