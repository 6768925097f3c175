/* gpusim base: the allocation seam. Every heap allocation gpusim makes goes through these
 * functions, never through malloc/calloc/realloc/free/strdup directly, so that a test can
 * replace the allocator (libuv's uv_replace_allocator is the model) and fail the n-th
 * allocation of a load or a run (tests/unit/test_oom.c walks n = 1, 2, ... and requires a clean
 * error and no leak each time).
 *
 * The functions behave like their C library namesakes; a NULL result means out of memory.
 * gs_free(NULL) is a no-op. Memory from one of them is released with gs_free (or resized with
 * gs_realloc), never with free(). */
#ifndef GPUSIM_BASE_ALLOC_H
#define GPUSIM_BASE_ALLOC_H

#include <stddef.h>

typedef void *(*gs_malloc_fn)(size_t size);
typedef void *(*gs_realloc_fn)(void *ptr, size_t size);
typedef void *(*gs_calloc_fn)(size_t count, size_t size);
typedef void (*gs_free_fn)(void *ptr);

/* Route every allocation through the given functions (all four, or all NULL to go back to the
 * C library's). Call it only when no memory from the previous allocator is live (at the start
 * of a process or a test). Returns 0, or GS_EINVAL when some but not all are NULL. */
int gs_replace_allocator(gs_malloc_fn m, gs_realloc_fn r, gs_calloc_fn c, gs_free_fn f);

void *gs_malloc(size_t size);
/* Zeroed memory for `count` elements of `size` bytes; NULL on overflow or out of memory. */
void *gs_calloc(size_t count, size_t size);
void *gs_realloc(void *ptr, size_t size);
void gs_free(void *ptr);
/* A heap copy of `s` (NULL when out of memory; `s` must not be NULL). */
char *gs_strdup(const char *s);
/* A heap copy of at most `n` bytes of `s`, NUL-terminated. */
char *gs_strndup(const char *s, size_t n);

/* How many allocations through the seam have failed (returned NULL) in the calling thread so
 * far. A library that allocates through the seam (jansson, once json_set_alloc_funcs routes it
 * to gs_malloc/gs_free) may report running out of memory as some other error; comparing the
 * count before and after the call tells them apart (sim/scenario/json.c does). */
unsigned long gs_alloc_failures(void);

#endif
