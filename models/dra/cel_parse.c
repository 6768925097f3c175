/* gpusim: CEL parser and type checker for the DRA selector subset (models/dra/cel.h).
 * Grammar and precedence from cel-spec doc/langdef.md:
 *   Expr     = Or ["?" Or ":" Expr]
 *   Or       = And {"||" And}          And = Relation {"&&" Relation}
 *   Relation = Unary {Relop Unary}     Relop = < <= >= > == != in   (left-associative)
 *   Unary    = Member | "!" Unary | "-" number-literal
 *   Member   = Primary {"." IDENT ["(" args ")"] | "[" Expr "]"}
 *   Primary  = IDENT ["(" args ")"] | "(" Expr ")" | "[" [Expr {"," Expr} [","]] "]" | literal
 * Arithmetic (+ - * / %) parses in CEL but is outside the subset and refused. Static types
 * follow cel-go's checker over the environment of dynamic-resource-allocation/cel/compile.go;
 * overload errors use the checker's wording ("found no matching overload for ..."). Function
 * calls and macros are in cel_call.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "models/dra/cel_parser.h"

#define MAX_DEPTH 64

const char *cp_type_name(int t)
{
    switch (t) {
    case CT_BOOL: return "bool";
    case CT_INT: return "int";
    case CT_DOUBLE: return "double";
    case CT_STRING: return "string";
    case CT_QUANTITY: return "kubernetes.Quantity";
    case CT_SEMVER: return "kubernetes.Semver";
    case CT_DEVICE: return "kubernetes.DRADevice";
    case CT_ATTRS: return "map(string, map(string, dyn))";
    case CT_ATTR_DOMAIN: return "map(string, dyn)";
    case CT_CAPS: return "map(string, map(string, kubernetes.Quantity))";
    case CT_CAP_DOMAIN: return "map(string, kubernetes.Quantity)";
    case CT_LIST: return "list(dyn)";
    default: return "dyn";
    }
}

const struct cel_token *cp_peek(struct parser *ps) { return &ps->t[ps->pos]; }
const struct cel_token *cp_advance(struct parser *ps)
{
    const struct cel_token *t = &ps->t[ps->pos];
    if (t->kind != TK_EOF)
        ps->pos++;
    return t;
}

int cp_fail(struct parser *ps, int col, const char *fmt, ...)
{
    if (ps->rc)
        return -1;
    char what[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    ps->rc = cel_fail(ps->err, col, "%s", what);
    return -1;
}

static const char *tok_text(struct parser *ps, const struct cel_token *t, char *buf, size_t n)
{
    if (t->kind == TK_EOF)
        return "end of expression";
    /* the token as written, in quotes, escaped (gs_error_quote) and cut to fit */
    buf[0] = '\'';
    gs_error_quote(ps->expr + t->off, t->len, t->len, buf + 1, n - 2);
    size_t len = strlen(buf);
    buf[len] = '\'';
    buf[len + 1] = '\0';
    return buf;
}

int cp_expect(struct parser *ps, enum cel_tok k, const char *what)
{
    const struct cel_token *t = cp_peek(ps);
    if (t->kind != k) {
        char b[64];
        return cp_fail(ps, t->col, "syntax error: expected %s, found %s", what, tok_text(ps, t, b, sizeof b));
    }
    cp_advance(ps);
    return 0;
}

int cp_node(struct parser *ps, int kind, int type, int col)
{
    struct cel_node *n = &ps->p->nodes[ps->p->nnodes];
    memset(n, 0, sizeof *n);
    n->kind = (uint8_t)kind;
    n->type = (uint8_t)type;
    n->col = col;
    n->a = n->b = n->c = -1;
    return ps->p->nnodes++;
}

struct cel_node *cp_N(struct parser *ps, int i) { return &ps->p->nodes[i]; }

