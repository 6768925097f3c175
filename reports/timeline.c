/* gpusim timeline: one line per trace event with the GPUs each node holds after it
 * (reports/timeline.h). Holdings come from reports/history.h only. */
#include "reports/timeline.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/quantity.h"
#include "reports/export.h"
#include "reports/open.h"
#include "sim/scenario/yaml.h"

bool gs_timeline_locale_utf8(const char *lc_all, const char *lc_ctype, const char *lang)
{
    const char *v = lc_all && *lc_all ? lc_all : lc_ctype && *lc_ctype ? lc_ctype : lang && *lang ? lang : NULL;
    if (!v)
        return false;
    const char *dot = strchr(v, '.');
    if (!dot)
        return false;
    dot++;
    size_t n = strcspn(dot, "@");
    return (n == 5 && strncasecmp(dot, "utf-8", 5) == 0) || (n == 4 && strncasecmp(dot, "utf8", 4) == 0);
}

int gs_export_open(const char *path, sqlite3 **db, struct gs_history *h, char *errbuf, int errlen)
{
    memset(h, 0, sizeof *h);
    int rc = gs_report_open(path, db, errbuf, errlen);
    if (rc != 0)
        return rc;
    char why[512] = "";
    rc = gs_history_load(*db, h, why, sizeof why);
    if (rc != 0) {
        sqlite3_close(*db);
        *db = NULL;
        return gs_report_error(errbuf, errlen, rc, "trace '%s': %s", path, why[0] ? why : "cannot read its events");
    }
    return 0;
}

/* The glyphs of a GPU slot, UTF-8 and ASCII. */
enum { G_FULL, G_PART, G_FREE, G_UNALLOC, G_ABSENT };
static const char *const glyph_utf8[] = {"\u2588", "\u2592", "\u00b7", "\u2591", " "};
static const char *const glyph_ascii[] = {"#", "+", ".", "-", " "};

/* One node's cell after an event: "name glyphs", and its width in columns. */
struct cell {
    char *text; /* gs_malloc'd */
    int width;
};

struct tl {
    const struct gs_history *h;
    const struct gs_timeline_opts *o;
    const char *const *glyph;
    int *cols;   /* the nodes shown, in order */
    int ncols;
    struct cell *cells; /* per shown column */
};

/* The glyph of each GPU slot of node n in state st into kinds[0..gpus). Slots with a share
 * held come from the history; GPUs counted as allocated without known slots fill the first
 * free slots; then the allocatable free ones; the rest are not allocatable. */
static void node_slots(const struct gs_history *h, const struct gs_hist_state *st, int n, int *kinds)
{
    const struct gs_hist_node *nd = &h->nodes[n];
    int gpus = nd->gpus;
    if (!st->node_present[n]) {
        for (int g = 0; g < gpus; g++)
            kinds[g] = G_ABSENT;
        return;
    }
    int64_t allocatable = st->node_allocatable[n];
    /* a GPU is held in full at 1000 milli-GPU, or within 1% of it: all n replicas of a
     * time-sliced GPU hold n x floor(1000/n), all seven 1g MIG slices 7 x 142 */
    const int full = 990;
    int known = 0, milli[GS_HIST_MAX_GPUS];
    for (int g = 0; g < gpus; g++) {
        milli[g] = gs_hist_gpu_milli(h, st, n, g);
        known += milli[g] > 0;
    }
    /* GPUs held by pods bound here whose slots the trace has not named (yet) */
    int64_t unknown = 0;
    for (int p = 0; p < h->npods; p++)
        if (st->pod_node[p] == n && st->pod_mask[p] == 0)
            unknown += h->pods[p].gpu;
    int64_t free_ok = (allocatable > gpus ? gpus : allocatable) - known - unknown;
    for (int g = 0; g < gpus; g++) {
        if (milli[g] >= full)
            kinds[g] = G_FULL;
        else if (milli[g] > 0)
            kinds[g] = G_PART;
        else if (unknown > 0)
            kinds[g] = G_FULL, unknown--;
        else if (free_ok > 0)
            kinds[g] = G_FREE, free_ok--;
        else
            kinds[g] = G_UNALLOC;
    }
}

/* Node n's GPUs in state st as glyphs (or "allocated/allocatable" for a node with more GPUs
 * than GS_HIST_MAX_GPUS, "-" when it is not in the cluster then) into c. */
