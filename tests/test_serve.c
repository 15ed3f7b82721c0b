/* test_serve.c - the review page generator (escaping, every ruling present, review
 * first, clip choice, bad input) and the live HTTP/SSE server with client sockets.
 * SPDX-License-Identifier: MIT */
#include "kr_serve.h"

#include <CUnit/Basic.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *LOG_TEXT =
    "{\"type\":\"match\",\"format\":\"karuta-match/1\",\"players\":{\"A\":{\"name\":\"<script>x</script>\"},"
    "\"B\":{\"name\":\"O'Neil & \\\"Ito\\\"\"}}}\n"
    "{\"type\":\"layout\",\"t_us\":0,\"cards\":[{\"card\":7,\"owner\":\"B\"},{\"card\":8,\"owner\":\"A\"},"
    "{\"card\":9,\"owner\":\"A\"}]}\n"
    "\n"
    "{\"type\":\"kami_start\",\"seq\":1,\"card\":7,\"t_us\":1000000}\n"
    "{\"type\":\"touch\",\"id\":\"e1\",\"t_us\":1950000,\"player\":\"A\",\"hand\":\"right\",\"card\":7,\"territory\":\"B\"}\n"
    "{\"type\":\"shimo_start\",\"seq\":1,\"t_us\":4000000}\n"
    "{\"type\":\"kami_start\",\"seq\":2,\"card\":99,\"t_us\":5000000}\n"
    "{\"type\":\"touch\",\"id\":\"e<2>\",\"t_us\":5600000,\"player\":\"B\",\"hand\":\"left\",\"card\":null,\"territory\":\"A\",\"confidence\":0.6}\n"
    "{\"type\":\"kami_start\",\"seq\":3,\"card\":8,\"t_us\":9000000}\n"
    "{\"type\":\"settle\",\"t_us\":9900000}\n";

static const char *RULINGS_TEXT =
    "{\"type\":\"ruling\",\"seq\":1,\"card\":7,\"kimariji\":\"む\",\"location\":\"B\",\"established\":true,"
    "\"take\":{\"player\":\"A\",\"how\":\"touch\",\"t_us\":1950000},\"faults\":[],\"counts\":{\"A\":1,\"B\":1},"
    "\"send\":{\"from\":\"A\",\"count\":1},\"final\":true,\"confidence\":0.97,\"needs_review\":false,\"review\":[],\"evidence\":[\"e1\"]}\n"
    "{\"type\":\"ruling\",\"seq\":2,\"card\":99,\"kimariji\":\"ひとも\",\"location\":\"dead\",\"established\":true,"
    "\"take\":null,\"faults\":[{\"player\":\"B\",\"territories\":[\"A\"],\"t_us\":5600000,\"card\":null}],"
    "\"counts\":{\"A\":1,\"B\":1},\"final\":true,\"confidence\":0.6,\"needs_review\":true,"
    "\"review\":[\"low <confidence> & card:null\"],\"evidence\":[\"e<2>\"]}\n"
    "{\"type\":\"ruling\",\"seq\":3,\"card\":8,\"kimariji\":\"わびぬ\",\"location\":\"A\",\"established\":true,"
    "\"take\":null,\"faults\":[],\"counts\":{\"A\":0,\"B\":1},\"final\":true,\"confidence\":1,"
    "\"needs_review\":false,\"review\":[],\"evidence\":[]}\n"
    "{\"type\":\"match_end\",\"winner\":\"A\",\"counts\":{\"A\":0,\"B\":1},\"t_us\":9900000}\n";

