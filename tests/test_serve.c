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

/* The page for LOG_TEXT + RULINGS_TEXT (+ a clip for reading 2, + summary.json's text
 * summary unless NULL), malloc'd. */
static char *make_page(bool with_clip, const char *summary)
{
    kr_serve_review_t *r;
    CU_ASSERT_EQUAL_FATAL(kr_serve_review_create(&r), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_serve_review_load_log_text(r, "log", LOG_TEXT), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_serve_review_load_rulings_text(r, "rulings", RULINGS_TEXT), KR_OK);
    if (summary)
        CU_ASSERT_EQUAL_FATAL(kr_serve_review_load_summary_text(r, "summary.json", summary), KR_OK);
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
    char *p = make_page(true, NULL);
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
    char *p = make_page(true, NULL);
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
    char *p = make_page(false, NULL);
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

/* What analyze found about the footage is said above the rulings needing review, in
 * words, escaped; a clean summary says nothing; a malformed one is refused with its line. */
static void test_page_says_what_the_footage_was(void)
{
    char *p = make_page(false,
        "{\"format\": \"karuta-summary/1\", \"fps\": 60.000, \"interlaced\": true, \"max_frame_gap_us\": 50000,\n"
        " \"calibration\": {\"rms_mm\": 4.2, \"ok\": false, \"readout_us\": 15000, \"readout_from\": \"flicker\"},\n"
        " \"light\": {\"flicker_rms\": 0.0321, \"steadied_frames\": 381},\n"
        " \"complete\": false, \"error\": \"video.mp4: <corrupt> packet at 3.2 s\"}\n");
    const char *want[] = {"The video broke off: video.mp4: &lt;corrupt&gt; packet at 3.2 s.",
                          "The calibration is poor (4.2 mm RMS)",
                          "the longest gap between two frames is 50 ms (3.0 frames)",
                          "Interlaced video",
                          "reads its rows over 15.0 ms (measured from the lamps' flicker)",
                          "The light flickers (up to 3.2 % RMS): the picture was steadied against it on 381 frames"};
    char *sec = strstr(p, "<section id=\"footage\">"), *rv = strstr(p, "<section id=\"review\">");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rv);
    CU_ASSERT_TRUE(sec < rv);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char *at = strstr(p, want[i]);
        CU_ASSERT_PTR_NOT_NULL(at);
        if (at)
            CU_ASSERT_TRUE(at > sec && at < rv);
    }
    CU_ASSERT_PTR_NULL(strstr(p, "<corrupt>"));
    free(p);
    /* steady, whole, well calibrated footage: nothing to say */
    p = make_page(false, "{\"fps\": 60, \"interlaced\": false, \"max_frame_gap_us\": 0, \"calibration\": "
                          "{\"rms_mm\": 0.4, \"ok\": true, \"readout_us\": 0, \"readout_from\": \"none\"}, "
                          "\"light\": {\"flicker_rms\": 0.006, \"steadied_frames\": 0}, \"complete\": true}");
    CU_ASSERT_PTR_NULL(strstr(p, "id=\"footage\""));
    free(p);
    kr_serve_review_t *r;
    CU_ASSERT_EQUAL_FATAL(kr_serve_review_create(&r), KR_OK);
    CU_ASSERT_EQUAL(kr_serve_review_load_summary_text(r, "s.json", "{\"fps\": 60,\n \"light\": {oops}\n}"), KR_ERR_FORMAT);
    CU_ASSERT_STRING_EQUAL(kr_serve_review_error(r), "s.json:2: malformed JSON");
    CU_ASSERT_EQUAL(kr_serve_review_load_summary_text(r, "s.json", "[1, 2]"), KR_ERR_FORMAT);
    CU_ASSERT_EQUAL(kr_serve_review_load_summary(r, "/nonexistent/summary.json"), KR_ERR_IO);
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

/* ---- live server ---------------------------------------------------------- */

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int connect_to(uint16_t port, int rcvbuf)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void send_all(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t k = send(fd, s, n, MSG_NOSIGNAL);
        if (k <= 0)
            return;
        s += k;
        n -= (size_t)k;
    }
}

/* Reads into buf (NUL-terminated) until `until` appears, the peer closes, or
 * timeout_ms passes. Returns bytes held. */