static bool is_scalar(int t)
{
    return t == CT_BOOL || t == CT_INT || t == CT_DOUBLE || t == CT_STRING || t == CT_QUANTITY ||
           t == CT_SEMVER || t == CT_DYN;
}
static bool boolish(int t) { return t == CT_BOOL || t == CT_DYN; }


/* ------------------------------------------------------------------ members */

static int string_key(struct parser *ps, const struct cel_token *t)
{
    int n = cp_node(ps, NK_STRING, CT_STRING, t->col);
    cp_N(ps, n)->s = ps->expr + t->off; /* not NUL-terminated: slen counts */
    cp_N(ps, n)->slen = t->len;
    return n;
}

/* m.f or m[k] on a map-typed or device-typed value. */
static int select_on(struct parser *ps, int recv, int key, const struct cel_token *field, int col)
{
    int rt = cp_N(ps, recv)->type;
    if (rt == CT_DEVICE) {
        if (!field)
            return cp_fail(ps, col, "found no matching overload for '_[_]' applied to '(%s, %s)'",
                        cp_type_name(rt), cp_type_name(cp_N(ps, key)->type));
        const char *f = ps->expr + field->off;
        if (field->len == 6 && !strncmp(f, "driver", 6))
            return cp_node(ps, NK_DRIVER, CT_STRING, field->col);
        if (field->len == 10 && !strncmp(f, "attributes", 10))
            return cp_node(ps, NK_ATTRS, CT_ATTRS, field->col);
        if (field->len == 8 && !strncmp(f, "capacity", 8))
            return cp_node(ps, NK_CAPS, CT_CAPS, field->col);
        return cp_fail(ps, field->col, "undefined field '%.*s'", (int)field->len, f);
    }
    if (rt == CT_ATTRS || rt == CT_CAPS || rt == CT_ATTR_DOMAIN || rt == CT_CAP_DOMAIN) {
        if (field)
            key = string_key(ps, field);
        int kt = cp_N(ps, key)->type;
        if (kt != CT_STRING && kt != CT_DYN)
            return cp_fail(ps, col, "found no matching overload for '_[_]' applied to '(%s, %s)'",
                        cp_type_name(rt), cp_type_name(kt));
        int n;
        if (rt == CT_ATTRS || rt == CT_CAPS)
            n = cp_node(ps, NK_DOMAIN, rt == CT_ATTRS ? CT_ATTR_DOMAIN : CT_CAP_DOMAIN, col);
        else
            n = cp_node(ps, NK_LOOKUP, rt == CT_ATTR_DOMAIN ? CT_DYN : CT_QUANTITY, col);
        cp_N(ps, n)->a = recv;
        cp_N(ps, n)->b = key;
        return n;
    }
    if (field)
        return cp_fail(ps, field->col, "field selection on a value of type '%s' is not supported",
                    cp_type_name(rt));
    return cp_fail(ps, col, "indexing a value of type '%s' is not supported", cp_type_name(rt));
}

