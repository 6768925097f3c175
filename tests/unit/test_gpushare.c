/* The fractional GPU share model (gpushare.h). */
#include <criterion/criterion.h>

#include "base/error.h"
#include "models/devices/gpushare.h"

static struct gs_gpushare node(int n, const int *free_milli)
{
    struct gs_gpushare g;
    cr_assert_eq(gs_gpushare_init(&g, n), 0);
    for (int i = 0; i < n; i++)
        g.free_milli[i] = (int16_t)free_milli[i];
    return g;
}

Test(gpushare, init_and_totals)
{
    struct gs_gpushare g;
    cr_assert_eq(gs_gpushare_init(&g, 8), 0);
    cr_expect_eq(gs_gpushare_free_total(&g), 8000);
    cr_expect_eq(gs_gpushare_fully_free(&g), 8);
    cr_expect_eq(gs_gpushare_init(&g, GS_GPUS_MAX + 1), GS_ERANGE);
    cr_expect_eq(g.ngpu, 0);
    cr_expect_eq(gs_gpushare_init(&g, -1), GS_ERANGE);
    cr_expect_eq(gs_gpushare_init(&g, 0), 0);
    struct gs_gpushare_req none = {0, 0}, one = {1, 1000};
    cr_expect(gs_gpushare_fits(&g, &none));
    cr_expect(!gs_gpushare_fits(&g, &one));
}

Test(gpushare, request_validation)
{
    struct gs_gpushare_req ok[] = {{0, 0}, {1, 1}, {1, 999}, {1, 1000}, {8, 1000}, {16, 1000}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_expect_eq(gs_gpushare_check_req(&ok[i]), 0, "case %zu", i);
    struct gs_gpushare_req bad[] = {{0, 500}, {1, 0}, {2, 500}, {1, 1001}, {-1, 0}, {17, 1000}, {1, -5}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(gs_gpushare_check_req(&bad[i]), GS_EINVAL, "case %zu", i);
    cr_expect(gs_gpushare_is_share(&ok[1]));
    cr_expect(!gs_gpushare_is_share(&ok[3]));
    struct gs_gpushare g = node(2, (int[]){1000, 1000});
    cr_expect(!gs_gpushare_fits(&g, &bad[2]));
}

Test(gpushare, share_goes_to_best_fit_lowest_index_on_ties)
{
    struct gs_gpushare g = node(4, (int[]){1000, 400, 300, 400});
    struct gs_gpushare_req r = {1, 350};
    struct gs_gpushare_alloc a;
    cr_assert_eq(gs_gpushare_allocate(&g, &r, -1, &a), 0);
    cr_expect_eq(a.n, 1);
    cr_expect_eq(a.gpu[0], 1, "least free that fits is 400; GPU 1 before GPU 3");
    cr_expect_eq(a.milli, 350);
    cr_expect_eq(g.free_milli[1], 50);
    /* 300 fits GPU 2 exactly: the least free that still fits. */
    r.gpu_milli = 300;
    cr_assert_eq(gs_gpushare_allocate(&g, &r, -1, &a), 0);
    cr_expect_eq(a.gpu[0], 2);
    cr_expect_eq(g.free_milli[2], 0);
    /* Nothing but GPU 0 has 500. */
    r.gpu_milli = 500;
    cr_assert_eq(gs_gpushare_allocate(&g, &r, -1, &a), 0);
    cr_expect_eq(a.gpu[0], 0);
    r.gpu_milli = 600;
    cr_expect_eq(gs_gpushare_allocate(&g, &r, -1, &a), GS_ERANGE);
    cr_expect(!gs_gpushare_fits(&g, &r));
}

Test(gpushare, share_on_a_named_gpu)
{
    struct gs_gpushare g = node(3, (int[]){1000, 400, 1000});
    struct gs_gpushare_req r = {1, 300};
    struct gs_gpushare_alloc a;
    cr_assert_eq(gs_gpushare_allocate(&g, &r, 2, &a), 0);
    cr_expect_eq(a.gpu[0], 2);
    cr_expect_eq(g.free_milli[2], 700);
    r.gpu_milli = 500;
    cr_expect_eq(gs_gpushare_allocate(&g, &r, 1, &a), GS_ERANGE, "GPU 1 has only 400");
    cr_expect_eq(gs_gpushare_allocate(&g, &r, 3, &a), GS_EINVAL, "no GPU 3");
    struct gs_gpushare_req whole = {1, 1000};
    cr_expect_eq(gs_gpushare_allocate(&g, &whole, 0, &a), GS_EINVAL, "whole GPUs are not named");
    cr_expect_eq(g.free_milli[0], 1000);
}

Test(gpushare, whole_gpus_take_fully_free_lowest_index_first)
{
    struct gs_gpushare g = node(8, (int[]){1000, 900, 1000, 0, 1000, 1000, 1000, 1000});
    struct gs_gpushare_req r = {3, 1000};
    struct gs_gpushare_alloc a;
    cr_assert(gs_gpushare_fits(&g, &r));
    cr_assert_eq(gs_gpushare_allocate(&g, &r, -1, &a), 0);
    cr_expect_eq(a.n, 3);
    cr_expect_eq(a.gpu[0], 0);
    cr_expect_eq(a.gpu[1], 2, "GPU 1 is partly used: never taken by a whole-GPU pod");
    cr_expect_eq(a.gpu[2], 4);
    cr_expect_eq(gs_gpushare_fully_free(&g), 3);
    r.num_gpu = 4;
    cr_expect(!gs_gpushare_fits(&g, &r));
    cr_expect_eq(gs_gpushare_allocate(&g, &r, -1, &a), GS_ERANGE);
    cr_expect_eq(gs_gpushare_fully_free(&g), 3, "unchanged on failure");
    /* One whole GPU is not a share: 900 free on GPU 1 does not count. */
    struct gs_gpushare h = node(1, (int[]){900});
    struct gs_gpushare_req one = {1, 1000};
    cr_expect(!gs_gpushare_fits(&h, &one));
}

Test(gpushare, release_gives_back)
{
    struct gs_gpushare g = node(2, (int[]){1000, 1000});
    struct gs_gpushare_req r = {1, 250};
    struct gs_gpushare_alloc a, b;
    cr_assert_eq(gs_gpushare_allocate(&g, &r, -1, &a), 0);
    cr_assert_eq(gs_gpushare_allocate(&g, &r, -1, &b), 0);
    cr_expect_eq(a.gpu[0], 0);
    cr_expect_eq(b.gpu[0], 0, "best fit: the used GPU again");
    cr_expect_eq(g.free_milli[0], 500);
    cr_expect_eq(gs_gpushare_release(&g, &a), 0);
    cr_expect_eq(gs_gpushare_release(&g, &b), 0);
    cr_expect_eq(gs_gpushare_free_total(&g), 2000);
    cr_expect_eq(gs_gpushare_release(&g, &a), GS_EINVAL, "beyond 1000 free");
    cr_expect_eq(gs_gpushare_free_total(&g), 2000);
    struct gs_gpushare_alloc bad = {.n = 1, .milli = 100, .gpu = {5}};
    cr_expect_eq(gs_gpushare_release(&g, &bad), GS_EINVAL);
    cr_expect_eq(gs_gpushare_commit(&g, &bad), GS_EINVAL);
    struct gs_gpushare_req none = {0, 0};
    cr_expect_eq(gs_gpushare_allocate(&g, &none, -1, &a), 0);
    cr_expect_eq(a.n, 0);
}
