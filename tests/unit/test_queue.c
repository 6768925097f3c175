/* The scheduling queue: PrioritySort order, backoff, cluster events, the 5-minute flush, and the
 * QueueSort plugin taken from a profile's table. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <criterion/new/assert.h>

#include "base/error.h"
#include "models/sched/plugin.h"
#include "models/sched/queue.h"
#include "models/sched/sched.h"

static struct gs_world w;
static struct gs_pod_template lo, hi;
static struct gs_queue *q;

static void setup(void)
{
    cr_assert_eq(gs_world_init(&w), 0);
    lo.priority = 0;
    hi.priority = 1000;
    q = gs_queue_new(&w, GS_SEC(1), GS_SEC(10));
    cr_assert_not_null(q);
}

static void teardown(void)
{
    gs_queue_free(q);
    gs_world_free(&w);
}

static int pod(const char *name, const struct gs_pod_template *t)
{
    int p = gs_world_add_pod(&w, name, -1, t, 0);
    cr_assert_geq(p, 0);
    return p;
}

TestSuite(queue, .init = setup, .fini = teardown);

Test(queue, priority_then_arrival_order)
{
    int a = pod("a", &lo), b = pod("b", &hi), c = pod("c", &lo), d = pod("d", &hi);
    gs_queue_add(q, a, GS_SEC(1));
    gs_queue_add(q, b, GS_SEC(2));
    gs_queue_add(q, c, GS_SEC(0));
    gs_queue_add(q, d, GS_SEC(2));
    cr_assert_eq(gs_queue_active_len(q), 4);
    cr_assert_eq(gs_queue_pop(q), b); /* priority 1000, first of the two at t=2s */
    cr_assert_eq(gs_queue_pop(q), d);
    cr_assert_eq(gs_queue_pop(q), c); /* priority 0, earliest timestamp */
    cr_assert_eq(gs_queue_pop(q), a);
    cr_assert_eq(gs_queue_pop(q), -1);
    cr_assert(eq(int, gs_queue_attempts(q, a), 1));
}

Test(queue, backoff_doubles_to_ten_seconds)
{
    gs_time want[] = {GS_SEC(1), GS_SEC(1), GS_SEC(2), GS_SEC(4), GS_SEC(8), GS_SEC(10), GS_SEC(10)};
    for (int a = 0; a < 7; a++)
        cr_assert_eq(gs_queue_backoff(q, a), want[a], "attempts %d: %lld", a, (long long)gs_queue_backoff(q, a));
    cr_assert_eq(gs_queue_backoff(q, 200), GS_SEC(10)); /* no overflow */
}

Test(queue, event_moves_only_pods_rejected_by_interested_plugins)
{
    int fit = pod("fit", &lo), taint = pod("taint", &lo), none = pod("none", &lo);
    for (int p = 0; p < 3; p++) {
        gs_queue_add(q, p, 0);
        cr_assert_eq(gs_queue_pop(q), p);
    }
    gs_queue_unschedulable(q, fit, 1u << GS_PL_NODE_RESOURCES_FIT, 0);
    gs_queue_unschedulable(q, taint, 1u << GS_PL_TAINT_TOLERATION, 0);
    gs_queue_unschedulable(q, none, 0, 0);
    cr_assert_eq(gs_queue_waiting_len(q), 3);

    int out[8], nout = -1;
    /* A pod finished at t=5s: backoff (1 s) is over, so the Fit pod and the pod with no
     * recorded plugin go straight to activeQ; the taint pod stays. */
    int moved = gs_queue_on_event(q, GS_CE_ASSIGNED_POD_DELETE, GS_SEC(5), out, 8, &nout);
    cr_assert_eq(moved, 2);
    cr_assert_eq(nout, 0);
    cr_assert(eq(int, gs_queue_state(q, taint), GS_Q_UNSCHEDULABLE));
    cr_assert(eq(int, gs_queue_state(q, fit), GS_Q_ACTIVE));
    cr_assert(eq(int, gs_queue_state(q, none), GS_Q_ACTIVE));
}

