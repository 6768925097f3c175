/* gpusim internal: a YAML document as a tree of nodes that keep their file:line:column, and
 * the checked accessors the scenario decoders use. Not a public header: only sim/scenario/
 * includes it.
 *
 * Everything (nodes, strings) lives in the arena given to the loader.
 */
#ifndef GPUSIM_SCENARIO_YAML_H
#define GPUSIM_SCENARIO_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "models/quantity.h"
#include "models/world.h"

enum gs_ytype { GS_Y_SCALAR, GS_Y_MAP, GS_Y_SEQ };

struct gs_ynode;

struct gs_ypair {
    struct gs_ynode *key;   /* a scalar */
    struct gs_ynode *value;
};

struct gs_ynode {
    enum gs_ytype type;
    const char *file;       /* arena; the file this node was read from */
    int line, col;          /* 1-based position of the node's first character */
    /* scalar */
    const char *text;       /* the scalar's text (arena), "" for an empty scalar */
    bool plain;             /* unquoted (plain style): `null`, `~`, `` are null; numbers are numbers */
    /* map: pairs in document order; seq: items */
    struct gs_ypair *pairs;
    struct gs_ynode **items;
    int n;
};

/* Size limits of the loader's input files, in bytes: a file must be smaller (base/readfile.h;
 * docs/scenario-format.md, "Input files and their size limits"). */
#define GS_SCN_SCENARIO_LIMIT ((size_t)1 << 30) /* the scenario: 1 GiB */
/* spec.workloads[].manifest files: 3 MiB, kube-apiserver's default MaxRequestBodyBytes
 * (k8s.io/apiserver/pkg/server/config.go), the largest object `kubectl apply` can send. */
#define GS_SCN_MANIFEST_LIMIT ((size_t)3 << 20)
#define GS_SCN_CATALOG_LIMIT ((size_t)16 << 20) /* gpus.yaml, operands.yaml, mig-profiles.yaml */
#define GS_SCN_KUBECTL_LIMIT ((size_t)1 << 30) /* each kubectl list (nodes, pods): 1 GiB */

/* Parse `path` (or `text` for gs_yaml_load_string, named `name` in messages) with libyaml into
 * a tree. The file is `what` ("a scenario file", "a workload manifest") and must be smaller than
 * `limit` bytes (base/readfile.h: a larger one, or a FIFO or device giving as much, is refused
 * with GS_EIO and "file too large: ..."). Aliases are resolved (a merge key `<<` is an error).
 * Duplicate keys in a mapping are an error, as in kubectl, found through a hash of the keys (a
 * mapping of N keys loads in O(N)). Returns 0, GS_EIO (file unreadable or too large; err says
 * why) or GS_EINVAL (invalid or truncated YAML, with the position libyaml reports). Messages
 * (err->msg never holds the file:line:col, which are in err->file/line/col):
 *   invalid YAML: <libyaml problem> (<libyaml context> started at line L column C)
 *   duplicate key 'x' (already set at line L column C)
 *   merge keys ('<<') are not supported: write the keys out
 *   invalid YAML: undefined alias '*x'
 *   invalid YAML: mapping keys must be scalars, not a mapping
 *   invalid YAML: more than 1000000 nodes in the document
 *   invalid YAML: more than 1000000 nodes after expanding aliases (W written, A from aliases)
 *   invalid YAML: nesting deeper than 100 levels of mappings and sequences (at the first node
 *     too deep; checked as libyaml reads, so a file of '[' is refused at once)
 *   empty file: expected a YAML document
 *   several YAML documents in one file: a scenario is a single document (remove the '---' separator)
 * Aliases share the anchored node (not copied): treat the tree as read-only (load.c copies
 * the containers on a --set path before changing them). An explicit `!!str` tag makes a
 * scalar non-plain. */
int gs_yaml_load_file(const char *path, const char *what, size_t limit, struct gs_arena *a, struct gs_ynode **root,
                      struct gs_error *err);
int gs_yaml_load_string(const char *name, const char *text, struct gs_arena *a, struct gs_ynode **root,
                        struct gs_error *err);

/* Parse a YAML value (a `--set path=value` argument's value) as a single node. Positions on
 * its first line are (line, col_base + column inside `text`); an empty value is null.
 * Returns 0 or GS_EINVAL (err set, file `name`). */
int gs_yaml_load_fragment(const char *name, const char *text, int line, int col_base, struct gs_arena *a,
                          struct gs_ynode **root, struct gs_error *err);

/* True for a plain null scalar (`null`, `Null`, `NULL`, `~`, or empty), and for NULL (an
 * absent key), so `gs_y_is_null(gs_y_get(m, "k"))` means "not given". */
bool gs_y_is_null(const struct gs_ynode *n);

/* Value of `key` in map `m`, NULL when absent (or m is not a map). */
struct gs_ynode *gs_y_get(const struct gs_ynode *m, const char *key);

/* ---- the decoder context: where errors go, where memory comes from */

struct gs_scn_names;