static int parse_primary(struct parser *ps)
{
    const struct cel_token *t = cp_advance(ps);
    int n;
    char b[64];
    switch (t->kind) {
    case TK_INT:
        if (t->big)
            return cp_fail(ps, t->col, "integer literal out of range");
        n = cp_node(ps, NK_INT, CT_INT, t->col);
        cp_N(ps, n)->i = t->i;
        return n;
    case TK_DOUBLE:
        n = cp_node(ps, NK_DOUBLE, CT_DOUBLE, t->col);
        cp_N(ps, n)->d = t->d;
        return n;
    case TK_STRING:
        n = cp_node(ps, NK_STRING, CT_STRING, t->col);
        cp_N(ps, n)->s = ps->p->strbuf + t->str;
        cp_N(ps, n)->slen = t->slen;
        return n;
    case TK_TRUE: case TK_FALSE:
        n = cp_node(ps, NK_BOOL, CT_BOOL, t->col);
        cp_N(ps, n)->b_val = t->kind == TK_TRUE;
        return n;
    case TK_UINT:
        return cp_fail(ps, t->col, "unsupported literal: unsigned integers");
    case TK_BYTES:
        return cp_fail(ps, t->col, "unsupported literal: bytes");
    case TK_NULL:
        return cp_fail(ps, t->col, "unsupported literal: null");
    case TK_LPAREN:
        n = cp_parse_expr(ps);
        if (n < 0 || cp_expect(ps, TK_RPAREN, "')'") < 0)
            return -1;
        return n;
    case TK_LBRACK: {
        int items[256], ni = 0;
        if (cp_peek(ps)->kind != TK_RBRACK) {
            for (;;) {
                int e = cp_parse_expr(ps);
                if (e < 0)
                    return -1;
                if (!is_scalar(cp_N(ps, e)->type))
                    return cp_fail(ps, cp_N(ps, e)->col, "list elements of type '%s' are not supported",
                                cp_type_name(cp_N(ps, e)->type));
                if (ni == 256)
                    return cp_fail(ps, cp_N(ps, e)->col, "list literal longer than 256 elements");
                items[ni++] = e;
                if (cp_peek(ps)->kind != TK_COMMA)
                    break;
                cp_advance(ps);
                if (cp_peek(ps)->kind == TK_RBRACK)
                    break;
            }
        }
        if (cp_expect(ps, TK_RBRACK, "']'") < 0)
            return -1;
        n = cp_node(ps, NK_LIST, CT_LIST, t->col);
        cp_N(ps, n)->first = ps->nitems;
        cp_N(ps, n)->n = ni;
        memcpy(ps->p->items + ps->nitems, items, (size_t)ni * sizeof items[0]);
        ps->nitems += ni;
        return n;
    }
    case TK_LBRACE:
        return cp_fail(ps, t->col, "unsupported expression: map and message literals");
    case TK_DOT:
        return cp_fail(ps, t->col, "unsupported expression: leading '.'");
    case TK_IDENT: {
        const char *s = ps->expr + t->off;
        if (cp_peek(ps)->kind == TK_LPAREN) {
            cp_advance(ps);
            if (t->len == 8 && !strncmp(s, "quantity", 8))
                return cp_literal_call(ps, t, true);
            if (t->len == 6 && !strncmp(s, "semver", 6))
                return cp_literal_call(ps, t, false);
            if (t->len == 3 && !strncmp(s, "has", 3))
                return cp_has_macro(ps, t);
            return cp_fail(ps, t->col, "unsupported function \"%.*s\"", (int)t->len, s);
        }
        if (t->len == 6 && !strncmp(s, "device", 6))
            return cp_node(ps, NK_DEVICE, CT_DEVICE, t->col);
        return cp_fail(ps, t->col, "undeclared reference to '%.*s'", (int)t->len, s);
    }
    default:
        return cp_fail(ps, t->col, "syntax error: unexpected %s", tok_text(ps, t, b, sizeof b));
    }
}

static int parse_member(struct parser *ps)
{
    int n = parse_primary(ps);
    while (n >= 0) {
        const struct cel_token *t = cp_peek(ps);
        if (t->kind == TK_DOT) {
            cp_advance(ps);
            const struct cel_token *f = cp_advance(ps);
            if (f->kind != TK_IDENT && f->kind != TK_IN && f->kind != TK_TRUE && f->kind != TK_FALSE &&
                f->kind != TK_NULL) {
                char b[64];
                return cp_fail(ps, f->col, "syntax error: expected a field name, found %s",
                            tok_text(ps, f, b, sizeof b));
            }
            if (f->kind != TK_IDENT)
                return cp_fail(ps, f->col, "syntax error: reserved word '%.*s' used as a field name",
                            (int)f->len, ps->expr + f->off);
            if (cp_peek(ps)->kind == TK_LPAREN) {
                cp_advance(ps);
                n = cp_method_call(ps, n, f);
            } else {
                n = select_on(ps, n, -1, f, f->col);
            }
        } else if (t->kind == TK_LBRACK) {
            cp_advance(ps);
            int k = cp_parse_expr(ps);
            if (k < 0 || cp_expect(ps, TK_RBRACK, "']'") < 0)
                return -1;
            n = select_on(ps, n, k, NULL, t->col);
        } else {
            break;
        }
    }
    return n;
}

