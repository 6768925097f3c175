/* gpusim: evaluation of a compiled DRA selector against one device (models/dra/cel.h).
 * Mirrors CompilationResult.DeviceMatches in dynamic-resource-allocation/cel/compile.go with
 * cel-go's runtime semantics: error-absorbing && and ||, heterogeneous equality (false across
 * types, numeric across int and double), "no such key" for a missing map entry, "no such
 * overload" for an operation on values of the wrong runtime type. Nothing is allocated: values
 * live on the C stack and point into the program or the device. */
#include <stdio.h>
#include <string.h>

#include "models/dra/cel_internal.h"

static void eval(const struct gs_cel_program *p, int ni, const struct gs_cel_device *dev,
                 struct cel_val *out);

static void set_err(struct cel_val *v, int e)
{
    memset(v, 0, sizeof *v);
    v->k = V_ERR;
    v->err = (uint8_t)e;
}

static void set_bool(struct cel_val *v, bool b)
{
    memset(v, 0, sizeof *v);
    v->k = V_BOOL;
    v->b = b;
}

static void set_int(struct cel_val *v, int64_t i)
{
    memset(v, 0, sizeof *v);
    v->k = V_INT;
    v->i = i;
}

/* parseQualifiedName: "domain/id", or the driver's domain for a bare id. */
static void split_name(const char *name, const char *driver, const char **dom, size_t *dl,
                       const char **id, size_t *il)
{
    const char *slash = strchr(name, '/');
    if (slash) {
        *dom = name;
        *dl = (size_t)(slash - name);
        *id = slash + 1;
        *il = strlen(slash + 1);
    } else {
        *dom = driver ? driver : "";
        *dl = strlen(*dom);
        *id = name;
        *il = strlen(name);
    }
}

static bool span_eq(const char *a, size_t al, const char *b, size_t bl)
{
    return al == bl && (al == 0 || memcmp(a, b, al) == 0);
}

/* Does the map (outer: by domain only; domain map: by domain and id) have `key`? When
 * `found` is non-NULL the entry's value is written there. */
static bool map_find(const struct gs_cel_device *dev, bool caps, const char *dom, size_t dl,
                     bool outer, const char *key, size_t kl, struct cel_val *found)
{
    int n = caps ? dev->ncaps : dev->nattrs;
    for (int i = 0; i < n; i++) {
        const char *name = caps ? dev->caps[i].name : dev->attrs[i].name;
        const char *d, *id;
        size_t l1, l2;
        split_name(name, dev->driver, &d, &l1, &id, &l2);
        if (outer) {
            if (span_eq(d, l1, key, kl))
                return true;
            continue;
        }
        if (!span_eq(d, l1, dom, dl) || !span_eq(id, l2, key, kl))
            continue;
        if (found) {
            memset(found, 0, sizeof *found);
            if (caps) {
                found->k = V_QUANTITY;
                found->q = &dev->caps[i].value;
            } else {
                const struct gs_device_attribute *a = &dev->attrs[i];
                switch (a->kind) {
                case GS_ATTR_INT: found->k = V_INT; found->i = a->i; break;
                case GS_ATTR_BOOL: found->k = V_BOOL; found->b = a->b; break;
                case GS_ATTR_STRING:
                    found->k = V_STRING;
                    found->s = a->s ? a->s : "";
                    found->slen = strlen(found->s);
                    break;
                default: found->k = V_SEMVER; found->v = &a->v; break;
                }
            }
        }
        return true;
    }
    return false;
}

