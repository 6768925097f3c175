/* base/shellword.c: arguments as a POSIX shell reads them back. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "base/shellword.h"

Test(shellword, plain_quoted_and_separated)
{
    char buf[128] = "gpusim";
    gs_shell_word_append(buf, sizeof buf, "run", false);
    gs_shell_word_append(buf, sizeof buf, "--set", false);
    gs_shell_word_append(buf, sizeof buf, "a.b=1", false);
    gs_shell_word_append(buf, sizeof buf, "it's", false);
    gs_shell_word_append(buf, sizeof buf, "", false);
    cr_assert(eq(str, buf, "gpusim run --set 'a.b=1' 'it'\\''s' ''"));
    buf[0] = '\0';
    gs_shell_word_append(buf, sizeof buf, "-o", true);
    gs_shell_word_append(buf, sizeof buf, "count=2_seed=1.db", true);
    gs_shell_word_append(buf, sizeof buf, "x y", true);
    cr_assert(eq(str, buf, "-o count=2_seed=1.db 'x y'"));
}

Test(shellword, never_overflows)
{
    char buf[8] = "";
    gs_shell_word_append(buf, sizeof buf, "a'b'c'd'e", false);
    cr_assert(lt(sz, strlen(buf), sizeof buf));
    cr_assert(eq(str, buf, "'a'\\''b"));
}
