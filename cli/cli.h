/* gpusim command line: one file per subcommand. Only this directory prints to the terminal. */
#ifndef GPUSIM_CLI_H
#define GPUSIM_CLI_H

#include <stdint.h>

#include "base/error.h"

/* Exit codes (DESIGN.md "Rules of the house"). */
enum {
    GS_EXIT_OK = 0,
    GS_EXIT_CHECK_FAILED = 1,
    GS_EXIT_USAGE = 2,
    GS_EXIT_INVALID_SCENARIO = 3,
    GS_EXIT_INTERNAL = 4,
    GS_EXIT_INCOMPLETE = 5, /* report/describe on an incomplete trace without --allow-incomplete */
};

int gs_cmd_run(int argc, char **argv);
int gs_cmd_validate(int argc, char **argv);
int gs_cmd_report(int argc, char **argv);
int gs_cmd_describe(int argc, char **argv);
int gs_cmd_version(int argc, char **argv);
int gs_cmd_experiment(int argc, char **argv);
int gs_cmd_sweep(int argc, char **argv);
int gs_cmd_merge(int argc, char **argv);
int gs_cmd_compare(int argc, char **argv);
int gs_cmd_plan(int argc, char **argv);
int gs_cmd_explain(int argc, char **argv);
int gs_cmd_get(int argc, char **argv);
int gs_cmd_timeline(int argc, char **argv);
int gs_cmd_export(int argc, char **argv);

/* Print a scenario error as `gpusim: file:line:col: error: msg` on stderr and return the exit
 * code for it (3 for an invalid scenario, 2 for an unreadable file). */
int gs_cli_scenario_error(const struct gs_error *e, int rc);

/* After a report or describe printed from `trace`: when the trace says it is incomplete, say
 * so on stderr (and up to which simulated time it is complete) and return GS_EXIT_INCOMPLETE,
 * or GS_EXIT_OK when `allow` (--allow-incomplete). A complete trace returns GS_EXIT_OK
 * (cli/incomplete.c). */
int gs_cli_incomplete(const char *trace, int allow);

struct gs_scenario;
/* Print the warnings of a loaded scenario (sc->dp.warnings: keys the device plugin ignores) as
 * `gpusim: file:line:col: warning: msg` on stderr, in file order (cli/warnings.c). */
void gs_cli_scenario_warnings(const struct gs_scenario *sc);

/* Print the warnings of the run in `trace` (an end at 0s, everything Rejected, pods that can never
 * be scheduled: reports/report.h gs_report_run_warnings) as `gpusim: warning: ...` on stderr
 * (cli/warnings.c). */
void gs_cli_run_warnings(const char *trace);

/* Parse a --seeds argument, `A-B` or `A,B,...` or both (`1-5,9`), into seeds[0..*n): distinct
 * integers 0..INT64_MAX, at most `max`. Returns 0, or -1 for anything else (empty, a sign, a
 * reversed range, a repeated seed, a trailing comma, more than `max`) (cli/seeds.c). */
int gs_cli_parse_seeds(const char *s, uint64_t *seeds, int max, int *n);

/* True when argv[i] is -h or --help. */
int gs_cli_is_help(const char *arg);

#endif
