/* Scenario-lifetime allocation: a list of large blocks, freed all at once. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"

#include "base/alloc.h"

#define GS_ARENA_BLOCK (64 * 1024)

struct gs_arena_block {
    struct gs_arena_block *next;
    size_t size;
    size_t used;
    _Alignas(16) unsigned char data[];
};

void *gs_arena_alloc(struct gs_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    struct gs_arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > GS_ARENA_BLOCK ? n : GS_ARENA_BLOCK;
        b = gs_malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->size = size;
        b->used = 0;
        /* A large one-off allocation goes behind the current block so the current block's
         * free space is not wasted. */
        if (a->head && n > GS_ARENA_BLOCK) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = b->data + b->used;
    b->used += n;
    a->used_total += n;
    memset(p, 0, n);
    return p;
}

char *gs_arena_strdup(struct gs_arena *a, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = gs_arena_alloc(a, n);
    if (p)
        memcpy(p, s, n);
    return p;
}

char *gs_arena_printf(struct gs_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = gs_arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void gs_arena_free(struct gs_arena *a)
{
    struct gs_arena_block *b = a->head;
    while (b) {
        struct gs_arena_block *next = b->next;
        gs_free(b);
        b = next;
    }
    a->head = NULL;
    a->used_total = 0;
}