Test(queue, event_during_backoff_goes_to_backoffq)
{
    int p = pod("p", &lo);
    gs_queue_add(q, p, 0);
    gs_queue_pop(q);
    gs_queue_unschedulable(q, p, 1u << GS_PL_NODE_RESOURCES_FIT, GS_SEC(10));
    cr_assert(eq(i64, gs_queue_backoff_until(q, p), GS_SEC(11)));
    int out[4], nout = 0;
    cr_assert_eq(gs_queue_on_event(q, GS_CE_NODE_ADD, GS_MS(10500), out, 4, &nout), 0);
    cr_assert_eq(nout, 1);
    cr_assert_eq(out[0], p);
    cr_assert(eq(int, gs_queue_state(q, p), GS_Q_BACKOFF));
    cr_assert_not(gs_queue_backoff_expired(q, p, GS_MS(10999)));
    cr_assert(gs_queue_backoff_expired(q, p, GS_SEC(11)));
    cr_assert_eq(gs_queue_pop(q), p);
    cr_assert(eq(int, gs_queue_attempts(q, p), 2));
}

Test(queue, flush_after_five_minutes)
{
    int p = pod("p", &lo);
    gs_queue_add(q, p, 0);
    gs_queue_pop(q);
    gs_queue_unschedulable(q, p, 1u << GS_PL_NODE_RESOURCES_FIT, GS_SEC(20));
    int out[4], nout = 0;
    cr_assert_eq(gs_queue_flush(q, GS_SEC(20) + GS_MIN(5), out, 4, &nout), 0); /* not more than 5 min */
    cr_assert_eq(gs_queue_flush(q, GS_SEC(330), out, 4, &nout), 1);
    cr_assert_eq(gs_queue_pop(q), p);
}

Test(queue, failed_pod_queues_behind_newer_arrivals)
{
    int old = pod("old", &lo), young = pod("young", &lo);
    gs_queue_add(q, old, 0);
    gs_queue_pop(q);
    gs_queue_add(q, young, GS_SEC(1));
    gs_queue_unschedulable(q, old, 0, GS_SEC(2)); /* timestamp refreshed to 2s */
    int out[4], nout = 0;
    gs_queue_on_event(q, GS_CE_NODE_ADD, GS_SEC(5), out, 4, &nout);
    cr_assert_eq(gs_queue_pop(q), young);
    cr_assert_eq(gs_queue_pop(q), old);
}

Test(queue, remove_from_any_state)
{
    int a = pod("a", &lo), b = pod("b", &lo), c = pod("c", &hi);
    gs_queue_add(q, a, 0);
    gs_queue_add(q, b, 0);
    gs_queue_add(q, c, 0);
    gs_queue_remove(q, c);
    cr_assert_eq(gs_queue_active_len(q), 2);
    cr_assert_eq(gs_queue_pop(q), a);
    gs_queue_unschedulable(q, a, 0, 0);
    gs_queue_remove(q, a);
    cr_assert_eq(gs_queue_waiting_len(q), 0);
    cr_assert(eq(int, gs_queue_state(q, a), GS_Q_NONE));
    cr_assert_eq(gs_queue_pop(q), b);
}

/* gs_queue_remove keeps a pod's record (its attempts count if it is put back); gs_queue_forget
 * drops it: the pod reads as never queued. */
Test(queue, remove_keeps_attempts_forget_drops_them)
{
    int a = pod("a", &lo);
    gs_queue_add(q, a, 0);
    cr_assert(eq(int, gs_queue_pop(q), a));
    gs_queue_unschedulable(q, a, 1u << GS_PL_NODE_RESOURCES_FIT, GS_SEC(1));
    cr_assert(eq(int, gs_queue_activate(q, a, GS_SEC(5)), 0));
    cr_assert(eq(int, gs_queue_pop(q), a));
    gs_queue_unschedulable(q, a, 1u << GS_PL_NODE_RESOURCES_FIT, GS_SEC(6));
    gs_queue_remove(q, a);
    cr_assert(eq(int, gs_queue_state(q, a), GS_Q_NONE));
    cr_assert(eq(int, gs_queue_attempts(q, a), 2));
    cr_assert(eq(i64, gs_queue_backoff_until(q, a), GS_SEC(6) + GS_SEC(2)));
    gs_queue_forget(q, a);
    cr_assert(eq(int, gs_queue_state(q, a), GS_Q_NONE));
    cr_assert(eq(int, gs_queue_attempts(q, a), 0));
    cr_assert(eq(i64, gs_queue_backoff_until(q, a), 0));
    cr_assert(eq(u32, gs_queue_unsched_plugins(q, a), 0));
    gs_queue_forget(q, a);  /* twice: nothing */
    gs_queue_forget(q, -1); /* any index */
    gs_queue_forget(q, 1000);
    cr_assert(eq(int, gs_queue_active_len(q) + gs_queue_waiting_len(q), 0));
}

