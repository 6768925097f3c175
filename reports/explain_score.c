/* gpusim explain, a bound pod (reports/explain_internal.h): the scores of the scheduling cycle
 * that chose its node, observed during the replay through the scheduler's observer
 * (models/sched/sched.h gs_sched_observer: `filtered` per node, `scored` per feasible node and
 * Score plugin with the normalised score and its weight, `done` with the result), and printed
 * per plugin for the chosen node beside the runner-up, as kube-scheduler-simulator shows a
 * cycle's per-plugin scores (kubernetes pkg/scheduler/schedule_one.go prioritizeNodes:
 * a node's total is the sum over Score plugins of score x weight; selectHost takes the
 * highest). */
#include <inttypes.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "reports/explain_internal.h"

struct score_row {
    int node;
    enum gs_plugin plugin;
    int64_t score, weight;
};

struct cycle {
    struct score_row *rows;
    int n, cap;
    struct gs_explain_verdict *verdicts; /* per node judged */
    int nverdicts, vcap;
    int judged, feasible;
    int rejected[GS_PL_COUNT]; /* nodes per first failing plugin */
};

struct gs_explain_scores {
    int pod;
    struct cycle cur, bound;   /* the cycle going on, the last one that chose a node */
    struct cycle failed;       /* the last one that left the pod unscheduled */
    bool has_failed;
    int bound_node;            /* the node that cycle chose, -1 none */
    int cycles;                /* cycles observed for the pod */
    int oom;
};

struct gs_explain_scores *gs_explain_scores_new(int pod)
{
    struct gs_explain_scores *s = gs_calloc(1, sizeof *s);
    if (s) {
        s->pod = pod;
        s->bound_node = -1;
    }
    return s;
}

void gs_explain_scores_free(struct gs_explain_scores *s)
{
    if (!s)
        return;
    struct cycle *c[3] = {&s->cur, &s->bound, &s->failed};
    for (int i = 0; i < 3; i++) {
        gs_free(c[i]->rows);
        gs_free(c[i]->verdicts);
    }
    gs_free(s);
}

static void on_filtered(void *ctx, int pod, int node, const struct gs_node_status *st)
{
    struct gs_explain_scores *s = ctx;
    if (pod != s->pod)
        return;
    s->cur.judged++;
    if (GS_GROW(s->cur.verdicts, s->cur.vcap, s->cur.nverdicts + 1))
        s->oom = 1;
    else
        s->cur.verdicts[s->cur.nverdicts++] = (struct gs_explain_verdict){.node = node, .code = st->code, .plugin = st->plugin};
    if (st->code == GS_ST_SUCCESS)
        s->cur.feasible++;
    else if ((int)st->plugin >= 0 && st->plugin < GS_PL_COUNT)
        s->cur.rejected[st->plugin]++;
}

static void on_scored(void *ctx, int pod, int node, enum gs_plugin plugin, int64_t score, int64_t weight)
{
    struct gs_explain_scores *s = ctx;
    if (pod != s->pod)
        return;
    if (GS_GROW(s->cur.rows, s->cur.cap, s->cur.n + 1)) {
        s->oom = 1;
        return;
    }
    s->cur.rows[s->cur.n++] = (struct score_row){.node = node, .plugin = plugin, .score = score, .weight = weight};
}

static void on_done(void *ctx, int pod, const struct gs_cycle_result *r)
{
    struct gs_explain_scores *s = ctx;
    if (pod != s->pod)
        return;
    s->cycles++;
    /* Keep this cycle: swap the buffers so nothing is copied. */
    if (r->node >= 0) {
        struct cycle t = s->bound;
        s->bound = s->cur;
        s->cur = t;
        s->bound_node = r->node;
    } else if (!r->oom) {
        struct cycle t = s->failed;
        s->failed = s->cur;
        s->cur = t;
        s->has_failed = true;
    }
    s->cur.n = 0;
    s->cur.nverdicts = 0;
    s->cur.judged = s->cur.feasible = 0;
    memset(s->cur.rejected, 0, sizeof s->cur.rejected);
}

const struct gs_explain_verdict *gs_explain_scores_last_failed(const struct gs_explain_scores *s, int *n)
{
    *n = s && s->has_failed ? s->failed.nverdicts : 0;
    return *n ? s->failed.verdicts : NULL;
}

void gs_explain_scores_install(void *ctx, struct gs_sched *sched)
{
    struct gs_sched_observer o = {.ctx = ctx, .filtered = on_filtered, .scored = on_scored, .done = on_done};
    gs_sched_set_observer(sched, &o);
}

static int64_t total(const struct cycle *c, int node)
{
    int64_t t = 0;
    for (int i = 0; i < c->n; i++)
        if (c->rows[i].node == node)
            t += c->rows[i].score * c->rows[i].weight;
    return t;
}