/* Heterogeneous equality (cel-go Equal with CrossTypeNumericComparisons). */
static bool vals_equal(const struct cel_val *a, const struct cel_val *b)
{
    if (a->k == V_INT && b->k == V_DOUBLE)
        return (double)a->i == b->d;
    if (a->k == V_DOUBLE && b->k == V_INT)
        return a->d == (double)b->i;
    if (a->k != b->k)
        return false;
    switch (a->k) {
    case V_BOOL: return a->b == b->b;
    case V_INT: return a->i == b->i;
    case V_DOUBLE: return a->d == b->d;
    case V_STRING: return span_eq(a->s, a->slen, b->s, b->slen);
    case V_QUANTITY: return gs_quantity_cmp(a->q, b->q) == 0;
    case V_SEMVER: return gs_semver_cmp(a->v, b->v) == 0;
    default: return false;
    }
}

/* Ordering; false when no overload applies. */
static bool vals_order(const struct cel_val *a, const struct cel_val *b, int *c)
{
    if ((a->k == V_INT || a->k == V_DOUBLE) && (b->k == V_INT || b->k == V_DOUBLE)) {
        if (a->k == V_INT && b->k == V_INT) {
            *c = (a->i > b->i) - (a->i < b->i);
            return true;
        }
        double x = a->k == V_INT ? (double)a->i : a->d;
        double y = b->k == V_INT ? (double)b->i : b->d;
        *c = (x > y) - (x < y);
        return true;
    }
    if (a->k != b->k)
        return false;
    if (a->k == V_STRING) {
        size_t m = a->slen < b->slen ? a->slen : b->slen;
        int r = m ? memcmp(a->s, b->s, m) : 0;
        *c = r ? (r > 0 ? 1 : -1) : (a->slen > b->slen) - (a->slen < b->slen);
        return true;
    }
    if (a->k == V_BOOL) {
        *c = (int)a->b - (int)b->b;
        return true;
    }
    return false;
}

static bool span_contains(const char *h, size_t hl, const char *n, size_t nl)
{
    if (nl == 0)
        return true;
    for (size_t i = 0; i + nl <= hl; i++)
        if (memcmp(h + i, n, nl) == 0)
            return true;
    return false;
}

static void eval_call(const struct gs_cel_program *p, const struct cel_node *n,
                      const struct gs_cel_device *dev, struct cel_val *out)
{
    struct cel_val r, a = {0};
    eval(p, n->a, dev, &r);
    if (r.k == V_ERR) {
        *out = r;
        return;
    }
    if (n->b >= 0) {
        eval(p, n->b, dev, &a);
        if (a.k == V_ERR) {
            *out = a;
            return;
        }
    }
    switch (n->op) {
    case M_STARTS_WITH: case M_ENDS_WITH: case M_CONTAINS:
        if (r.k != V_STRING || a.k != V_STRING)
            break;
        if (n->op == M_STARTS_WITH)
            set_bool(out, a.slen <= r.slen && memcmp(r.s, a.s, a.slen) == 0);
        else if (n->op == M_ENDS_WITH)
            set_bool(out, a.slen <= r.slen && memcmp(r.s + r.slen - a.slen, a.s, a.slen) == 0);
        else
            set_bool(out, span_contains(r.s, r.slen, a.s, a.slen));
        return;
    case M_COMPARE_TO: case M_IS_LESS_THAN: case M_IS_GREATER_THAN: {
        int c;
        if (r.k == V_QUANTITY && a.k == V_QUANTITY)
            c = gs_quantity_cmp(r.q, a.q);
        else if (r.k == V_SEMVER && a.k == V_SEMVER)
            c = gs_semver_cmp(r.v, a.v);
        else
            break;
        c = (c > 0) - (c < 0);
        if (n->op == M_COMPARE_TO)
            set_int(out, c);
        else
            set_bool(out, n->op == M_IS_LESS_THAN ? c < 0 : c > 0);
        return;
    }
    case M_SIGN:
        if (r.k != V_QUANTITY)
            break;
        set_int(out, gs_quantity_sign(r.q));
        return;
    default: /* major, minor, patch */
        if (r.k != V_SEMVER)
            break;
        set_int(out, n->op == M_MAJOR ? r.v->major : n->op == M_MINOR ? r.v->minor : r.v->patch);
        return;
    }
    set_err(out, E_NO_OVERLOAD);
}