/* Pods forgotten from activeQ, the unschedulable pool and in flight leave the others in order,
 * and their records serve the pods queued next. */
Test(queue, forget_from_any_state_keeps_the_order)
{
    for (int i = 0; i < 30; i++) {
        char name[8];
        snprintf(name, sizeof name, "p%d", i);
        cr_assert(eq(int, pod(name, i % 2 ? &lo : &hi), i));
        cr_assert(eq(int, gs_queue_add(q, i, GS_SEC(i)), 0));
    }
    for (int i = 0; i <= 10; i += 2)
        cr_assert(eq(int, gs_queue_pop(q), i)); /* the high-priority pods, oldest first */
    for (int i = 0; i <= 6; i += 2)
        cr_assert(eq(int, gs_queue_unschedulable(q, i, 0, GS_SEC(100)), 0));
    /* 0 2 4 6 wait, 8 and 10 are in flight, 11 12 29 are in activeQ. */
    const int gone[] = {2, 10, 11, 12, 29};
    for (int k = 0; k < 5; k++)
        gs_queue_forget(q, gone[k]);
    cr_assert(eq(int, gs_queue_waiting_len(q), 3));
    cr_assert(eq(int, gs_queue_active_len(q), 30 - 6 - 3));
    /* 6 took 2's place in the pool: activating it finds it there. */
    cr_assert(eq(int, gs_queue_activate(q, 6, GS_SEC(200)), 0));
    cr_assert(eq(int, gs_queue_state(q, 6), GS_Q_ACTIVE));
    cr_assert(eq(int, gs_queue_waiting_len(q), 2));
    int out[4], nout = -1;
    cr_assert(eq(int, gs_queue_on_event(q, GS_CE_NODE_ADD, GS_SEC(200), out, 4, &nout), 2));
    /* High priority first: 14..28 (queued at 14 s..28 s), then 0, 4 and 6 (put back at 100 s, in
     * that order); then the low ones. */
    int want[24], n = 0;
    for (int i = 14; i <= 28; i += 2)
        want[n++] = i;
    want[n++] = 0;
    want[n++] = 4;
    want[n++] = 6;
    for (int i = 1; i <= 27; i += 2)
        if (i != 11)
            want[n++] = i;
    cr_assert(eq(int, n, 24));
    for (int k = 0; k < n; k++)
        cr_assert(eq(int, gs_queue_pop(q), want[k]), "pop %d", k);
    cr_assert(eq(int, gs_queue_pop(q), -1));
    cr_assert(eq(int, gs_queue_attempts(q, 0), 2));
    cr_assert(eq(int, gs_queue_attempts(q, 8), 1)); /* in flight, kept */
    cr_assert(eq(int, gs_queue_attempts(q, 10), 0));
    /* New pods take the freed records: fresh state, right order. */
    int x = pod("x", &lo), y = pod("y", &hi);
    gs_queue_add(q, x, GS_SEC(300));
    gs_queue_add(q, y, GS_SEC(301));
    cr_assert(eq(int, gs_queue_attempts(q, x), 0));
    cr_assert(eq(int, gs_queue_state(q, y), GS_Q_ACTIVE));
    cr_assert(eq(int, gs_queue_pop(q), y));
    cr_assert(eq(int, gs_queue_pop(q), x));
    cr_assert(eq(int, gs_queue_attempts(q, x), 1));
}

/* ------------------------------------------------------------------ QueueSort from the table */

