/* gpusim timeline TRACE [--from T] [--to T] [--node N]...: one line per event with the GPUs each
 * node holds after it, for a terminal (reports/timeline.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/array.h"
#include "models/quantity.h"
#include "reports/timeline.h"
#include "cli/cli.h"

static const char usage[] =
    "usage: gpusim timeline TRACE.db [--from DURATION] [--to DURATION] [--node NODE]...\n"
    "                       [--changed] [--all] [--messages] [--ascii] [--width N] [--no-legend]\n"
    "                       [--allow-incomplete]\n"
    "\n"
    "Print one line per event of the trace (time, pod or node, reason) followed by the GPUs each\n"
    "node holds after it, one glyph per GPU: held by a pod, shared and partly held, free, or not\n"
    "allocatable. A FailedScheduling the trace aggregated (count > 1) is one line, at its first\n"
    "time, with its count and last time.\n"
    "\n"
    "  --from, --to D   only events at simulated times from D to D (Go syntax: 25m, 1h30m)\n"
    "  --node N         only node N (repeat, or a comma-separated list): its column, and only the\n"
    "                   events concerning it\n"
    "  --changed        per event only the nodes whose GPUs it changed (and the event's own node)\n"
    "  --all            every trace row (by default node Label, Taint, Capacity rows and\n"
    "                   Allocatable rows of other resources than nvidia.com/gpu are left out)\n"
    "  --messages, -m   each event's message (a node row: its subject and value) on the next line\n"
    "  --ascii          plain ASCII glyphs (also when LC_ALL, LC_CTYPE or LANG is not UTF-8)\n"
    "  --width N        columns per line (default: the terminal's width when stdout is one, else\n"
    "                   100); node cells wrap onto indented lines\n"
    "  --no-legend      leave out the two legend lines at the top\n"
    "\n"
    "An incomplete trace (killed, interrupted or failed run) is shown as far as it goes and exits 5\n"
    "unless --allow-incomplete is given.\n";

static int bad_value(const char *opt, const char *v, const char *want)
{
    fprintf(stderr, "gpusim: timeline: %s needs %s, got '%s'\n", opt, want, v ? v : "");
    return GS_EXIT_USAGE;
}

/* The value of option `name` at argv[*i] (`--name V` or `--name=V`), or NULL when argv[*i] is
 * not that option; *missing is set when the option has no value. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 < argc)
        return argv[++*i];
    *missing = 1;
    return "";
}

int gs_cmd_timeline(int argc, char **argv)
{
    const char *trace = NULL;
    struct gs_timeline_opts o = {.from_us = 0, .to_us = -1, .legend = true};
    int allow = 0, width = 0, missing = 0;
    bool ascii = false;
    const char **nodes = NULL; /* names of --node, pointing into owned[] */
    char **owned = gs_calloc((size_t)argc + 1, sizeof *owned);
    int nnodes = 0, cap_nodes = 0, nowned = 0, rc = GS_EXIT_OK;
    if (!owned) {
        fputs("gpusim: timeline: out of memory\n", stderr);
        return GS_EXIT_INTERNAL;
    }
    const char *v;
    for (int i = 1; i < argc; i++) {
        if (gs_cli_is_help(argv[i])) {
            fputs(usage, stdout);
            goto out;
        }
        if ((v = opt_value(argc, argv, &i, "--from", &missing))) {
            if (missing || gs_duration_parse(v, &o.from_us) != 0 || o.from_us < 0) {
                rc = bad_value("--from", v, "a duration such as 25m or 1h30m");
                goto out;
            }
        } else if ((v = opt_value(argc, argv, &i, "--to", &missing))) {
            if (missing || gs_duration_parse(v, &o.to_us) != 0 || o.to_us < 0) {
                rc = bad_value("--to", v, "a duration such as 25m or 1h30m");
                goto out;
            }
        } else if ((v = opt_value(argc, argv, &i, "--node", &missing))) {
            if (missing || !*v) {
                rc = bad_value("--node", v, "a node name");
                goto out;
            }
            char *copy = gs_strdup(v);
            if (!copy) {
                rc = GS_EXIT_INTERNAL;
                goto out;
            }
            owned[nowned++] = copy;
            for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ","))
                if (*tok) {
                    if (GS_GROW(nodes, cap_nodes, nnodes + 1) != 0) {
                        fputs("gpusim: timeline: out of memory\n", stderr);
                        rc = GS_EXIT_INTERNAL;
                        goto out;
                    }
                    nodes[nnodes++] = tok;
                }
        } else if ((v = opt_value(argc, argv, &i, "--width", &missing))) {
            char *end;
            long w = strtol(v, &end, 10);
            if (missing || !*v || *end || w < 40 || w > 100000) {
                rc = bad_value("--width", v, "a number of columns from 40");
                goto out;
            }
            width = (int)w;
        } else if (strcmp(argv[i], "--changed") == 0) {
            o.changed = true;
        } else if (strcmp(argv[i], "--all") == 0) {
            o.all = true;
        } else if (strcmp(argv[i], "--messages") == 0 || strcmp(argv[i], "-m") == 0) {
            o.messages = true;
        } else if (strcmp(argv[i], "--ascii") == 0) {
            ascii = true;
        } else if (strcmp(argv[i], "--no-legend") == 0) {
            o.legend = false;
        } else if (strcmp(argv[i], "--allow-incomplete") == 0) {
            allow = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gpusim: timeline: unknown option '%s'\n\n%s", argv[i], usage);
            rc = GS_EXIT_USAGE;
            goto out;
        } else if (!trace) {
            trace = argv[i];
        } else {
            fprintf(stderr, "gpusim: timeline: unexpected argument '%s'\n\n%s", argv[i], usage);
            rc = GS_EXIT_USAGE;
            goto out;
        }
    }
    if (!trace) {
        fputs(usage, stderr);
        rc = GS_EXIT_USAGE;
        goto out;
    }
    if (o.to_us >= 0 && o.to_us < o.from_us) {
        fputs("gpusim: timeline: --to is before --from\n", stderr);
        rc = GS_EXIT_USAGE;
        goto out;
    }
    if (!width) {
        struct winsize ws;
        width = 100;
        if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
            width = ws.ws_col;
    }
    o.width = width;
    o.ascii = ascii || !gs_timeline_locale_utf8(getenv("LC_ALL"), getenv("LC_CTYPE"), getenv("LANG"));
    if (nnodes) {
        o.nodes = nodes;
        o.nnodes = nnodes;
    }
    char err[1024];
    if (gs_report_timeline(trace, &o, stdout, err, sizeof err) != 0) {
        fprintf(stderr, "gpusim: %s\n", err);
        rc = GS_EXIT_USAGE;
        goto out;
    }
    fflush(stdout);
    rc = gs_cli_incomplete(trace, allow);
out:
    for (int i = 0; i < nowned; i++)
        gs_free(owned[i]);
    gs_free(owned);
    gs_free(nodes);
    return rc;
}
