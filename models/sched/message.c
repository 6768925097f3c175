/* The FailedScheduling text: kubernetes pkg/scheduler/framework/types.go FitError.Error().
 *
 * "0/N nodes are available:" then, unless a PreFilter rejected the pod, a histogram of the
 * reasons of every node's status (each reason of a node counts once for that node, the
 * PreFilterResult's absent nodes all count for its status), each entry rendered "<count>
 * <reason>", sorted in plain byte order (Go sort.Strings: "10 x" before "2 y"), joined with ", ",
 * preceded by " " and followed by "."; then " " and the PostFilter message (no added period).
 * The same builder renders the nested "preemption: 0/N nodes are available: ..." text.
 *
 * Reasons are counted as they are found (struct gs_hcount: per reason kind, per insufficient
 * resource, per named taint), so nothing is formatted per node; the "<count> <reason>" texts are
 * produced once per distinct reason when the message is built.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "sched_internal.h"

/* ------------------------------------------------------------------ growable buffers */

static bool buf_reserve(struct gs_sched *s, char **buf, int *cap, size_t need)
{
    if (need > (size_t)GS_ARRAY_MAX || gs_array_grow((void **)buf, cap, (int)need, 1)) {
        s->oom = true;
        return false;
    }
    return true;
}

static void buf_vaddf(struct gs_sched *s, char **buf, int *len, int *cap, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !buf_reserve(s, buf, cap, (size_t)*len + (size_t)n + 1))
        return;
    vsnprintf(*buf + *len, (size_t)n + 1, fmt, ap);
    *len += n;
}

static void buf_add(struct gs_sched *s, char **buf, int *len, int *cap, const char *text)
{
    size_t n = strlen(text);
    if (!buf_reserve(s, buf, cap, (size_t)*len + n + 1))
        return;
    memcpy(*buf + *len, text, n + 1);
    *len += (int)n;
}

void gs_msg_reset(struct gs_sched *s)
{
    s->msg_len = 0;
    if (buf_reserve(s, &s->msg, &s->msg_cap, 1))
        s->msg[0] = '\0';
}

void gs_msg_add(struct gs_sched *s, const char *text)
{
    buf_add(s, &s->msg, &s->msg_len, &s->msg_cap, text);
}

void gs_msg_addf(struct gs_sched *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vaddf(s, &s->msg, &s->msg_len, &s->msg_cap, fmt, ap);
    va_end(ap);
}

