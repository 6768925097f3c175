/* String interning: open addressing with linear probing over FNV-1a hashes. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/intern.h"

void gs_intern_init(struct gs_intern *t, struct gs_arena *arena)
{
    memset(t, 0, sizeof *t);
    t->arena = arena;
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int grow(struct gs_intern *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    const char **slots = gs_calloc(cap, sizeof *slots);
    uint64_t *hashes = gs_calloc(cap, sizeof *hashes);
    if (!slots || !hashes) {
        gs_free(slots);
        gs_free(hashes);
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i])
            continue;
        size_t j = t->hashes[i] & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
        hashes[j] = t->hashes[i];
    }
    gs_free(t->slots);
    gs_free(t->hashes);
    t->slots = slots;
    t->hashes = hashes;
    t->cap = cap;
    return 0;
}

const char *gs_intern(struct gs_intern *t, const char *s)
{
    if (!s)
        return NULL;
    if ((t->n + 1) * 2 > t->cap && grow(t))
        return NULL;
    uint64_t h = fnv1a(s);
    size_t i = h & (t->cap - 1);
    for (; t->slots[i]; i = (i + 1) & (t->cap - 1))
        if (t->hashes[i] == h && strcmp(t->slots[i], s) == 0)
            return t->slots[i];
    const char *copy = gs_arena_strdup(t->arena, s);
    if (!copy)
        return NULL;
    t->slots[i] = copy;
    t->hashes[i] = h;
    t->n++;
    return copy;
}

void gs_intern_free(struct gs_intern *t)
{
    gs_free(t->slots);
    gs_free(t->hashes);
    memset(t, 0, sizeof *t);
}
