/* gpusim base: arenas. Memory that lives as long as the object owning the arena (a loaded
 * scenario, a run): allocated from large blocks (through the allocation seam, base/alloc.h)
 * and freed all at once by gs_arena_free. Pointers into an arena are "arena" pointers in the
 * API comments: valid until the arena is freed, never freed one by one. */
#ifndef GPUSIM_BASE_ARENA_H
#define GPUSIM_BASE_ARENA_H

#include <stddef.h>

struct gs_arena_block;
struct gs_arena {
    struct gs_arena_block *head;
    size_t used_total; /* bytes handed out, padding included */
};

/* `n` zeroed bytes, 16-byte aligned, that live until gs_arena_free. NULL when out of memory
 * (the arena is unchanged). A zero-initialised struct gs_arena is an empty arena. */
void *gs_arena_alloc(struct gs_arena *a, size_t n);
/* A copy of `s` in the arena (NULL gives NULL; out of memory gives NULL). */
char *gs_arena_strdup(struct gs_arena *a, const char *s);
/* A printf-formatted string in the arena; NULL when out of memory. */
char *gs_arena_printf(struct gs_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Free every block; the arena is empty again and may be reused. */
void gs_arena_free(struct gs_arena *a);

#endif
