/* gpusim internal: a string interning table. Pods keep pointers to their last scheduling message;
 * failing cycles repeat the same few texts over and over, so each distinct text is stored once.
 * Strings live in the arena given to gs_intern_init; the table itself is heap memory. */
#ifndef GPUSIM_INTERN_H
#define GPUSIM_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

struct gs_intern {
    struct gs_arena *arena; /* borrowed */
    const char **slots;
    uint64_t *hashes;
    size_t cap;             /* a power of two */
    size_t n;
};

void gs_intern_init(struct gs_intern *t, struct gs_arena *arena);
/* The interned copy of `s` (arena), NULL when out of memory. */
const char *gs_intern(struct gs_intern *t, const char *s);
void gs_intern_free(struct gs_intern *t);

#endif
