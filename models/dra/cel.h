/* gpusim: the subset of CEL that DRA device selectors use (resource.k8s.io/v1
 * DeviceSelector.cel.expression and DeviceClass selectors).
 *
 * Follows kubernetes staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go (1.34):
 * the one variable `device` with fields `driver` (string), `attributes` and `capacity`
 * (maps keyed by domain, then by attribute or capacity id; a name without a domain belongs to
 * the driver's domain, parseQualifiedName); looking up an unknown domain gives an empty map
 * (newStringInterfaceMapWithDefault), so `device.attributes["x.com"].y` on a device without it
 * is the runtime error "no such key: y". Attribute values are dynamically typed (int, bool,
 * string, semver); capacities are Kubernetes quantities. Functions from k8s.io/apiserver
 * pkg/cel/library (quantity.go, semverlib.go) and cel-go's standard string functions.
 *
 * Supported: literals (string '..' or ".." with \\ \' \" \n \t \r escapes, int, double,
 * true, false), `device.driver`, `device.attributes[D].id`, `device.attributes[D]["id"]`,
 * `device.capacity[D].id`, == != < <= > >= && || ! ?: and parentheses, `x in [..]` (list
 * literal) and `k in device.attributes[D]` (key present), has(device.attributes[D].id),
 * s.startsWith(t) s.endsWith(t) s.contains(t), quantity("40Gi"), q.compareTo(q2),
 * q.isLessThan(q2), q.isGreaterThan(q2), q.sign(), semver("1.2.3"), v.compareTo(v2),
 * v.isLessThan(v2), v.isGreaterThan(v2), v.major() v.minor() v.patch().
 * gpusim restriction: quantity() and semver() take a string literal, checked when compiling
 * (upstream parses at evaluation time and fails there).
 * Anything else (arithmetic, maps literals, macros like all/exists, matches(), size(), ...)
 * is refused when compiling, with the 1-based column: `CEL: unsupported function "matches"
 * at column 17`.
 *
 * Evaluation follows cel-go semantics: && and || absorb errors when the other side decides
 * (false && err == false, true || err == true); == between values of different types is false
 * except int/double which compare numerically; ordering between different types (other than
 * int/double) is the runtime error "no such overload".
 */
#ifndef GPUSIM_CEL_H
#define GPUSIM_CEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "models/quantity.h"

/* A semantic version (semver 2.0.0, as blang/semver parses a DRA version attribute).
 * `pre` is the prerelease part without the '-' ("rc.1"), or NULL; build metadata is dropped
 * (it does not take part in comparisons). Storage of `pre` belongs to whoever made the value. */
struct gs_semver {
    int64_t major, minor, patch;
    const char *pre;
};

/* Parse "MAJOR.MINOR.PATCH[-pre][+build]" strictly (no leading zeros, no "v"), as blang
 * semver.Parse does. `pre` points into `s` (so `s` must outlive `v`); `*pre_len` gets its
 * length (0 when none; may be NULL). Returns 0 or GS_EINVAL. Pure. */
int gs_semver_parse(const char *s, struct gs_semver *v, size_t *pre_len);
/* Semver precedence (semver.org §11): <0, 0 or >0. Prereleases sort before the release and
 * compare identifier by identifier (numeric ones numerically, below alphanumeric ones). */
int gs_semver_cmp(const struct gs_semver *a, const struct gs_semver *b);

/* One device attribute, as resource.k8s.io/v1 DeviceAttribute: exactly one typed value.
 * `name` is a QualifiedName: "domain/id" or a bare "id" (then in the driver's domain). */
enum gs_attr_kind { GS_ATTR_INT = 0, GS_ATTR_BOOL, GS_ATTR_STRING, GS_ATTR_VERSION };
struct gs_device_attribute {
    const char *name;
    enum gs_attr_kind kind;
    int64_t i;            /* GS_ATTR_INT */
    bool b;               /* GS_ATTR_BOOL */
    const char *s;        /* GS_ATTR_STRING, and the version's text for GS_ATTR_VERSION */
    struct gs_semver v;   /* GS_ATTR_VERSION (v.pre points into s or elsewhere) */
};

/* One device capacity (DeviceCapacity.value), named like an attribute. */
struct gs_device_capacity {
    const char *name;
    struct gs_quantity value;
};

/* What a selector sees of a device (compile.go Device): borrowed arrays, not copied. */
struct gs_cel_device {
    const char *driver;
    const struct gs_device_attribute *attrs;
    int nattrs;
    const struct gs_device_capacity *caps;
    int ncaps;
};

/* A compiled expression: opaque, immutable after gs_cel_compile, safe to evaluate from
 * many callers. */
struct gs_cel_program;

/* Longest selector expression in bytes (k8s.io/api resource/v1 CELSelectorExpressionMaxLength). */
#define GS_CEL_MAX_LENGTH (10 * 1024)

/* Compile `expr` (UTF-8, at most GS_CEL_MAX_LENGTH bytes: a longer one is GS_EINVAL with column
 * 0) once. On success *out is a caller-owned program (gs_cel_free).
 * Returns 0; GS_EINVAL for a malformed or unsupported expression, or one that cannot evaluate
 * to bool: `err` (may be NULL) gets code GS_EINVAL, line 1, the 1-based column (in characters)
 * of the offending token and a message that starts with "CEL: " and ends with
 * " at column N", e.g. `CEL: unsupported function "matches" at column 17`,
 * `CEL: syntax error: expected ')' at column 12`, `CEL: undeclared reference to 'x' at column 1`,
 * `CEL: found no matching overload for '_==_' applied to '(string, int)' at column 15`;
 * GS_ENOMEM. *out is NULL on error. Follows cel-go's parser and checker for the subset. */
int gs_cel_compile(const char *expr, struct gs_cel_program **out, struct gs_error *err);

/* Free a program (NULL is fine). */
void gs_cel_free(struct gs_cel_program *p);

/* The expression text the program was compiled from (owned by the program). */
const char *gs_cel_expression(const struct gs_cel_program *p);

/* Evaluate against one device (CompilationResult.DeviceMatches). Allocates nothing and keeps
 * no state, so it may run any number of times. On success writes *matches and returns 0. A
 * runtime error (cel-go's text, e.g. "no such key: productName", "no such overload") returns
 * GS_EINVAL with the text in `errbuf` (may be NULL when errlen is 0; truncated to fit). The
 * DRA allocator turns that error into a failed Filter (see dra.h). */
int gs_cel_eval(const struct gs_cel_program *p, const struct gs_cel_device *dev, bool *matches,
                char *errbuf, size_t errlen);

#endif
