/* gpusim command line: the --seeds argument that experiment fgd and sweep share (cli/cli.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "cli/cli.h"

int gs_cli_parse_seeds(const char *s, uint64_t *seeds, int max, int *n)
{
    *n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        if (*p < '0' || *p > '9')
            return -1;
        unsigned long long a = strtoull(p, &end, 10), b = a;
        if (errno || a > INT64_MAX)
            return -1;
        if (*end == '-') {
            p = end + 1;
            if (*p < '0' || *p > '9')
                return -1;
            b = strtoull(p, &end, 10);
            if (errno || b < a || b > INT64_MAX)
                return -1;
        }
        for (unsigned long long x = a; x <= b; x++) {
            if (*n >= max)
                return -1;
            for (int i = 0; i < *n; i++)
                if (seeds[i] == x)
                    return -1;
            seeds[(*n)++] = x;
        }
        if (*end == ',' && end[1])
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return *n > 0 ? 0 : -1;
}
