/* gpusim base: simulated time. Every time in gpusim is an int64 count of microseconds
 * (gs_time): an instant counts from the start of the run, a duration is a difference. */
#ifndef GPUSIM_BASE_TIME_H
#define GPUSIM_BASE_TIME_H

#include <stdint.h>

typedef int64_t gs_time; /* simulated microseconds since the start of the run */

#define GS_TIME_MAX INT64_MAX
#define GS_US(x) ((gs_time)(x))
#define GS_MS(x) ((gs_time)(x) * 1000)
#define GS_SEC(x) ((gs_time)(x) * 1000000)
#define GS_MIN(x) ((gs_time)(x) * 60000000)

#endif