/* The page for LOG_TEXT + RULINGS_TEXT (+ a clip for reading 2), malloc'd. */
static char *make_page(bool with_clip)
{
    kr_serve_review_t *r;
    CU_ASSERT_EQUAL_FATAL(kr_serve_review_create(&r), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_serve_review_load_log_text(r, "log", LOG_TEXT), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_serve_review_load_rulings_text(r, "rulings", RULINGS_TEXT), KR_OK);
    CU_ASSERT_EQUAL(kr_serve_review_set_source(r, "a<b>.mp4"), KR_OK);
    if (with_clip) {
        kr_serve_clip_t c = {2, "clips/seq2 \"x\".mp4", "clips/seq2.png", 59.94, 4100000, 2};
        CU_ASSERT_EQUAL(kr_serve_review_add_clip(r, &c), KR_OK);
    }
    char  *buf = NULL;
    size_t len = 0;
    FILE  *f = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(kr_serve_review_write(r, f), KR_OK);
    fclose(f);
    kr_serve_review_destroy(r);
    return buf;
}

static void test_html_escape(void)
{
    char  *buf = NULL;
    size_t len = 0;
    FILE  *f = open_memstream(&buf, &len);
    kr_serve_html_escape(f, "<a href=\"x\">&'</a>");
    kr_serve_html_escape(f, NULL);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(buf, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
    free(buf);
}

static void test_page_escapes_every_input_text(void)
{
    char *p = make_page(true);
    CU_ASSERT_PTR_NULL(strstr(p, "<script>x</script>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "&lt;script&gt;x&lt;/script&gt;"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "O&#39;Neil &amp; &quot;Ito&quot;"));
    CU_ASSERT_PTR_NULL(strstr(p, "low <confidence>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "low &lt;confidence&gt; &amp; card:null"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "e&lt;2&gt;"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "a&lt;b&gt;.mp4"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "src=\"clips/seq2 &quot;x&quot;.mp4\""));
    /* exactly one script element: ours */
    char *s1 = strstr(p, "<script>");
    CU_ASSERT_PTR_NOT_NULL(s1);
    if (s1)
        CU_ASSERT_PTR_NULL(strstr(s1 + 1, "<script"));
    free(p);
}

static void test_page_has_every_ruling_and_review_first(void)
{
    char *p = make_page(true);
    char  id[32];
    for (int seq = 1; seq <= 3; seq++) {
        snprintf(id, sizeof id, "data-ruling-seq=\"%d\"", seq);
        CU_ASSERT_PTR_NOT_NULL(strstr(p, id));
    }
    CU_ASSERT_PTR_NULL(strstr(p, "data-ruling-seq=\"4\""));
    /* the review list (reading 2 only) comes before the chart and the timeline */
    char *rv = strstr(p, "data-review-seq=\"2\"");
    char *chart = strstr(p, "<svg class=\"chart\"");
    char *tl = strstr(p, "data-ruling-seq=\"1\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rv);
    CU_ASSERT_PTR_NOT_NULL_FATAL(chart);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
    CU_ASSERT_TRUE(rv < chart && chart < tl);
    CU_ASSERT_PTR_NULL(strstr(p, "data-review-seq=\"1\""));
    CU_ASSERT_PTR_NULL(strstr(p, "data-review-seq=\"3\""));
    /* the winner and a clip player with its frame rate, start and slow-down */
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "Winner: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "data-fps=\"59.94\" data-start-us=\"4100000\" data-slow=\"2\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "src=\"clips/seq2.png\""));
    /* nothing from the network */
    CU_ASSERT_PTR_NULL(strstr(p, "http://"));
    CU_ASSERT_PTR_NULL(strstr(p, "https://"));
    free(p);
}

static void test_chart_follows_the_counts(void)
{
    char *p = make_page(false);
    /* one dot per ruling (the layout start is a line point only) */
    int   dots_a = 0;
    for (char *q = p; (q = strstr(q, "class=\"dot dot-A")); q++)
        dots_a++;
    CU_ASSERT_EQUAL(dots_a, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "reading 3: A has 0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "reading 2 needs review"));
    CU_ASSERT_PTR_NULL(strstr(p, "reading 1 needs review"));
    free(p);
}

static void test_clip_wants_take_fault_or_review(void)
{
    kr_serve_review_t *r;
    CU_ASSERT_EQUAL_FATAL(kr_serve_review_create(&r), KR_OK);
    CU_ASSERT_EQUAL(kr_serve_review_load_log_text(r, "log", LOG_TEXT), KR_OK);
    CU_ASSERT_EQUAL(kr_serve_review_load_rulings_text(r, "rulings", RULINGS_TEXT), KR_OK);
    kr_serve_clip_want_t w[8];
    size_t               n = kr_serve_review_clip_wants(r, w, 8);
    CU_ASSERT_EQUAL_FATAL(n, 2); /* reading 3: no take, no fault, no review */
    CU_ASSERT_EQUAL(w[0].seq, 1);
    CU_ASSERT_EQUAL(w[0].at_us, 1950000); /* the take */
    CU_ASSERT_EQUAL(w[1].seq, 2);
    CU_ASSERT_EQUAL(w[1].at_us, 5600000); /* the fault */
    CU_ASSERT_EQUAL(kr_serve_review_clip_wants(r, NULL, 0), 2);
    kr_serve_review_destroy(r);
}

static void test_bad_input_names_file_and_line(void)
{
    kr_serve_review_t *r;
    CU_ASSERT_EQUAL_FATAL(kr_serve_review_create(&r), KR_OK);
    CU_ASSERT_EQUAL(kr_serve_review_load_log_text(r, "m.jsonl", "{\"type\":\"match\"}\n\n{oops\n"), KR_ERR_FORMAT);
    CU_ASSERT_STRING_EQUAL(kr_serve_review_error(r), "m.jsonl:3: not a JSON object");
    CU_ASSERT_EQUAL(kr_serve_review_load_rulings_text(r, "r.jsonl", "{\"type\":\"ruling\"}\n"), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_serve_review_error(r), "r.jsonl:1:"));
    CU_ASSERT_EQUAL(kr_serve_review_load_rulings_text(r, "r.jsonl", "{\"seq\":1}\n"), KR_ERR_FORMAT);
    CU_ASSERT_EQUAL(kr_serve_review_load_log(r, "/nonexistent/events.jsonl"), KR_ERR_IO);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_serve_review_error(r), "/nonexistent/events.jsonl"));
    kr_serve_clip_t bad = {1, "x.mp4", NULL, 0, 0, 1};
    CU_ASSERT_EQUAL(kr_serve_review_add_clip(r, &bad), KR_ERR_INVALID);
    CU_ASSERT_EQUAL(kr_serve_review_write_file(r, "/nonexistent-dir/index.html"), KR_ERR_IO);
    kr_serve_review_destroy(r);
}