/* A string key for a map lookup; false (out set to the error) when it is not a string. */
static bool eval_key(const struct gs_cel_program *p, int ni, const struct gs_cel_device *dev,
                     struct cel_val *key, struct cel_val *out)
{
    eval(p, ni, dev, key);
    if (key->k == V_ERR) {
        *out = *key;
        return false;
    }
    if (key->k != V_STRING) {
        set_err(out, E_NO_OVERLOAD);
        return false;
    }
    return true;
}

/* The logical operators: an error or non-bool on one side is absorbed when the other side
 * decides the result (cel-go's logical_and / logical_or). */
static void eval_logic(const struct gs_cel_program *p, const struct cel_node *n,
                       const struct gs_cel_device *dev, struct cel_val *out)
{
    bool is_or = n->kind == NK_OR;
    struct cel_val a, b;
    eval(p, n->a, dev, &a);
    if (a.k == V_BOOL && a.b == is_or) {
        set_bool(out, is_or);
        return;
    }
    eval(p, n->b, dev, &b);
    if (b.k == V_BOOL && b.b == is_or) {
        set_bool(out, is_or);
        return;
    }
    if (a.k == V_ERR) {
        *out = a;
        return;
    }
    if (a.k != V_BOOL) {
        set_err(out, E_NO_OVERLOAD);
        return;
    }
    if (b.k == V_ERR) {
        *out = b;
        return;
    }
    if (b.k != V_BOOL) {
        set_err(out, E_NO_OVERLOAD);
        return;
    }
    set_bool(out, !is_or);
}

