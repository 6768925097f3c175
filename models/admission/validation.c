/* gpusim: the API server's validation of container resources (see models/admission/validation.h).
 *
 * The order of checks and the texts follow pkg/apis/core/validation/validation.go
 * (ValidateResourceRequirements and the functions it calls) and the rendering rules of
 * apimachinery's field.Error, so that a refused manifest gets the message a real cluster
 * prints. Messages are collected in a small heap-allocated list and joined at the end.
 */
#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/admission/validation.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------- */
/* Growable strings and the error list                                                      */
/* ---------------------------------------------------------------------------------------- */

/* A string built on the heap (gs_array_grow), or, when `fixed`, in a caller's buffer of
 * fixed_n bytes that keeps what fits while len counts everything (snprintf's contract). */
struct sbuf {
    char *p;
    size_t len;
    int cap;
    bool oom;
    bool fixed;
    size_t fixed_n;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->fixed) {
        if (b->len + 1 < b->fixed_n) {
            size_t room = b->fixed_n - 1 - b->len, k = n < room ? n : room;
            memcpy(b->p + b->len, s, k);
            b->p[b->len + k] = '\0';
        }
        b->len += n;
        return;
    }
    if (b->oom)
        return;
    /* Messages are short; one beyond GS_ARRAY_MAX bytes counts as out of memory. */
    if (b->len + n + 1 > (size_t)GS_ARRAY_MAX || GS_GROW(b->p, b->cap, (int)(b->len + n + 1))) {
        b->oom = true;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

/* Go's strconv.Quote (what %q and %#v print for a string): printable characters as they are,
 * the usual backslash escapes, \xNN for bytes that are not UTF-8, \u00NN for C1 controls. */
static void sb_goquote(struct sbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    sb_add(b, "\"", 1);
    while (*p) {
        unsigned c = *p;
        char esc[16];
        if (c < 0x80) {
            const char *e = NULL;
            switch (c) {
            case '\a': e = "\\a"; break;
            case '\b': e = "\\b"; break;
            case '\f': e = "\\f"; break;
            case '\n': e = "\\n"; break;
            case '\r': e = "\\r"; break;
            case '\t': e = "\\t"; break;
            case '\v': e = "\\v"; break;
            case '\\': e = "\\\\"; break;
            case '"': e = "\\\""; break;
            default: break;
            }
            if (e) {
                sb_puts(b, e);
            } else if (c < 0x20 || c == 0x7F) {
                snprintf(esc, sizeof esc, "\\x%02x", c);
                sb_puts(b, esc);
            } else {
                sb_add(b, (const char *)p, 1);
            }
            p++;
            continue;
        }
        /* a multi-byte UTF-8 sequence, kept when well formed */
        int len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        bool ok = len > 0;
        for (int i = 1; ok && i < len; i++)
            ok = (p[i] & 0xC0) == 0x80;
        if (ok && len == 2 && c < 0xC2)
            ok = false; /* overlong */
        if (!ok) {
            snprintf(esc, sizeof esc, "\\x%02x", c);
            sb_puts(b, esc);
            p++;
            continue;
        }
        if (len == 2 && c == 0xC2 && p[1] < 0xA0) {
            snprintf(esc, sizeof esc, "\\u%04x", (unsigned)p[1]); /* U+0080..U+009F */
            sb_puts(b, esc);
        } else {
            sb_add(b, (const char *)p, (size_t)len);
        }
        p += len;
    }
    sb_add(b, "\"", 1);
}

/* encoding/json's string encoding (HTML-safe, as json.Marshal): used for non-string bad
 * values when rendering as JSON. */
static void sb_jsonquote(struct sbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    sb_add(b, "\"", 1);
    for (; *p; p++) {
        unsigned c = *p;
        char esc[16];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            sb_add(b, e, 2);
        } else if (c == '\n') {
            sb_puts(b, "\\n");
        } else if (c == '\r') {
            sb_puts(b, "\\r");
        } else if (c == '\t') {
            sb_puts(b, "\\t");
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            sb_puts(b, esc);
        } else {
            sb_add(b, (const char *)p, 1);
        }
    }
    sb_add(b, "\"", 1);
}

struct errlist {
    char **msg;
    int n, cap;
    bool oom;
};

/* Append a message (taking ownership of b->p); identical messages are kept once, as
 * ErrorList.ToAggregate does. */
