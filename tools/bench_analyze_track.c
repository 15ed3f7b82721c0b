/* bench_analyze_track.c - per-frame cost of tracking + event detection, decode excluded:
 * decodes up to 32 frames of VIDEO into memory at full size, then times the tracker
 * over them repeatedly (one core). Usage: bench_analyze_track VIDEO [ITER]
 * SPDX-License-Identifier: MIT */
#include "kr_core.h"
#include "kr_event.h"
#include "kr_media.h"
#include "kr_track.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NF 32

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct { double s, cx, cy; } cam;

/* A plain camera: the field plus margins fills the frame's height. */
static int map_fn(void *ctx, double x, double y, double *px, double *py)
{
    const cam *c = ctx;
    *px = c->cx + x * c->s;
    *py = c->cy - y * c->s;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_analyze_track VIDEO [ITER]\n");
        return 2;
    }
    int iter = argc > 2 ? atoi(argv[2]) : 20;
    kr_media_reader_t *r = NULL;
    kr_media_reader_config mc;
    kr_media_reader_config_default(&mc);
    mc.threads = 1;
    if (kr_media_reader_open2(argv[1], &mc, &r) != KR_OK) {
        fprintf(stderr, "%s\n", kr_media_reader_error(NULL));
        return 1;
    }
    kr_media_info_t info;
    kr_media_reader_info(r, &info);
    uint8_t *buf = malloc((size_t)NF * info.out_w * info.out_h * 3);
    int64_t ts[NF];
    int n = 0;
    kr_frame_t f;
    while (n < NF && kr_media_reader_next(r, &f) == KR_OK) {
        for (int y = 0; y < f.img.h; y++)
            memcpy(buf + ((size_t)n * f.img.h + y) * f.img.w * 3, f.img.px + (size_t)y * f.img.stride,
                   (size_t)f.img.w * 3);
        ts[n++] = f.t_us;
    }
    kr_media_reader_destroy(r);
    if (n == 0) {
        fprintf(stderr, "%s: no frames\n", argv[1]);
        return 1;
    }
    cam c = {info.out_h / (508.0 + 300.0), info.out_w / 2.0, info.out_h / 2.0};
    kr_track_config tc;
    kr_track_config_default(&tc);
    kr_track_t *t = NULL;
    kr_event_t *ev = NULL;
    kr_event_config ec;
    kr_event_config_default(&ec);
    if (kr_track_create(&tc, map_fn, &c, info.out_w, info.out_h, &t) != KR_OK || kr_event_create(&ec, &ev) != KR_OK)
        return 1;
    kr_track_card_init cards[50];
    for (int k = 0; k < 50; k++) {
        cards[k].id = k + 1;
        cards[k].owner = k < 25 ? KR_TRACK_A : KR_TRACK_B;
        cards[k].x_mm = -400 + (k % 13) * 62;
        cards[k].y_mm = (k < 25 ? -1 : 1) * (51.5 + ((k / 13) % 2) * 83);
    }
    kr_track_set_layout(t, cards, 50);
    kr_event_reading(ev, KR_REC_KAMI_START, 1, 1, 0);
    int64_t t0 = kr_clock_us(), tt = 0;
    double c0 = cpu_s();
    long frames = 0;
    for (int it = 0; it < iter; it++, tt += ts[n - 1] + 16667)
        for (int i = 0; i < n; i++) {
            kr_image_t im = {info.out_w, info.out_h, info.out_w * 3, 3, buf + (size_t)i * info.out_w * info.out_h * 3};
            const kr_track_frame *fr;
            const kr_event_obs *o;
            int no;
            kr_track_update(t, &im, tt + ts[i], 0, &fr);
            kr_event_update(ev, fr, &o, &no);
            frames++;
        }
    double s = (kr_clock_us() - t0) / 1e6, cs = cpu_s() - c0;
    printf("frames %dx%d: %ld tracked; wall %.3f s = %.0f frames/s; cpu %.3f s = %.0f frames/s (%.3f ms/frame); "
           "decode excluded, one thread\n",
           info.out_w, info.out_h, frames, s, frames / s, cs, frames / cs, cs * 1e3 / frames);
    kr_track_destroy(t);
    kr_event_destroy(ev);
    free(buf);
    return 0;
}