static void eval(const struct gs_cel_program *p, int ni, const struct gs_cel_device *dev,
                 struct cel_val *out)
{
    const struct cel_node *n = &p->nodes[ni];
    struct cel_val a, b;
    memset(out, 0, sizeof *out);
    switch (n->kind) {
    case NK_BOOL: set_bool(out, n->b_val); return;
    case NK_INT: set_int(out, n->i); return;
    case NK_DOUBLE: out->k = V_DOUBLE; out->d = n->d; return;
    case NK_STRING: out->k = V_STRING; out->s = n->s; out->slen = n->slen; return;
    case NK_QUANTITY: out->k = V_QUANTITY; out->q = &p->quants[n->q]; return;
    case NK_SEMVER: out->k = V_SEMVER; out->v = &p->vers[n->q]; return;
    case NK_DRIVER:
        out->k = V_STRING;
        out->s = dev->driver ? dev->driver : "";
        out->slen = strlen(out->s);
        return;
    case NK_ATTRS: case NK_CAPS:
        out->k = V_OUTER;
        out->caps = n->kind == NK_CAPS;
        return;
    case NK_DOMAIN:
        eval(p, n->a, dev, &a);
        if (!eval_key(p, n->b, dev, &b, out))
            return;
        out->k = V_DOMAIN;
        out->caps = a.caps;
        out->s = b.s;
        out->slen = b.slen;
        return;
    case NK_LOOKUP:
        eval(p, n->a, dev, &a);
        if (a.k == V_ERR) {
            *out = a;
            return;
        }
        if (!eval_key(p, n->b, dev, &b, out))
            return;
        if (!map_find(dev, a.caps, a.s, a.slen, false, b.s, b.slen, out)) {
            set_err(out, E_NO_SUCH_KEY);
            out->s = b.s;
            out->slen = b.slen;
        }
        return;
    case NK_HAS: case NK_IN_MAP: {
        /* has(m.f): a = map, b = key; x in m: a = key, b = map. */
        int mi = n->kind == NK_HAS ? n->a : n->b, ki = n->kind == NK_HAS ? n->b : n->a;
        eval(p, mi, dev, &a);
        if (a.k == V_ERR) {
            *out = a;
            return;
        }
        if (!eval_key(p, ki, dev, &b, out))
            return;
        set_bool(out, map_find(dev, a.caps, a.s, a.slen, a.k == V_OUTER, b.s, b.slen, NULL));
        return;
    }
    case NK_NOT:
        eval(p, n->a, dev, &a);
        if (a.k == V_ERR)
            *out = a;
        else if (a.k != V_BOOL)
            set_err(out, E_NO_OVERLOAD);
        else
            set_bool(out, !a.b);
        return;
    case NK_AND: case NK_OR:
        eval_logic(p, n, dev, out);
        return;
    case NK_COND:
        eval(p, n->a, dev, &a);
        if (a.k == V_ERR)
            *out = a;
        else if (a.k != V_BOOL)
            set_err(out, E_NO_OVERLOAD);
        else
            eval(p, a.b ? n->b : n->c, dev, out);
        return;
    case NK_CMP: {
        eval(p, n->a, dev, &a);
        if (a.k == V_ERR) {
            *out = a;
            return;
        }
        eval(p, n->b, dev, &b);
        if (b.k == V_ERR) {
            *out = b;
            return;
        }
        if (n->op == CMP_EQ || n->op == CMP_NE) {
            set_bool(out, vals_equal(&a, &b) == (n->op == CMP_EQ));
            return;
        }
        int c;
        if (!vals_order(&a, &b, &c)) {
            set_err(out, E_NO_OVERLOAD);
            return;
        }
        set_bool(out, n->op == CMP_LT ? c < 0 : n->op == CMP_LE ? c <= 0 : n->op == CMP_GT ? c > 0 : c >= 0);
        return;
    }
    case NK_IN_LIST: {
        eval(p, n->a, dev, &a);
        if (a.k == V_ERR) {
            *out = a;
            return;
        }
        const struct cel_node *l = &p->nodes[n->b];
        bool found = false;
        for (int i = 0; i < l->n; i++) {
            eval(p, p->items[l->first + i], dev, &b);
            if (b.k == V_ERR) {
                *out = b;
                return;
            }
            if (!found && vals_equal(&a, &b))
                found = true;
        }
        set_bool(out, found);
        return;
    }
    case NK_CALL:
        eval_call(p, n, dev, out);
        return;
    default:
        set_err(out, E_NO_OVERLOAD);
        return;
    }
}

static const char *vkind_name(int k)
{
    switch (k) {
    case V_INT: return "int";
    case V_DOUBLE: return "double";
    case V_STRING: return "string";
    case V_QUANTITY: return "kubernetes.Quantity";
    case V_SEMVER: return "kubernetes.Semver";
    default: return "map";
    }
}

int gs_cel_eval(const struct gs_cel_program *p, const struct gs_cel_device *dev, bool *matches,
                char *errbuf, size_t errlen)
{
    if (errbuf && errlen)
        errbuf[0] = '\0';
    if (matches)
        *matches = false;
    if (!p || !dev || !matches) {
        if (errbuf && errlen)
            snprintf(errbuf, errlen, "internal error: no program or device");
        return GS_EINVAL;
    }
    struct cel_val v;
    eval(p, p->root, dev, &v);
    if (v.k == V_BOOL) {
        *matches = v.b;
        return 0;
    }
    if (errbuf && errlen) {
        if (v.k == V_ERR && v.err == E_NO_SUCH_KEY) {
            /* the key is quoted escaped (gs_error_quote), cut at a whole character */
            int k = snprintf(errbuf, errlen, "no such key: ");
            if (k >= 0 && (size_t)k < errlen)
                gs_error_quote(v.s, v.slen, v.slen, errbuf + k, errlen - (size_t)k);
        } else if (v.k == V_ERR)
            snprintf(errbuf, errlen, "no such overload");
        else
            snprintf(errbuf, errlen, "CEL result of type %s could not be converted to bool",
                     vkind_name(v.k));
    }
    return GS_EINVAL;
}