static void el_push(struct errlist *l, struct sbuf *b)
{
    if (b->oom || !b->p) {
        gs_free(b->p);
        l->oom = true;
        *b = (struct sbuf){0};
        return;
    }
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->msg[i], b->p) == 0) {
            gs_free(b->p);
            *b = (struct sbuf){0};
            return;
        }
    }
    if (GS_GROW(l->msg, l->cap, l->n + 1)) {
        gs_free(b->p);
        l->oom = true;
        *b = (struct sbuf){0};
        return;
    }
    l->msg[l->n++] = b->p;
    *b = (struct sbuf){0};
}

static void el_free(struct errlist *l)
{
    for (int i = 0; i < l->n; i++)
        gs_free(l->msg[i]);
    gs_free(l->msg);
}

/* ---------------------------------------------------------------------------------------- */
/* field.Error rendering                                                                    */
/* ---------------------------------------------------------------------------------------- */

struct ctx {
    const struct gs_validation_opts *opts;
    struct errlist errs;
    int count; /* errors found, even when the list ran out of memory */
    bool oom;  /* an allocation failed: the result is unknown */
};

/* Note a string that could not be built. */
static const char *sb_checked(struct ctx *x, const struct sbuf *b)
{
    if (b->oom || !b->p) {
        x->oom = true;
        return "";
    }
    return b->p;
}

enum bad_kind { BAD_STRING, BAD_NAME, BAD_QUANTITY };

/* field.Invalid(path, value, detail): "<path>: Invalid value: <value>: <detail>".
 * BAD_STRING is a Go string (%q); BAD_NAME a core.ResourceName, a named string type that
 * misses the `case string` and is printed with %#v (the same quoting) or as JSON;
 * BAD_QUANTITY a resource.Quantity passed by value (%#v dump, or JSON "<String()>"). */
static void add_invalid(struct ctx *x, const char *path, enum bad_kind kind, const char *str,
                        const struct gs_quantity *q, const char *detail)
{
    struct sbuf b = {0};
    x->count++;
    sb_puts(&b, path);
    sb_puts(&b, ": Invalid value: ");
    switch (kind) {
    case BAD_STRING:
        sb_goquote(&b, str);
        break;
    case BAD_NAME:
        if (x->opts->json_values)
            sb_jsonquote(&b, str);
        else
            sb_goquote(&b, str);
        break;
    case BAD_QUANTITY:
        if (x->opts->json_values) {
            char s[GS_QUANTITY_TEXT_MAX + 160];
            gs_quantity_string(q, s, sizeof s);
            sb_jsonquote(&b, s);
        } else {
            char d[GS_QUANTITY_TEXT_MAX + 400];
            int len = gs_quantity_godump(q, d, sizeof d);
            sb_add(&b, d, len < 0 ? 0 : (size_t)len < sizeof d ? (size_t)len : sizeof d - 1);
        }
        break;
    }
    sb_puts(&b, ": ");
    sb_puts(&b, detail);
    el_push(&x->errs, &b);
}

/* field.Required / field.Forbidden: "<path>: Required value: <detail>". */
static void add_typed(struct ctx *x, const char *path, const char *type, const char *detail)
{
    struct sbuf b = {0};
    x->count++;
    sb_puts(&b, path);
    sb_puts(&b, ": ");
    sb_puts(&b, type);
    if (detail && *detail) {
        sb_puts(&b, ": ");
        sb_puts(&b, detail);
    }
    el_push(&x->errs, &b);
}

/* ---------------------------------------------------------------------------------------- */
/* Resource names (helpers.go, apimachinery util/validation)                                */
/* ---------------------------------------------------------------------------------------- */

static bool has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static bool in_set(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(s, *set) == 0)
            return true;
    return false;
}

static bool is_hugepage_name(const char *name)
{
    return has_prefix(name, "hugepages-");
}

static bool is_native(const char *name)
{
    return !strchr(name, '/') || strstr(name, "kubernetes.io/") != NULL;
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$ */
static bool match_qname(const char *s, size_t n)
{
    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ */
static bool match_dns1123_subdomain(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            size_t len = i - start;
            if (len == 0 || !is_lower_alnum(s[start]) || !is_lower_alnum(s[i - 1]))
                return false;
            for (size_t j = start + 1; j + 1 < i; j++)
                if (!is_lower_alnum(s[j]) && s[j] != '-')
                    return false;
            start = i + 1;
        }
    }
    return true;
}

#define QNAME_REGEX_ERR                                                                            \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "   \
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "        \
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define DNS1123_SUBDOMAIN_ERR                                                                      \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "  \
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used " \
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

