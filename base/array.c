/* The one growth policy (base/array.h). */
#include "base/array.h"

#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/error.h"

/* The capacity an array of capacity `cap` grows to so that it holds `need` elements of `elem`
 * bytes: doubling from max(cap, GS_ARRAY_MIN_CAP). GS_ERANGE when need or the byte size is too
 * large. */
static int next_cap(int cap, int need, size_t elem, int *out)
{
    if (need > GS_ARRAY_MAX || elem == 0)
        return GS_ERANGE;
    int ncap = cap > GS_ARRAY_MIN_CAP ? cap : GS_ARRAY_MIN_CAP;
    while (ncap < need)
        ncap = ncap > GS_ARRAY_MAX / 2 ? GS_ARRAY_MAX : ncap * 2;
    if ((size_t)ncap > SIZE_MAX / elem)
        return GS_ERANGE;
    *out = ncap;
    return 0;
}

int gs_array_grow_ex(void **arr, int *cap, int need, size_t elem, bool zero)
{
    if (need <= *cap)
        return 0;
    int ncap, rc = next_cap(*cap, need, elem, &ncap);
    if (rc)
        return rc;
    void *p = gs_realloc(*arr, elem * (size_t)ncap);
    if (!p)
        return GS_ENOMEM;
    if (zero)
        memset((char *)p + elem * (size_t)*cap, 0, elem * (size_t)(ncap - *cap));
    *arr = p;
    *cap = ncap;
    return 0;
}

int gs_array_grow(void **arr, int *cap, int need, size_t elem)
{
    return gs_array_grow_ex(arr, cap, need, elem, false);
}

int gs_arena_array_grow(struct gs_arena *a, void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return 0;
    int ncap, rc = next_cap(*cap, need, elem, &ncap);
    if (rc)
        return rc;
    void *p = gs_arena_alloc(a, elem * (size_t)ncap);
    if (!p)
        return GS_ENOMEM;
    if (*cap > 0)
        memcpy(p, *arr, elem * (size_t)*cap);
    *arr = p;
    *cap = ncap;
    return 0;
}