static int make_cell(struct tl *t, const struct gs_hist_state *st, int n, struct cell *c)
{
    const struct gs_hist_node *nd = &t->h->nodes[n];
    char buf[GS_HIST_MAX_GPUS * 4 + 64];
    int len = 0, width = 0;
    if (nd->gpus > GS_HIST_MAX_GPUS) {
        len = width = st->node_present[n]
                          ? snprintf(buf, sizeof buf, "%lld/%lld", (long long)gs_hist_node_allocated(t->h, st, n),
                                     (long long)st->node_allocatable[n])
                          : snprintf(buf, sizeof buf, "-");
    } else {
        int kinds[GS_HIST_MAX_GPUS];
        node_slots(t->h, st, n, kinds);
        for (int g = 0; g < nd->gpus; g++) {
            size_t gl = strlen(t->glyph[kinds[g]]);
            memcpy(buf + len, t->glyph[kinds[g]], gl);
            len += (int)gl;
            width++;
        }
    }
    buf[len] = '\0';
    char *s = gs_strdup(buf);
    if (!s)
        return GS_ENOMEM;
    gs_free(c->text);
    c->text = s;
    c->width = width;
    return 0;
}

/* Whether event e is shown by default (every pod row; node rows that change GPUs, or are part
 * of a node's life a reader follows). */
static bool shown_kind(const struct gs_hist_event *e)
{
    if (e->pod >= 0 || e->effect != GS_HIST_NONE)
        return true;
    static const char *const hidden[] = {"Label", "Taint", "Capacity", "Allocatable", NULL};
    for (int i = 0; hidden[i]; i++)
        if (strcmp(e->reason, hidden[i]) == 0)
            return false;
    return true;
}

/* Whether event e is printed under options o (sel: the nodes selected by --node). */
static bool shown(const struct gs_timeline_opts *o, const bool *sel, const struct gs_hist_event *e)
{
    if (!o->all && !shown_kind(e))
        return false;
    return !o->nodes || (e->node >= 0 && sel[e->node]);
}

/* Display width of a UTF-8 string (code points; the glyphs used here are one column each). */
static int utf8_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void event_subject(const struct gs_history *h, const struct gs_hist_event *e, char *buf, size_t n)
{
    if (e->pod >= 0) {
        snprintf(buf, n, "%s", h->pods[e->pod].name);
    } else if (e->node >= 0) {
        snprintf(buf, n, "node/%s", h->nodes[e->node].name);
    } else { /* an object row: "<kind>/<namespace>/<name>" shown as <kind>/<name> */
        const char *subj = e->subject ? e->subject : "?";
        const char *ns = strchr(subj, '/'), *name = ns ? strchr(ns + 1, '/') : NULL;
        if (ns && name)
            snprintf(buf, n, "%.*s/%s", (int)(ns - subj), subj, name + 1);
        else
            snprintf(buf, n, "%s", subj);
    }
}

static void event_reason(const struct gs_hist_event *e, bool ascii, char *buf, size_t n)
{
    if (e->count > 1) {
        snprintf(buf, n, "%s %s%d", e->reason, ascii ? "x" : "\u00d7", e->count);
    } else {
        snprintf(buf, n, "%s", e->reason);
    }
}

/* Print spaces. */
static void pad(FILE *out, int n)
{
    for (; n > 0; n--)
        fputc(' ', out);
}

/* Write what `mem` (an open_memstream of *buf, *len) holds to `dst` without the blanks at the
 * ends of its lines (absent nodes' cells), and empty it. */
static void drain(FILE *mem, char **buf, size_t *len, FILE *dst)
{
    fflush(mem);
    size_t start = 0;
    for (size_t i = 0; i < *len; i++) {
        if ((*buf)[i] != '\n')
            continue;
        size_t end = i;
        while (end > start && (*buf)[end - 1] == ' ')
            end--;
        fwrite(*buf + start, 1, end - start, dst);
        fputc('\n', dst);
        start = i + 1;
    }
    fwrite(*buf + start, 1, *len - start, dst);
    fseeko(mem, 0, SEEK_SET);
}

