/* gpusim: CEL lexer for the DRA selector subset (see models/dra/cel.h).
 * Token rules follow the CEL language definition (cel-spec doc/langdef.md, "Syntax"):
 * identifiers [_a-zA-Z][_a-zA-Z0-9]*, decimal and 0x ints, a trailing u for uint, doubles with
 * a fraction or exponent, quoted strings with backslash escapes, r"" raw strings, b"" bytes. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/dra/cel_internal.h"

int cel_column(const char *expr, size_t off)
{
    int col = 1;
    for (size_t i = 0; i < off && expr[i]; i++)
        if (((unsigned char)expr[i] & 0xC0) != 0x80)
            col++;
    return col;
}

int cel_fail(struct gs_error *err, int col, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gs_error_set(err, GS_EINVAL, NULL, 1, col, "CEL: %s at column %d", what, col);
}

static bool is_ident_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

/* Decode a quoted string starting at expr[i] (the quote, or the r prefix before it) into
 * out; returns the index after the closing quote, or -1 with err filled. */
static long lex_string(const char *expr, size_t i, bool raw, char *out, size_t *outlen,
                       struct gs_error *err)
{
    size_t start = i;
    char q = expr[i];
    if (expr[i + 1] == q && expr[i + 2] == q)
        return cel_fail(err, cel_column(expr, start), "triple-quoted strings are not supported"), -1;
    i++;
    size_t n = 0;
    for (;;) {
        char c = expr[i];
        if (c == '\0' || c == '\n' || c == '\r')
            return cel_fail(err, cel_column(expr, start), "syntax error: unterminated string"), -1;
        if (c == q)
            break;
        if (c == '\\' && !raw) {
            char e = expr[i + 1];
            char v;
            switch (e) {
            case '\\': v = '\\'; break;
            case '\'': v = '\''; break;
            case '"': v = '"'; break;
            case '`': v = '`'; break;
            case '?': v = '?'; break;
            case 'n': v = '\n'; break;
            case 't': v = '\t'; break;
            case 'r': v = '\r'; break;
            case 'a': v = '\a'; break;
            case 'b': v = '\b'; break;
            case 'f': v = '\f'; break;
            case 'v': v = '\v'; break;
            default: {
                /* the escaped character, whole (itself escaped when it is a control character
                 * or broken UTF-8: gs_error_quote) */
                unsigned char lead = (unsigned char)e;
                size_t k = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
                char qt[32];
                return cel_fail(err, cel_column(expr, i), "unsupported escape sequence '\\%s'",
                                e ? gs_error_quote(expr + i + 1, k, k, qt, sizeof qt) : " "), -1;
            }
            }
            out[n++] = v;
            i += 2;
            continue;
        }
        out[n++] = c;
        i++;
    }
    out[n] = '\0';
    *outlen = n;
    return (long)(i + 1);
}

/* Two-character and one-character operators. */
static int lex_punct(const char *p, enum cel_tok *k)
{
    static const struct { const char *s; enum cel_tok k; } two[] = {
        {"==", TK_EQ}, {"!=", TK_NE}, {"<=", TK_LE}, {">=", TK_GE}, {"&&", TK_AND}, {"||", TK_OR},
    };
    for (size_t j = 0; j < sizeof two / sizeof two[0]; j++)
        if (p[0] == two[j].s[0] && p[1] == two[j].s[1]) {
            *k = two[j].k;
            return 2;
        }
    switch (p[0]) {
    case '(': *k = TK_LPAREN; return 1;
    case ')': *k = TK_RPAREN; return 1;
    case '[': *k = TK_LBRACK; return 1;
    case ']': *k = TK_RBRACK; return 1;
    case '{': *k = TK_LBRACE; return 1;
    case '}': *k = TK_RBRACE; return 1;
    case '.': *k = TK_DOT; return 1;
    case ',': *k = TK_COMMA; return 1;
    case '?': *k = TK_QUESTION; return 1;
    case ':': *k = TK_COLON; return 1;
    case '!': *k = TK_NOT; return 1;
    case '<': *k = TK_LT; return 1;
    case '>': *k = TK_GT; return 1;
    case '+': *k = TK_PLUS; return 1;
    case '-': *k = TK_MINUS; return 1;
    case '*': *k = TK_STAR; return 1;
    case '/': *k = TK_SLASH; return 1;
    case '%': *k = TK_PERCENT; return 1;
    case '=': *k = TK_ASSIGN; return 1;
    default: return 0;
    }
}

/* A number at expr[i]: int (decimal or 0x), uint (trailing u) or double. Returns the index
 * after it, or -1. */
