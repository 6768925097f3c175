/* gpusim report TRACE: the summary of a trace, read from the database alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/quantity.h"
#include "reports/html.h"
#include "reports/report.h"
#include "reports/study.h"
#include "cli/cli.h"
#include "cli/outfile.h"

static const char usage[] =
    "usage: gpusim report TRACE.db [--format text|json|csv] [--allow-incomplete]\n"
    "       gpusim report TRACE.db --html FILE [--steps N] [--from DURATION] [--allow-incomplete]\n"
    "\n"
    "Print the summary of a run from its trace database.\n"
    "\n"
    "  --format text   the summary gpusim run prints (default)\n"
    "  --format json   the study metrics as one JSON document (schema gpusim-report/1)\n"
    "  --format csv    the same metrics, one per row: scope,key,metric,value\n"
    "(docs/trace-schema.md, \"Study metrics\", documents both.)\n"
    "  --html FILE     write the run as one self-contained HTML page instead (no network needed):\n"
    "                  GPUs and pending pods over time, time to schedule, the nodes' bring-up,\n"
    "                  a step-through of the events on a node x GPU map, gangs, fragmentation\n"
    "  --steps N       events in the page's step-through (default 5000)\n"
    "  --from DURATION the step-through starts at this simulated time (default 0s)\n"
    "\n"
    "A trace whose run did not complete (killed: status running; interrupted; failed) is\n"
    "reported with what it holds, says up to which simulated time it is complete, and exits\n"
    "5 unless --allow-incomplete is given.\n";

int gs_cmd_report(int argc, char **argv)
{
    const char *trace = NULL, *format = "text", *html = NULL;
    int allow = 0;
    struct gs_html_options ho = {0};
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
        } else if (strcmp(argv[i], "--html") == 0 || strncmp(argv[i], "--html=", 7) == 0) {
            html = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < argc ? argv[++i] : NULL;
            if (!html || !*html) {
                fprintf(stderr, "gpusim: report: --html needs the file to write\n");
                return GS_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--steps") == 0 || strncmp(argv[i], "--steps=", 8) == 0) {
            const char *v = argv[i][7] == '=' ? argv[i] + 8 : i + 1 < argc ? argv[++i] : NULL;
            char *end = NULL;
            long n = v ? strtol(v, &end, 10) : 0;
            if (!v || !*v || *end || n < 1 || n > 10000000) {
                fprintf(stderr, "gpusim: report: --steps needs a number of events from 1 to 10000000, got '%s'\n",
                        v ? v : "");
                return GS_EXIT_USAGE;
            }
            ho.max_steps = (int)n;
        } else if (strcmp(argv[i], "--from") == 0 || strncmp(argv[i], "--from=", 7) == 0) {
            const char *v = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < argc ? argv[++i] : NULL;
            int64_t t = 0;
            if (!v || gs_duration_parse(v, &t) != 0 || t < 0) {
                fprintf(stderr, "gpusim: report: --from needs a duration such as 25m or 1h30m, got '%s'\n", v ? v : "");
                return GS_EXIT_USAGE;
            }
            ho.from_us = t;
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
    if ((ho.max_steps || ho.from_us) && !html) {
        fprintf(stderr, "gpusim: report: --steps and --from go with --html\n");
        return GS_EXIT_USAGE;
    }
    if (html) {
        struct gs_outfile out;
        const char *inputs[] = {trace};
        if (gs_outfile_open(&out, html, inputs, 1, "report") != 0)
            return GS_EXIT_USAGE;
        int rc = gs_report_html(trace, &ho, out.f, err, sizeof err);
        if (rc) {
            gs_outfile_abort(&out);
            fprintf(stderr, "gpusim: report: %s\n", err);
            return GS_EXIT_USAGE;
        }
        if (gs_outfile_commit(&out, "report") != 0)
            return GS_EXIT_USAGE;
        return gs_cli_incomplete(trace, allow);
    }
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