static void scr_addf(struct gs_sched *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void scr_addf(struct gs_sched *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vaddf(s, &s->scr, &s->scr_len, &s->scr_cap, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ reason texts */

const char *gs_sched_insufficient(struct gs_sched *s, int r)
{
    if (r < 0 || r >= s->w->res.n)
        return NULL;
    if (GS_GROW_ZERO(s->insuff, s->ninsuff_cap, r + 1))
        return NULL;
    if (!s->insuff[r]) {
        const char *name = s->w->res.names[r];
        size_t n = strlen("Insufficient ") + strlen(name) + 1;
        char *t = gs_malloc(n);
        if (!t)
            return NULL;
        snprintf(t, n, "Insufficient %s", name);
        s->insuff[r] = t;
    }
    return s->insuff[r];
}

static const char *kind_text(const struct gs_sched *s, enum gs_reason_kind k)
{
    switch (k) {
    case GS_R_UNSCHEDULABLE:
        return GS_MSG_UNSCHEDULABLE;
    case GS_R_NODE_NAME:
        return GS_MSG_NODE_NAME;
    case GS_R_TAINT:
        return GS_MSG_TAINT_GENERIC;
    case GS_R_AFFINITY:
        return GS_MSG_AFFINITY;
    case GS_R_PREFILTER_EXCLUDED:
        return GS_MSG_PREFILTER_EXCLUDED;
    case GS_R_PREFILTER_ABSENT:
        return s->absent_msg;
    case GS_R_NO_VICTIMS:
        return GS_MSG_NO_VICTIMS;
    case GS_R_NOT_HELPFUL:
        return GS_MSG_NOT_HELPFUL;
    case GS_R_DRA_CANNOT_ALLOCATE:
        return GS_MSG_DRA_CANNOT_ALLOCATE;
    case GS_R_DRA_NOT_AVAILABLE:
        return GS_MSG_DRA_NOT_AVAILABLE;
    case GS_R_GPU_SHARE:
        return GS_MSG_GPU_SHARE;
    default:
        return "";
    }
}

static const struct gs_taint *taint_of(const struct gs_sched *s, int node, int idx)
{
    return &s->w->nodes[node].taints[idx];
}

/* The resources of a NodeResourcesFit bitmask in fit.go's order: Too many pods, cpu, memory,
 * ephemeral-storage, then the scalar resources by index. Returns the count written to out[]. */
static int fit_order(uint64_t insuff, int out[GS_RES_MAX])
{
    static const int first[] = {GS_RES_PODS, GS_RES_CPU, GS_RES_MEMORY, GS_RES_EPHEMERAL};
    int n = 0;
    for (int i = 0; i < 4; i++)
        if (insuff & (UINT64_C(1) << first[i]))
            out[n++] = first[i];
    for (int r = GS_RES_FIXED; r < GS_RES_MAX; r++)
        if (insuff & (UINT64_C(1) << r))
            out[n++] = r;
    return n;
}

int gs_fstat_reasons(struct gs_sched *s, const struct gs_fstat *st, const char **out, int max, char *buf,
                     size_t bufsz)
{
    int n = 0;
    switch (st->kind) {
    case GS_R_NONE:
        return 0;
    case GS_R_FIT:
    {
        int res[GS_RES_MAX];
        int k = fit_order(st->insuff, res);
        for (int i = 0; i < k && n < max; i++) {
            const char *t = res[i] == GS_RES_PODS ? GS_MSG_TOO_MANY_PODS : gs_sched_insufficient(s, res[i]);
            out[n++] = t ? t : "Insufficient resource";
        }
        return n;
    }
    case GS_R_TAINT:
        if (s->cfg.taint_reason_generic) {
            out[n++] = GS_MSG_TAINT_GENERIC;
        } else {
            const struct gs_taint *t = taint_of(s, st->node, st->taint);
            snprintf(buf, bufsz, "node(s) had untolerated taint {%s: %s}", t->key, t->value ? t->value : "");
            out[n++] = buf;
        }
        return n;
    default:
        out[n++] = kind_text(s, (enum gs_reason_kind)st->kind);
        return n;
    }
}

/* ------------------------------------------------------------------ the histogram */

void gs_hcount_reset(struct gs_hcount *h)
{
    memset(h->kind, 0, sizeof h->kind);
    memset(h->fit, 0, sizeof h->fit);
    h->ntaint = 0;
    h->last = 0;
}

void gs_hcount_free(struct gs_hcount *h)
{
    gs_free(h->taint);
    h->taint = NULL;
    h->ntaint = h->taint_cap = 0;
}

/* The counter of an untolerated taint named in the text: taints with the same key and value
 * share one (FitError counts reason strings). The pool's taints are copied to its nodes, so the
 * pointers usually match and no string is compared. */
void gs_hcount_taint_kv(struct gs_sched *s, struct gs_hcount *h, const char *key, const char *value, int sign)
{
    if (h->last < h->ntaint && h->taint[h->last].key == key && h->taint[h->last].value == value) {
        h->taint[h->last].count += sign;
        return;
    }
    for (int i = 0; i < h->ntaint; i++) {
        struct gs_htaint *e = &h->taint[i];
        if ((e->key == key && e->value == value) || (strcmp(e->key, key) == 0 && strcmp(e->value, value) == 0)) {
            e->count += sign;
            h->last = i;
            return;
        }
    }
    GS_ASSERT(sign > 0);
    if (gs_array_grow((void **)&h->taint, &h->taint_cap, h->ntaint + 1, sizeof *h->taint)) {
        s->oom = true;
        return;
    }
    h->last = h->ntaint;
    h->taint[h->ntaint++] = (struct gs_htaint){.key = key, .value = value, .count = sign};
}

void gs_hcount_taint(struct gs_sched *s, struct gs_hcount *h, const struct gs_fstat *st, int sign)
{
    const struct gs_taint *t = taint_of(s, st->node, st->taint);
    gs_hcount_taint_kv(s, h, t->key, t->value ? t->value : "", sign);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Start the entry of the next rendered reason (offset into scr). */
static bool render_begin(struct gs_sched *s, int *n)
{
    if (GS_GROW(s->hoff, s->hoff_cap, *n + 1) || GS_GROW(s->hptr, s->hptr_cap, *n + 1)) {
        s->oom = true;
        return false;
    }
    s->hoff[(*n)++] = s->scr_len;
    return true;
}

void gs_hcount_render(struct gs_sched *s, const struct gs_hcount *h)
{
    /* Render "<count> <reason>" for every nonzero entry into the scratch buffer (NUL-separated),
     * then sort the strings. Which order the entries are rendered in does not matter: distinct
     * reasons have distinct texts. */
    int n = 0;
    s->scr_len = 0;
    for (int k = 0; k < GS_R_KINDS; k++) {
        if (h->kind[k] == 0)
            continue;
        if (!render_begin(s, &n))
            return;
        scr_addf(s, "%d %s", h->kind[k], kind_text(s, (enum gs_reason_kind)k));
        s->scr_len++; /* keep the NUL written by vsnprintf */
    }
    for (int r = 0; r < GS_RES_MAX; r++) {
        if (h->fit[r] == 0)
            continue;
        if (!render_begin(s, &n))
            return;
        if (r == GS_RES_PODS)
            scr_addf(s, "%d %s", h->fit[r], GS_MSG_TOO_MANY_PODS);
        else
            scr_addf(s, "%d Insufficient %s", h->fit[r], s->w->res.names[r]);
        s->scr_len++;
    }
    for (int i = 0; i < h->ntaint; i++) {
        if (h->taint[i].count == 0)
            continue;
        if (!render_begin(s, &n))
            return;
        scr_addf(s, "%d node(s) had untolerated taint {%s: %s}", h->taint[i].count, h->taint[i].key,
                 h->taint[i].value);
        s->scr_len++;
    }
    if (n == 0 || s->oom)
        return;
    for (int i = 0; i < n; i++)
        s->hptr[i] = s->scr + s->hoff[i];
    qsort(s->hptr, (size_t)n, sizeof *s->hptr, cmp_str);
    gs_msg_add(s, " ");
    for (int i = 0; i < n; i++) {
        if (i)
            gs_msg_add(s, ", ");
        gs_msg_add(s, s->hptr[i]);
    }
    gs_msg_add(s, ".");
}
