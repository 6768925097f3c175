/* gpusim: the CEL parser's shared state, for cel_parse.c (grammar) and cel_call.c (function
 * calls and macros). Not a public API. */
#ifndef GPUSIM_CEL_PARSER_H
#define GPUSIM_CEL_PARSER_H

#include "models/dra/cel_internal.h"

struct parser {
    const char *expr;
    const struct cel_token *t;
    int pos;
    struct gs_cel_program *p;
    int nitems;
    int nquants, nvers;
    int depth;
    struct gs_error *err;
    int rc;                 /* first error (GS_EINVAL) */
};

/* Token access. */
const struct cel_token *cp_peek(struct parser *ps);
const struct cel_token *cp_advance(struct parser *ps);
/* Record the first error ("CEL: ... at column N") and return -1. */
int cp_fail(struct parser *ps, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Consume a token of kind k or fail with "expected <what>". 0 or -1. */
int cp_expect(struct parser *ps, enum cel_tok k, const char *what);
/* A new node; returns its index. */
int cp_node(struct parser *ps, int kind, int type, int col);
struct cel_node *cp_N(struct parser *ps, int i);
/* cel-go's name of a static type. */
const char *cp_type_name(int t);
/* Expr (the full grammar); node index or -1. */
int cp_parse_expr(struct parser *ps);

/* cel_call.c: after "name(" was consumed. Node index or -1. */
int cp_method_call(struct parser *ps, int recv, const struct cel_token *name);
int cp_literal_call(struct parser *ps, const struct cel_token *name, bool quantity);
int cp_has_macro(struct parser *ps, const struct cel_token *name);

#endif