static int parse_unary(struct parser *ps)
{
    const struct cel_token *t = cp_peek(ps);
    if (t->kind == TK_NOT) {
        cp_advance(ps);
        if (++ps->depth > MAX_DEPTH)
            return cp_fail(ps, t->col, "expression nested too deeply");
        int a = parse_unary(ps);
        ps->depth--;
        if (a < 0)
            return -1;
        if (!boolish(cp_N(ps, a)->type))
            return cp_fail(ps, t->col, "found no matching overload for '!_' applied to '(%s)'",
                        cp_type_name(cp_N(ps, a)->type));
        int n = cp_node(ps, NK_NOT, CT_BOOL, t->col);
        cp_N(ps, n)->a = a;
        return n;
    }
    if (t->kind == TK_MINUS) {
        cp_advance(ps);
        const struct cel_token *l = cp_peek(ps);
        if (l->kind == TK_INT) {
            cp_advance(ps);
            int n = cp_node(ps, NK_INT, CT_INT, t->col);
            cp_N(ps, n)->i = l->big ? INT64_MIN : -l->i;
            return n;
        }
        if (l->kind == TK_DOUBLE) {
            cp_advance(ps);
            int n = cp_node(ps, NK_DOUBLE, CT_DOUBLE, t->col);
            cp_N(ps, n)->d = -l->d;
            return n;
        }
        return cp_fail(ps, t->col, "unsupported operator '-'");
    }
    return parse_member(ps);
}

static int cmp_op(enum cel_tok k)
{
    switch (k) {
    case TK_EQ: return CMP_EQ;
    case TK_NE: return CMP_NE;
    case TK_LT: return CMP_LT;
    case TK_LE: return CMP_LE;
    case TK_GT: return CMP_GT;
    case TK_GE: return CMP_GE;
    default: return -1;
    }
}

static const char *cmp_fn(int op)
{
    static const char *f[] = {"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"};
    return f[op];
}

static bool numeric(int t) { return t == CT_INT || t == CT_DOUBLE; }

static bool cmp_ok(int op, int a, int b)
{
    if (!is_scalar(a) || !is_scalar(b))
        return false;
    if (op == CMP_EQ || op == CMP_NE)
        return a == b || a == CT_DYN || b == CT_DYN;
    /* Ordering: int, double (cross-type numeric comparisons), string, bool. */
    if (a == CT_QUANTITY || a == CT_SEMVER || b == CT_QUANTITY || b == CT_SEMVER)
        return false;
    if (a == CT_DYN || b == CT_DYN)
        return true;
    return a == b || (numeric(a) && numeric(b));
}

