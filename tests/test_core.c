/* test_core.c - status strings, error text helpers and complete-or-nothing output files.
 * SPDX-License-Identifier: MIT */
#include "kr_core.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_status_strings_are_distinct(void)
{
    for (int a = KR_OK; a <= KR_ERR_AGAIN; a++)
        for (int b = a + 1; b <= KR_ERR_AGAIN; b++)
            CU_ASSERT_STRING_NOT_EQUAL(kr_status_str((kr_status)a), kr_status_str((kr_status)b));
}

static void test_outfile_appears_only_on_commit(void)
{
    char dir[] = "/tmp/kr_test_XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/out.json", dir);
    kr_outfile_t of;
    CU_ASSERT_EQUAL_FATAL(kr_outfile_open(path, &of), KR_OK);
    fputs("{}\n", of.fp);
    CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0); /* not visible yet */
    CU_ASSERT_EQUAL(kr_outfile_commit(&of), KR_OK);
    CU_ASSERT_EQUAL(access(path, F_OK), 0);
    remove(path);
    rmdir(dir);
}

static void test_outfile_abort_leaves_nothing(void)
{
    char dir[] = "/tmp/kr_test_XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/out.json", dir);
    kr_outfile_t of;
    CU_ASSERT_EQUAL_FATAL(kr_outfile_open(path, &of), KR_OK);
    fputs("partial", of.fp);
    kr_outfile_abort(&of);
    CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
    CU_ASSERT_EQUAL(rmdir(dir), 0); /* empty: the temporary is gone too */
}

static void test_outfile_rejects_unwritable_folder(void)
{
    kr_outfile_t of;
    CU_ASSERT_EQUAL(kr_outfile_open("/nonexistent-dir/x/out.json", &of), KR_ERR_IO);
    CU_ASSERT_PTR_NULL(of.fp);
}

static void test_error_set_formats_folds_and_returns_status(void)
{
    char buf[64];
    memset(buf, 'x', sizeof buf);
    CU_ASSERT_EQUAL(kr_error_set(buf, sizeof buf, KR_ERR_IO, "%s: line %d\nbad\r\nend", "a.json", 7), KR_ERR_IO);
    CU_ASSERT_STRING_EQUAL(buf, "a.json: line 7 bad  end");
    CU_ASSERT_PTR_NULL(strchr(buf, '\n'));
}

static void test_error_set_truncates_to_capacity(void)
{
    char buf[8];
    memset(buf, 'x', sizeof buf);
    CU_ASSERT_EQUAL(kr_error_set(buf, sizeof buf, KR_ERR_FORMAT, "%s", "0123456789"), KR_ERR_FORMAT);
    CU_ASSERT_STRING_EQUAL(buf, "0123456"); /* 7 chars + NUL, never overflows */
    CU_ASSERT_EQUAL(kr_error_set(NULL, 0, KR_ERR_CV, "ignored %d", 1), KR_ERR_CV);
    buf[0] = 'q';
    CU_ASSERT_EQUAL(kr_error_set(buf, 0, KR_OK, "ignored"), KR_OK);
    CU_ASSERT_EQUAL(buf[0], 'q'); /* cap 0: nothing written */
}

/* kr_median: the middle value of an odd count, the mean of the middle two of an even one,
 * whatever the order given; v comes back sorted */
static void test_median_odd_even_any_order(void)
{
    double odd[5] = {9, -1, 4, 4, 2}, even[4] = {10, 1, 7, 3}, one[1] = {5.5};
    CU_ASSERT_DOUBLE_EQUAL(kr_median(odd, 5), 4, 0);
    CU_ASSERT_DOUBLE_EQUAL(kr_median(even, 4), 5, 0);
    CU_ASSERT_DOUBLE_EQUAL(kr_median(one, 1), 5.5, 0);
    for (int i = 1; i < 5; i++)
        CU_ASSERT(odd[i - 1] <= odd[i]);
    CU_ASSERT_DOUBLE_EQUAL(even[0], 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(even[3], 10, 0);
}

static void test_strdup_copies_and_handles_null(void)
{
    char  src[] = "mat 870 mm";
    char *d = kr_strdup(src);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_NOT_EQUAL(d, src);
    CU_ASSERT_STRING_EQUAL(d, src);
    src[0] = 'M'; /* independent copy */
    CU_ASSERT_EQUAL(d[0], 'm');
    free(d);
    CU_ASSERT_PTR_NULL(kr_strdup(NULL));
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("core", NULL, NULL);
    CU_add_test(s, "status_strings_are_distinct", test_status_strings_are_distinct);
    CU_add_test(s, "error_set_formats_folds_and_returns_status", test_error_set_formats_folds_and_returns_status);
    CU_add_test(s, "error_set_truncates_to_capacity", test_error_set_truncates_to_capacity);
    CU_add_test(s, "strdup_copies_and_handles_null", test_strdup_copies_and_handles_null);
    CU_add_test(s, "median_odd_even_any_order", test_median_odd_even_any_order); /* session 43 */
    CU_add_test(s, "outfile_appears_only_on_commit", test_outfile_appears_only_on_commit);
    CU_add_test(s, "outfile_abort_leaves_nothing", test_outfile_abort_leaves_nothing);
    CU_add_test(s, "outfile_rejects_unwritable_folder", test_outfile_rejects_unwritable_folder);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails != 0;
}