static size_t read_until(int fd, char *buf, size_t cap, size_t have, const char *until, int timeout_ms)
{
    int64_t end = kr_clock_us() + (int64_t)timeout_ms * 1000;
    buf[have] = '\0';
    while ((!until || !strstr(buf, until)) && have + 1 < cap) {
        int64_t left = (end - kr_clock_us()) / 1000;
        if (left <= 0)
            break;
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, (int)left) <= 0)
            break;
        ssize_t k = recv(fd, buf + have, cap - 1 - have, 0);
        if (k <= 0)
            break;
        have += (size_t)k;
        buf[have] = '\0';
    }
    return have;
}

static kr_serve_http_t *start_server(size_t ring)
{
    kr_serve_http_config cfg;
    kr_serve_http_config_default(&cfg);
    cfg.port = 0;
    cfg.ring_messages = ring;
    cfg.keepalive_ms = 200;
    kr_serve_http_t *s = NULL;
    CU_ASSERT_EQUAL(kr_serve_http_create(&cfg, &s), KR_OK);
    if (s)
        CU_ASSERT_NOT_EQUAL(kr_serve_http_port(s), 0);
    return s;
}

static void test_sse_sends_state_then_events(void)
{
    kr_serve_http_t *s = start_server(64);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(kr_serve_http_set_state(s, "{\"counts\":{\"A\":25,\"B\":25}}"), KR_OK);
    int fd = connect_to(kr_serve_http_port(s), 0);
    CU_ASSERT_FATAL(fd >= 0);
    send_all(fd, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
    static char buf[1 << 16];
    size_t      n = read_until(fd, buf, sizeof buf, 0, "\n\n", 3000);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "text/event-stream"));
    n = read_until(fd, buf, sizeof buf, n, "data: {\"counts\":{\"A\":25,\"B\":25}}\n\n", 3000);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "event: state\ndata: {\"counts\":{\"A\":25,\"B\":25}}\n\n"));
    CU_ASSERT_EQUAL(kr_serve_http_publish(s, "ruling", "{\"seq\":1}"), KR_OK);
    CU_ASSERT_EQUAL(kr_serve_http_publish(s, "status", "line1\nline2"), KR_OK);
    n = read_until(fd, buf, sizeof buf, n, "data: line2\n\n", 3000);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "event: ruling\ndata: {\"seq\":1}\n\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "event: status\ndata: line1\ndata: line2\n\n"));
    /* idle: a keepalive comment arrives (keepalive_ms = 200) */
    n = read_until(fd, buf, sizeof buf, n, ": keepalive", 3000);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ": keepalive\n\n"));
    /* the server ends with the client still connected, promptly */
    int64_t t0 = kr_clock_us();
    kr_serve_http_destroy(s);
    CU_ASSERT_TRUE(kr_clock_us() - t0 < 2000000);
    close(fd);
}

typedef struct reader_arg {
    uint16_t port;
    int      last_seq; /* highest "seq" seen */
    int      got;
} reader_arg;

static void *fast_reader(void *p)
{
    reader_arg *a = p;
    int         fd = connect_to(a->port, 0);
    if (fd < 0)
        return NULL;
    send_all(fd, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
    static char buf[1 << 22]; /* 200 messages of 16 kB */
    size_t      n = read_until(fd, buf, sizeof buf, 0, "\"seq\":199}", 10000);
    (void)n;
    for (char *q = buf; (q = strstr(q, ",\"seq\":")); q++) {
        int v = atoi(q + 7);
        a->got++;
        if (v > a->last_seq)
            a->last_seq = v;
    }
    close(fd);
    return NULL;
}

static void test_slow_client_never_stalls_publisher(void)
{
    kr_serve_http_t *s = start_server(64);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    /* a client that connects and never reads, with a tiny receive buffer */
    int slow = connect_to(kr_serve_http_port(s), 1024);
    CU_ASSERT_FATAL(slow >= 0);
    send_all(slow, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
    reader_arg ra = {kr_serve_http_port(s), -1, 0};
    pthread_t  th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, fast_reader, &ra), 0);
    sleep_ms(200); /* both connected */
    char *big = malloc(16384);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    int64_t worst = 0;
    for (int i = 0; i < 200; i++) {
        snprintf(big, 16384, "{\"pad\":\"%0*d\",\"seq\":%d}", 16000, 0, i);
        int64_t t0 = kr_clock_us();
        CU_ASSERT_EQUAL(kr_serve_http_publish(s, "ruling", big), KR_OK);
        int64_t dt = kr_clock_us() - t0;
        if (dt > worst)
            worst = dt;
        sleep_ms(2);
    }
    pthread_join(th, NULL);
    CU_ASSERT_TRUE(worst < 50000); /* publishing never waited for a client */
    CU_ASSERT_EQUAL(ra.last_seq, 199); /* the fast client saw everything */
    CU_ASSERT_EQUAL(ra.got, 200);
    /* the slow client now reads: it is 200 behind a ring of 64 and gets cut off */
    static char buf[1 << 20];
    size_t      n = read_until(slow, buf, sizeof buf, 0, NULL, 3000);
    CU_ASSERT_TRUE(n < 200 * 16000);
    kr_serve_http_stats st;
    kr_serve_http_get_stats(s, &st);
    CU_ASSERT_EQUAL(st.published, 200);
    CU_ASSERT_EQUAL(st.dropped, 1);
    close(slow);
    free(big);
    kr_serve_http_destroy(s);
}

