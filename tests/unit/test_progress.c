/* The progress line of `gpusim run` on a terminal (reports/progress.h). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdint.h>

#include "reports/progress.h"

static char buf[256];

Test(progress, with_a_horizon_percent_rate_and_eta)
{
    /* 12 of 60 simulated minutes in 2 s of wall time: 20%, and 4 times as long again to go */
    int k = gs_progress_format(buf, sizeof buf, 720000000, 3600000000, 1310720, 2.0);
    cr_assert(eq(str, buf, "gpusim: 12m0s of 1h0m0s simulated (20%), 1310720 events, 655k events/s, ETA 8s"));
    cr_assert(eq(int, k, (int)strlen(buf)));
}

Test(progress, eta_rounds_to_seconds_and_grows_to_minutes)
{
    /* 1 s for the first 10 of 1000 simulated seconds: 99 s to go */
    gs_progress_format(buf, sizeof buf, 10000000, 1000000000, 65536, 1.0);
    cr_assert(eq(str, buf, "gpusim: 10s of 16m40s simulated (1%), 65536 events, 65k events/s, ETA 1m39s"));
    /* 1.5 s, and a third done: 3 s to go */
    gs_progress_format(buf, sizeof buf, 1000000, 3000000, 9000, 1.5);
    cr_assert(eq(str, buf, "gpusim: 1s of 3s simulated (33%), 9000 events, 6000 events/s, ETA 3s"));
}

Test(progress, rates_in_plain_k_and_m)
{
    gs_progress_format(buf, sizeof buf, 0, 60000000, 9999, 1.0);
    cr_assert(eq(str, buf, "gpusim: 0s of 1m0s simulated (0%), 9999 events, 9999 events/s"));
    gs_progress_format(buf, sizeof buf, 30000000, 60000000, 25000000, 2.0);
    cr_assert(eq(str, buf, "gpusim: 30s of 1m0s simulated (50%), 25000000 events, 12M events/s, ETA 2s"));
}

Test(progress, percent_is_rounded_down_and_100_only_at_the_horizon)
{
    gs_progress_format(buf, sizeof buf, 3599999999, 3600000000, 100, 1.0);
    cr_assert(eq(str, buf, "gpusim: 59m59.999999s of 1h0m0s simulated (99%), 100 events, 100 events/s, ETA 0s"));
    gs_progress_format(buf, sizeof buf, 3600000000, 3600000000, 100, 1.0);
    cr_assert(eq(str, buf, "gpusim: 1h0m0s of 1h0m0s simulated (100%), 100 events, 100 events/s, ETA 0s"));
}

Test(progress, without_a_horizon_no_percent_and_no_eta)
{
    gs_progress_format(buf, sizeof buf, 90000000, INT64_MAX, 70000, 2.0);
    cr_assert(eq(str, buf, "gpusim: 1m30s simulated, 70000 events, 35k events/s"));
    gs_progress_format(buf, sizeof buf, 90000000, -1, 70000, 0.0);
    cr_assert(eq(str, buf, "gpusim: 1m30s simulated, 70000 events"));
}

Test(progress, a_far_eta_and_a_short_buffer)
{
    /* 1 µs simulated in 10 s of a 200h horizon: beyond 100000h */
    gs_progress_format(buf, sizeof buf, 1, 720000000000, 70000, 10.0);
    cr_assert(eq(str, buf, "gpusim: 1µs of 200h0m0s simulated (0%), 70000 events, 7000 events/s, ETA more than 100000h"));
    char small[16];
    int k = gs_progress_format(small, sizeof small, 720000000, 3600000000, 1310720, 2.0);
    cr_assert(eq(str, small, "gpusim: 12m0s o"));
    cr_assert(eq(int, k, 78)); /* the length it wanted, as snprintf */
}