/* validation.IsQualifiedName: up to 4 messages into msgs; returns their number. */
static int qualified_name_errors(const char *value, const char *msgs[4])
{
    int n = 0;
    const char *slash = strchr(value, '/');
    const char *name = value;
    size_t name_len = strlen(value);
    if (slash) {
        if (strchr(slash + 1, '/')) {
            msgs[n++] = "a qualified name " QNAME_REGEX_ERR
                        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
            return n;
        }
        size_t plen = (size_t)(slash - value);
        if (plen == 0) {
            msgs[n++] = "prefix part must be non-empty";
        } else {
            if (plen > 253)
                msgs[n++] = "prefix part must be no more than 253 characters";
            if (!match_dns1123_subdomain(value, plen))
                msgs[n++] = "prefix part " DNS1123_SUBDOMAIN_ERR;
        }
        name = slash + 1;
        name_len = strlen(name);
    }
    if (name_len == 0)
        msgs[n++] = "name part must be non-empty";
    else if (name_len > 63)
        msgs[n++] = "name part must be no more than 63 characters";
    if (!match_qname(name, name_len))
        msgs[n++] = "name part " QNAME_REGEX_ERR;
    return n;
}

bool gs_is_extended_resource(const char *name)
{
    if (!name || is_native(name) || has_prefix(name, "requests."))
        return false;
    /* "requests." + name must be a qualified name: at most a 253-byte prefix, '/' and a 63-byte
     * name, so anything longer is not one (and needs no heap copy). */
    char quota[9 + 253 + 1 + 63 + 1];
    size_t n = strlen(name);
    if (9 + n >= sizeof quota)
        return false;
    memcpy(quota, "requests.", 9);
    memcpy(quota + 9, name, n + 1);
    const char *msgs[4];
    return qualified_name_errors(quota, msgs) == 0;
}

bool gs_is_overcommit_allowed(const char *name)
{
    return name && is_native(name) && !is_hugepage_name(name);
}

static const char *const standard_resources[] = {
    "cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory",
    "ephemeral-storage", "requests.ephemeral-storage", "limits.ephemeral-storage", "pods",
    "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
    "persistentvolumeclaims", "storage", "requests.storage", "services.nodeports",
    "services.loadbalancers", NULL,
};

static const char *const integer_resources[] = {
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers", NULL,
};

static bool is_standard_resource(const char *name)
{
    return in_set(name, standard_resources) || has_prefix(name, "hugepages-") ||
           has_prefix(name, "requests.hugepages-");
}

static bool is_standard_container_resource(const char *name)
{
    return strcmp(name, "cpu") == 0 || strcmp(name, "memory") == 0 ||
           strcmp(name, "ephemeral-storage") == 0 || is_hugepage_name(name);
}

static bool is_integer_resource(const char *name)
{
    return in_set(name, integer_resources) || gs_is_extended_resource(name);
}

/* validateContainerResourceName (with validateResourceName) */
static void validate_container_resource_name(struct ctx *x, const char *name, const char *path)
{
    const char *msgs[4];
    int nq = qualified_name_errors(name, msgs);
    for (int i = 0; i < nq; i++)
        add_invalid(x, path, BAD_NAME, name, NULL, msgs[i]);
    bool single = strchr(name, '/') == NULL;
    if (nq == 0 && single && !is_standard_resource(name))
        add_invalid(x, path, BAD_NAME, name, NULL, "must be a standard resource type or fully qualified");
    if (single) {
        if (!is_standard_container_resource(name))
            add_invalid(x, path, BAD_NAME, name, NULL, "must be a standard resource for containers");
    } else if (!is_native(name) && !gs_is_extended_resource(name)) {
        add_invalid(x, path, BAD_NAME, name, NULL, "doesn't follow extended resource name standard");
    }
}

/* ValidateResourceQuantityValue: non-negative, and whole for integer resources. */
static void validate_quantity_value(struct ctx *x, const char *name, const struct gs_quantity *q,
                                    const char *path)
{
    if (gs_quantity_sign(q) < 0) {
        char s[GS_QUANTITY_TEXT_MAX + 160];
        gs_quantity_string(q, s, sizeof s);
        add_invalid(x, path, BAD_STRING, s, NULL, "must be greater than or equal to 0");
    }
    if (is_integer_resource(name) && gs_quantity_milli(q) % 1000 != 0)
        add_invalid(x, path, BAD_QUANTITY, NULL, q, "must be an integer");
}

