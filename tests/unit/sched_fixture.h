/* Hand-made worlds for the scheduler tests (test_sched*.c). */
#ifndef GPUSIM_TEST_SCHED_FIXTURE_H
#define GPUSIM_TEST_SCHED_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "models/sched/sched.h"
#include "models/world.h"

#define MI (INT64_C(1) << 20)
#define GI (INT64_C(1) << 30)
#define FX_MAX_POOLS 2048
#define FX_MAX_TMPL 64

struct fx {
    struct gs_world w;
    int gpu; /* resource index of nvidia.com/gpu */
    struct gs_pod_template t[FX_MAX_TMPL];
    int nt;
    char msg[4096]; /* copy of the last message */
};

static inline struct fx *fx_new(void)
{
    struct fx *f = calloc(1, sizeof *f);
    cr_assert(f);
    cr_assert_eq(gs_world_init(&f->w), 0);
    f->w.pools = gs_arena_alloc(&f->w.arena, sizeof *f->w.pools * FX_MAX_POOLS);
    cr_assert(f->w.pools);
    f->gpu = gs_res_intern(&f->w.res, &f->w.arena, "nvidia.com/gpu");
    cr_assert_eq(f->gpu, GS_RES_FIXED);
    return f;
}

static inline void fx_free(struct fx *f)
{
    gs_world_free(&f->w);
    free(f);
}

/* A node named "<pool>-<idx>" (one pool per node) with the given allocatable and 110 pods. */
static inline int fx_node(struct fx *f, const char *pool, int idx, int64_t cpu_m, int64_t mem, int64_t gpus)
{
    cr_assert(f->w.npools < FX_MAX_POOLS);
    int pi = f->w.npools++;
    struct gs_pool *pl = &f->w.pools[pi];
    memset(pl, 0, sizeof *pl);
    pl->name = gs_arena_strdup(&f->w.arena, pool);
    pl->count = 1;
    pl->capacity.v[GS_RES_CPU] = cpu_m;
    pl->capacity.v[GS_RES_MEMORY] = mem;
    pl->capacity.v[GS_RES_PODS] = 110;
    pl->capacity.v[f->gpu] = gpus;
    int n = gs_world_add_node(&f->w, pi, idx, 0);
    cr_assert_geq(n, 0);
    return n;
}

static inline void fx_label(struct fx *f, int n, const char *k, const char *v)
{
    cr_assert_eq(gs_labels_set(&f->w.nodes[n].labels, &f->w.arena, k, v), 0);
}

static inline void fx_taint(struct fx *f, int n, const char *k, const char *v, enum gs_effect e)
{
    struct gs_node *nd = &f->w.nodes[n];
    struct gs_taint *t = gs_arena_alloc(&f->w.arena, sizeof *t * (size_t)(nd->ntaints + 1));
    cr_assert(t);
    if (nd->ntaints)
        memcpy(t, nd->taints, sizeof *t * (size_t)nd->ntaints);
    t[nd->ntaints] = (struct gs_taint){gs_arena_strdup(&f->w.arena, k), gs_arena_strdup(&f->w.arena, v), e};
    nd->taints = t;
    nd->ntaints++;
}

/* A one-container pod template; cpu/memory 0 mean "no request" (non-zero defaults apply). */
static inline struct gs_pod_template *fx_tmpl(struct fx *f, int64_t cpu_m, int64_t mem, int64_t gpus, int32_t prio)
{
    cr_assert(f->nt < FX_MAX_TMPL);
    struct gs_pod_template *t = &f->t[f->nt++];
    memset(t, 0, sizeof *t);
    t->requests.v[GS_RES_CPU] = cpu_m;
    t->requests.v[GS_RES_MEMORY] = mem;
    t->requests.v[f->gpu] = gpus;
    t->limits = t->requests;
    t->nonzero_cpu = cpu_m ? cpu_m : 100;
    t->nonzero_mem = mem ? mem : 200 * MI;
    t->ncontainers = 1;
    t->priority = prio;
    t->scheduler_name = "default-scheduler";
    t->termination_grace_us = 30000000;
    return t;
}

static inline int fx_pod(struct fx *f, const char *name, const struct gs_pod_template *t)
{
    int p = gs_world_add_pod(&f->w, name, -1, t, 0);
    cr_assert_geq(p, 0);
    return p;
}

/* A Running pod bound to node n, started at `start` (microseconds). */
static inline int fx_run(struct fx *f, const char *name, const struct gs_pod_template *t, int n, gs_time start)
{
    int p = fx_pod(f, name, t);
    gs_world_assign(&f->w, p, n);
    f->w.pods[p].phase = GS_PHASE_RUNNING;
    f->w.pods[p].scheduled_us = start;
    f->w.pods[p].started_us = start;
    return p;
}

static inline struct gs_sched_config fx_cfg(int minor)
{
    struct gs_sched_config c;
    gs_sched_config_default(&c, minor);
    c.tiebreak_first = true;
    return c;
}

/* One cycle with a fresh scheduler; the message (or "") is copied into f->msg. */
static inline struct gs_cycle_result fx_cycle_cfg(struct fx *f, const struct gs_sched_config *c, int p)
{
    struct gs_sched *s = gs_sched_new(&f->w, c, NULL);
    cr_assert(s);
    struct gs_cycle_result r;
    gs_sched_cycle(s, p, &r);
    snprintf(f->msg, sizeof f->msg, "%s", r.message ? r.message : "");
    r.message = r.message ? f->msg : NULL;
    r.victims = NULL; /* scheduler-owned: gone with it */
    r.lost = NULL;
    gs_sched_free(s);
    return r;
}

static inline struct gs_cycle_result fx_cycle(struct fx *f, int minor, int p)
{
    struct gs_sched_config c = fx_cfg(minor);
    return fx_cycle_cfg(f, &c, p);
}

static inline const char *fx_msg(struct fx *f, int minor, int p)
{
    fx_cycle(f, minor, p);
    return f->msg;
}

#endif
