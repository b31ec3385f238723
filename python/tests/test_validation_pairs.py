"""The diagnostic pair tables of scripts/validation_runs.py: which rows pair,
and the ratios, against values worked by hand."""
import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _script():
    path = os.path.join(ROOT, "scripts", "validation_runs.py")
    spec = importlib.util.spec_from_file_location("validation_runs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _row(id, gpus, precision, dp, gbs, **par):
    p = {"tp": 4, "pp": 1, "dp": dp, "global_batch": gbs, "precision": precision}
    p.update(par)
    return {"id": id, "set": "s", "gpus": gpus, "model": {"zoo": "m"}, "loop": "tp-dp-overlap",
            "hardware": {"gpu": "h100-sxm"}, "parallel": p}


def test_pairs_by_hand():
    v = _script()
    done = [
        (_row("x-8-bf16", 8, "bf16", 2, 16), 10.0, 11.0),
        (_row("x-8-fp8", 8, "fp8", 2, 16), 7.0, 6.6),
        (_row("x-64-bf16", 64, "bf16", 16, 128), 10.5, 11.0),
        (_row("x-64-fp8", 64, "FP8", 16, 128), 7.7, 6.6),
        (_row("x-32-bf16", 32, "bf16", 8, 64), 10.2, 11.0),
        # differs in more than the precision (TP): pairs with nothing
        (_row("y-8-bf16", 8, "bf16", 2, 16, tp=8), 9.0, 9.0),
        (_row("y-8-fp8", 8, "fp8", 2, 16), 6.0, 6.0),
    ]
    pg, sg = v.pair_groups(done)
    pg = {k: (round(a, 12), round(b, 12)) for k, a, b in pg}
    assert pg == {"x-8-fp8 / x-8-bf16": (0.7, 0.6), "x-64-fp8 / x-64-bf16": (round(7.7 / 10.5, 12), 0.6)}
    sg = {k: (round(a, 12), round(b, 12)) for k, a, b in sg}
    # the fewest (8) and the most (64) GPUs of each; the 32-GPU row between them is not used
    assert sg == {"x-64-bf16 / x-8-bf16": (1.05, 1.0), "x-64-fp8 / x-8-fp8": (1.1, 1.0)}


def test_stem_keeps_other_numbers():
    v = _script()
    r = _row("dgxc2504-l405-2048-fp8", 2048, "fp8", 16, 1008)
    assert v._stem(r, "gpus") == "dgxc2504-l405-N-fp8"
    assert v._stem(r, "precision") == "dgxc2504-l405-2048"
