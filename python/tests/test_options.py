# test_options.py — the package's keywords and the CLI's options cannot
# drift: `weft options` prints every option of every command from the tables
# its --help prints; each command's function takes each as a keyword
# (python/weft/_options.py: the names, the CLI-only ones and why), and no
# keyword the CLI lacks. An option added to the CLI fails here, naming the
# option, the function and the two ways to settle it.
import json
import subprocess

import pytest

import weft
from weft import _options
from helpers import CLI


def cli_options():
    p = subprocess.run([CLI, "options"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 0, p.stderr.decode()
    return json.loads(p.stdout)


OPTIONS = cli_options()


def test_every_command_has_a_function_or_a_reason():
    for cmd in OPTIONS:
        assert cmd in _options.FUNCTIONS or cmd in _options.CLI_COMMANDS, (
            "`weft %s` has no Python function: add one (python/weft/__init__.py) or list it in "
            "python/weft/_options.py CLI_COMMANDS with the reason" % cmd)
    for cmd, func in _options.FUNCTIONS.items():
        assert cmd in OPTIONS, "_options.FUNCTIONS names `weft %s`, which the CLI lacks" % cmd
        assert callable(getattr(weft, func))


@pytest.mark.parametrize("cmd", sorted(_options.FUNCTIONS))
def test_every_option_is_a_keyword(cmd):
    func, kws = _options.FUNCTIONS[cmd], _options.keywords(cmd)
    missing = [o["name"] for o in OPTIONS[cmd]
               if _options.keyword(o["name"]) not in kws and not _options.cli_only(cmd, o["name"])]
    assert not missing, (
        "`weft %s` options with no keyword in weft.%s(): %s. Give weft.%s() the keyword%s %s "
        "with the CLI's meaning (its module's KEYS, and a parity test in "
        "python/tests/test_parity.py), or list the option in python/weft/_options.py CLI_ONLY "
        "with the reason" % (cmd, func, ", ".join(missing), func, "s" if len(missing) > 1 else "",
                             ", ".join(repr(_options.keyword(m)) for m in missing)))


@pytest.mark.parametrize("cmd", sorted(_options.FUNCTIONS))
def test_every_keyword_is_an_option(cmd):
    names = {_options.keyword(o["name"]) for o in OPTIONS[cmd]}
    extra = sorted(_options.keywords(cmd) - names)
    assert not extra, ("weft.%s() keywords the CLI's `weft %s` lacks: %s (add the option to "
                       "the CLI, or drop the keyword)" % (_options.FUNCTIONS[cmd], cmd, extra))


def test_cli_only_lists_only_options():
    """A CLI-only entry names an option its command has (none stale), with a reason."""
    for cmd, opts in _options.CLI_ONLY.items():
        cmds = list(_options.FUNCTIONS) if cmd == "*" else [cmd]
        for c in cmds:
            have = {o["name"] for o in OPTIONS[c]}
            for name, why in opts.items():
                assert why, (cmd, name)
                if cmd != "*":
                    assert name in have, "CLI_ONLY[%r] names %s, which `weft %s` lacks" % (
                        cmd, name, c)
                    assert _options.keyword(name) not in _options.keywords(c), (
                        "%s is CLI-only for %s, yet weft.%s() takes it" % (name, c, c))


def test_cli_only_keyword_refused_with_its_reason():
    with pytest.raises(TypeError, match="CLI-only.*Perfetto"):
        weft.simulate("data/gpt3_4096npu_4d.yml", trace="t.json")
    with pytest.raises(TypeError, match="did you mean 'cost_model'"):
        weft.optimize("data/gpt3_4096npu_4d.yml", cost_modle="x.yml")


def test_drift_is_caught():
    """The check itself: an option the function lacks is named in the failure."""
    OPTIONS["workload"].append({"name": "--new-knob", "arg": "N", "repeatable": False,
                                "help": "a new option"})
    try:
        with pytest.raises(AssertionError, match="--new-knob.*'new_knob'"):
            test_every_option_is_a_keyword("workload")
    finally:
        OPTIONS["workload"].pop()


def test_options_rows():
    """Rows as the tables hold them: a flag's arg is null; --constraint (a
    list by nature) is the repeatable one; help on one line."""
    opt = {o["name"]: o for o in OPTIONS["optimize"]}
    assert opt["--sp"]["arg"] is None and opt["--cost-model"]["arg"] == "FILE"
    assert [n for n, o in opt.items() if o["repeatable"]] == ["--constraint"]
    assert all("\n" not in o["help"] for rows in OPTIONS.values() for o in rows)
