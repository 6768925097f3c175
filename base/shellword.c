/* gpusim base: shell words (base/shellword.h). */
#include "base/shellword.h"

#include <string.h>

void gs_shell_word_append(char *buf, size_t n, const char *arg, bool eq_plain)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,+@%=";
    if (n == 0)
        return;
    size_t k = strnlen(buf, n - 1);
    if (k > 0 && k + 1 < n)
        buf[k++] = ' '; /* after the words before it */
    size_t np = eq_plain ? sizeof plain - 1 : sizeof plain - 2; /* without the final '=' */
    bool quote = !arg[0];
    for (const char *c = arg; *c && !quote; c++)
        quote = !memchr(plain, *c, np);
    if (quote && k + 1 < n)
        buf[k++] = '\'';
    for (const char *c = arg; *c && k + 1 < n; c++) {
        if (quote && *c == '\'') {
            if (k + 5 >= n)
                break;
            memcpy(buf + k, "'\\''", 4);
            k += 4;
        } else {
            buf[k++] = *c;
        }
    }
    if (quote && k + 1 < n)
        buf[k++] = '\'';
    buf[k] = '\0';
}