static int parse_relation(struct parser *ps)
{
    int left = parse_unary(ps);
    while (left >= 0) {
        const struct cel_token *t = cp_peek(ps);
        int op = cmp_op(t->kind);
        if (t->kind == TK_PLUS || t->kind == TK_MINUS || t->kind == TK_STAR || t->kind == TK_SLASH ||
            t->kind == TK_PERCENT)
            return cp_fail(ps, t->col, "unsupported operator '%.*s'", (int)t->len, ps->expr + t->off);
        if (t->kind == TK_ASSIGN)
            return cp_fail(ps, t->col, "syntax error: unexpected '=' (did you mean '=='?)");
        if (op < 0 && t->kind != TK_IN)
            break;
        cp_advance(ps);
        int right = parse_unary(ps);
        if (right < 0)
            return -1;
        int lt = cp_N(ps, left)->type, rt = cp_N(ps, right)->type;
        int n;
        if (t->kind == TK_IN) {
            if (rt == CT_LIST) {
                /* @in(A, list(A)): the list's element type is its common type or dyn. */
                const struct cel_node *l = cp_N(ps, right);
                int et = -1;
                for (int i = 0; i < l->n; i++) {
                    int it = cp_N(ps, ps->p->items[l->first + i])->type;
                    et = (et < 0 || et == it) ? it : CT_DYN;
                }
                if (!is_scalar(lt) || (et >= 0 && et != CT_DYN && lt != CT_DYN && lt != et))
                    return cp_fail(ps, t->col, "found no matching overload for '@in' applied to '(%s, list(%s))'",
                                cp_type_name(lt), et < 0 ? "dyn" : cp_type_name(et));
                n = cp_node(ps, NK_IN_LIST, CT_BOOL, t->col);
            } else if (rt == CT_ATTRS || rt == CT_CAPS || rt == CT_ATTR_DOMAIN || rt == CT_CAP_DOMAIN) {
                if (lt != CT_STRING && lt != CT_DYN)
                    return cp_fail(ps, t->col, "found no matching overload for '@in' applied to '(%s, %s)'",
                                cp_type_name(lt), cp_type_name(rt));
                n = cp_node(ps, NK_IN_MAP, CT_BOOL, t->col);
            } else {
                return cp_fail(ps, t->col, "found no matching overload for '@in' applied to '(%s, %s)'",
                            cp_type_name(lt), cp_type_name(rt));
            }
        } else {
            if (!cmp_ok(op, lt, rt))
                return cp_fail(ps, t->col, "found no matching overload for '%s' applied to '(%s, %s)'",
                            cmp_fn(op), cp_type_name(lt), cp_type_name(rt));
            n = cp_node(ps, NK_CMP, CT_BOOL, t->col);
            cp_N(ps, n)->op = (uint8_t)op;
        }
        cp_N(ps, n)->a = left;
        cp_N(ps, n)->b = right;
        left = n;
    }
    return left;
}

static int parse_logic(struct parser *ps, bool is_or)
{
    int left = is_or ? parse_logic(ps, false) : parse_relation(ps);
    enum cel_tok k = is_or ? TK_OR : TK_AND;
    while (left >= 0 && cp_peek(ps)->kind == k) {
        const struct cel_token *t = cp_advance(ps);
        int right = is_or ? parse_logic(ps, false) : parse_relation(ps);
        if (right < 0)
            return -1;
        int lt = cp_N(ps, left)->type, rt = cp_N(ps, right)->type;
        if (!boolish(lt) || !boolish(rt))
            return cp_fail(ps, t->col, "found no matching overload for '%s' applied to '(%s, %s)'",
                        is_or ? "_||_" : "_&&_", cp_type_name(lt), cp_type_name(rt));
        int n = cp_node(ps, is_or ? NK_OR : NK_AND, CT_BOOL, t->col);
        cp_N(ps, n)->a = left;
        cp_N(ps, n)->b = right;
        left = n;
    }
    return left;
}

int cp_parse_expr(struct parser *ps)
{
    const struct cel_token *start = cp_peek(ps);
    if (++ps->depth > MAX_DEPTH)
        return cp_fail(ps, start->col, "expression nested too deeply");
    int c = parse_logic(ps, true);
    if (c >= 0 && cp_peek(ps)->kind == TK_QUESTION) {
        const struct cel_token *q = cp_advance(ps);
        int a = parse_logic(ps, true);
        if (a < 0 || cp_expect(ps, TK_COLON, "':'") < 0) {
            ps->depth--;
            return -1;
        }
        int b = cp_parse_expr(ps);
        if (b < 0) {
            ps->depth--;
            return -1;
        }
        int ct = cp_N(ps, c)->type, at = cp_N(ps, a)->type, bt = cp_N(ps, b)->type;
        if (!boolish(ct) || !is_scalar(at) || !is_scalar(bt) ||
            (at != bt && at != CT_DYN && bt != CT_DYN)) {
            ps->depth--;
            return cp_fail(ps, q->col, "found no matching overload for '_?_:_' applied to '(%s, %s, %s)'",
                        cp_type_name(ct), cp_type_name(at), cp_type_name(bt));
        }
        int n = cp_node(ps, NK_COND, at == bt ? at : CT_DYN, q->col);
        cp_N(ps, n)->a = c;
        cp_N(ps, n)->b = a;
        cp_N(ps, n)->c = b;
        c = n;
    }
    ps->depth--;
    return c;
}

