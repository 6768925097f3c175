/* Sorted key/value arrays (node labels, nodeSelector) and taint/toleration matching. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/world.h"

static int find(const struct gs_labels *l, const char *key, int *pos)
{
    int lo = 0, hi = l->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(l->kv[mid].key, key);
        if (c == 0) {
            *pos = mid;
            return 1;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *pos = lo;
    return 0;
}

const char *gs_labels_get(const struct gs_labels *l, const char *key)
{
    int pos;
    return find(l, key, &pos) ? l->kv[pos].value : NULL;
}

int gs_labels_set(struct gs_labels *l, struct gs_arena *a, const char *key, const char *value)
{
    int pos;
    const char *v = gs_arena_strdup(a, value ? value : "");
    if (!v)
        return GS_ENOMEM;
    if (find(l, key, &pos)) {
        l->kv[pos].value = v;
        return 0;
    }
    /* Arena arrays cannot be resized in place: a larger copy is taken. The old array stays
     * in the arena until the world is freed; label sets are small and rarely grow. */
    int rc = GS_ARENA_GROW(a, l->kv, l->cap, l->n + 1);
    if (rc)
        return rc;
    const char *k = gs_arena_strdup(a, key);
    if (!k)
        return GS_ENOMEM;
    memmove(&l->kv[pos + 1], &l->kv[pos], sizeof *l->kv * (size_t)(l->n - pos));
    l->kv[pos].key = k;
    l->kv[pos].value = v;
    l->n++;
    return 0;
}

/* One pair to set, with its place in the caller's list (the later of two equal keys wins). */
struct pending {
    const char *key, *value;
    int order;
};

static int cmp_pending(const void *a, const void *b)
{
    const struct pending *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

int gs_labels_set_all(struct gs_labels *l, struct gs_arena *a, const struct gs_kv *kv, int n)
{
    if (n <= 0)
        return 0;
    struct pending *p = gs_malloc(sizeof *p * (size_t)n);
    if (!p)
        return GS_ENOMEM;
    for (int i = 0; i < n; i++)
        p[i] = (struct pending){.key = kv[i].key, .value = kv[i].value ? kv[i].value : "", .order = i};
    qsort(p, (size_t)n, sizeof *p, cmp_pending);
    /* Keep the last of each key; replace the values of keys `l` has; count the new ones. */
    int m = 0, rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        if (i + 1 < n && strcmp(p[i].key, p[i + 1].key) == 0)
            continue;
        const char *v = gs_arena_strdup(a, p[i].value);
        int pos;
        if (!v)
            rc = GS_ENOMEM;
        else if (find(l, p[i].key, &pos))
            l->kv[pos].value = v;
        else if (!(p[m].key = gs_arena_strdup(a, p[i].key)))
            rc = GS_ENOMEM;
        else
            p[m++].value = v;
    }
    /* Merge the m new keys (sorted) into l from the back: each key moves once. */
    if (!rc && m > 0 && !(rc = GS_ARENA_GROW(a, l->kv, l->cap, l->n + m))) {
        int i = l->n - 1, j = m - 1;
        for (int k = l->n + m - 1; j >= 0; k--) {
            if (i >= 0 && strcmp(l->kv[i].key, p[j].key) > 0)
                l->kv[k] = l->kv[i--];
            else
                l->kv[k] = (struct gs_kv){.key = p[j].key, .value = p[j].value}, j--;
        }
        l->n += m;
    }
    gs_free(p);
    return rc;
}

bool gs_labels_del(struct gs_labels *l, const char *key)
{
    int pos;
    if (!find(l, key, &pos))
        return false;
    memmove(&l->kv[pos], &l->kv[pos + 1], sizeof *l->kv * (size_t)(l->n - pos - 1));
    l->n--;
    return true;
}

/* kubernetes staging/src/k8s.io/api/core/v1/toleration.go ToleratesTaint. */
bool gs_toleration_tolerates(const struct gs_toleration *t, const struct gs_taint *taint)
{
    if (t->effect != GS_EFFECT_ALL && t->effect != taint->effect)
        return false;
    if (t->key && t->key[0] && strcmp(t->key, taint->key) != 0)
        return false;
    switch (t->op) {
    case GS_TOL_EXISTS:
        return true;
    case GS_TOL_EQUAL:
        return strcmp(t->value ? t->value : "", taint->value ? taint->value : "") == 0;
    }
    return false;
}
