/* gpusim report TRACE: the summary of a trace, read from the database alone. */
#include <stdio.h>
#include <string.h>

#include "reports/report.h"
#include "reports/study.h"
#include "cli/cli.h"

static const char usage[] =
    "usage: gpusim report TRACE.db [--format text|json|csv] [--allow-incomplete]\n"
    "\n"
    "Print the summary of a run from its trace database.\n"
    "\n"
    "  --format text   the summary gpusim run prints (default)\n"
    "  --format json   the study metrics as one JSON document (schema gpusim-report/1)\n"
    "  --format csv    the same metrics, one per row: scope,key,metric,value\n"
    "(docs/trace-schema.md, \"Study metrics\", documents both.)\n"
    "\n"
    "A trace whose run did not complete (killed: status running; interrupted; failed) is\n"
    "reported with what it holds, says up to which simulated time it is complete, and exits\n"
    "5 unless --allow-incomplete is given.\n";

int gs_cmd_report(int argc, char **argv)
{
    const char *trace = NULL, *format = "text";
    int allow = 0;
    for (int i = 1; i < argc; i++) {
        if (gs_cli_is_help(argv[i])) {
            fputs(usage, stdout);
            return GS_EXIT_OK;
        }
        if (strcmp(argv[i], "--allow-incomplete") == 0) {
            allow = 1;
        } else if (strcmp(argv[i], "--format") == 0 || strncmp(argv[i], "--format=", 9) == 0) {
            const char *v = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : NULL;
            if (!v || (strcmp(v, "text") != 0 && strcmp(v, "json") != 0 && strcmp(v, "csv") != 0)) {
                fprintf(stderr, "gpusim: report: --format is text, json or csv%s%s%s\n", v ? ", not '" : "",
                        v ? v : "", v ? "'" : "");
                return GS_EXIT_USAGE;
            }
            format = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gpusim: report: unknown option '%s'\n\n%s", argv[i], usage);
            return GS_EXIT_USAGE;
        } else if (!trace) {
            trace = argv[i];
        } else {
            fprintf(stderr, "gpusim: report: one trace at a time ('%s' and '%s')\n", trace, argv[i]);
            return GS_EXIT_USAGE;
        }
    }
    if (!trace) {
        fputs(usage, stderr);
        return GS_EXIT_USAGE;
    }
    char err[512];
    if (strcmp(format, "text") == 0) {
        if (gs_report_summary(trace, stdout, err, sizeof err) != 0) {
            fprintf(stderr, "gpusim: %s\n", err);
            return GS_EXIT_USAGE;
        }
        gs_cli_run_warnings(trace);
    } else {
        json_t *doc;
        if (gs_study_open(trace, &doc, err, sizeof err) != 0) {
            fprintf(stderr, "gpusim: %s\n", err);
            return GS_EXIT_USAGE;
        }
        int rc = strcmp(format, "json") == 0 ? gs_study_print_json(doc, stdout) : gs_study_print_csv(doc, stdout);
        json_decref(doc);
        if (rc != 0 || fflush(stdout) != 0) {
            fprintf(stderr, "gpusim: report: cannot write the %s report\n", format);
            return GS_EXIT_USAGE;
        }
    }
    fflush(stdout);
    return gs_cli_incomplete(trace, allow);
}
