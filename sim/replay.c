/* A replay (sim/replay.h): the scenario run again by the real engine to a time, then stopped. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "sim/controllers/device_plugin.h"
#include "sim/controllers/scheduler.h"
#include "sim/replay.h"

/* The scheduler controller's state in this cluster (sim/controllers/scheduler.h), NULL when
 * it is not set up. Found by the descriptor's name: the registry lists it once. */
static struct scheduler *sched_state(struct gs_cluster *c)
{
    for (int i = 0; i < c->nctl; i++)
        if (c->ctl[i] && strcmp(c->ctl[i]->name, "scheduler") == 0)
            return c->state[i];
    return NULL;
}

struct gs_sched *gs_replay_sched(struct gs_replay *r)
{
    if (!r->inited)
        return NULL;
    struct scheduler *s = sched_state(&r->c);
    return s ? s->sched : NULL;
}

bool gs_replay_pod_gpus(struct gs_replay *r, int pod, int *node, struct gs_gpushare_alloc *a)
{
    if (!r->inited)
        return false;
    for (int i = 0; i < r->c.nctl; i++)
        if (r->c.ctl[i] && strcmp(r->c.ctl[i]->name, "device-plugin") == 0 && r->c.state[i]) {
            const struct devices *d = r->c.state[i];
            const struct pod_alloc *pa = gs_intmap_get(&d->pods, pod);
            if (!pa || !pa->held)
                return false;
            *node = pa->node;
            *a = pa->a;
            return true;
        }
    return false;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[600];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

void gs_replay_free(struct gs_replay *r)
{
    if (r->inited)
        gs_cluster_free(&r->c);
    if (r->trace)
        gs_trace_close(r->trace, "interrupted", r->reached);
    if (r->loaded)
        gs_scenario_free(&r->sc);
    if (r->dir[0])
        remove_dir(r->dir);
    memset(r, 0, sizeof *r);
}

/* run.c's loop without checkpoints and progress: every event at or before min(at, horizon);
 * without a horizon, stop as gs_run does when only background events are left. */
static void step_to(struct gs_replay *r, const struct gs_replay_opts *o)
{
    struct gs_cluster *c = &r->c;
    struct scheduler *ss = sched_state(c);
    struct gs_sched *seen = ss ? ss->sched : NULL;
    bool hooked = o->hook_from < 0;
    gs_time horizon = r->sc.has_horizon ? r->sc.horizon : GS_TIME_MAX;
    gs_time stop = o->at < horizon ? o->at : horizon;
    for (;;) {
        if (c->err)
            return;
        if (o->stop && *o->stop) {
            gs_cluster_fail(c, GS_EINTERRUPTED);
            return;
        }
        gs_time t = gs_engine_peek_time(c->eng);
        if ((!r->sc.has_horizon && c->foreground == 0) || t == GS_TIME_MAX || t > horizon) {
            r->ended_before = true; /* the run ended here: nothing after it happens */
            return;
        }
        if (t > stop)
            return;
        if (!hooked && t >= o->hook_from) {
            hooked = true;
            seen = ss ? ss->sched : NULL;
            if (o->on_sched && seen)
                o->on_sched(o->ctx, seen);
        }
        gs_engine_step(c->eng, stop);
        r->reached = gs_engine_now(c->eng);
        /* A schedulerRestart made a new scheduler: tell the caller before its first cycle (a
         * restart's cycles are engine events after the restart's own). */
        if (ss && ss->sched != seen) {
            seen = ss->sched;
            if (hooked && o->on_sched && seen)
                o->on_sched(o->ctx, seen);
        }
    }
}

int gs_replay_run(const struct gs_replay_opts *o, struct gs_replay *r, struct gs_error *err)
{
    memset(r, 0, sizeof *r);
    if (!o || !o->scenario_path || o->at < 0)
        return gs_error_set(err, GS_EINVAL, NULL, 0, 0, "replay: invalid argument");
    int rc = gs_scenario_load(o->scenario_path, o->sets, o->nsets, o->seed, o->horizon > 0 ? o->horizon : -1,
                              &r->sc, err);
    if (rc)
        return rc;
    r->loaded = true;
    const char *tmp = getenv("TMPDIR");
    snprintf(r->dir, sizeof r->dir, "%s/gpusim-replay-XXXXXX", tmp && tmp[0] && strlen(tmp) < 200 ? tmp : "/tmp");
    if (!mkdtemp(r->dir)) {
        int e = errno;
        r->dir[0] = '\0';
        return gs_error_set(err, GS_EIO, NULL, 0, 0, "replay: cannot make a temporary directory: %s", strerror(e));
    }
    snprintf(r->trace_path, sizeof r->trace_path, "%s/replay.db", r->dir);
    char ebuf[512] = "";
    rc = gs_trace_open(r->trace_path, GS_TRACE_SUMMARY, &r->trace, ebuf, sizeof ebuf);
    if (rc) {
        r->trace = NULL;
        return gs_error_set(err, rc, NULL, 0, 0, "replay: %s", ebuf[0] ? ebuf : gs_strerror(rc));
    }
    r->run_opts = (struct gs_run_opts){.trace_path = r->trace_path, .trace_level = GS_TRACE_SUMMARY};
    rc = gs_cluster_init(&r->c, &r->sc, &r->run_opts, r->trace, gs_run_driver);
    r->inited = true;
    if (rc == 0) {
        if (o->hook_from < 0 && o->on_sched && gs_replay_sched(r))
            o->on_sched(o->ctx, gs_replay_sched(r));
        gs_run_schedule_scenario(&r->c);
        rc = r->c.err;
    }
    if (rc == 0) {
        step_to(r, o);
        rc = r->c.err;
    }
    if (rc)
        return gs_error_set(err, rc, NULL, 0, 0, "replay: %s", r->c.err_msg[0] ? r->c.err_msg : gs_strerror(rc));
    return 0;
}
