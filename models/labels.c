/* Sorted key/value arrays (node labels, nodeSelector) and taint/toleration matching. */
#include <string.h>

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