static long lex_number(const char *expr, size_t i, struct cel_token *t, struct gs_error *err)
{
    size_t start = i;
    bool hex = expr[i] == '0' && (expr[i + 1] == 'x' || expr[i + 1] == 'X');
    bool dbl = false;
    if (hex) {
        i += 2;
        while (is_digit(expr[i]) || (expr[i] >= 'a' && expr[i] <= 'f') || (expr[i] >= 'A' && expr[i] <= 'F'))
            i++;
    } else {
        while (is_digit(expr[i]))
            i++;
        if (expr[i] == '.' && is_digit(expr[i + 1])) {
            dbl = true;
            i++;
            while (is_digit(expr[i]))
                i++;
        }
        if (expr[i] == 'e' || expr[i] == 'E') {
            size_t j = i + 1;
            if (expr[j] == '+' || expr[j] == '-')
                j++;
            if (is_digit(expr[j])) {
                dbl = true;
                i = j;
                while (is_digit(expr[i]))
                    i++;
            }
        }
    }
    char buf[64];
    size_t n = i - start;
    if (n >= sizeof buf)
        return cel_fail(err, cel_column(expr, start), "number literal too long"), -1;
    memcpy(buf, expr + start, n);
    buf[n] = '\0';
    if (!dbl && (expr[i] == 'u' || expr[i] == 'U')) {
        t->kind = TK_UINT;
        return (long)(i + 1);
    }
    errno = 0;
    if (dbl) {
        t->kind = TK_DOUBLE;
        t->d = strtod(buf, NULL);
    } else {
        t->kind = TK_INT;
        unsigned long long u = strtoull(buf, NULL, hex ? 16 : 10);
        /* 9223372036854775808 is allowed only as the operand of unary minus. */
        if (errno == ERANGE || u > (unsigned long long)INT64_MAX + 1ULL)
            return cel_fail(err, cel_column(expr, start), "integer literal out of range"), -1;
        t->big = u > (unsigned long long)INT64_MAX;
        t->i = t->big ? INT64_MIN : (int64_t)u;
    }
    return (long)i;
}

int cel_lex(const char *expr, struct cel_token *toks, char *strbuf, struct gs_error *err)
{
    int nt = 0;
    size_t i = 0, sb = 0;
    /* Columns counted incrementally: the column of offset `col_off` is `col_at`. */
    size_t col_off = 0;
    int col_at = 1;
    for (;;) {
        while (expr[i] == ' ' || expr[i] == '\t' || expr[i] == '\n' || expr[i] == '\r' || expr[i] == '\f')
            i++;
        /* Comments run to the end of the line (cel-spec). */
        if (expr[i] == '/' && expr[i + 1] == '/') {
            while (expr[i] && expr[i] != '\n')
                i++;
            continue;
        }
        struct cel_token *t = &toks[nt];
        memset(t, 0, sizeof *t);
        t->off = i;
        for (; col_off < i && expr[col_off]; col_off++)
            if (((unsigned char)expr[col_off] & 0xC0) != 0x80)
                col_at++;
        t->col = col_at;
        char c = expr[i];
        if (c == '\0') {
            t->kind = TK_EOF;
            return nt + 1;
        }
        long next;
        if ((c == 'r' || c == 'R') && (expr[i + 1] == '"' || expr[i + 1] == '\'')) {
            t->kind = TK_STRING;
            t->str = sb;
            next = lex_string(expr, i + 1, true, strbuf + sb, &t->slen, err);
            if (next < 0)
                return -1;
            sb += t->slen + 1;
        } else if ((c == 'b' || c == 'B') && (expr[i + 1] == '"' || expr[i + 1] == '\'')) {
            t->kind = TK_BYTES;
            size_t dummy;
            next = lex_string(expr, i + 1, false, strbuf + sb, &dummy, err);
            if (next < 0)
                return -1;
        } else if (c == '"' || c == '\'') {
            t->kind = TK_STRING;
            t->str = sb;
            next = lex_string(expr, i, false, strbuf + sb, &t->slen, err);
            if (next < 0)
                return -1;
            sb += t->slen + 1;
        } else if (is_digit(c) || (c == '.' && is_digit(expr[i + 1]))) {
            if (c == '.')
                return cel_fail(err, t->col, "syntax error: a number must start with a digit"), -1;
            next = lex_number(expr, i, t, err);
            if (next < 0)
                return -1;
        } else if (is_ident_start(c)) {
            size_t j = i;
            while (is_ident_char(expr[j]))
                j++;
            size_t n = j - i;
            t->kind = TK_IDENT;
            if (n == 2 && !strncmp(expr + i, "in", 2))
                t->kind = TK_IN;
            else if (n == 4 && !strncmp(expr + i, "true", 4))
                t->kind = TK_TRUE;
            else if (n == 5 && !strncmp(expr + i, "false", 5))
                t->kind = TK_FALSE;
            else if (n == 4 && !strncmp(expr + i, "null", 4))
                t->kind = TK_NULL;
            next = (long)j;
        } else {
            enum cel_tok k;
            int n = lex_punct(expr + i, &k);
            if (n == 0) {
                if ((unsigned char)c >= 0x80)
                    return cel_fail(err, t->col, "syntax error: unexpected character"), -1;
                char qt[8]; /* a control character is escaped (gs_error_quote) */
                return cel_fail(err, t->col, "syntax error: unexpected character '%s'",
                                gs_error_quote(expr + i, 1, 1, qt, sizeof qt)), -1;
            }
            t->kind = k;
            next = (long)i + n;
        }
        t->len = (size_t)next - i;
        i = (size_t)next;
        nt++;
    }
}
