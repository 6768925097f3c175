/* gpusim base: a hash map from a non-negative int key (a pod index) to a fixed-size value (a
 * record the caller defines). Side tables that only some pods need (the device plugin's
 * allocations, the scheduling queue's QueuedPodInfo, the trace's last FailedScheduling row) keep
 * their records here, so that their memory follows the pods that need a record at once, not the
 * highest pod index ever created.
 *
 * Open addressing with linear probing over a power-of-two table kept at most half full; a key's
 * home slot is Fibonacci hashing (Knuth, TAOCP vol. 3 §6.4: the key times 2^64/phi, top bits),
 * so that consecutive keys spread over the table. Deletion shifts the following entries of the
 * probe run back (Knuth's Algorithm R), so there are no tombstones and lookups stay O(1)
 * expected after any number of deletions. The table is one block, the keys then the values;
 * a growing table is rehashed into a fresh block whose capacity comes from gs_array_grow_ex
 * (base/array.h: doubling from GS_ARRAY_MIN_CAP), so all memory comes from the allocation seam
 * (base/alloc.h). The table never shrinks: it stays as large as the most keys it held at once.
 *
 * A value's address is valid until the next gs_intmap_put or gs_intmap_del on the same map (a
 * put may move the table, a delete moves the entries after it). The map does not own what a
 * value points to: free that before deleting the key or freeing the map (gs_intmap_next walks
 * the entries). A zero-initialised struct gs_intmap is an empty map that cannot take keys until
 * gs_intmap_init gives it its value size. */
#ifndef GPUSIM_BASE_INTMAP_H
#define GPUSIM_BASE_INTMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gs_intmap {
    void *table;   /* owned: cap keys (int, -1 empty), then cap values of vsize bytes; NULL when cap is 0 */
    unsigned char *values; /* into table: the first value */
    size_t vsize;  /* bytes per value; 0 before gs_intmap_init */
    int cap;       /* 0, or a power of two >= GS_ARRAY_MIN_CAP */
    int bits;      /* log2(cap) */
    int n;         /* keys in the map */
};

/* An empty map of values of `value_size` bytes (> 0). `m` must hold no table (zeroed, new, or
 * after gs_intmap_free). */
void gs_intmap_init(struct gs_intmap *m, size_t value_size);

/* The slot of `key`, -1 when the map does not have it (inline: the scheduling queue looks pods
 * up on its hot path). */
static inline int gs_intmap_slot_(const struct gs_intmap *m, int key)
{
    if (m->cap == 0 || key < 0)
        return -1;
    const int *keys = (const int *)m->table;
    int mask = m->cap - 1;
    /* Fibonacci hashing: the top `bits` bits of key * 2^64/phi. */
    int i = (int)(((uint64_t)(uint32_t)key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - m->bits));
    for (;; i = (i + 1) & mask) {
        if (keys[i] == key)
            return i;
        if (keys[i] < 0)
            return -1;
    }
}

/* The value of `key`, or NULL when the map does not have it (any key, negative ones too). */
static inline void *gs_intmap_get(const struct gs_intmap *m, int key)
{
    int i = gs_intmap_slot_(m, key);
    return i < 0 ? NULL : m->values + m->vsize * (size_t)i;
}

/* The value of `key` (>= 0) in *value, added with every byte zero when the map did not have it
 * (*created, when `created` is not NULL, says which). Returns 0; GS_EINVAL for a negative key or
 * a map without a value size; GS_ENOMEM or GS_ERANGE (more than GS_ARRAY_MAX / 2 keys) when the
 * table could not grow: the map is then unchanged and still valid, *value untouched. */
int gs_intmap_put(struct gs_intmap *m, int key, void **value, bool *created);

/* Remove `key`; returns true when the map had it. Never allocates, never fails. */
bool gs_intmap_del(struct gs_intmap *m, int key);

/* Keys in the map. */
int gs_intmap_count(const struct gs_intmap *m);

/* Walk the entries: start with *pos = 0; each call returns the next value (its key in *key when
 * `key` is not NULL) and advances *pos, NULL after the last. The order is the table's, not the
 * order of insertion: use it to free what values point to, not where the order would show.
 * The map must not change during a walk. */
void *gs_intmap_next(const struct gs_intmap *m, int *pos, int *key);

/* Free the table (not what values point to); the map is empty again, with its value size, and
 * may be reused. */
void gs_intmap_free(struct gs_intmap *m);

#endif