int gs_report_timeline(const char *trace_path, const struct gs_timeline_opts *o, FILE *dst, char *errbuf,
                       int errlen)
{
    if (!trace_path || !o || !dst)
        return gs_report_error(errbuf, errlen, GS_EINVAL, "gs_report_timeline: invalid argument");
    sqlite3 *db;
    struct gs_history h;
    int rc = gs_export_open(trace_path, &db, &h, errbuf, errlen);
    if (rc != 0)
        return rc;
    /* a --from after the run's end is refused as every report's --at is (reports/open.h) */
    if ((rc = gs_report_check_time(db, trace_path, "--from", o->from_us, errbuf, errlen)) != 0) {
        gs_history_free(&h);
        sqlite3_close(db);
        return rc;
    }
    struct tl t = {.h = &h, .o = o, .glyph = o->ascii ? glyph_ascii : glyph_utf8};
    char *membuf = NULL;
    size_t memlen = 0;
    FILE *out = open_memstream(&membuf, &memlen); /* one event's lines, then drain() */
    if (!out) {
        gs_history_free(&h);
        sqlite3_close(db);
        return gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
    }
    struct gs_hist_state st;
    bool *sel = NULL;
    bool st_ok = false;
    t.cols = gs_calloc((size_t)h.nnodes + (size_t)o->nnodes + 1, sizeof *t.cols);
    sel = gs_calloc((size_t)h.nnodes + 1, sizeof *sel);
    if (!t.cols || !sel) {
        rc = gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
        goto done;
    }
    /* the columns: the nodes named, in their order, else every GPU node by id */
    if (o->nodes) {
        for (int i = 0; i < o->nnodes; i++) {
            int found = -1;
            for (int n = 0; n < h.nnodes && found < 0; n++)
                if (strcmp(h.nodes[n].name, o->nodes[i]) == 0)
                    found = n;
            if (found < 0) {
                const char **names = gs_calloc((size_t)h.nnodes + 1, sizeof *names);
                if (!names) {
                    rc = gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
                    goto done;
                }
                for (int n = 0; n < h.nnodes; n++)
                    names[n] = h.nodes[n].name;
                const char *near = gs_y_suggest(o->nodes[i], names);
                char also[256] = "";
                if (!near) /* no name is near: show the first ones, as a hint of the naming */
                    for (int n = 0; n < h.nnodes && n < 4; n++)
                        snprintf(also + strlen(also), sizeof also - strlen(also), "%s'%s'%s", n ? ", " : "; nodes: ",
                                 h.nodes[n].name, n == 3 && h.nnodes > 4 ? ", ..." : "");
                rc = gs_report_error(errbuf, errlen, GS_EINVAL, "trace '%s' has no node named '%s'%s%s%s%s", trace_path,
                                     o->nodes[i], near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
                                     also);
                gs_free(names);
                goto done;
            }
            if (!sel[found]) {
                sel[found] = true;
                t.cols[t.ncols++] = found;
            }
        }
    } else {
        for (int n = 0; n < h.nnodes; n++)
            if (h.nodes[n].gpus > 0) {
                sel[n] = true;
                t.cols[t.ncols++] = n;
            }
    }
    int64_t to = o->to_us < 0 ? INT64_MAX : o->to_us;
    int first = 0;
    while (first < h.nevents && h.events[first].t_us < o->from_us)
        first++;
    int last = first; /* one past the last event in range */
    while (last < h.nevents && h.events[last].t_us <= to)
        last++;
    /* drop columns of nodes absent for the whole window: never joined by its end, or deleted
     * before its start (only when no --node named them) */
    if (!o->nodes) {
        int64_t wend = last > 0 ? h.events[last - 1].t_us : 0, wstart = o->from_us;
        int k = 0;
        for (int i = 0; i < t.ncols; i++) {
            const struct gs_hist_node *nd = &h.nodes[t.cols[i]];
            bool absent = nd->joined_us < 0 || nd->joined_us > wend || (nd->deleted_us >= 0 && nd->deleted_us < wstart);
            if (!absent)
                t.cols[k++] = t.cols[i];
            else
                sel[t.cols[i]] = false;
        }
        t.ncols = k;
    }
    /* the widths of the first three columns, over the events shown */
    int wt = 4, ws = 5, wr = 6; /* at least "TIME", "EVENT", "REASON" */
    char tbuf[40], sbuf[256], rbuf[192];
    for (int k = first; k < last; k++) {
        const struct gs_hist_event *e = &h.events[k];
        if (!shown(o, sel, e))
            continue;
        gs_duration_format(e->t_us, tbuf, sizeof tbuf);
        event_subject(&h, e, sbuf, sizeof sbuf);
        event_reason(e, o->ascii, rbuf, sizeof rbuf);
        int a = utf8_width(tbuf), b = utf8_width(sbuf), c = utf8_width(rbuf);
        wt = a > wt ? a : wt;
        ws = b > ws ? b : ws;
        wr = c > wr ? c : wr;
    }
    ws = ws > 40 ? 40 : ws;
    wr = wr > 40 ? 40 : wr;
    int prefix = wt + 1 + ws + 1 + wr + 2;
    int width = o->width >= 40 ? o->width : 100;
    int indent = prefix > width / 2 ? 4 : prefix;

    if (o->legend) {
        if (o->ascii)
            fputs("GPUs per node after each event: # held by a pod  + shared, part held  . free  - not allocatable\n"
                  "xN: a FailedScheduling repeated N times (one aggregated row), shown at its first time\n",
                  out);
        else
            fputs("GPUs per node after each event: \u2588 held by a pod  \u2592 shared, part held  \u00b7 free  "
                  "\u2591 not allocatable\n"
                  "\u00d7N: a FailedScheduling repeated N times (one aggregated row), shown at its first time\n",
                  out);
    }

    t.cells = gs_calloc((size_t)t.ncols + 1, sizeof *t.cells);
    int *col_of = gs_calloc((size_t)h.nnodes + 1, sizeof *col_of);
    int *colw = gs_calloc((size_t)t.ncols + 1, sizeof *colw);
    int *colx = gs_calloc((size_t)t.ncols + 1, sizeof *colx); /* the column a node's cell starts at */
    bool *changed = gs_calloc((size_t)t.ncols + 1, sizeof *changed);
    if (!t.cells || !col_of || !colw || !colx || !changed || gs_hist_state_init(&h, &st) != 0) {
        gs_free(col_of);
        gs_free(colw);
        gs_free(colx);
        gs_free(changed);
        rc = gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
        goto done;
    }
    st_ok = true;
    for (int n = 0; n < h.nnodes; n++)
        col_of[n] = -1;
    /* the table: one column per node, as wide as its name or its GPUs; columns that do not fit
     * the line go on to indented continuation lines (a new line starts when colx returns) */
    int bands = 1;
    for (int i = 0, x = prefix; i < t.ncols; i++) {
        const struct gs_hist_node *nd = &h.nodes[t.cols[i]];
        int gw = nd->gpus > GS_HIST_MAX_GPUS ? 9 : nd->gpus, nw = utf8_width(nd->name);
        col_of[t.cols[i]] = i;
        colw[i] = gw > nw ? gw : nw;
        if (i > 0 && x + colw[i] > width && x > indent)
            x = indent;
        colx[i] = x;
        x += colw[i] + 1;
        bands += i > 0 && colx[i] < colx[i - 1];
    }
    /* a table of more than four lines per event is not readable: show what each event changes */
    bool only_changed = o->changed;
    if (!only_changed && bands > 4 && !o->nodes) {
        only_changed = true;
        fprintf(out, "(%d GPU nodes need %d lines of %d columns per event: each event shows only the nodes it "
                     "changed; --node picks the nodes to follow)\n",
                t.ncols, bands, width);
    }
    gs_hist_state_advance(&h, &st, first);
    for (int i = 0; i < t.ncols && rc == 0; i++)
        rc = make_cell(&t, &st, t.cols[i], &t.cells[i]);
    int lines = 0;
    for (int k = first; k < last && rc == 0; k++) {
        const struct gs_hist_event *e = &h.events[k];
        /* the nodes whose holdings the event may change: a pod's node before and after it (a
         * released or unreserved pod's event names no node), a node row's node; every node
         * for a row without either (kube-scheduler's restart drops every reservation) */
        int before = e->pod >= 0 ? st.pod_node[e->pod] : -1;
        gs_hist_state_advance(&h, &st, k + 1);
        int after = e->pod >= 0 ? st.pod_node[e->pod] : -1;
        bool all_nodes = e->effect != GS_HIST_NONE && e->pod < 0 && e->node < 0;
        for (int i = 0; i < t.ncols && rc == 0; i++) {
            int n = t.cols[i];
            changed[i] = false;
            if (e->effect == GS_HIST_NONE || !(all_nodes || n == e->node || n == before || n == after))
                continue;
            char *old = gs_strdup(t.cells[i].text);
            if (!old || (rc = make_cell(&t, &st, n, &t.cells[i])) != 0) {
                gs_free(old);
                rc = rc ? rc : GS_ENOMEM;
                break;
            }
            changed[i] = strcmp(old, t.cells[i].text) != 0;
            gs_free(old);
        }
        if (rc != 0)
            break;
        if (!shown(o, sel, e))
            continue;
        /* the table's heading, first and every 40 events */
        if (!only_changed && t.ncols > 0 && lines % 40 == 0) {
            fprintf(out, "%*s %-*s %-*s  ", wt, "TIME", ws, "EVENT", wr, "REASON");
            for (int i = 0, x = prefix; i < t.ncols; i++) {
                const char *name = h.nodes[t.cols[i]].name;
                if (colx[i] < x) {
                    fputc('\n', out);
                    x = 0;
                }
                pad(out, colx[i] - x);
                fputs(name, out);
                x = colx[i] + utf8_width(name);
            }
            fputc('\n', out);
        }
        lines++;
        gs_duration_format(e->t_us, tbuf, sizeof tbuf);
        event_subject(&h, e, sbuf, sizeof sbuf);
        event_reason(e, o->ascii, rbuf, sizeof rbuf);
        pad(out, wt - utf8_width(tbuf));
        fprintf(out, "%s %s", tbuf, sbuf);
        pad(out, ws - utf8_width(sbuf));
        fprintf(out, " %s", rbuf);
        pad(out, wr - utf8_width(rbuf));
        fputs("  ", out);
        int x = wt + 1 + (utf8_width(sbuf) > ws ? utf8_width(sbuf) : ws) + 1 +
                (utf8_width(rbuf) > wr ? utf8_width(rbuf) : wr) + 2;
        if (!only_changed) {
            /* the table row: each cell at its column; a column left of the one before starts
             * a continuation line; an overlong field pushes the cells of the first line right */
            for (int i = 0; i < t.ncols; i++) {
                if (i > 0 && colx[i] < colx[i - 1]) {
                    /* a continuation line whose nodes are all absent is left out */
                    int end = i + 1;
                    while (end < t.ncols && colx[end] > colx[end - 1])
                        end++;
                    bool blank = true;
                    for (int b = i; b < end && blank; b++)
                        blank = strspn(t.cells[b].text, " ") == strlen(t.cells[b].text);
                    if (blank) {
                        i = end - 1;
                        continue;
                    }
                    fputc('\n', out);
                    x = 0;
                }
                if (colx[i] > x) {
                    pad(out, colx[i] - x);
                    x = colx[i];
                } else if (i > 0 && colx[i] > colx[i - 1]) {
                    fputc(' ', out);
                    x++;
                }
                fputs(t.cells[i].text, out);
                x += t.cells[i].width;
            }
        } else {
            /* only the nodes that changed, each as "name glyphs", wrapped */
            bool any = false;
            for (int i = 0; i < t.ncols; i++) {
                if (!changed[i] && !(e->node >= 0 && t.cols[i] == e->node))
                    continue;
                const char *name = h.nodes[t.cols[i]].name;
                int w = utf8_width(name) + 1 + t.cells[i].width;
                if (any && x + 1 + w > width) {
                    fputc('\n', out);
                    pad(out, indent);
                    x = indent;
                } else if (any) {
                    fputc(' ', out);
                    x++;
                }
                fprintf(out, "%s %s", name, t.cells[i].text);
                x += w;
                any = true;
            }
        }
        fputc('\n', out);
        if (o->messages) {
            char last_t[128] = "";
            if (e->count > 1) {
                char a[32], b[32];
                gs_duration_format(e->t_us, a, sizeof a);
                gs_duration_format(e->last_us, b, sizeof b);
                snprintf(last_t, sizeof last_t, " (%d times, %s to %s)", e->count, a, b);
            }
            if (e->pod < 0 && e->subject)
                fprintf(out, "%*s%s%s%s\n", indent, "", e->subject, e->message ? ": " : "", e->message ? e->message : "");
            else if (e->message)
                fprintf(out, "%*s%s%s\n", indent, "", e->message, last_t);
        }
        drain(out, &membuf, &memlen, dst);
    }
    if (rc == 0 && lines == 0) {
        /* an empty window says so, rather than a legend alone */
        char a[40], b[40], e[40];
        gs_duration_format(o->from_us, a, sizeof a);
        if (o->to_us >= 0)
            gs_duration_format(o->to_us, b, sizeof b);
        gs_duration_format(gs_report_run_end(db), e, sizeof e);
        fprintf(out, "no events%s from %s to %s (the run ended at %s)\n", o->nodes ? " on the nodes named" : "", a,
                o->to_us >= 0 ? b : "the end", e);
    }
    gs_free(colw);
    gs_free(colx);
    gs_free(col_of);
    gs_free(changed);
    drain(out, &membuf, &memlen, dst);
    if (rc == 0 && (fflush(dst) != 0 || ferror(dst)))
        rc = gs_report_error(errbuf, errlen, GS_EIO, "cannot write the timeline");
    else if (rc == GS_ENOMEM)
        rc = gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
done:
    if (t.cells)
        for (int i = 0; i < t.ncols; i++)
            gs_free(t.cells[i].text);
    gs_free(t.cells);
    gs_free(t.cols);
    gs_free(sel);
    if (st_ok)
        gs_hist_state_free(&st);
    fclose(out);
    free(membuf); /* open_memstream's buffer is the C library's, not the allocation seam's */
    gs_history_free(&h);
    sqlite3_close(db);
    return rc;
}
