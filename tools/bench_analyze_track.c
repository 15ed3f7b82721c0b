/* bench_analyze_track.c - per-frame cost of tracking + event detection, decode excluded:
 * decodes up to 32 frames of VIDEO into memory at full size, then times the tracker
 * over them repeatedly (one core), and the tracker alone (its own CPU time per call); the
 * first pass over them (warm-up, start-up pose fit of the cards) is reported apart.
 * Usage: bench_analyze_track VIDEO [ITER] [--yuv]   (--yuv: kr_track_update_yuv on the
 * decoded 4:2:0 planes instead of BGR frames)
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

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
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
    int yuv = argc > 3 && strcmp(argv[3], "--yuv") == 0;
    if (argc > 4 || (argc > 3 && !yuv) || iter < 1) {
        fprintf(stderr, "usage: bench_analyze_track VIDEO [ITER] [--yuv]\n");
        return 2;
    }
    kr_media_reader_t *r = NULL;
    kr_media_reader_config mc;
    kr_media_reader_config_default(&mc);
    mc.threads = 1;
    mc.yuv = yuv;
    if (kr_media_reader_open2(argv[1], &mc, &r) != KR_OK) {
        fprintf(stderr, "%s\n", kr_media_reader_error(NULL));
        return 1;
    }
    kr_media_info_t info;
    kr_media_reader_info(r, &info);
    uint8_t *buf = malloc((size_t)NF * info.out_w * info.out_h * 3);
    kr_yuv_t yv[NF];
    int64_t ts[NF];
    int n = 0;
    kr_frame_t f;
    const int cw = (info.out_w + 1) / 2, ch = (info.out_h + 1) / 2;
    const size_t fsz = (size_t)info.out_w * info.out_h * 3;
    while (buf && n < NF && kr_media_reader_next(r, &f) == KR_OK) {
        uint8_t *d = buf + (size_t)n * fsz;
        if (yuv) {
            if (!f.yuv.y || f.yuv.w != info.out_w || f.yuv.h != info.out_h) {
                fprintf(stderr, "%s: no 4:2:0 planes at %dx%d\n", argv[1], info.out_w, info.out_h);
                return 1;
            }
            yv[n] = (kr_yuv_t){info.out_w, info.out_h, info.out_w, cw, d, d + (size_t)info.out_w * info.out_h,
                               d + (size_t)info.out_w * info.out_h + (size_t)cw * ch, f.yuv.full_range, f.yuv.bt709};
            for (int y = 0; y < info.out_h; y++)
                memcpy((uint8_t *)yv[n].y + (size_t)y * info.out_w, f.yuv.y + (size_t)y * f.yuv.stride_y,
                       (size_t)info.out_w);
            for (int y = 0; y < ch; y++) {
                memcpy((uint8_t *)yv[n].u + (size_t)y * cw, f.yuv.u + (size_t)y * f.yuv.stride_c, (size_t)cw);
                memcpy((uint8_t *)yv[n].v + (size_t)y * cw, f.yuv.v + (size_t)y * f.yuv.stride_c, (size_t)cw);
            }
        } else
            for (int y = 0; y < f.img.h; y++)
                memcpy(d + (size_t)y * f.img.w * 3, f.img.px + (size_t)y * f.img.stride, (size_t)f.img.w * 3);
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
    double c0 = cpu_s(), ct = 0, first = 0;
    long frames = 0;
    /* pass 0 (warm-up and the start-up pose fit of every card) is timed on its own */
    for (int it = 0; it <= iter; it++, tt += ts[n - 1] + 16667) {
        if (it == 1) {
            first = cpu_s() - c0;
            t0 = kr_clock_us();
            c0 = cpu_s();
            ct = 0;
            frames = 0;
        }
        for (int i = 0; i < n; i++) {
            kr_image_t im = {info.out_w, info.out_h, info.out_w * 3, 3, buf + (size_t)i * fsz};
            const kr_track_frame *fr;
            const kr_event_obs *o;
            int no;
            double c1 = thread_cpu_s();
            kr_status st = yuv ? kr_track_update_yuv(t, &yv[i], tt + ts[i], 0, &fr)
                               : kr_track_update(t, &im, tt + ts[i], 0, &fr);
            ct += thread_cpu_s() - c1;
            if (st != KR_OK) {
                fprintf(stderr, "tracker: %s\n", kr_track_last_error(t));
                return 1;
            }
            kr_event_update(ev, fr, &o, &no);
            frames++;
        }
    }
    double s = (kr_clock_us() - t0) / 1e6, cs = cpu_s() - c0;
    printf("frames %dx%d%s: %ld tracked; wall %.3f s = %.0f frames/s; cpu %.3f s = %.0f frames/s (%.3f ms/frame); "
           "tracker alone %.3f ms/frame; decode excluded, one thread; first pass (start-up fit) %.3f s cpu\n",
           info.out_w, info.out_h, yuv ? " (yuv)" : "", frames, s, frames / s, cs, frames / cs, cs * 1e3 / frames,
           ct * 1e3 / frames, first);
    kr_track_destroy(t);
    kr_event_destroy(ev);
    free(buf);
    return 0;
}