/* validateResourceQuantityHugePageValue for a newly created object
 * (AllowIndivisibleHugePagesValues is false) with IsHugePageResourceValueDivisible. */
static void validate_hugepage_value(struct ctx *x, const char *name, const struct gs_quantity *q,
                                    const char *path)
{
    if (!is_hugepage_name(name))
        return;
    struct gs_quantity page;
    bool divisible = false;
    if (gs_quantity_parse_strict(name + strlen("hugepages-"), &page) == 0 &&
        gs_quantity_sign(&page) > 0 && gs_quantity_milli(&page) % 1000 == 0) {
        int64_t ps = gs_quantity_value(&page);
        divisible = ps > 0 && gs_quantity_value(q) % ps == 0;
    }
    if (divisible)
        return;
    char s[GS_QUANTITY_TEXT_MAX + 160];
    gs_quantity_string(q, s, sizeof s);
    struct sbuf detail = {0};
    sb_puts(&detail, s);
    sb_puts(&detail, " is not positive integer multiple of ");
    sb_puts(&detail, name);
    if (detail.oom)
        x->oom = true;
    else
        add_invalid(x, path, BAD_STRING, s, NULL, detail.p);
    gs_free(detail.p);
}

/* ---------------------------------------------------------------------------------------- */
/* ValidateResourceRequirements                                                             */
/* ---------------------------------------------------------------------------------------- */

/* A resource list after decoding: one entry per name (the last one written wins, as when a
 * JSON object repeats a key), sorted by name, values rounded up to milli units. */
struct rlist {
    const char **name;
    struct gs_quantity *q;
    int n;
};

struct rsort {
    const char *name;
    int pos; /* writing order: e[] first, then extra[] */
    const struct gs_quantity *q;
};

static int cmp_rsort(const void *a, const void *b)
{
    const struct rsort *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static bool rlist_build(struct rlist *r, const struct gs_res_entry *e, int ne,
                        const struct gs_res_entry *extra, int nextra)
{
    if (ne < 0)
        ne = 0;
    if (nextra < 0)
        nextra = 0;
    int total = ne + nextra;
    *r = (struct rlist){0};
    if (total == 0)
        return true;
    struct rsort *v = gs_malloc((size_t)total * sizeof *v);
    r->name = gs_malloc((size_t)total * sizeof *r->name);
    r->q = gs_malloc((size_t)total * sizeof *r->q);
    if (!v || !r->name || !r->q) {
        gs_free(v);
        gs_free(r->name);
        gs_free(r->q);
        *r = (struct rlist){0};
        return false;
    }
    int k = 0;
    for (int i = 0; i < ne; i++, k++)
        v[k] = (struct rsort){e[i].name ? e[i].name : "", k, &e[i].q};
    for (int i = 0; i < nextra; i++, k++)
        v[k] = (struct rsort){extra[i].name ? extra[i].name : "", k, &extra[i].q};
    qsort(v, (size_t)k, sizeof *v, cmp_rsort);
    for (int i = 0; i < k; i++) {
        if (i + 1 < k && strcmp(v[i].name, v[i + 1].name) == 0)
            continue; /* a later entry of the same name wins */
        r->name[r->n] = v[i].name;
        r->q[r->n] = *v[i].q;
        gs_quantity_round_up(&r->q[r->n], -3); /* SetDefaults_ResourceList */
        r->n++;
    }
    gs_free(v);
    return true;
}

static void rlist_free(struct rlist *r)
{
    gs_free(r->name);
    gs_free(r->q);
}

static const struct gs_quantity *rlist_find(const struct rlist *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->name[i], name) == 0)
            return &r->q[i];
    return NULL;
}

static bool contains_name(const struct gs_res_entry *e, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(e[i].name ? e[i].name : "", name) == 0)
            return true;
    return false;
}

