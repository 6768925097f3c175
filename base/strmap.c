/* String-keyed hash map (base/strmap.h). */
#include "base/strmap.h"

#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"

uint64_t gs_hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull; /* FNV-1a 64-bit offset basis */
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull; /* FNV 64-bit prime */
    /* MurmurHash3 fmix64: every input bit reaches the low bits the table indexes with. */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* The slot of the key (`len` bytes at `key`, hash `h`), or the empty slot where it would go. */
static struct gs_strmap_slot *find(const struct gs_strmap *m, const char *key, size_t len, uint64_t h)
{
    size_t mask = (size_t)m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        struct gs_strmap_slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0))
            return s;
    }
}

/* Rehash into a fresh table of at least `need` slots (a power of two from the growth helper). */
static int rehash(struct gs_strmap *m, int need)
{
    struct gs_strmap_slot *fresh = NULL;
    int cap = 0;
    int rc = GS_GROW_ZERO(fresh, cap, need);
    if (rc)
        return rc;
    struct gs_strmap old = *m;
    m->slots = fresh;
    m->cap = cap;
    for (int i = 0; i < old.cap; i++)
        if (old.slots[i].key)
            *find(m, old.slots[i].key, old.slots[i].len, old.slots[i].hash) = old.slots[i];
    gs_free(old.slots);
    return 0;
}

int gs_strmap_reserve(struct gs_strmap *m, int n)
{
    if (n < 0 || n > GS_ARRAY_MAX / 2)
        return GS_ERANGE;
    /* At most half full: linear probing stays short. */
    return n * 2 > m->cap ? rehash(m, n * 2) : 0;
}

int gs_strmap_add(struct gs_strmap *m, const char *key, int value, int *existing)
{
    size_t len = strlen(key);
    uint64_t h = gs_hash_bytes(key, len);
    if (m->cap) {
        struct gs_strmap_slot *s = find(m, key, len, h);
        if (s->key) {
            if (existing)
                *existing = s->value;
            return 1;
        }
    }
    int rc = gs_strmap_reserve(m, m->n + 1);
    if (rc)
        return rc;
    struct gs_strmap_slot *s = find(m, key, len, h);
    *s = (struct gs_strmap_slot){.key = key, .len = len, .hash = h, .value = value};
    m->n++;
    return 0;
}

int gs_strmap_getn(const struct gs_strmap *m, const char *key, size_t len)
{
    if (!m->cap)
        return -1;
    const struct gs_strmap_slot *s = find(m, key, len, gs_hash_bytes(key, len));
    return s->key ? s->value : -1;
}

int gs_strmap_get(const struct gs_strmap *m, const char *key)
{
    return gs_strmap_getn(m, key, strlen(key));
}

void gs_strmap_free(struct gs_strmap *m)
{
    gs_free(m->slots);
    memset(m, 0, sizeof *m);
}
