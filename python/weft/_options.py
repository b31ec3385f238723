# _options.py — the package's keywords against the CLI's options. The CLI's
# option tables are the one source (`weft options` prints them, read from
# the tables each command's --help prints); each function takes every
# option of its command as a keyword (--cost-model: cost_model), except the
# CLI-only ones below, each with its reason. python/tests/test_options.py
# checks both ways against the built CLI, so an option added to a command
# fails that test until its function takes it (with a parity test) or it is
# listed here.

# CLI command -> the package's function (weft.NAME).
FUNCTIONS = {"optimize": "optimize", "simulate": "simulate", "validate": "validate",
             "workload": "workload", "codesign": "codesign", "topo": "topo", "zoo": "zoo"}

# Commands with no function, and why.
CLI_COMMANDS = {
    "sweep": "a scenario file of lists and ranges run point by point, printed as it goes: "
             "call the functions in a loop",
    "topo-eval": "TopoOpt's evaluation figures (cost-vs-time curves, CSV and plots)",
}

# Options whose keyword is not the option's name with '-' as '_'.
ALIASES = {"-o": "output"}

# Options with no keyword, and why: by command ("*": every command).
CLI_ONLY = {
    "*": {"--help": "the command's help (Python: help(weft.FUNCTION))",
          "--json": "the output format: every function returns what --json prints, as a dict"},
    "optimize": {"--plot": "a chart file (gnuplot) of the report"},
    "simulate": {"--trace": "a Perfetto trace file of the run's timeline",
                 "--trace-max-mib": "the size limit of --trace's file",
                 "--trace-stages": "--trace's per-chunk stages",
                 "--progress": "progress lines on stderr"},
    "codesign": {"--csv": "a CSV file of every point evaluated",
                 "--plot": "a chart file (gnuplot) of the Pareto front",
                 "--progress": "progress lines on stderr"},
    "topo": {"--edges": "the topology written as an edge-list file",
             "--dot": "the topology written as a GraphViz file",
             "--routes": "the job's routes written to a file"},
}
CLI_ONLY["validate"] = CLI_ONLY["simulate"]


def keyword(option):
    """The keyword of a CLI option: --cost-model -> cost_model, -o -> output."""
    return ALIASES.get(option) or option.lstrip("-").replace("-", "_")


def cli_only(command, option):
    """Why option of command has no keyword, or None."""
    return CLI_ONLY["*"].get(option) or CLI_ONLY.get(command, {}).get(option)


def keywords(command):
    """The keywords the function of command takes (its first positional
    argument included when it is also an option, as workload's model)."""
    from importlib import import_module
    mods = {"optimize": ("_optimize", "OPTIMIZE_KEYS"), "simulate": ("_sim", "KEYS"),
            "validate": ("_sim", "KEYS"), "workload": ("_zoo", "WORKLOAD_KEYS"),
            "codesign": ("_codesign", "KEYS"), "topo": ("_topo", "KEYS"),
            "zoo": ("_zoo", "ZOO_KEYS")}
    mod, name = mods[command]
    return set(getattr(import_module("." + mod, __package__), name))