static void validate_requirements(struct ctx *x, const struct gs_container_res *c, const char *fld)
{
    /* SetDefaults_Pod: limits without a request become requests (Pods only) */
    struct gs_res_entry *extra = NULL;
    int nextra = 0;
    if (x->opts->pod_defaulting && c->nlimits > 0) {
        extra = gs_malloc((size_t)c->nlimits * sizeof *extra);
        if (!extra) {
            x->oom = true;
            return;
        }
        for (int i = 0; i < c->nlimits; i++) {
            const char *nm = c->limits[i].name ? c->limits[i].name : "";
            if (contains_name(c->requests, c->nrequests, nm) || contains_name(extra, nextra, nm)) {
                /* a repeated limit name: the last value wins */
                for (int j = 0; j < nextra; j++)
                    if (strcmp(extra[j].name, nm) == 0)
                        extra[j].q = c->limits[i].q;
                continue;
            }
            extra[nextra].name = nm;
            extra[nextra].q = c->limits[i].q;
            nextra++;
        }
    }
    struct rlist lim, req;
    bool ok1 = rlist_build(&lim, c->limits, c->nlimits, NULL, 0);
    bool ok2 = rlist_build(&req, c->requests, c->nrequests, extra, nextra);
    gs_free(extra);
    if (!ok1 || !ok2) {
        rlist_free(&lim);
        rlist_free(&req);
        x->oom = true;
        return;
    }

    size_t flen = strlen(fld);
    struct sbuf lim_path = {0}, req_path = {0};
    sb_add(&lim_path, fld, flen);
    sb_puts(&lim_path, ".limits");
    sb_add(&req_path, fld, flen);
    sb_puts(&req_path, ".requests");
    bool lim_cpu_mem = false, req_cpu_mem = false, lim_huge = false, req_huge = false;

    for (int i = 0; i < lim.n; i++) {
        struct sbuf key = {0};
        sb_puts(&key, sb_checked(x, &lim_path));
        sb_puts(&key, "[");
        sb_puts(&key, lim.name[i]);
        sb_puts(&key, "]");
        const char *kp = sb_checked(x, &key);
        validate_container_resource_name(x, lim.name[i], kp);
        validate_quantity_value(x, lim.name[i], &lim.q[i], kp);
        if (is_hugepage_name(lim.name[i])) {
            lim_huge = true;
            validate_hugepage_value(x, lim.name[i], &lim.q[i], kp);
        }
        if (strcmp(lim.name[i], "cpu") == 0 || strcmp(lim.name[i], "memory") == 0)
            lim_cpu_mem = true;
        gs_free(key.p);
    }
    for (int i = 0; i < req.n; i++) {
        struct sbuf key = {0};
        sb_puts(&key, sb_checked(x, &req_path));
        sb_puts(&key, "[");
        sb_puts(&key, req.name[i]);
        sb_puts(&key, "]");
        const char *kp = sb_checked(x, &key);
        const char *name = req.name[i];
        const struct gs_quantity *q = &req.q[i];
        validate_container_resource_name(x, name, kp);
        validate_quantity_value(x, name, q, kp);

        const struct gs_quantity *limit = rlist_find(&lim, name);
        if (limit) {
            int cmp = gs_quantity_cmp(q, limit);
            const char *what = NULL;
            /* For non overcommitable resources, requests can't be lower than limits either. */
            if (cmp != 0 && !gs_is_overcommit_allowed(name))
                what = "must be equal to";
            else if (cmp > 0)
                what = "must be less than or equal to";
            if (what) {
                char qs[GS_QUANTITY_TEXT_MAX + 160], ls[GS_QUANTITY_TEXT_MAX + 160];
                gs_quantity_string(q, qs, sizeof qs);
                gs_quantity_string(limit, ls, sizeof ls);
                struct sbuf d = {0};
                sb_puts(&d, what);
                sb_puts(&d, " ");
                sb_puts(&d, name);
                sb_puts(&d, " limit of ");
                sb_puts(&d, ls);
                add_invalid(x, sb_checked(x, &req_path), BAD_STRING, qs, NULL, sb_checked(x, &d));
                gs_free(d.p);
            }
        } else if (!gs_is_overcommit_allowed(name)) {
            add_typed(x, sb_checked(x, &lim_path), "Required value",
                      "Limit must be set for non overcommitable resources");
        }
        if (is_hugepage_name(name)) {
            req_huge = true;
            validate_hugepage_value(x, name, q, kp);
        }
        if (strcmp(name, "cpu") == 0 || strcmp(name, "memory") == 0)
            req_cpu_mem = true;
        gs_free(key.p);
    }
    if (!lim_cpu_mem && !req_cpu_mem && (req_huge || lim_huge))
        add_typed(x, fld, "Forbidden", "HugePages require cpu or memory");

    sb_checked(x, &lim_path);
    sb_checked(x, &req_path);
    gs_free(lim_path.p);
    gs_free(req_path.p);
    rlist_free(&lim);
    rlist_free(&req);
}

