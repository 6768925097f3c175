/* gpusim base: a hash map from strings to small non-negative ints (an index into an array the
 * caller owns: a pool, a workload, a PriorityClass, a mapping's pair). The scenario loader
 * looks names up through it, so that loading is near-linear in the size of the input.
 *
 * Open addressing with linear probing over a power-of-two table kept at most half full; the
 * hash is 64-bit FNV-1a (Fowler, Noll, Vo) with MurmurHash3's fmix64 finaliser, so that the
 * low bits the table uses depend on every byte. Keys are borrowed, not copied: each key must
 * stay valid and unchanged while it is in the map (arena strings, or strings the caller frees
 * after the map). Tables come from the growth helper (base/array.h) and therefore from the
 * allocation seam (base/alloc.h); a growing table is rehashed into a fresh one. Nothing is
 * iterated, so the order of insertion never shows. A zero-initialised struct gs_strmap is an
 * empty map.
 *
 * Scope: string keys to an int index, nothing more; the map owns neither keys nor values and is
 * meant to live as long as one load (no deletion). It is not base/intmap.h (keyed by a pod
 * index, it stores a fixed-size record per key and deletes, for the run's per-pod side tables)
 * nor base/intern.h (it copies each distinct string into an arena once and returns that copy):
 * keep the three apart. */
#ifndef GPUSIM_BASE_STRMAP_H
#define GPUSIM_BASE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct gs_strmap_slot {
    const char *key; /* borrowed; NULL for an empty slot */
    size_t len;      /* strlen(key) */
    uint64_t hash;
    int value;
};

struct gs_strmap {
    struct gs_strmap_slot *slots; /* owned */
    int cap;                      /* 0, or a power of two >= GS_ARRAY_MIN_CAP */
    int n;                        /* keys in the map */
};

/* The map's hash of `n` bytes at `p` (FNV-1a, then fmix64). Pure; exposed for tests and for
 * callers that hash composite keys. */
uint64_t gs_hash_bytes(const void *p, size_t n);

/* Add `key` with `value` (>= 0) unless the map has it already. Returns 0 when added; 1 when
 * `key` was there (its value, unchanged, in *existing when existing is not NULL); GS_ENOMEM or
 * GS_ERANGE (more than GS_ARRAY_MAX / 2 keys) when the table could not grow: the map is then
 * unchanged and still valid. */
int gs_strmap_add(struct gs_strmap *m, const char *key, int value, int *existing);

/* The value of `key`, or -1 when absent. */
int gs_strmap_get(const struct gs_strmap *m, const char *key);
/* The same for the `len` bytes at `key` (not NUL-terminated: a prefix of a longer name). */
int gs_strmap_getn(const struct gs_strmap *m, const char *key, size_t len);

/* Make room for `n` keys in all, so that adding them does not rehash. Returns 0, GS_ENOMEM or
 * GS_ERANGE (the map is then unchanged). */
int gs_strmap_reserve(struct gs_strmap *m, int n);

/* Free the table (not the keys); the map is empty again and may be reused. */
void gs_strmap_free(struct gs_strmap *m);

#endif
