/* test_core.c - status strings and complete-or-nothing output files.
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

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("core", NULL, NULL);
    CU_add_test(s, "status_strings_are_distinct", test_status_strings_are_distinct);
    CU_add_test(s, "outfile_appears_only_on_commit", test_outfile_appears_only_on_commit);
    CU_add_test(s, "outfile_abort_leaves_nothing", test_outfile_abort_leaves_nothing);
    CU_add_test(s, "outfile_rejects_unwritable_folder", test_outfile_rejects_unwritable_folder);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails != 0;
}
