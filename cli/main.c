/* gpusim: the program entry point and subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char usage[] =
    "usage: gpusim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO       simulate a scenario, write its trace, check its expect: block\n"
    "  validate SCENARIO  load and check a scenario without running it\n"
    "  report TRACE       print the summary of a trace database\n"
    "  describe TRACE NODE|pod/NAME  print a node or a pod as kubectl describe would, from a trace\n"
    "  explain TRACE POD  why a pod was where it was at a time, and what would change it\n"
    "  get pods|nodes TRACE  list pods or nodes at a time as kubectl get would, from a trace\n"
    "  timeline TRACE     one line per event with the GPUs each node holds after it\n"
    "  export TRACE       write a trace as Perfetto JSON (--perfetto) or OpenMetrics (--openmetrics)\n"
    "  sweep SCENARIO     run a scenario over the cross product of --vary values and seeds\n"
    "  merge DIR|TRACE... put the traces of a sweep into one database with a run column\n"
    "  compare RUNS...    the study metrics of several runs side by side, with confidence intervals\n"
    "  plan SCENARIO      the fewest nodes in a pool that meet an objective, by bisection\n"
    "  experiment fgd     replay the openb trace under the FGD paper's protocol and policies\n"
    "  version            print the version\n"
    "\n"
    "Run `gpusim <command> --help` for the options of a command.\n";

int gs_cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int gs_cli_scenario_error(const struct gs_error *e, int rc)
{
    if (e->line > 0)
        fprintf(stderr, "gpusim: %s:%d:%d: error: %s\n", e->file, e->line, e->col, e->msg);
    else if (e->file[0])
        fprintf(stderr, "gpusim: %s: error: %s\n", e->file, e->msg);
    else
        fprintf(stderr, "gpusim: error: %s\n", e->msg);
    return rc == GS_EIO ? GS_EXIT_USAGE : GS_EXIT_INVALID_SCENARIO;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return GS_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (gs_cli_is_help(cmd)) {
        fputs(usage, stdout);
        return GS_EXIT_OK;
    }
    if (strcmp(cmd, "run") == 0)
        return gs_cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "validate") == 0)
        return gs_cmd_validate(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return gs_cmd_report(argc - 1, argv + 1);
    if (strcmp(cmd, "describe") == 0)
        return gs_cmd_describe(argc - 1, argv + 1);
    if (strcmp(cmd, "explain") == 0)
        return gs_cmd_explain(argc - 1, argv + 1);
    if (strcmp(cmd, "get") == 0)
        return gs_cmd_get(argc - 1, argv + 1);
    if (strcmp(cmd, "timeline") == 0)
        return gs_cmd_timeline(argc - 1, argv + 1);
    if (strcmp(cmd, "export") == 0)
        return gs_cmd_export(argc - 1, argv + 1);
    if (strcmp(cmd, "sweep") == 0)
        return gs_cmd_sweep(argc - 1, argv + 1);
    if (strcmp(cmd, "merge") == 0)
        return gs_cmd_merge(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return gs_cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "plan") == 0)
        return gs_cmd_plan(argc - 1, argv + 1);
    if (strcmp(cmd, "experiment") == 0)
        return gs_cmd_experiment(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0)
        return gs_cmd_version(argc - 1, argv + 1);
    fprintf(stderr, "gpusim: unknown command '%s'\n\n%s", cmd, usage);
    return GS_EXIT_USAGE;
}
