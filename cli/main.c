/* main.c — weft's entry point: global flags and command dispatch.
 * Exit codes: 0 ok, 1 no solution or runtime failure, 2 usage or input error. */
#include <string.h>

#include "cli.h"
#include "opts.h"

static const char *usage =
    "usage: weft <command> [options]\n"
    "\n"
    "Design the network fabric of AI training clusters.\n"
    "\n"
    "commands:\n"
    "  optimize   per-dimension bandwidth that minimises iteration time or\n"
    "             time x cost, solved exactly with a certified optimality gap\n"
    "  workload   derive a zoo model's workload under a parallelization and write\n"
    "             it as ASTRA-sim 1.0 text with its LIBRA communicator\n"
    "  codesign   search parallelization x network shape x bandwidth; best designs\n"
    "             and the Pareto front of network cost vs iteration time\n"
    "  sweep      evaluate every point of a scenario with lists and ranges in it\n"
    "  simulate   simulate one training iteration event by event at a bandwidth:\n"
    "             chunks, per-dim algorithms, latency, contention, links\n"
    "  validate   the analytic model next to the simulation, with the error\n"
    "  topo       wire a direct-connect topology for a job (TopoOpt) and compare\n"
    "             it with a switch, a Fat-tree of the same cost and an expander\n"
    "  topo-eval  TopoOpt's evaluation: cost-vs-time curves of every fabric and\n"
    "             the equal-cost comparison read off them\n"
    "  zoo        list the model zoo, device and cluster presets\n"
    "\n"
    "options:\n"
    "  -h, --help      this help (weft help <command>, or weft <command> --help, for a command's)\n"
    "  -V, --version   print the version\n";

/* The commands, by name. */
static const CliCommand commands[] = {{"optimize", cmd_optimize}, {"workload", cmd_workload}, {"codesign", cmd_codesign},
                {"sweep", cmd_sweep},       {"simulate", cmd_simulate}, {"validate", cmd_validate},
                {"topo", cmd_topo},         {"topo-eval", cmd_topo_eval}, {"zoo", cmd_zoo}};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static int run_cmd(const char *cmd, int argc, char **argv) {
  const char *names[NCOMMANDS];
  if (!strcmp(cmd, "options")) return cmd_options(argc, argv, commands, NCOMMANDS);
  for (int i = 0; i < NCOMMANDS; i++) {
    if (!strcmp(cmd, commands[i].name)) return commands[i].fn(argc, argv);
    names[i] = commands[i].name;
  }
  const char *near = cmd[0] == '-' ? NULL : cli_suggest(cmd, strlen(cmd), names, NCOMMANDS);
  if (near) cli_fail("unknown command '%s': did you mean '%s'? (try 'weft --help')", cmd, near);
  else cli_fail("unknown %s '%s' (try 'weft --help')", cmd[0] == '-' ? "option" : "command", cmd);
  return EXIT_USAGE;
}

static int run(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "help") && argc == 3) { /* weft help CMD: that command's help */
    char *help[] = {argv[2], (char *)"--help", NULL};
    if (strcmp(argv[2], "help") && argv[2][0] != '-') return run_cmd(argv[2], 2, help);
  }
  int is_help = !strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help");
  int version = !strcmp(cmd, "-V") || !strcmp(cmd, "--version");
  if (argc == 3 && !strcmp(cmd, "help") && !strcmp(argv[2], "help")) argc = 2; /* help's help */
  if ((is_help || version) && argc > 2) { /* 'weft --version extra': a slip, not a version */
    cli_fail("%s takes no arguments, got '%s' (try 'weft --help')", cmd, argv[2]);
    return EXIT_USAGE;
  }
  if (is_help) {
    fputs(usage, stdout);
    return EXIT_OK;
  }
  if (version) {
    printf("weft %s\n", WEFT_VERSION);
    return EXIT_OK;
  }
  return run_cmd(cmd, argc - 1, argv + 1);
}

/* Every command's report reaches stdout only when it is flushed: a write
 * error there (weft ... > /dev/full) fails the run, whatever the command. */
int main(int argc, char **argv) {
  cli_signals_init();
  int rc = run(argc, argv);
  int out = cli_close_stdout();
  return rc ? rc : out;
}