static void test_write_file_is_complete(void)
{
    char dir[] = "/tmp/kr_serve_XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/index.html", dir);
    kr_serve_review_t *r;
    CU_ASSERT_EQUAL_FATAL(kr_serve_review_create(&r), KR_OK);
    CU_ASSERT_EQUAL(kr_serve_review_load_rulings_text(r, "rulings", RULINGS_TEXT), KR_OK);
    CU_ASSERT_EQUAL(kr_serve_review_write_file(r, path), KR_OK);
    kr_serve_review_destroy(r);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char   buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    CU_ASSERT_EQUAL(strncmp(buf, "<!DOCTYPE html>", 15), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "</html>\n"));
    remove(path);
    CU_ASSERT_EQUAL(rmdir(dir), 0);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("serve", NULL, NULL);
    CU_add_test(s, "html_escape", test_html_escape);
    CU_add_test(s, "page_escapes_every_input_text", test_page_escapes_every_input_text);
    CU_add_test(s, "page_has_every_ruling_and_review_first", test_page_has_every_ruling_and_review_first);
    CU_add_test(s, "chart_follows_the_counts", test_chart_follows_the_counts);
    CU_add_test(s, "clip_wants_take_fault_or_review", test_clip_wants_take_fault_or_review);
    CU_add_test(s, "bad_input_names_file_and_line", test_bad_input_names_file_and_line);
    CU_add_test(s, "write_file_is_complete", test_write_file_is_complete);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails != 0;
}
