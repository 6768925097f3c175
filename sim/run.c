/* A run (sim/run.h): open the trace, set up the cluster and its controllers (sim/cluster.h,
 * sim/controller.h), schedule what the scenario itself does (nodes joining, workloads arriving,
 * its events, samples and checks), step the engine to the horizon, and close the trace with the
 * final rows and the checks' outcomes. Everything that happens in between is the cluster's and
 * the controllers' business. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "sim/autoscaler.h"
#include "sim/check.h"
#include "sim/cluster.h"
#include "sim/metrics.h"
#include "sim/run.h"

/* The run's own periodic work: samples and checks (gs_cluster_init's driver). */
void gs_run_driver(struct gs_cluster *c, const struct gs_event *ev)
{
    if (ev->kind == GS_EV_SAMPLE) {
        gs_cluster_sample(c);
        gs_cluster_at(c, gs_cluster_now(c) + c->sc->sample_interval, GS_PRIO_SAMPLE, GS_EV_SAMPLE, 0, 0);
    } else {
        gs_check_eval(c, (int)ev->a);
    }
}

/* What the scenario does by itself, in this order (it decides the order of events at equal
 * times): nodes join, workloads arrive, the scenario's events, the checks with a time, the
 * first sample. */
void gs_run_schedule_scenario(struct gs_cluster *c)
{
    const struct gs_world *w = c->w;
    const struct gs_scenario *sc = c->sc;
    for (int p = 0; p < w->npools; p++)
        for (int i = 0; i < w->pools[p].count; i++)
            gs_cluster_at(c, w->pools[p].join_at + (gs_time)i * w->pools[p].join_every, GS_PRIO_CLUSTER,
                          GS_EV_NODE_JOIN, p, i);
    for (int i = 0; i < w->nworkloads; i++)
        if (w->workloads[i].arrival.count != 0)
            gs_cluster_at(c, w->workloads[i].arrival.start, GS_PRIO_CREATE, GS_EV_ARRIVAL, i,
                          w->workloads[i].arrival.hourly ? -1 : 0); /* -1: draw the first (objects.c) */
    for (int i = 0; i < sc->nevents; i++)
        gs_cluster_at(c, sc->events[i].at, GS_PRIO_CLUSTER, GS_EV_SCENARIO, i, 0);
    for (int i = 0; i < sc->nexpects; i++)
        if (sc->expects[i].has_at)
            gs_cluster_at(c, sc->expects[i].at, GS_PRIO_CHECK, GS_EV_CHECK, i, 0);
        else if (sc->expects[i].has_window)
            gs_cluster_at(c, sc->expects[i].to, GS_PRIO_CHECK, GS_EV_CHECK, i, 0);
    gs_cluster_at(c, 0, GS_PRIO_SAMPLE, GS_EV_SAMPLE, 0, 0);
}

static void write_run_keys(struct gs_trace *t, const struct gs_scenario *sc, const struct gs_run_opts *o, int *err)
{
    char buf[64], key[600];
    int rc = gs_trace_run_kv(t, "scenario", sc->name);
    rc = rc ? rc : gs_trace_run_kv(t, "scenario_path", sc->path);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)sc->seed);
    rc = rc ? rc : gs_trace_run_kv(t, "seed", buf);
    rc = rc ? rc : gs_trace_run_kv(t, "version", GPUSIM_VERSION);
    snprintf(buf, sizeof buf, "1.%d", sc->k8s_minor);
    rc = rc ? rc : gs_trace_run_kv(t, "kubernetesVersion", buf);
    if (sc->has_horizon) {
        snprintf(buf, sizeof buf, "%lld", (long long)sc->horizon);
        rc = rc ? rc : gs_trace_run_kv(t, "horizon_us", buf);
    }
    /* how the trace was made: the command line, each --set, each pool's price */
    if (o->command)
        rc = rc ? rc : gs_trace_run_kv(t, "command", o->command);
    for (int i = 0; i < o->noverrides && !rc; i++) {
        const char *eq = strchr(o->overrides[i], '=');
        if (!eq)
            continue;
        snprintf(key, sizeof key, "override.%.*s", (int)(eq - o->overrides[i]) < 500 ? (int)(eq - o->overrides[i]) : 500,
                 o->overrides[i]);
        rc = gs_trace_run_kv(t, key, eq + 1); /* INSERT OR REPLACE: a path given twice keeps the last */
    }
    for (int p = 0; p < sc->world.npools && !rc; p++) {
        if (!sc->world.pools[p].has_price)
            continue;
        snprintf(key, sizeof key, "pricePerHour.%s", sc->world.pools[p].name);
        /* the shortest decimal that reads back exactly: 98.32, not 98.319999999999993 */
        double price = sc->world.pools[p].price_per_hour;
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(buf, sizeof buf, "%.*g", digits, price);
            if (strtod(buf, NULL) == price)
                break;
        }
        rc = gs_trace_run_kv(t, key, buf);
    }
    /* the Cluster Autoscaler's node groups: nodeGroup.<pool> = "<minSize>..<maxSize>" */
    for (int i = 0; sc->autoscaler && i < sc->world.npools; i++)
        if (sc->autoscaler->groups[i].enabled) {
            snprintf(key, sizeof key, "nodeGroup.%s", sc->world.pools[i].name);
            snprintf(buf, sizeof buf, "%d..%d", sc->autoscaler->groups[i].min_size, sc->autoscaler->groups[i].max_size);
            rc = rc ? rc : gs_trace_run_kv(t, key, buf);
        }
    rc = rc ? rc : gs_trace_commit(t);
    if (rc && !*err)
        *err = rc;
}

