/* gpusim: CEL internals shared by cel_lex.c, cel_parse.c and cel_eval.c. Not a public API. */
#ifndef GPUSIM_CEL_INTERNAL_H
#define GPUSIM_CEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/dra/cel.h"

/* ------------------------------------------------------------------ tokens (cel_lex.c) */

enum cel_tok {
    TK_EOF = 0, TK_IDENT, TK_INT, TK_UINT, TK_DOUBLE, TK_STRING, TK_BYTES,
    TK_LPAREN, TK_RPAREN, TK_LBRACK, TK_RBRACK, TK_LBRACE, TK_RBRACE,
    TK_DOT, TK_COMMA, TK_QUESTION, TK_COLON, TK_NOT,
    TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE, TK_AND, TK_OR,
    TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_PERCENT, TK_ASSIGN,
    TK_IN, TK_TRUE, TK_FALSE, TK_NULL
};

struct cel_token {
    enum cel_tok kind;
    int col;            /* 1-based column in characters (UTF-8 code points) */
    size_t off, len;    /* byte span in the expression */
    int64_t i;          /* TK_INT (INT64_MIN when `big`) */
    bool big;           /* TK_INT: the literal is 9223372036854775808, valid only after '-' */
    double d;           /* TK_DOUBLE */
    size_t str;         /* TK_STRING: offset of the decoded text in the program's string buffer */
    size_t slen;        /* TK_STRING: decoded length */
};

/* Tokenize `expr` into `toks` (room for strlen(expr) + 1 tokens), decoding string literals
 * into `strbuf` (room for strlen(expr) + 1 bytes per the whole expression, NUL-terminated
 * each). Returns the token count (the last is TK_EOF) or -1 with err filled. */
int cel_lex(const char *expr, struct cel_token *toks, char *strbuf, struct gs_error *err);

/* 1-based character column of byte offset `off` in `expr`. */
int cel_column(const char *expr, size_t off);

/* Fill err with "CEL: <what> at column <col>" and return GS_EINVAL. */
int cel_fail(struct gs_error *err, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ AST (cel_parse.c) */

/* Static types, as cel-go's checker sees the DRA environment. */
enum cel_type {
    CT_BOOL = 0, CT_INT, CT_DOUBLE, CT_STRING, CT_QUANTITY, CT_SEMVER, CT_DYN,
    CT_DEVICE, CT_ATTRS, CT_ATTR_DOMAIN, CT_CAPS, CT_CAP_DOMAIN, CT_LIST
};

enum cel_kind {
    NK_BOOL = 0, NK_INT, NK_DOUBLE, NK_STRING, NK_QUANTITY, NK_SEMVER,
    NK_DEVICE, NK_DRIVER, NK_ATTRS, NK_CAPS,
    NK_DOMAIN,   /* a = outer map (NK_ATTRS/NK_CAPS), b = key expression */
    NK_LOOKUP,   /* a = domain map, b = key expression */
    NK_HAS,      /* a = map (domain or outer), b = key expression */
    NK_NOT,      /* a */
    NK_AND, NK_OR, /* a, b */
    NK_COND,     /* a ? b : c */
    NK_CMP,      /* op, a, b */
    NK_IN_LIST,  /* a in b (b is NK_LIST) */
    NK_IN_MAP,   /* a in b (b is a map) */
    NK_LIST,     /* items[first .. first+n) */
    NK_CALL      /* op = method, a = receiver, b = argument or -1 */
};

enum cel_cmp { CMP_EQ = 0, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };
enum cel_method {
    M_STARTS_WITH = 0, M_ENDS_WITH, M_CONTAINS, M_COMPARE_TO, M_IS_LESS_THAN,
    M_IS_GREATER_THAN, M_SIGN, M_MAJOR, M_MINOR, M_PATCH
};

struct cel_node {
    uint8_t kind;   /* enum cel_kind */
    uint8_t type;   /* enum cel_type */
    uint8_t op;     /* enum cel_cmp or enum cel_method */
    int col;
    int a, b, c;    /* child node indices, -1 when unused */
    int first, n;   /* NK_LIST: items */
    bool b_val;     /* NK_BOOL */
    int64_t i;      /* NK_INT */
    double d;       /* NK_DOUBLE */
    const char *s;  /* NK_STRING (NUL-terminated, in strbuf) */
    size_t slen;
    int q;          /* NK_QUANTITY: index into quants; NK_SEMVER: index into vers */
};

struct gs_cel_program {
    char *expr;
    struct cel_node *nodes;
    int nnodes;
    int root;
    int *items;               /* list items (node indices) */
    struct gs_quantity *quants;
    struct gs_semver *vers;
    char *strbuf;
};

/* ------------------------------------------------------------------ values (cel_eval.c) */

enum cel_vkind { V_ERR = 0, V_BOOL, V_INT, V_DOUBLE, V_STRING, V_QUANTITY, V_SEMVER, V_DOMAIN, V_OUTER };
enum cel_err { E_NO_SUCH_KEY = 1, E_NO_OVERLOAD, E_NOT_BOOL };

struct cel_val {
    uint8_t k;      /* enum cel_vkind */
    uint8_t err;    /* V_ERR: enum cel_err */
    bool caps;      /* V_DOMAIN / V_OUTER: the capacity map (else attributes) */
    bool b;
    int64_t i;
    double d;
    const char *s;  /* V_STRING text; V_DOMAIN domain; V_ERR key (E_NO_SUCH_KEY) */
    size_t slen;
    const struct gs_quantity *q;
    const struct gs_semver *v;
};

#endif