/* PodGroup `name` created at `created` (µs) holding the given pods. */
static int group(const char *name, gs_time created, const int *pods, int n)
{
    cr_assert(eq(int, gs_array_grow((void **)&w.groups, &w.groups_cap, w.ngroups + 1, sizeof *w.groups), 0));
    int gi = w.ngroups++;
    memset(&w.groups[gi], 0, sizeof w.groups[gi]);
    w.groups[gi].name = name;
    w.groups[gi].created_us = created;
    w.groups[gi].first_pod = w.groups[gi].last_pod = -1;
    for (int i = 0; i < n; i++) {
        if (w.groups[gi].last_pod >= 0)
            w.pods[w.groups[gi].last_pod].next_in_group = pods[i];
        else
            w.groups[gi].first_pod = pods[i];
        w.groups[gi].last_pod = pods[i];
        w.pods[pods[i]].group = gi;
    }
    return gi;
}

/* Coscheduling's Less (coscheduling.go): priority, then the PodGroup's creation time (a pod
 * outside a group: its own), then the group's (or pod's) name, which keeps siblings together,
 * whatever order they were queued in. */
Test(queue, coscheduling_sort_from_the_profile)
{
    int b0 = pod("b0", &lo), a0 = pod("a0", &lo), b1 = pod("b1", &lo), a1 = pod("a1", &lo);
    int solo = pod("solo", &lo), urgent = pod("urgent", &hi);
    w.pods[solo].created_us = GS_SEC(5);
    int ga[] = {a0, a1}, gb[] = {b0, b1};
    group("a", GS_SEC(3), ga, 2);
    group("b", GS_SEC(3), gb, 2); /* same creation time: the names decide */

    struct gs_sched_config c;
    gs_sched_config_default(&c, 34);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.multi_point, "Coscheduling", 0, -1), 0));
    cr_assert(eq(int, gs_plugin_set_disable(&c.plugins.point[GS_EP_QUEUE_SORT], "PrioritySort", -1), 0));
    struct gs_sched *s = gs_sched_new(&w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    const struct gs_sched_plugin *sort = gs_sched_queue_sort(s);
    cr_assert(eq(str, (char *)sort->name, "Coscheduling"));
    cr_assert(eq(int, gs_queue_set_sort(q, sort), 0));

    int order[] = {b0, a0, b1, a1, solo, urgent};
    for (int i = 0; i < 6; i++)
        cr_assert(eq(int, gs_queue_add(q, order[i], GS_SEC(10 - i)), 0));
    int want[] = {urgent, a0, a1, b0, b1, solo};
    for (int i = 0; i < 6; i++)
        cr_expect(eq(int, gs_queue_pop(q), want[i]), "pop %d", i);
    gs_sched_free(s);
}

/* Setting the sort orders the pods already in activeQ again; a plugin without a QueueSort is
 * refused. PrioritySort's order is the queue timestamp, the latest added last. */
Test(queue, set_sort_reorders_activeq)
{
    int x = pod("x", &lo), y = pod("y", &lo);
    w.pods[x].created_us = GS_SEC(9);
    w.pods[y].created_us = GS_SEC(1);
    cr_assert(eq(int, gs_queue_add(q, x, GS_SEC(1)), 0));
    cr_assert(eq(int, gs_queue_add(q, y, GS_SEC(2)), 0));
    cr_assert(eq(int, gs_queue_set_sort(q, gs_plugin_lookup("NodeName")), GS_EINVAL));
    /* Coscheduling: y was created first. */
    cr_assert(eq(int, gs_queue_set_sort(q, gs_plugin_lookup("Coscheduling")), 0));
    cr_expect(eq(int, gs_queue_pop(q), y));
    cr_assert(eq(int, gs_queue_add(q, y, GS_SEC(3)), 0));
    /* PrioritySort: x was queued first. */
    cr_assert(eq(int, gs_queue_set_sort(q, &gs_plugin_priority_sort), 0));
    cr_expect(eq(int, gs_queue_pop(q), x));
    cr_expect(eq(int, gs_queue_pop(q), y));
    cr_expect(eq(int, gs_queue_pop(q), -1));
}
