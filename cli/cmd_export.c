/* gpusim export TRACE --perfetto FILE | --openmetrics FILE [--epoch T]: a trace for Perfetto /
 * chrome://tracing or for Prometheus (reports/export.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "reports/export.h"
#include "cli/cli.h"
#include "cli/outfile.h"

static const char usage[] =
    "usage: gpusim export TRACE.db (--perfetto FILE | --openmetrics FILE) [--epoch TIME]\n"
    "                     [--allow-incomplete]\n"
    "\n"
    "  --perfetto FILE     Chrome trace event JSON: open it in ui.perfetto.dev or chrome://tracing.\n"
    "                      Nodes are processes, GPUs threads, pods slices on the GPUs they held,\n"
    "                      GPU Operator steps slices on one thread per operand, with counters of\n"
    "                      GPUs allocated and pods pending.\n"
    "  --openmetrics FILE  OpenMetrics text with timestamps, for `promtool tsdb create-blocks-from\n"
    "                      openmetrics FILE DIR`: series named as kube-state-metrics, kube-scheduler\n"
    "                      and dcgm-exporter name them (docs/cli.md lists them).\n"
    "  --epoch TIME        the wall-clock time of the run's start in the OpenMetrics timestamps:\n"
    "                      Unix seconds or YYYY-MM-DDTHH:MM:SSZ (default 2026-01-01T00:00:00Z)\n"
    "\n"
    "FILE '-' is standard output. Both may be given. An incomplete trace (killed, interrupted or\n"
    "failed run) is exported as far as it goes and exits 5 unless --allow-incomplete is given.\n";

/* Parse --epoch: Unix seconds, or an RFC 3339 UTC time YYYY-MM-DDTHH:MM:SSZ. 0 or -1. */
static int parse_epoch(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*s && !*end && errno == 0 && v >= 0) {
        *out = v;
        return 0;
    }
    int Y, M, D, h, m, sec, n = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &Y, &M, &D, &h, &m, &sec, &n) != 6 || s[n] || strlen(s) != 20 ||
        Y < 1970 || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 59)
        return -1;
    /* days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil) */
    int y = Y - (M <= 2);
    int era = y / 400, yoe = y - era * 400;
    int doy = (153 * (M + (M > 2 ? -3 : 9)) + 2) / 5 + D - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = (int64_t)era * 146097 + doe - 719468;
    int64_t t = days * 86400 + h * 3600 + m * 60 + sec;
    /* a day the month does not have (2026-02-30) comes back as another date: refuse it */
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || tm.tm_year + 1900 != Y || tm.tm_mon + 1 != M || tm.tm_mday != D)
        return -1;
    *out = t;
    return 0;
}

int gs_cmd_export(int argc, char **argv)
{
    const char *trace = NULL, *perfetto = NULL, *om = NULL;
    int64_t epoch = GS_OM_EPOCH_DEFAULT;
    int allow = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (gs_cli_is_help(a)) {
            fputs(usage, stdout);
            return GS_EXIT_OK;
        }
        const char **dst = strcmp(a, "--perfetto") == 0 ? &perfetto : strcmp(a, "--openmetrics") == 0 ? &om : NULL;
        if (dst) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                fprintf(stderr, "gpusim: export: %s needs a file name ('-' for standard output)\n", a);
                return GS_EXIT_USAGE;
            }
            *dst = argv[++i];
        } else if (strcmp(a, "--epoch") == 0 || strncmp(a, "--epoch=", 8) == 0) {
            const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : "");
            if (parse_epoch(v, &epoch) != 0) {
                fprintf(stderr,
                        "gpusim: export: --epoch needs Unix seconds or a UTC time such as 2026-01-01T00:00:00Z, "
                        "got '%s'\n",
                        v);
                return GS_EXIT_USAGE;
            }
        } else if (strcmp(a, "--allow-incomplete") == 0) {
            allow = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpusim: export: unknown option '%s'\n\n%s", a, usage);
            return GS_EXIT_USAGE;
        } else if (!trace) {
            trace = a;
        } else {
            fprintf(stderr, "gpusim: export: unexpected argument '%s'\n\n%s", a, usage);
            return GS_EXIT_USAGE;
        }
    }
    if (!trace || (!perfetto && !om)) {
        fputs(trace ? "gpusim: export: give --perfetto FILE or --openmetrics FILE\n\n" : "", stderr);
        fputs(usage, stderr);
        return GS_EXIT_USAGE;
    }
    if (perfetto && om && strcmp(perfetto, om) == 0) {
        fprintf(stderr, "gpusim: export: --perfetto and --openmetrics name the same file '%s'\n", om);
        return GS_EXIT_USAGE;
    }
    char err[1024];
    for (int pass = 0; pass < 2; pass++) {
        const char *path = pass == 0 ? perfetto : om;
        if (!path)
            continue;
        struct gs_outfile out;
        const char *inputs[] = {trace};
        if (gs_outfile_open(&out, path, inputs, 1, "export") != 0)
            return GS_EXIT_USAGE;
        int rc = pass == 0 ? gs_export_perfetto(trace, out.f, err, sizeof err)
                           : gs_export_openmetrics(trace, epoch, out.f, err, sizeof err);
        if (rc != 0) {
            gs_outfile_abort(&out); /* no half-written file left behind, the target untouched */
            fprintf(stderr, "gpusim: %s\n", err);
            return rc == GS_ENOMEM ? GS_EXIT_INTERNAL : GS_EXIT_USAGE;
        }
        if (gs_outfile_commit(&out, "export") != 0)
            return GS_EXIT_USAGE;
    }
    return gs_cli_incomplete(trace, allow);
}