/* ---------------------------------------------------------------------------------------- */
/* Public functions                                                                         */
/* ---------------------------------------------------------------------------------------- */

static int out_copy(char *buf, size_t n, const char *s, size_t len)
{
    if (buf && n > 0) {
        size_t k = len < n - 1 ? len : n - 1;
        memcpy(buf, s, k);
        buf[k] = '\0';
    }
    return (int)(len > 0x7FFFFFFF ? 0x7FFFFFFF : len);
}

int gs_validate_containers_opts(const struct gs_container_res *c, int nc,
                                const struct gs_validation_opts *opts, char *buf, size_t n)
{
    struct gs_validation_opts o = opts ? *opts : (struct gs_validation_opts){0};
    if (!o.path_prefix)
        o.path_prefix = "spec.";
    struct ctx x = {.opts = &o};

    /* validateContainers, then validateInitContainers (ValidatePodSpec), each indexed apart */
    for (int pass = 0; pass < 2; pass++) {
        int idx = 0;
        for (int i = 0; c && i < nc; i++) {
            if (c[i].init != (pass == 1))
                continue;
            char fld[64];
            snprintf(fld, sizeof fld, "%s[%d].resources", pass ? "initContainers" : "containers", idx);
            struct sbuf path = {0};
            sb_puts(&path, o.path_prefix);
            sb_puts(&path, fld);
            if (path.oom)
                x.oom = true;
            else
                validate_requirements(&x, &c[i], path.p);
            gs_free(path.p);
            idx++;
        }
    }

    if (x.oom || x.errs.oom) {
        out_copy(buf, n, "out of memory", 13);
        el_free(&x.errs);
        return GS_ENOMEM;
    }
    if (x.count == 0) {
        out_copy(buf, n, "", 0);
        el_free(&x.errs);
        return 0;
    }
    /* utilerrors aggregate: one error as is, several as "[a, b]" */
    struct sbuf all = {0};
    if (x.errs.n == 1) {
        sb_puts(&all, x.errs.msg[0]);
    } else if (x.errs.n > 1) {
        sb_puts(&all, "[");
        for (int i = 0; i < x.errs.n; i++) {
            if (i)
                sb_puts(&all, ", ");
            sb_puts(&all, x.errs.msg[i]);
        }
        sb_puts(&all, "]");
    }
    int rc = GS_EINVAL;
    if (all.oom || !all.p) {
        out_copy(buf, n, "out of memory", 13);
        rc = GS_ENOMEM;
    } else {
        out_copy(buf, n, all.p, all.len);
    }
    gs_free(all.p);
    el_free(&x.errs);
    return rc;
}

int gs_validate_containers(const struct gs_container_res *c, int nc, const char *path_prefix, char *buf,
                           size_t n)
{
    const char *prefix = path_prefix ? path_prefix : "spec.";
    struct gs_validation_opts o = {
        .path_prefix = prefix,
        .pod_defaulting = strcmp(prefix, "spec.") == 0,
        .json_values = false,
    };
    return gs_validate_containers_opts(c, nc, &o, buf, n);
}

const struct gs_quantity *gs_container_effective_request(const struct gs_container_res *c,
                                                         const char *name)
{
    if (!c || !name)
        return NULL;
    const struct gs_quantity *found = NULL;
    for (int i = 0; i < c->nrequests; i++)
        if (c->requests[i].name && strcmp(c->requests[i].name, name) == 0)
            found = &c->requests[i].q;
    if (found)
        return found;
    for (int i = 0; i < c->nlimits; i++)
        if (c->limits[i].name && strcmp(c->limits[i].name, name) == 0)
            found = &c->limits[i].q;
    return found;
}

int gs_validation_status_message(const char *kind, const char *group, const char *name,
                                 const char *detail, char *buf, size_t n)
{
    /* Written straight into buf: no allocation, so nothing can fail. */
    struct sbuf b = {.p = buf, .fixed = true, .fixed_n = buf ? n : 0};
    if (buf && n > 0)
        buf[0] = '\0';
    sb_puts(&b, kind ? kind : "");
    if (group && *group) {
        sb_puts(&b, ".");
        sb_puts(&b, group);
    }
    sb_puts(&b, " ");
    sb_goquote(&b, name ? name : "");
    sb_puts(&b, " is invalid");
    if (detail && *detail) {
        sb_puts(&b, ": ");
        sb_puts(&b, detail);
    }
    return (int)(b.len > 0x7FFFFFFF ? 0x7FFFFFFF : b.len);
}
