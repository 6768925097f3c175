/* The one growth policy (base/array.h). */
#include "base/array.h"

#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

int gs_array_grow_ex(void **arr, int *cap, int need, size_t elem, bool zero)
{
    if (need <= *cap)
        return 0;
    if (need > GS_ARRAY_MAX || elem == 0)
        return GS_ERANGE;
    int ncap = *cap > GS_ARRAY_MIN_CAP ? *cap : GS_ARRAY_MIN_CAP;
    while (ncap < need)
        ncap = ncap > GS_ARRAY_MAX / 2 ? GS_ARRAY_MAX : ncap * 2;
    if ((size_t)ncap > SIZE_MAX / elem)
        return GS_ERANGE;
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
