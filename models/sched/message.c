/* The FailedScheduling text: kubernetes pkg/scheduler/framework/types.go FitError.Error().
 *
 * "0/N nodes are available:" then, unless a PreFilter rejected the pod, a histogram of the
 * reasons of every node's status (each reason of a node counts once for that node, the
 * PreFilterResult's absent nodes all count for its status), each entry rendered "<count>
 * <reason>", sorted in plain byte order (Go sort.Strings: "10 x" before "2 y"), joined with ", ",
 * preceded by " " and followed by "."; then " " and the PostFilter message (no added period).
 * The same builder renders the nested "preemption: 0/N nodes are available: ..." text.
 *
 * Reasons are kept as (kind, argument) until rendering; only then are the "Insufficient <res>"
 * and taint texts produced, once per distinct reason.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

/* ------------------------------------------------------------------ growable buffers */

static bool buf_reserve(struct gs_sched *s, char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t ncap = *cap ? *cap : 256;
    while (ncap < need)
        ncap *= 2;
    char *p = realloc(*buf, ncap);
    if (!p) {
        s->oom = true;
        return false;
    }
    *buf = p;
    *cap = ncap;
    return true;
}

static void buf_vaddf(struct gs_sched *s, char **buf, size_t *len, size_t *cap, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !buf_reserve(s, buf, cap, *len + (size_t)n + 1))
        return;
    vsnprintf(*buf + *len, (size_t)n + 1, fmt, ap);
    *len += (size_t)n;
}

static void buf_add(struct gs_sched *s, char **buf, size_t *len, size_t *cap, const char *text)
{
    size_t n = strlen(text);
    if (!buf_reserve(s, buf, cap, *len + n + 1))
        return;
    memcpy(*buf + *len, text, n + 1);
    *len += n;
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
    if (r >= s->ninsuff) {
        char **p = realloc(s->insuff, sizeof *p * (size_t)s->w->res.n);
        if (!p)
            return NULL;
        for (int i = s->ninsuff; i < s->w->res.n; i++)
            p[i] = NULL;
        s->insuff = p;
        s->ninsuff = s->w->res.n;
    }
    if (!s->insuff[r]) {
        const char *name = s->w->res.names[r];
        size_t n = strlen("Insufficient ") + strlen(name) + 1;
        char *t = malloc(n);
        if (!t)
            return NULL;
        snprintf(t, n, "Insufficient %s", name);
        s->insuff[r] = t;
    }
    return s->insuff[r];
}

static const char *kind_text(enum gs_reason_kind k)
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
        return GS_MSG_PREFILTER_ABSENT;
    case GS_R_NO_VICTIMS:
        return GS_MSG_NO_VICTIMS;
    case GS_R_NOT_HELPFUL:
        return GS_MSG_NOT_HELPFUL;
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
        out[n++] = kind_text((enum gs_reason_kind)st->kind);
        return n;
    }
}

/* ------------------------------------------------------------------ the histogram */

void gs_hist_reset(struct gs_sched *s)
{
    s->nhist = 0;
}

static bool same_reason(const struct gs_sched *s, const struct gs_hist *h, uint8_t kind, int arg, int16_t taint)
{
    if (h->kind != kind)
        return false;
    if (kind == GS_R_FIT)
        return h->arg == arg;
    if (kind == GS_R_TAINT && !s->cfg.taint_reason_generic) {
        if (h->arg == arg && h->taint == taint)
            return true;
        const struct gs_taint *a = taint_of(s, h->arg, h->taint), *b = taint_of(s, arg, taint);
        return strcmp(a->key, b->key) == 0 && strcmp(a->value ? a->value : "", b->value ? b->value : "") == 0;
    }
    return true;
}

static void hist_add(struct gs_sched *s, uint8_t kind, int arg, int16_t taint, int count)
{
    for (int i = 0; i < s->nhist; i++)
        if (same_reason(s, &s->hist[i], kind, arg, taint)) {
            s->hist[i].count += count;
            return;
        }
    if (gs_sched_grow((void **)&s->hist, &s->hist_cap, s->nhist + 1, sizeof *s->hist)) {
        s->oom = true;
        return;
    }
    s->hist[s->nhist++] = (struct gs_hist){.kind = kind, .arg = arg, .taint = taint, .count = count};
}

void gs_hist_add_status(struct gs_sched *s, const struct gs_fstat *st)
{
    switch (st->kind) {
    case GS_R_NONE:
        break;
    case GS_R_FIT:
        /* The order of a node's reasons does not matter here: entries are sorted at the end. */
        for (uint64_t m = st->insuff; m; m &= m - 1)
            hist_add(s, GS_R_FIT, __builtin_ctzll(m), 0, 1);
        break;
    case GS_R_TAINT:
        hist_add(s, GS_R_TAINT, st->node, st->taint, 1);
        break;
    default:
        hist_add(s, st->kind, 0, 0, 1);
        break;
    }
}

void gs_hist_add_kind(struct gs_sched *s, enum gs_reason_kind kind, int count)
{
    hist_add(s, (uint8_t)kind, 0, 0, count);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void gs_hist_render(struct gs_sched *s)
{
    if (s->nhist == 0)
        return;
    if (s->nhist > s->hcap) {
        size_t *ho = realloc(s->hoff, sizeof *ho * (size_t)s->nhist);
        if (!ho) {
            s->oom = true;
            return;
        }
        s->hoff = ho;
        const char **hp = realloc(s->hptr, sizeof *hp * (size_t)s->nhist);
        if (!hp) {
            s->oom = true;
            return;
        }
        s->hptr = hp;
        s->hcap = s->nhist;
    }
    /* Render "<count> <reason>" for every entry into the scratch buffer (NUL-separated). */
    s->scr_len = 0;
    for (int i = 0; i < s->nhist; i++) {
        const struct gs_hist *h = &s->hist[i];
        s->hoff[i] = s->scr_len;
        if (h->kind == GS_R_FIT) {
            if (h->arg == GS_RES_PODS)
                scr_addf(s, "%d %s", h->count, GS_MSG_TOO_MANY_PODS);
            else
                scr_addf(s, "%d Insufficient %s", h->count, s->w->res.names[h->arg]);
        } else if (h->kind == GS_R_TAINT && !s->cfg.taint_reason_generic) {
            const struct gs_taint *t = taint_of(s, h->arg, h->taint);
            scr_addf(s, "%d node(s) had untolerated taint {%s: %s}", h->count, t->key, t->value ? t->value : "");
        } else {
            scr_addf(s, "%d %s", h->count, kind_text((enum gs_reason_kind)h->kind));
        }
        s->scr_len++; /* keep the NUL written by vsnprintf */
        if (s->oom)
            return;
    }
    for (int i = 0; i < s->nhist; i++)
        s->hptr[i] = s->scr + s->hoff[i];
    qsort(s->hptr, (size_t)s->nhist, sizeof *s->hptr, cmp_str);
    gs_msg_add(s, " ");
    for (int i = 0; i < s->nhist; i++) {
        if (i)
            gs_msg_add(s, ", ");
        gs_msg_add(s, s->hptr[i]);
    }
    gs_msg_add(s, ".");
}