/* ------------------------------------------------------------------ public */

int gs_cel_compile(const char *expr, struct gs_cel_program **out, struct gs_error *err)
{
    if (out)
        *out = NULL;
    if (!expr || !out)
        return gs_error_set(err, GS_EINVAL, NULL, 1, 0, "CEL: no expression");
    size_t len = strlen(expr);
    /* resource.k8s.io validation: a CEL selector is at most 10 Ki bytes
     * (resource.CELSelectorExpressionMaxLength). */
    if (len > GS_CEL_MAX_LENGTH)
        return gs_error_set(err, GS_EINVAL, NULL, 1, 0,
                            "CEL: expression is %zu bytes, must have at most %d bytes (Kubernetes' limit for a "
                            "device selector)",
                            len, GS_CEL_MAX_LENGTH);
    struct gs_cel_program *p = gs_calloc(1, sizeof *p);
    struct cel_token *toks = gs_calloc(len + 2, sizeof *toks);
    if (!p || !toks) {
        gs_free(p);
        gs_free(toks);
        return GS_ENOMEM;
    }
    /* Every node, list item, quantity and semver comes from at most one token, plus the
     * string keys that field selections add (one per token as well). */
    size_t cap = 2 * (len + 2);
    p->expr = gs_malloc(len + 1);
    p->nodes = gs_calloc(cap, sizeof *p->nodes);
    p->items = gs_calloc(len + 2, sizeof *p->items);
    p->quants = gs_calloc(len / 10 + 1, sizeof *p->quants);  /* quantity("") is 12 characters */
    p->vers = gs_calloc(len / 10 + 1, sizeof *p->vers);      /* semver("") is 10 */
    p->strbuf = gs_malloc(len + 2);
    if (!p->expr || !p->nodes || !p->items || !p->quants || !p->vers || !p->strbuf) {
        gs_free(toks);
        gs_cel_free(p);
        return GS_ENOMEM;
    }
    memcpy(p->expr, expr, len + 1);
    int nt = cel_lex(p->expr, toks, p->strbuf, err);
    if (nt < 0) {
        gs_free(toks);
        gs_cel_free(p);
        return GS_EINVAL;
    }
    struct parser ps = {.expr = p->expr, .t = toks, .p = p, .err = err};
    int root = cp_parse_expr(&ps);
    if (root >= 0 && cp_peek(&ps)->kind != TK_EOF) {
        char b[64];
        const struct cel_token *t = cp_peek(&ps);
        cp_fail(&ps, t->col, "syntax error: unexpected %s", tok_text(&ps, t, b, sizeof b));
        root = -1;
    }
    if (root >= 0) {
        int rt = p->nodes[root].type;
        if (rt != CT_BOOL && rt != CT_DYN) {
            cp_fail(&ps, 1, "must evaluate to bool or the unknown type, not %s", cp_type_name(rt));
            root = -1;
        }
    }
    gs_free(toks);
    if (root < 0) {
        gs_cel_free(p);
        return GS_EINVAL;
    }
    p->root = root;
    *out = p;
    return 0;
}

void gs_cel_free(struct gs_cel_program *p)
{
    if (!p)
        return;
    gs_free(p->expr);
    gs_free(p->nodes);
    gs_free(p->items);
    gs_free(p->quants);
    gs_free(p->vers);
    gs_free(p->strbuf);
    gs_free(p);
}

const char *gs_cel_expression(const struct gs_cel_program *p) { return p ? p->expr : NULL; }