static void test_post_reading_and_snapshot(void)
{
    kr_serve_http_t *s = start_server(16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    char   line[256];
    size_t len = 0;
    CU_ASSERT_EQUAL(kr_serve_http_take_post(s, line, sizeof line, &len), KR_ERR_AGAIN);
    static char buf[1 << 16];
    const char *body = " {\"type\": \"kami_start\", \"seq\": 3, \"card\": 17}\n";
    char        req[512];
    snprintf(req, sizeof req, "POST /reading HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
             strlen(body), body);
    int fd = connect_to(kr_serve_http_port(s), 0);
    send_all(fd, req);
    read_until(fd, buf, sizeof buf, 0, NULL, 3000);
    close(fd);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 202"));
    CU_ASSERT_EQUAL(kr_serve_http_take_post(s, line, sizeof line, &len), KR_OK);
    CU_ASSERT_STRING_EQUAL(line, "{\"type\":\"kami_start\",\"seq\":3,\"card\":17}");
    CU_ASSERT_EQUAL(len, strlen(line));
    CU_ASSERT_EQUAL(kr_serve_http_take_post(s, line, sizeof line, &len), KR_ERR_AGAIN);
    /* not a record: refused, nothing queued */
    fd = connect_to(kr_serve_http_port(s), 0);
    send_all(fd, "POST /reading HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{\"a\":1}");
    read_until(fd, buf, sizeof buf, 0, NULL, 3000);
    close(fd);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 400"));
    CU_ASSERT_EQUAL(kr_serve_http_take_post(s, line, sizeof line, &len), KR_ERR_AGAIN);
    /* snapshot: none yet, then the bytes set */
    fd = connect_to(kr_serve_http_port(s), 0);
    send_all(fd, "GET /snapshot.jpg HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    read_until(fd, buf, sizeof buf, 0, NULL, 3000);
    close(fd);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 503"));
    const uint8_t jpeg[] = {0xff, 0xd8, 'J', 'P', 'G', 0xff, 0xd9};
    CU_ASSERT_EQUAL(kr_serve_http_set_snapshot(s, jpeg, sizeof jpeg), KR_OK);
    fd = connect_to(kr_serve_http_port(s), 0);
    send_all(fd, "GET /snapshot.jpg HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    size_t n = read_until(fd, buf, sizeof buf, 0, NULL, 3000);
    close(fd);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "image/jpeg"));
    CU_ASSERT_TRUE(n >= sizeof jpeg && !memcmp(buf + n - sizeof jpeg, jpeg, sizeof jpeg));
    /* the page itself, and a file outside files_dir is never served */
    fd = connect_to(kr_serve_http_port(s), 0);
    send_all(fd, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    read_until(fd, buf, sizeof buf, 0, NULL, 3000);
    close(fd);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "new EventSource('/events')"));
    fd = connect_to(kr_serve_http_port(s), 0);
    send_all(fd, "GET /files/../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    read_until(fd, buf, sizeof buf, 0, NULL, 3000);
    close(fd);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 404"));
    kr_serve_http_destroy(s);
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
    CU_add_test(s, "page_says_what_the_footage_was", test_page_says_what_the_footage_was);
    CU_add_test(s, "bad_input_names_file_and_line", test_bad_input_names_file_and_line);
    CU_add_test(s, "write_file_is_complete", test_write_file_is_complete);
    CU_add_test(s, "sse_sends_state_then_events", test_sse_sends_state_then_events);
    CU_add_test(s, "slow_client_never_stalls_publisher", test_slow_client_never_stalls_publisher);
    CU_add_test(s, "post_reading_and_snapshot", test_post_reading_and_snapshot);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails != 0;
}
