/* gpusim: CEL function calls and macros of the DRA selector subset (models/dra/cel.h):
 * string startsWith/endsWith/contains (cel-go standard library), quantity() and its
 * compareTo/isLessThan/isGreaterThan/sign (k8s.io/apiserver pkg/cel/library/quantity.go),
 * semver() and its compareTo/isLessThan/isGreaterThan/major/minor/patch (semverlib.go), and
 * the has() macro. Overload errors use cel-go's checker wording. */
#include <string.h>

#include "models/dra/cel_parser.h"

static int method_id(const char *s, size_t n)
{
    static const char *names[] = {"startsWith", "endsWith", "contains", "compareTo", "isLessThan",
                                  "isGreaterThan", "sign", "major", "minor", "patch"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strlen(names[i]) == n && !strncmp(names[i], s, n))
            return i;
    return -1;
}

/* Arguments after '(' up to ')'; returns the count (args[] filled, at most max) or -1. */
static int parse_args(struct parser *ps, int *args, int max, int fn_col, const char *fn)
{
    int n = 0;
    if (cp_peek(ps)->kind != TK_RPAREN) {
        for (;;) {
            int a = cp_parse_expr(ps);
            if (a < 0)
                return -1;
            if (n < max)
                args[n] = a;
            n++;
            if (cp_peek(ps)->kind != TK_COMMA)
                break;
            cp_advance(ps);
        }
    }
    if (cp_expect(ps, TK_RPAREN, "')'") < 0)
        return -1;
    if (n > max)
        return cp_fail(ps, fn_col, "found no matching overload for '%s' with %d arguments", fn, n);
    return n;
}

int cp_method_call(struct parser *ps, int recv, const struct cel_token *name)
{
    char fn[64];
    size_t fl = name->len < sizeof fn - 1 ? name->len : sizeof fn - 1;
    memcpy(fn, ps->expr + name->off, fl);
    fn[fl] = '\0';
    int m = method_id(fn, fl);
    if (m < 0)
        return cp_fail(ps, name->col, "unsupported function \"%s\"", fn);
    int args[2];
    int na = parse_args(ps, args, 1, name->col, fn);
    if (na < 0)
        return -1;
    int rt = cp_N(ps, recv)->type;
    int at = na ? cp_N(ps, args[0])->type : -1;
    int want_args = (m == M_SIGN || m == M_MAJOR || m == M_MINOR || m == M_PATCH) ? 0 : 1;
    int result = CT_BOOL;
    bool ok = na == want_args;
    switch (m) {
    case M_STARTS_WITH: case M_ENDS_WITH: case M_CONTAINS:
        ok = ok && (rt == CT_STRING || rt == CT_DYN) && (at == CT_STRING || at == CT_DYN);
        break;
    case M_COMPARE_TO: case M_IS_LESS_THAN: case M_IS_GREATER_THAN:
        result = m == M_COMPARE_TO ? CT_INT : CT_BOOL;
        ok = ok && ((rt == CT_QUANTITY && (at == CT_QUANTITY || at == CT_DYN)) ||
                    (rt == CT_SEMVER && (at == CT_SEMVER || at == CT_DYN)) ||
                    (rt == CT_DYN && (at == CT_QUANTITY || at == CT_SEMVER || at == CT_DYN)));
        break;
    case M_SIGN:
        result = CT_INT;
        ok = ok && (rt == CT_QUANTITY || rt == CT_DYN);
        break;
    default: /* major, minor, patch */
        result = CT_INT;
        ok = ok && (rt == CT_SEMVER || rt == CT_DYN);
        break;
    }
    if (!ok)
        return cp_fail(ps, name->col, "found no matching overload for '%s' applied to '%s.(%s)'", fn,
                    cp_type_name(rt), na ? cp_type_name(at) : "");
    int n = cp_node(ps, NK_CALL, result, name->col);
    cp_N(ps, n)->op = (uint8_t)m;
    cp_N(ps, n)->a = recv;
    cp_N(ps, n)->b = na ? args[0] : -1;
    return n;
}

/* quantity("..") / semver("..") with a string literal. */
int cp_literal_call(struct parser *ps, const struct cel_token *name, bool quantity)
{
    const char *fn = quantity ? "quantity" : "semver";
    const struct cel_token *arg = cp_peek(ps);
    if (arg->kind != TK_STRING) {
        int args[1];
        if (parse_args(ps, args, 1, name->col, fn) < 0)
            return -1;
        return cp_fail(ps, arg->col, "%s() takes a string literal in gpusim", fn);
    }
    cp_advance(ps);
    if (cp_expect(ps, TK_RPAREN, "')'") < 0)
        return -1;
    const char *text = ps->p->strbuf + arg->str;
    char qt[1024]; /* the literal quoted in a message (gs_error_quote) */
    if (quantity) {
        struct gs_quantity *q = &ps->p->quants[ps->nquants];
        if (gs_quantity_parse_strict(text, q) != 0)
            return cp_fail(ps, arg->col, "invalid quantity \"%s\": %s",
                        gs_error_quote(text, (size_t)-1, (size_t)-1, qt, sizeof qt),
                        gs_quantity_parse_error(text) ? gs_quantity_parse_error(text) : "out of range");
        int n = cp_node(ps, NK_QUANTITY, CT_QUANTITY, name->col);
        cp_N(ps, n)->q = ps->nquants++;
        return n;
    }
    struct gs_semver *v = &ps->p->vers[ps->nvers];
    if (gs_semver_parse(text, v, NULL) != 0)
        return cp_fail(ps, arg->col, "invalid semver \"%s\"",
                       gs_error_quote(text, (size_t)-1, (size_t)-1, qt, sizeof qt));
    int n = cp_node(ps, NK_SEMVER, CT_SEMVER, name->col);
    cp_N(ps, n)->q = ps->nvers++;
    return n;
}

/* has(m.f) / has(m["f"]) on the attribute or capacity maps. */
int cp_has_macro(struct parser *ps, const struct cel_token *name)
{
    int args[1];
    int at = cp_peek(ps)->col;
    int na = parse_args(ps, args, 1, name->col, "has");
    if (na < 0)
        return -1;
    struct cel_node *a = na == 1 ? cp_N(ps, args[0]) : NULL;
    if (!a || (a->kind != NK_LOOKUP && a->kind != NK_DOMAIN))
        return cp_fail(ps, at, "invalid argument to has() macro");
    int n = cp_node(ps, NK_HAS, CT_BOOL, name->col);
    cp_N(ps, n)->a = cp_N(ps, args[0])->a;
    cp_N(ps, n)->b = cp_N(ps, args[0])->b;
    return n;
}

