/* gpusim base: the one growth policy for arrays (after Lua's luaM_growvector). Every growable
 * array in gpusim grows through gs_array_grow (heap) or gs_arena_array_grow (arena):
 * capacities double from GS_ARRAY_MIN_CAP, counts are ints bounded by GS_ARRAY_MAX, heap
 * memory comes from the allocation seam (base/alloc.h) and is given back with gs_free. No call
 * site writes its own doubling. (Open-addressing hash tables rehash into a fresh table:
 * base/strmap.c and base/intmap.c take each fresh table from gs_array_grow_ex; base/intern.c
 * sizes its own.) */
#ifndef GPUSIM_BASE_ARRAY_H
#define GPUSIM_BASE_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

struct gs_arena;

#define GS_ARRAY_MIN_CAP 16
#define GS_ARRAY_MAX (1 << 30) /* elements: far beyond any accepted scenario, far below INT_MAX */

/* Grow the heap array *arr (elements of `elem` bytes, capacity *cap elements) to hold at least
 * `need` elements: the capacity doubles from max(*cap, GS_ARRAY_MIN_CAP) until it does. Does
 * nothing when *cap >= need. With `zero`, the new elements (from the old capacity on) are
 * zeroed; otherwise they are left uninitialised. Returns 0, GS_ENOMEM when out of memory, or
 * GS_ERANGE when `need` exceeds GS_ARRAY_MAX or the size in bytes would overflow; on failure
 * *arr and *cap are unchanged (the old array stays valid and owned by the caller). */
int gs_array_grow_ex(void **arr, int *cap, int need, size_t elem, bool zero);

/* gs_array_grow_ex without zeroing. */
int gs_array_grow(void **arr, int *cap, int need, size_t elem);

/* The same, for a typed array lvalue `a` with capacity lvalue `cap` (an int). */
#define GS_GROW(a, cap, need) gs_array_grow((void **)&(a), &(cap), (need), sizeof *(a))
#define GS_GROW_ZERO(a, cap, need) gs_array_grow_ex((void **)&(a), &(cap), (need), sizeof *(a), true)

/* The same policy for an array that lives in arena `a` (base/arena.h): an arena block cannot
 * be resized, so a larger array is taken from the arena and the old *cap elements copied into
 * it (the old array stays in the arena until the arena is freed). New elements are zeroed, as
 * all arena memory is. Returns 0, GS_ENOMEM or GS_ERANGE as gs_array_grow_ex; on failure *arr
 * and *cap are unchanged. */
int gs_arena_array_grow(struct gs_arena *a, void **arr, int *cap, int need, size_t elem);

#define GS_ARENA_GROW(arena, a, cap, need) gs_arena_array_grow((arena), (void **)&(a), &(cap), (need), sizeof *(a))

#endif