struct gs_ydec {
    struct gs_error *err;
    struct gs_arena *arena;
    struct gs_world *world; /* resources are interned here */
    const char *dir;        /* directory of the scenario file, for relative manifest paths */
    struct gs_scn_names *names; /* the loader's name indexes (podspec.h); NULL: lookups scan */
};

/* Fill dec->err at node `n` ("<msg>"), code GS_EINVAL; returns GS_EINVAL. */
int gs_y_error(struct gs_ydec *d, const struct gs_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "not supported yet: <path>" at node `n`, code GS_ENOTSUP; returns GS_ENOTSUP. */
int gs_y_unsupported(struct gs_ydec *d, const struct gs_ynode *n, const char *path);

/* Check that `m` is a map whose keys are all in `known` (NULL-terminated). A key in
 * `unsupported` (NULL-terminated, may be NULL) present in the map gives
 * "not supported yet: <path>.<key>". An unknown key gives
 * "unknown key '<k>' in <path> (did you mean '<nearest>'?)" (the suggestion only when one is
 * close enough). `required` (NULL-terminated, may be NULL) keys must be present:
 * "missing required field '<k>' in <path>" (at the map's position). Path "" is the document
 * root: "unknown key 'specs' at the top level (did you mean 'spec'?)". Keys are checked in
 * document order, so the first offending key is reported; then the required ones. */
int gs_y_check_map(struct gs_ydec *d, const struct gs_ynode *m, const char *path,
                   const char *const *known, const char *const *unsupported,
                   const char *const *required);

/* Type checks with "expected a mapping/sequence/scalar at <path>, got a <type>" errors. */
int gs_y_want_map(struct gs_ydec *d, const struct gs_ynode *n, const char *path);
int gs_y_want_seq(struct gs_ydec *d, const struct gs_ynode *n, const char *path);
int gs_y_want_scalar(struct gs_ydec *d, const struct gs_ynode *n, const char *path);

/* Typed scalars. Each checks the type and writes a clear error naming `path`; a null
 * (`~`, `null`, empty) is an error for all of them (callers treat absent keys themselves).
 *
 * gs_y_str: any non-null scalar, its text as written (`kernel: 5.15` gives "5.15"): for
 *   gpusim's own keys.
 * gs_y_kstr: a string as kubectl takes it for a Kubernetes string field: a plain scalar that
 *   YAML 1.1 resolves to a number or boolean (`8`, `1.5`, `true`, `yes`, `on`) is refused with
 *   "expected a string at <path>, got the number 8 (quote it: "8")".
 * gs_y_int: a plain decimal integer ([-+]?[0-9]+, no leading zeros) in [min, max]. A quoted
 *   number is refused ("... got the string "8" (remove the quotes)") as kubectl refuses a
 *   string for an int field; 1.5, 1e3, 0x10 are refused. Out of range: "<path> must be >= 0,
 *   got -1" when the upper bound is 1000000 or more (reads as unbounded), likewise
 *   "must be <= max" for a lower bound <= -1000000, else "must be between min and max, got v".
 * gs_y_bool: plain true/false (True, TRUE, False, FALSE too). YAML 1.1 yes/no/on/off/y/n are
 *   refused with a hint; quoted "true" is refused.
 * gs_y_double: a plain finite number (int or float syntax); quoted numbers are refused.
 * Durations and quantities accept both plain and quoted text. */
int gs_y_str(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char **out);
int gs_y_kstr(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char **out);
int gs_y_int(struct gs_ydec *d, const struct gs_ynode *n, const char *path, int64_t min, int64_t max,
             int64_t *out);
int gs_y_bool(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool *out);
int gs_y_double(struct gs_ydec *d, const struct gs_ynode *n, const char *path, double *out);
/* A Go duration ("90s"); a bare 0 is accepted. Microseconds. Negative durations are an error
 * unless allow_negative. */
int gs_y_duration(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool allow_negative,
                  gs_time *out);
/* A resource.Quantity (numbers and strings). */
int gs_y_quantity(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_quantity *out);
/* One of `choices` (NULL-terminated); error lists them. Returns the index in *out. */
int gs_y_enum(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *const *choices,
              int *out);
/* A map of string to string (labels, nodeSelector) into a sorted gs_labels (added with
 * gs_labels_set into d->arena). Values must be strings as for kubectl: an unquoted number or
 * boolean is refused ("label value at <path>.<key> must be a string, got the number 8 (quote
 * it: "8")"); a null value is "". */
int gs_y_labels(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_labels *out);

/* Edit distance used for "did you mean" (optimal string alignment: insert, delete,
 * substitute, swap adjacent; exposed for tests). A string over 256 bytes counts as its length
 * away from anything. Allocates nothing. */
int gs_y_edit_distance(const char *a, const char *b);
/* The choice nearest to `s` (NULL-terminated `choices`): a case-insensitive equal one first,
 * else the smallest edit distance when it is <= max(2, strlen(s)/3); NULL when none. */
const char *gs_y_suggest(const char *s, const char *const *choices);

#endif
