/* live_page_host.c - serves the live judge's page for the browser test: a
 * kr_serve_http server on a free port (printed on stdout) that publishes a state,
 * rulings (one needing review, one provisional) and a snapshot, and prints every
 * reading typed into the page. Usage: live_page_host SNAPSHOT.jpg SECONDS
 * SPDX-License-Identifier: MIT */
#include "kr_serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: live_page_host SNAPSHOT.jpg SECONDS\n");
        return 2;
    }
    static uint8_t jpeg[1 << 20];
    FILE          *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    size_t n = fread(jpeg, 1, sizeof jpeg, f);
    fclose(f);
    kr_serve_http_config cfg;
    kr_serve_http_config_default(&cfg);
    cfg.port = 0;
    kr_serve_http_t *s;
    if (kr_serve_http_create(&cfg, &s) != KR_OK)
        return 1;
    kr_serve_http_set_snapshot(s, jpeg, n);
    kr_serve_http_set_state(s, "{\"players\":{\"A\":{\"name\":\"Sato\"},\"B\":{\"name\":\"<i>Ito</i>\"}},"
                               "\"counts\":{\"A\":25,\"B\":25},\"status\":{\"source\":\"playing\",\"fps\":59.9,"
                               "\"frames\":10,\"lag_ms\":3,\"ev_lat_ms\":2.5,\"behind\":false},\"rulings\":[]}");
    printf("%u\n", (unsigned)kr_serve_http_port(s));
    fflush(stdout);
    double  secs = atof(argv[2]);
    int64_t end = kr_clock_us() + (int64_t)(secs * 1e6);
    int     step = 0; /* tenths of a second since the page first came */
    char    buf[8192], msg[512];
    while (kr_clock_us() < end) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
        kr_serve_http_stats st;
        kr_serve_http_get_stats(s, &st);
        if (st.clients >= 2) /* the page and its event stream */
            step++;
        if (step == 8) {
            long long now = (long long)(time(NULL)) * 1000;
            snprintf(msg, sizeof msg,
                     "{\"type\":\"ruling\",\"seq\":1,\"card\":17,\"kimariji\":\"ちは\",\"location\":\"A\",\"established\":true,"
                     "\"take\":{\"player\":\"A\",\"how\":\"touch\",\"t_us\":1830000},\"faults\":[],\"counts\":{\"A\":24,\"B\":25},"
                     "\"final\":true,\"confidence\":0.95,\"needs_review\":false,\"review\":[],\"settle_wall_ms\":%lld}", now);
            kr_serve_http_publish(s, "ruling", msg);
        }
        if (step == 10)
            kr_serve_http_publish(s, "ruling",
                                  "{\"type\":\"ruling\",\"seq\":2,\"card\":64,\"kimariji\":\"よのなかは\",\"location\":\"B\","
                                  "\"established\":true,\"take\":{\"player\":\"B\",\"how\":\"touch\",\"t_us\":9000000,\"margin_us\":3000},"
                                  "\"faults\":[{\"player\":\"A\",\"territories\":[\"B\"]}],\"counts\":{\"A\":24,\"B\":23},"
                                  "\"final\":false,\"confidence\":0.8,\"needs_review\":true,\"review\":[\"near-simultaneous <touches>\"]}");
        size_t len;
        while (kr_serve_http_take_post(s, buf, sizeof buf, &len) == KR_OK) {
            printf("POST %s\n", buf);
            fflush(stdout);
        }
    }
    kr_serve_http_destroy(s);
    return 0;
}
