/* The allocation seam (base/alloc.h). */
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"

static gs_malloc_fn seam_malloc = malloc;
static gs_realloc_fn seam_realloc = realloc;
static gs_calloc_fn seam_calloc = calloc;
static gs_free_fn seam_free = free;

/* Allocations that returned NULL, per thread (gs_alloc_failures). */
static _Thread_local unsigned long failures;

static void *counted(void *p)
{
    if (!p)
        failures++;
    return p;
}

unsigned long gs_alloc_failures(void)
{
    return failures;
}

int gs_replace_allocator(gs_malloc_fn m, gs_realloc_fn r, gs_calloc_fn c, gs_free_fn f)
{
    if (!m && !r && !c && !f) {
        seam_malloc = malloc;
        seam_realloc = realloc;
        seam_calloc = calloc;
        seam_free = free;
        return 0;
    }
    if (!m || !r || !c || !f)
        return GS_EINVAL;
    seam_malloc = m;
    seam_realloc = r;
    seam_calloc = c;
    seam_free = f;
    return 0;
}

void *gs_malloc(size_t size)
{
    return counted(seam_malloc(size ? size : 1));
}

void *gs_calloc(size_t count, size_t size)
{
    if (count == 0 || size == 0)
        count = size = 1;
    return counted(seam_calloc(count, size));
}

void *gs_realloc(void *ptr, size_t size)
{
    return counted(seam_realloc(ptr, size ? size : 1));
}

void gs_free(void *ptr)
{
    if (ptr)
        seam_free(ptr);
}

char *gs_strdup(const char *s)
{
    return gs_strndup(s, strlen(s));
}

char *gs_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *d = counted(seam_malloc(len + 1));
    if (!d)
        return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}
