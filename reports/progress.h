/* gpusim: the progress line `gpusim run` shows on a terminal (reports/progress.c).
 *
 * Wall-clock time only ever reaches this line, on stderr: nothing in the trace or the summary
 * depends on it, so a run's output stays a function of its scenario and seed.
 */
#ifndef GPUSIM_REPORTS_PROGRESS_H
#define GPUSIM_REPORTS_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* Format the progress of a run into buf (size n, always NUL-terminated when n > 0), without the
 * leading "\r" or any padding:
 *
 *   with a horizon:  "gpusim: 12m0s of 1h0m0s simulated (20%), 1310720 events, 655k events/s, ETA 8s"
 *   without one:     "gpusim: 12m0s simulated, 1310720 events, 655k events/s"
 *
 * now_us, horizon_us: simulated time in µs (horizon_us <= 0 or INT64_MAX: no horizon, so no
 * percentage and no ETA). events: events dispatched so far. wall_s: wall-clock seconds since the
 * run started (> 0; otherwise no rate and no ETA). The percentage is now/horizon rounded down
 * (100% only at the horizon); events/s is events / wall_s, written plainly below 10000, then
 * with k (thousands) or M (millions), rounded down; the ETA assumes simulated time keeps
 * advancing at its average pace so far, wall_s × (horizon − now) / now, rounded to whole
 * seconds and written as a Go duration (absent while now is 0). Returns the length it wanted,
 * as snprintf. */
int gs_progress_format(char *buf, size_t n, int64_t now_us, int64_t horizon_us, uint64_t events, double wall_s);

#endif
