/* gpusim base: one argument written as a POSIX shell reads it back (base/shellword.c), for
 * command lines gpusim prints or records: the run table's `command`, sweep's commands, explain's
 * `try:` lines. */
#ifndef GPUSIM_BASE_SHELLWORD_H
#define GPUSIM_BASE_SHELLWORD_H

#include <stdbool.h>
#include <stddef.h>

/* Append `arg` to the NUL-terminated string in buf (size n), after a space when buf is not
 * empty: as is when it is not empty and holds
 * only [A-Za-z0-9-_./:,+@%] (and '=' when eq_plain), else in single quotes with each ' written
 * as '\''. Stops short rather than overflow: buf stays NUL-terminated. */
void gs_shell_word_append(char *buf, size_t n, const char *arg, bool eq_plain);

#endif