static const struct score_row *row(const struct cycle *c, int node, enum gs_plugin p)
{
    for (int i = 0; i < c->n; i++)
        if (c->rows[i].node == node && c->rows[i].plugin == p)
            return &c->rows[i];
    return NULL;
}

void gs_explain_scores_print(const struct gs_explain_scores *s, const struct gs_world *w, FILE *out)
{
    if (!s || s->bound_node < 0) {
        fprintf(out, "No scheduling cycle of the replay chose its node (it was placed by a group pass or spec.nodeName).\n");
        return;
    }
    const struct cycle *c = &s->bound;
    fprintf(out, "The scheduling cycle that chose %s judged %d node%s, %d feasible", w->nodes[s->bound_node].name, c->judged,
            c->judged == 1 ? "" : "s", c->feasible);
    int first = 1;
    for (int p = 0; p < GS_PL_COUNT; p++)
        if (c->rejected[p]) {
            fprintf(out, "%s%d rejected by %s", first ? " (" : ", ", c->rejected[p], gs_plugin_name((enum gs_plugin)p));
            first = 0;
        }
    fprintf(out, "%s.\n", first ? "" : ")");
    int exist = 0;
    for (int n = 0; n < w->nnodes; n++)
        exist += w->nodes[n].exists;
    if (c->judged < exist)
        fprintf(out, "(A cycle stops once it has found enough feasible nodes (percentageOfNodesToScore), and a pod "
                     "nominated by its preemption tries that node first.)\n");
    if (c->n == 0) {
        if (c->feasible <= 1)
            fprintf(out, "Scoring did not run: %s was the only feasible node.\n", w->nodes[s->bound_node].name);
        else
            fprintf(out, "Scoring did not run.\n");
        return;
    }
    /* The runner-up: the other scored node with the highest total (the first on ties). */
    int runner = -1;
    int64_t best = INT64_MIN;
    for (int i = 0; i < c->n; i++) {
        int n = c->rows[i].node;
        if (n == s->bound_node || n == runner)
            continue;
        int64_t t = total(c, n);
        if (t > best) {
            best = t;
            runner = n;
        }
    }
    char ha[160], hb[160];
    snprintf(ha, sizeof ha, "%s (chosen)", w->nodes[s->bound_node].name);
    snprintf(hb, sizeof hb, "%s (runner-up)", runner >= 0 ? w->nodes[runner].name : "no runner-up");
    int wa = (int)strlen(ha), wb = (int)strlen(hb);
    fprintf(out, "Scores of that cycle (each plugin's normalised score 0..100 times its weight):\n");
    fprintf(out, "  %-32s %6s  %*s  %*s\n", "PLUGIN", "WEIGHT", wa, ha, wb, hb);
    /* Plugins in the order the cycle reported them (the Score table's). */
    enum gs_plugin seen[GS_PL_COUNT];
    int nseen = 0;
    for (int i = 0; i < c->n; i++) {
        int k = 0;
        while (k < nseen && seen[k] != c->rows[i].plugin)
            k++;
        if (k == nseen)
            seen[nseen++] = c->rows[i].plugin;
    }
    for (int k = 0; k < nseen; k++) {
        const struct score_row *x = row(c, s->bound_node, seen[k]);
        const struct score_row *y = runner >= 0 ? row(c, runner, seen[k]) : NULL;
        char va[64] = "-", vb[64] = "-";
        int64_t weight = x ? x->weight : y ? y->weight : 0;
        if (x)
            snprintf(va, sizeof va, "%" PRId64 " x %" PRId64 " = %" PRId64, x->score, x->weight, x->score * x->weight);
        if (y)
            snprintf(vb, sizeof vb, "%" PRId64 " x %" PRId64 " = %" PRId64, y->score, y->weight, y->score * y->weight);
        fprintf(out, "  %-32s %6" PRId64 "  %*s  %*s\n", gs_plugin_name(seen[k]), weight, wa, va, wb, vb);
    }
    char ta[32], tb[32] = "-";
    snprintf(ta, sizeof ta, "%" PRId64, total(c, s->bound_node));
    if (runner >= 0)
        snprintf(tb, sizeof tb, "%" PRId64, best);
    fprintf(out, "  %-32s %6s  %*s  %*s\n", "total", "", wa, ta, wb, tb);
    if (runner >= 0 && best == total(c, s->bound_node))
        fprintf(out, "The totals tie: selectHost picked %s among the nodes with the highest score (scheduler.tieBreak).\n",
                w->nodes[s->bound_node].name);
    if (s->oom)
        fprintf(out, "(out of memory while recording: some scores are missing)\n");
}
