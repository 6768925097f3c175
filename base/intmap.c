/* The int-keyed hash map (base/intmap.h). */
#include "base/intmap.h"

#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"

#define EMPTY (-1)

static inline int *keys_of(const struct gs_intmap *m)
{
    return m->table;
}

static inline unsigned char *value_at(const struct gs_intmap *m, int slot)
{
    return m->values + m->vsize * (size_t)slot;
}

/* Fibonacci hashing (as gs_intmap_slot_): the top `bits` bits of key * 2^64/phi. */
static inline int home(int key, int bits)
{
    return (int)(((uint64_t)(uint32_t)key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
}

void gs_intmap_init(struct gs_intmap *m, size_t value_size)
{
    memset(m, 0, sizeof *m);
    m->vsize = value_size;
}

/* Rehash into a fresh table of twice the capacity (GS_ARRAY_MIN_CAP to start). On failure the
 * map is unchanged. */
static int grow(struct gs_intmap *m)
{
    if (m->cap > GS_ARRAY_MAX / 2)
        return GS_ERANGE;
    void *fresh = NULL;
    int ncap = 0; /* a fresh block: gs_array_grow_ex doubles from GS_ARRAY_MIN_CAP to the need */
    int rc = gs_array_grow_ex(&fresh, &ncap, m->cap ? m->cap * 2 : GS_ARRAY_MIN_CAP, sizeof(int) + m->vsize, false);
    if (rc)
        return rc;
    struct gs_intmap old = *m;
    m->table = fresh;
    m->cap = ncap;
    /* The values start after the cap keys: cap >= GS_ARRAY_MIN_CAP is a power of two, so the
     * offset is a multiple of 64 and the values are aligned as the block is (malloc's). */
    m->values = (unsigned char *)fresh + sizeof(int) * (size_t)ncap;
    m->bits = 0;
    while ((1 << m->bits) < ncap)
        m->bits++;
    int *keys = keys_of(m);
    memset(keys, 0xff, sizeof(int) * (size_t)ncap); /* all EMPTY */
    const int *okeys = keys_of(&old);
    for (int j = 0; j < old.cap; j++) {
        if (okeys[j] == EMPTY)
            continue;
        int i = home(okeys[j], m->bits);
        while (keys[i] != EMPTY)
            i = (i + 1) & (ncap - 1);
        keys[i] = okeys[j];
        memcpy(value_at(m, i), value_at(&old, j), m->vsize);
    }
    gs_free(old.table);
    return 0;
}

int gs_intmap_put(struct gs_intmap *m, int key, void **value, bool *created)
{
    if (key < 0 || m->vsize == 0)
        return GS_EINVAL;
    int i = gs_intmap_slot_(m, key);
    if (i >= 0) {
        *value = value_at(m, i);
        if (created)
            *created = false;
        return 0;
    }
    if ((m->n + 1) * 2 > m->cap) {
        int rc = grow(m);
        if (rc)
            return rc;
    }
    int *keys = keys_of(m);
    for (i = home(key, m->bits); keys[i] != EMPTY; i = (i + 1) & (m->cap - 1))
        ;
    keys[i] = key;
    m->n++;
    *value = memset(value_at(m, i), 0, m->vsize);
    if (created)
        *created = true;
    return 0;
}

bool gs_intmap_del(struct gs_intmap *m, int key)
{
    int i = gs_intmap_slot_(m, key);
    if (i < 0)
        return false;
    int *keys = keys_of(m);
    int mask = m->cap - 1;
    /* Algorithm R: the hole at i takes the next entry of the run whose home is not cyclically
     * in (i, j], which leaves a hole at j; the run ends at an empty slot. */
    for (int j = i;;) {
        j = (j + 1) & mask;
        if (keys[j] == EMPTY)
            break;
        int h = home(keys[j], m->bits);
        bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
        if (stays)
            continue;
        keys[i] = keys[j];
        memcpy(value_at(m, i), value_at(m, j), m->vsize);
        i = j;
    }
    keys[i] = EMPTY;
    m->n--;
    return true;
}

int gs_intmap_count(const struct gs_intmap *m)
{
    return m->n;
}

void *gs_intmap_next(const struct gs_intmap *m, int *pos, int *key)
{
    const int *keys = keys_of(m);
    for (int i = *pos < 0 ? 0 : *pos; i < m->cap; i++)
        if (keys[i] != EMPTY) {
            *pos = i + 1;
            if (key)
                *key = keys[i];
            return value_at(m, i);
        }
    *pos = m->cap;
    return NULL;
}

void gs_intmap_free(struct gs_intmap *m)
{
    gs_free(m->table);
    m->table = NULL;
    m->values = NULL;
    m->cap = m->bits = m->n = 0;
}