/* Run until the horizon; without one, until only background events (samples, the queue's
 * periodic flush) are left. Commits the trace at checkpoints: when enough rows are pending and
 * every event of the current time has been dispatched (*done_until is then that time).
 * Returns the run's status. */
static const char *loop(struct gs_cluster *c, const struct gs_run_opts *o, gs_time horizon, gs_time *done_until)
{
    uint64_t next_progress = 1u << 16;
    *done_until = -1;
    for (;;) {
        if (o->stop && *o->stop)
            return "interrupted";
        if (c->err)
            return "failed";
        gs_time t = gs_engine_peek_time(c->eng);
        if (gs_engine_dispatched(c->eng) > 0 && t > gs_engine_now(c->eng)) {
            *done_until = gs_engine_now(c->eng);
            if (gs_trace_wants_checkpoint(c->trace))
                gs_cluster_fail(c, gs_trace_checkpoint(c->trace, *done_until));
        }
        if (!c->sc->has_horizon && c->foreground == 0)
            return "complete";
        if (t == GS_TIME_MAX || t > horizon)
            return "complete";
        gs_engine_step(c->eng, horizon);
        if (gs_engine_dispatched(c->eng) >= next_progress && o->progress) {
            o->progress(gs_engine_now(c->eng), horizon, gs_engine_dispatched(c->eng), o->progress_ctx);
            next_progress += 1u << 16;
        }
    }
}

int gs_run(struct gs_scenario *sc, const struct gs_run_opts *o, struct gs_run_result *res, char *errbuf,
           int errlen)
{
    memset(res, 0, sizeof *res);
    struct gs_trace *trace;
    int rc = gs_trace_open(o->trace_path, o->trace_level, &trace, errbuf, errlen);
    if (rc == 0)
        gs_trace_set_stop(trace, o->stop);
    if (rc)
        return rc;
    int kv_err = 0;
    write_run_keys(trace, sc, o, &kv_err);
    struct gs_cluster c;
    rc = gs_cluster_init(&c, sc, o, trace, gs_run_driver);
    if (!rc) {
        gs_cluster_fail(&c, kv_err);
        gs_run_schedule_scenario(&c);
        rc = c.err;
    }
    if (rc) {
        snprintf(errbuf, (size_t)errlen, "%s", gs_strerror(rc));
        gs_cluster_free(&c);
        gs_trace_close(trace, "failed", 0);
        return rc;
    }

    gs_time horizon = sc->has_horizon ? sc->horizon : GS_TIME_MAX;
    gs_time done_until;
    const char *status = loop(&c, o, horizon, &done_until);
    if (c.err)
        status = "failed";
    gs_time end = gs_engine_now(c.eng);
    if (sc->has_horizon && strcmp(status, "complete") == 0)
        end = horizon;
    if (strcmp(status, "complete") == 0)
        done_until = end;
    if (c.err)
        snprintf(errbuf, (size_t)errlen, "%s", c.err_msg[0] ? c.err_msg : gs_strerror(c.err));
    res->status = status;
    res->end = end;
    res->events = gs_engine_dispatched(c.eng);
    res->cycles = c.cycles;
    res->pods_scheduled = c.pods_scheduled;
    res->pods_created = c.w->npods;

    /* Final sample (replacing one taken at the same time), final pod rows, and the checks without an `at:` (end of run). */
    gs_cluster_fail(&c, gs_metrics_final_sample(&c, end));
    for (int i = 0; i < c.w->npods; i++)
        gs_cluster_pod_row(&c, i);
    if (strcmp(status, "complete") == 0)
        for (int i = 0; i < sc->nexpects; i++)
            if (!sc->expects[i].checked)
                gs_check_eval(&c, i);
    for (int i = 0; i < sc->nexpects; i++) {
        struct gs_expect *e = &sc->expects[i];
        res->checks_total++;
        if (!e->pass)
            res->checks_failed++;
        gs_cluster_fail(&c, gs_trace_check(trace, i, e->line, e->what, e->pass,
                                           e->checked ? e->detail : "not evaluated: the run was interrupted"));
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)res->events);
    gs_cluster_fail(&c, gs_trace_run_kv(trace, "events", buf));
    snprintf(buf, sizeof buf, "%lld", (long long)done_until);
    gs_cluster_fail(&c, gs_trace_run_kv(trace, "complete_until_us", buf));
    res->complete_until = done_until;
    rc = c.err;
    if (rc && gs_trace_errmsg(trace))
        snprintf(errbuf, (size_t)errlen, "%s", gs_trace_errmsg(trace));
    char cerr[512] = "";
    int crc = gs_trace_finish(trace, status, end, &res->trace_at_path, cerr, sizeof cerr);
    if (crc == GS_EINTERRUPTED) {
        /* Stopped while the trace's indexes were built: the trace says so. */
        res->status = "interrupted";
        crc = 0;
    }
    if (!rc && crc) {
        rc = crc;
        snprintf(errbuf, (size_t)errlen, "%s", cerr);
    }
    gs_cluster_free(&c);
    return rc;
}
