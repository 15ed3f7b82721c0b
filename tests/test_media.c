/* test_media.c - kr_media reader/writer round trips: counts, sizes, presentation
 * times (constant and variable rate), seeking, damaged files and output hygiene.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_calib.h"
#include "kr_cv.h"
#include "kr_media.h"
#include "kr_media_internal.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define W 320
#define H 240
static char dir[64];
static uint8_t px[W * H * 3];

/* Frame i: dark background with a white 24x24 square whose x position encodes i. */
static int square_x(int i) { return 8 + (i * 3) % (W - 40); }

static void draw_frame(int i)
{
    memset(px, 40, sizeof px);
    /* fresh noise in the top third, so every frame costs about as many bytes
     * (a file cut in half then still holds many whole frames) */
    static unsigned seed = 12345;
    for (size_t k = 0; k < (size_t)W * 80 * 3; k++) {
        seed = seed * 1103515245u + 12345u;
        px[k] = (uint8_t)((seed >> 16) % 120);
    }
    int x0 = square_x(i), y0 = 100;
    for (int y = y0; y < y0 + 24; y++)
        memset(px + (size_t)y * W * 3 + (size_t)x0 * 3, 250, 24 * 3);
}

/* Which frame index does this decoded image show? Finds the square's left edge. */
static int frame_shown(const kr_image_t *img)
{
    int y = (112 * img->h) / H;
    for (int x = 0; x < img->w; x++) {
        const uint8_t *p = img->px + (size_t)y * img->stride + (size_t)x * img->channels;
        if (p[0] > 150)
            return x * W / img->w;
    }
    return -1;
}

static kr_status write_clip(const char *path, int n, const int64_t *times)
{
    kr_media_writer_t *w = NULL;
    kr_status st = kr_media_writer_create(path, W, H, 30, 1, 18, &w);
    if (st != KR_OK)
        return st;
    kr_image_t img = {W, H, W * 3, 3, px};
    for (int i = 0; i < n && st == KR_OK; i++) {
        draw_frame(i);
        st = kr_media_writer_write(w, &img, times ? times[i] : (int64_t)i * 1000000 / 30);
    }
    if (st == KR_OK)
        st = kr_media_writer_close(w);
    kr_media_writer_destroy(w);
    return st;
}

static void path_in_dir(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", dir, name); }

static int dir_entries(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void test_roundtrip_counts_sizes_times(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "cfr.mp4");
    CU_ASSERT_EQUAL_FATAL(write_clip(p, 45, NULL), KR_OK);
    kr_media_reader_t *r = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_reader_open(p, &r), KR_OK);
    kr_media_info_t info;
    CU_ASSERT_EQUAL(kr_media_reader_info(r, &info), KR_OK);
    CU_ASSERT_EQUAL(info.w, W);
    CU_ASSERT_EQUAL(info.h, H);
    CU_ASSERT(info.fps > 29.9 && info.fps < 30.1);
    CU_ASSERT_EQUAL(info.frames_est, 45);
    CU_ASSERT(llabs(info.duration_us - 1500000) <= 1000);
    kr_frame_t f;
    int n = 0, wrong_time = 0, wrong_pic = 0;
    kr_status st;
    while ((st = kr_media_reader_next(r, &f)) == KR_OK) {
        CU_ASSERT_EQUAL(f.img.w, W);
        CU_ASSERT_EQUAL(f.img.h, H);
        CU_ASSERT_EQUAL(f.img.channels, 3);
        CU_ASSERT_EQUAL(f.index, n);
        CU_ASSERT_EQUAL(f.gap_us, 0);
        if (llabs(f.t_us - (int64_t)n * 1000000 / 30) > 1)
            wrong_time++;
        if (abs(frame_shown(&f.img) - square_x(n)) > 1)
            wrong_pic++;
        n++;
    }
    CU_ASSERT_EQUAL(st, KR_ERR_EOF);
    CU_ASSERT_EQUAL(n, 45);
    CU_ASSERT_EQUAL(wrong_time, 0);
    CU_ASSERT_EQUAL(wrong_pic, 0);
    kr_media_reader_destroy(r);
    remove(p);
}

/* kr_frame_t.key marks the intra-coded frames: the writer asks x264 for one at least every
 * 2 s (60 frames at 30 fps; it puts them 59 apart) and the moving square gives it no scene
 * cut, so the first frame and two more, 55 to 60 frames apart, of 130; the same frames
 * decoding inline and in the reader's own thread. */
static void test_keyframes_marked(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "keys.mp4");
    CU_ASSERT_EQUAL_FATAL(write_clip(p, 130, NULL), KR_OK);
    int at[2][8];
    for (int ahead = 0; ahead < 2; ahead++) {
        kr_media_reader_config cfg;
        kr_media_reader_config_default(&cfg);
        cfg.decode_ahead = ahead ? 4 : 0;
        kr_media_reader_t *r = NULL;
        CU_ASSERT_EQUAL_FATAL(kr_media_reader_open2(p, &cfg, &r), KR_OK);
        kr_frame_t f;
        int n = 0, keys = 0;
        while (kr_media_reader_next(r, &f) == KR_OK) {
            if (f.key && keys < 8)
                at[ahead][keys++] = n;
            n++;
        }
        CU_ASSERT_EQUAL(n, 130);
        CU_ASSERT_EQUAL_FATAL(keys, 3);
        CU_ASSERT_EQUAL(at[ahead][0], 0);
        for (int k = 1; k < 3; k++)
            CU_ASSERT(at[ahead][k] - at[ahead][k - 1] >= 55 && at[ahead][k] - at[ahead][k - 1] <= 60);
        kr_media_reader_destroy(r);
    }
    for (int k = 0; k < 3; k++)
        CU_ASSERT_EQUAL(at[0][k], at[1][k]);
    remove(p);
}

static void test_variable_rate_times_survive(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "vfr.mp4");
    int64_t t[40];
    int64_t now = 0;
    for (int i = 0; i < 40; i++) {
        t[i] = now;
        /* 30 fps, then 120 fps (slow-motion ramp), then 60 fps with a 100 ms hole */
        now += i < 10 ? 33333 : i < 22 ? 8333 : i == 30 ? 100000 : 16667;
    }
    CU_ASSERT_EQUAL_FATAL(write_clip(p, 40, t), KR_OK);
    kr_media_reader_t *r = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_reader_open(p, &r), KR_OK);
    kr_frame_t f;
    int n = 0, wrong = 0, gaps = 0, gap_at = -1;
    while (kr_media_reader_next(r, &f) == KR_OK) {
        if (n < 40 && llabs(f.t_us - t[n]) > 1)
            wrong++;
        if (f.gap_us > 0 && n != 23) {
            CU_ASSERT_EQUAL(n, 31);
            CU_ASSERT(llabs(f.gap_us - (100000 - 16667)) < 100);
        }
        if (f.gap_us > 0) {
            gaps++;
            gap_at = n;
        }
        n++;
    }
    CU_ASSERT_EQUAL(n, 40);
    CU_ASSERT_EQUAL(wrong, 0);
    /* judged by the local rate: the 100 ms hole is one gap; speeding up is none. The
     * 120 -> 60 fps step looks like every other frame dropped at its first frame (23), a
     * gap there; the equal intervals after it are the new rate (before: a gap on each
     * until the median caught up, frames 23..27). */
    CU_ASSERT_EQUAL(gaps, 2);
    CU_ASSERT_EQUAL(gap_at, 31);
    kr_media_reader_destroy(r);
    remove(p);
}

static void test_seek_lands_on_first_frame_at_or_after(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "seek.mp4");
    CU_ASSERT_EQUAL_FATAL(write_clip(p, 90, NULL), KR_OK); /* keyframes every 2 s */
    kr_media_reader_t *r = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_reader_open(p, &r), KR_OK);
    const int64_t targets[] = {2500000, 1000000, 2000000, 1990000, 0, 33334, 2900000, 2930000};
    for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++) {
        int want = (int)((targets[k] * 30 + 999999) / 1000000); /* first i with i/30 s >= t */
        kr_frame_t f;
        CU_ASSERT_EQUAL_FATAL(kr_media_reader_seek(r, targets[k]), KR_OK);
        CU_ASSERT_EQUAL_FATAL(kr_media_reader_next(r, &f), KR_OK);
        CU_ASSERT(f.t_us >= targets[k]);
        CU_ASSERT(llabs(f.t_us - (int64_t)want * 1000000 / 30) <= 1);
        CU_ASSERT_EQUAL(f.index, want);
        CU_ASSERT(abs(frame_shown(&f.img) - square_x(want)) <= 1);
        CU_ASSERT_EQUAL(kr_media_reader_next(r, &f), KR_OK); /* and decoding goes on */
        CU_ASSERT(abs(frame_shown(&f.img) - square_x(want + 1)) <= 1);
    }
    kr_frame_t f;
    CU_ASSERT_EQUAL(kr_media_reader_seek(r, 2966666), KR_OK); /* the last frame */
    CU_ASSERT_EQUAL(kr_media_reader_next(r, &f), KR_OK);
    CU_ASSERT_EQUAL(f.index, 89);
    CU_ASSERT_EQUAL(kr_media_reader_next(r, &f), KR_ERR_EOF);
    CU_ASSERT_EQUAL(kr_media_reader_seek(r, 10000000), KR_OK);
    CU_ASSERT_EQUAL(kr_media_reader_next(r, &f), KR_ERR_EOF);
    kr_media_reader_destroy(r);
    remove(p);
}

static void test_gray_and_downscaled_output(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "gray.mp4");
    CU_ASSERT_EQUAL_FATAL(write_clip(p, 10, NULL), KR_OK);
    const int sizes[][2] = {{0, 0}, {160, 0}, {0, 60}};
    for (int g = 0; g < 2; g++)
        for (int k = 0; k < 3; k++) {
            kr_media_reader_config cfg;
            kr_media_reader_config_default(&cfg);
            cfg.gray = g;
            cfg.out_w = sizes[k][0];
            cfg.out_h = sizes[k][1];
            cfg.fast = k == 2; /* no deblocking: same frames, same content */
            kr_media_reader_t *r = NULL;
            CU_ASSERT_EQUAL_FATAL(kr_media_reader_open2(p, &cfg, &r), KR_OK);
            int ew = k == 0 ? W : k == 1 ? 160 : 80, eh = k == 0 ? H : k == 1 ? 120 : 60;
            kr_frame_t f;
            int n = 0;
            while (kr_media_reader_next(r, &f) == KR_OK) {
                CU_ASSERT_EQUAL(f.img.w, ew);
                CU_ASSERT_EQUAL(f.img.h, eh);
                CU_ASSERT_EQUAL(f.img.channels, g ? 1 : 3);
                CU_ASSERT(f.img.stride >= ew * f.img.channels);
                CU_ASSERT(abs(frame_shown(&f.img) - square_x(n)) <= (W / ew) + 1);
                n++;
            }
            CU_ASSERT_EQUAL(n, 10);
            kr_media_reader_destroy(r);
        }
    remove(p);
}

/* The yuv option: the decoder's planes (zero copy at the source size, scaled in YUV
 * otherwise), an empty img, and kr_media_reader_bgr giving byte for byte what the plain
 * BGR reader gives for the same frame; readers without it leave yuv.y NULL. */
static void test_yuv_frames_equal_bgr_frames(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "yuv.mp4");
    CU_ASSERT_EQUAL_FATAL(write_clip(p, 12, NULL), KR_OK);
    const int sizes[][2] = {{0, 0}, {160, 0}};
    for (int k = 0; k < 2; k++) {
        kr_media_reader_config cb, cy;
        kr_media_reader_config_default(&cb);
        cb.out_w = sizes[k][0];
        cb.out_h = sizes[k][1];
        cy = cb;
        cy.yuv = 1;
        kr_media_reader_t *rb = NULL, *ry = NULL;
        CU_ASSERT_EQUAL_FATAL(kr_media_reader_open2(p, &cb, &rb), KR_OK);
        CU_ASSERT_EQUAL_FATAL(kr_media_reader_open2(p, &cy, &ry), KR_OK);
        int ew = k ? 160 : W, eh = k ? 120 : H;
        kr_frame_t fb, fy;
        kr_image_t bgr;
        CU_ASSERT_EQUAL(kr_media_reader_bgr(ry, &bgr), KR_ERR_INVALID); /* no frame yet */
        int n = 0, differ = 0, wrong_luma = 0;
        for (;;) {
            memset(&fb, 0xff, sizeof fb); /* callers leave frames uninitialised */
            memset(&fy, 0xff, sizeof fy);
            kr_status sb = kr_media_reader_next(rb, &fb), sy = kr_media_reader_next(ry, &fy);
            CU_ASSERT_EQUAL(sb, sy);
            if (sb != KR_OK || sy != KR_OK)
                break;
            CU_ASSERT_PTR_NULL(fb.yuv.y);
            CU_ASSERT_PTR_NOT_NULL_FATAL(fy.yuv.y);
            CU_ASSERT_PTR_NULL(fy.img.px);
            CU_ASSERT_EQUAL(fy.img.w, ew);
            CU_ASSERT_EQUAL(fy.img.h, eh);
            CU_ASSERT_EQUAL(fy.yuv.w, ew);
            CU_ASSERT_EQUAL(fy.yuv.h, eh);
            CU_ASSERT(fy.yuv.stride_y >= ew && fy.yuv.stride_c >= (ew + 1) / 2);
            CU_ASSERT_EQUAL(fy.t_us, fb.t_us);
            CU_ASSERT_EQUAL(fy.gap_us, fb.gap_us);
            /* the white square shows in the luma plane where the BGR frame has it */
            int x = frame_shown(&fb.img) * ew / W + 2, y = 112 * eh / H;
            if (fy.yuv.y[(size_t)y * fy.yuv.stride_y + x] < 150)
                wrong_luma++;
            CU_ASSERT_EQUAL_FATAL(kr_media_reader_bgr(ry, &bgr), KR_OK);
            CU_ASSERT_EQUAL_FATAL(bgr.w, fb.img.w);
            CU_ASSERT_EQUAL_FATAL(bgr.h, fb.img.h);
            CU_ASSERT_EQUAL_FATAL(bgr.channels, 3);
            for (int row = 0; row < bgr.h; row++)
                if (memcmp(bgr.px + (size_t)row * bgr.stride, fb.img.px + (size_t)row * fb.img.stride,
                           (size_t)bgr.w * 3))
                    differ++;
            kr_image_t again;
            CU_ASSERT_EQUAL(kr_media_reader_bgr(ry, &again), KR_OK); /* once per frame: same pixels */
            CU_ASSERT_PTR_EQUAL(again.px, bgr.px);
            /* the plain reader's bgr() is its img */
            CU_ASSERT_EQUAL(kr_media_reader_bgr(rb, &again), KR_OK);
            CU_ASSERT_PTR_EQUAL(again.px, fb.img.px);
            n++;
        }
        CU_ASSERT_EQUAL(n, 12);
        CU_ASSERT_EQUAL(differ, 0);
        CU_ASSERT_EQUAL(wrong_luma, 0);
        CU_ASSERT_EQUAL(kr_media_reader_seek(ry, 100000), KR_OK);
        CU_ASSERT_EQUAL(kr_media_reader_bgr(ry, &bgr), KR_ERR_INVALID); /* after a seek: no frame */
        kr_media_reader_destroy(rb);
        kr_media_reader_destroy(ry);
    }
    /* yuv and gray at once: refused at open */
    kr_media_reader_config bad;
    kr_media_reader_config_default(&bad);
    bad.yuv = 1;
    bad.gray = 1;
    kr_media_reader_t *r = NULL;
    CU_ASSERT_EQUAL(kr_media_reader_open2(p, &bad, &r), KR_ERR_INVALID);
    CU_ASSERT_PTR_NULL(r);
    remove(p);
}

/* Reads path with cfg inline and with decode_ahead (a ring of 3: it fills and wraps; the
 * decoder's own threads as cfg says for both, as they change where damage is found),
 * optionally seeking both to seek_us after the 10th frame; counts frames whose time,
 * index, gap or picture differ, and checks the end (status, message, damage) is the same.
 * Returns the frames read. */
static int same_both_ways(const char *path, const kr_media_reader_config *cfg, int64_t seek_us, int *differ)
{
    kr_media_reader_config ca = *cfg;
    ca.decode_ahead = 3;
    kr_media_reader_t *ri = NULL, *ra = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_reader_open2(path, cfg, &ri), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_media_reader_open2(path, &ca, &ra), KR_OK);
    kr_status si, sa;
    int n = 0;
    kr_frame_t fi, fa;
    for (;;) {
        if (n == 10 && seek_us >= 0) {
            CU_ASSERT_EQUAL(kr_media_reader_seek(ri, seek_us), KR_OK);
            CU_ASSERT_EQUAL(kr_media_reader_seek(ra, seek_us), KR_OK);
        }
        si = kr_media_reader_next(ri, &fi);
        sa = kr_media_reader_next(ra, &fa);
        if (si != KR_OK || sa != KR_OK)
            break;
        kr_image_t bi, ba;
        CU_ASSERT_EQUAL_FATAL(kr_media_reader_bgr(ri, &bi), KR_OK);
        CU_ASSERT_EQUAL_FATAL(kr_media_reader_bgr(ra, &ba), KR_OK);
        if (fi.t_us != fa.t_us || fi.index != fa.index || fi.gap_us != fa.gap_us ||
            frame_shown(&bi) != frame_shown(&ba) || memcmp(bi.px, ba.px, (size_t)bi.stride * (size_t)(bi.h - 1)))
            (*differ)++;
        n++;
    }
    CU_ASSERT_EQUAL(si, sa);
    CU_ASSERT_EQUAL(kr_media_reader_next(ra, &fa), sa); /* the end stays the end */
    CU_ASSERT_STRING_EQUAL(kr_media_reader_error(ri), kr_media_reader_error(ra));
    CU_ASSERT_EQUAL(kr_media_reader_damage(ri), kr_media_reader_damage(ra));
    kr_media_reader_destroy(ri);
    kr_media_reader_destroy(ra);
    return n;
}

/* decode_ahead (decoding in the reader's own thread) gives exactly what decoding inside
 * next() gives: frames, times, seeks, a truncated file's end and message, damage skipped
 * with keep_going; destroying it mid-file leaves nothing running. */
static void test_decode_ahead_same_as_inline(void)
{
    char p[128], q[128];
    path_in_dir(p, sizeof p, "ahead.mp4");
    path_in_dir(q, sizeof q, "ahead_bad.mp4");
    CU_ASSERT_EQUAL_FATAL(write_clip(p, 60, NULL), KR_OK);
    kr_media_reader_config cfg;
    kr_media_reader_config_default(&cfg);
    cfg.threads = 2;
    int differ = 0;
    CU_ASSERT_EQUAL(same_both_ways(p, &cfg, -1, &differ), 60);
    cfg.yuv = 1;
    cfg.out_w = 160;
    CU_ASSERT_EQUAL(same_both_ways(p, &cfg, 1500000, &differ), 10 + 15); /* on from frame 45 */
    CU_ASSERT_EQUAL(same_both_ways(p, &cfg, 100000, &differ), 10 + 57); /* back to frame 3 */
    CU_ASSERT_EQUAL(differ, 0);
    /* truncated: the same frames, then the same error */
    FILE *in = fopen(p, "rb"), *out = fopen(q, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    fseek(in, 0, SEEK_SET);
    for (long i = 0; i < size / 2; i++)
        fputc(fgetc(in), out);
    fclose(in);
    fclose(out);
    kr_media_reader_config_default(&cfg);
    cfg.threads = 2;
    int n = same_both_ways(q, &cfg, -1, &differ);
    CU_ASSERT(n > 0 && n < 60);
    /* garbage in the middle, kept going past: the same frames, gaps and damage count */
    FILE *f = fopen(p, "r+b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fseek(f, size / 2, SEEK_SET);
    unsigned seed = 99;
    for (int i = 0; i < 3000; i++) {
        seed = seed * 1103515245u + 12345u;
        fputc((int)(seed >> 16) & 255, f);
    }
    fclose(f);
    cfg.keep_going = 1;
    n = same_both_ways(p, &cfg, -1, &differ);
    CU_ASSERT(n > 10 && n < 60);
    CU_ASSERT_EQUAL(differ, 0);
    /* destroyed while the thread decodes ahead */
    cfg.decode_ahead = 2;
    kr_media_reader_t *r = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_reader_open2(p, &cfg, &r), KR_OK);
    kr_frame_t fr;
    CU_ASSERT_EQUAL(kr_media_reader_next(r, &fr), KR_OK);
    kr_media_reader_destroy(r);
    cfg.decode_ahead = 65;
    CU_ASSERT_EQUAL(kr_media_reader_open2(p, &cfg, &r), KR_ERR_INVALID);
    remove(p);
    remove(q);
}

/* decode_ahead with frames to be resized (yuv): the decode thread scales every frame into
 * pictures of the ring's own, allocated once (no allocation in the frame loop), so the
 * planes handed out are always one of ring_cap (decode_ahead + 1) buffers. */
static void test_decode_ahead_scales_in_place(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "ahead_place.mp4");
    CU_ASSERT_EQUAL_FATAL(write_clip(p, 60, NULL), KR_OK);
    kr_media_reader_config cfg;
    kr_media_reader_config_default(&cfg);
    cfg.yuv = 1;
    cfg.out_w = 160;
    cfg.decode_ahead = 3;
    kr_media_reader_t *r = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_reader_open2(p, &cfg, &r), KR_OK);
    const uint8_t *seen_y[64];
    int n_seen = 0, n = 0;
    kr_frame_t f;
    while (kr_media_reader_next(r, &f) == KR_OK) {
        n++;
        CU_ASSERT_PTR_NOT_NULL_FATAL(f.yuv.y);
        CU_ASSERT_EQUAL(f.yuv.w, 160);
        int k = 0;
        while (k < n_seen && seen_y[k] != f.yuv.y)
            k++;
        if (k == n_seen && n_seen < 64)
            seen_y[n_seen++] = f.yuv.y;
        if (n % 7 == 0) { /* BGR now and then: made from those planes, same size */
            kr_image_t bgr;
            CU_ASSERT_EQUAL(kr_media_reader_bgr(r, &bgr), KR_OK);
            CU_ASSERT_EQUAL(bgr.w, 160);
        }
    }
    CU_ASSERT_EQUAL(n, 60);
    CU_ASSERT(n_seen >= 1 && n_seen <= 4);
    kr_media_reader_destroy(r);
    remove(p);
}

static void test_truncated_file_reports_where(void)
{
    char p[128], q[128];
    path_in_dir(p, sizeof p, "full.mp4");
    path_in_dir(q, sizeof q, "half.mp4");
    CU_ASSERT_EQUAL_FATAL(write_clip(p, 60, NULL), KR_OK);
    FILE *in = fopen(p, "rb"), *out = fopen(q, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    fseek(in, 0, SEEK_SET);
    for (long i = 0; i < size / 2; i++)
        fputc(fgetc(in), out);
    fclose(in);
    fclose(out);
    kr_media_reader_t *r = NULL;
    kr_status st = kr_media_reader_open(q, &r);
    if (st == KR_OK) {
        kr_frame_t f;
        int n = 0;
        while ((st = kr_media_reader_next(r, &f)) == KR_OK)
            n++;
        CU_ASSERT(st == KR_ERR_FORMAT || st == KR_ERR_CODEC);
        CU_ASSERT(n > 0 && n < 60);
        CU_ASSERT_PTR_NOT_NULL(strstr(kr_media_reader_error(r), "t="));
        CU_ASSERT_PTR_NOT_NULL(strstr(kr_media_reader_error(r), q));
        kr_media_reader_destroy(r);
    } else {
        CU_FAIL("a file cut in half with the index in front should open");
    }
    remove(p);
    remove(q);
}

static void test_corrupt_middle_stops_or_keeps_going(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "corrupt.mp4");
    CU_ASSERT_EQUAL_FATAL(write_clip(p, 60, NULL), KR_OK);
    FILE *f = fopen(p, "r+b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    unsigned seed = 99;
    for (int i = 0; i < 3000; i++) { /* a burst of garbage in the middle of the frames */
        seed = seed * 1103515245u + 12345u;
        fputc((int)(seed >> 16) & 255, f);
    }
    fclose(f);
    /* default: stops at the damage, saying where */
    kr_media_reader_t *r = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_reader_open(p, &r), KR_OK);
    kr_frame_t fr;
    kr_status st;
    int n = 0;
    while ((st = kr_media_reader_next(r, &fr)) == KR_OK)
        n++;
    CU_ASSERT(st == KR_ERR_CODEC || st == KR_ERR_FORMAT);
    CU_ASSERT(n > 10 && n < 60);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_media_reader_error(r), "t="));
    kr_media_reader_destroy(r);
    /* keep_going: reads on past it; what was lost shows as a gap and is counted */
    kr_media_reader_config cfg;
    kr_media_reader_config_default(&cfg);
    cfg.keep_going = 1;
    CU_ASSERT_EQUAL_FATAL(kr_media_reader_open2(p, &cfg, &r), KR_OK);
    int m = 0, gaps = 0;
    int64_t last = 0;
    while ((st = kr_media_reader_next(r, &fr)) == KR_OK) {
        gaps += fr.gap_us > 0;
        last = fr.t_us;
        m++;
    }
    CU_ASSERT_EQUAL(st, KR_ERR_EOF);
    CU_ASSERT(m > n);
    CU_ASSERT(last >= 50 * 1000000 / 30); /* reached the end */
    CU_ASSERT(kr_media_reader_damage(r) > 0);
    CU_ASSERT(m < 60 && gaps > 0); /* the skipped frames left holes */
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_media_reader_error(r), "t="));
    kr_media_reader_destroy(r);
    remove(p);
}

static void test_garbage_and_missing_files_fail_cleanly(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "garbage.mp4");
    FILE *f = fopen(p, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    srand(7);
    for (int i = 0; i < 50000; i++)
        fputc(rand() & 255, f);
    fclose(f);
    kr_media_reader_t *r = (kr_media_reader_t *)&r;
    kr_status st = kr_media_reader_open(p, &r);
    CU_ASSERT(st == KR_ERR_FORMAT || st == KR_ERR_CODEC);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_media_reader_error(NULL), p));
    CU_ASSERT_PTR_NULL(strchr(kr_media_reader_error(NULL), '\n'));
    remove(p);
    path_in_dir(p, sizeof p, "missing.mp4");
    CU_ASSERT_EQUAL(kr_media_reader_open(p, &r), KR_ERR_IO);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_media_reader_error(NULL), p));
    kr_media_reader_destroy(NULL);
}

static void test_writer_destroy_without_close_leaves_nothing(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "partial.mp4");
    int before = dir_entries();
    kr_media_writer_t *w = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_writer_create(p, W, H, 30, 1, 23, &w), KR_OK);
    kr_image_t img = {W, H, W * 3, 3, px};
    for (int i = 0; i < 5; i++) {
        draw_frame(i);
        CU_ASSERT_EQUAL(kr_media_writer_write(w, &img, i * 33333), KR_OK);
    }
    CU_ASSERT_EQUAL(dir_entries(), before + 1); /* the temporary exists... */
    CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);    /* ...but not the final file */
    kr_media_writer_destroy(w);
    CU_ASSERT_EQUAL(dir_entries(), before);
    kr_media_writer_destroy(NULL);
}

static void test_writer_takes_grey_frames(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "grey.mp4");
    static uint8_t g[W * H];
    kr_media_writer_t *w = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_writer_create(p, W, H, 30, 1, 18, &w), KR_OK);
    kr_image_t img = {W, H, W, 1, g};
    for (int i = 0; i < 5; i++) {
        memset(g, 40 * i + 20, sizeof g);
        CU_ASSERT_EQUAL(kr_media_writer_write(w, &img, i * 33333), KR_OK);
    }
    CU_ASSERT_EQUAL_FATAL(kr_media_writer_close(w), KR_OK);
    kr_media_writer_destroy(w);
    kr_media_reader_t *r = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_reader_open(p, &r), KR_OK);
    kr_frame_t f;
    int n = 0;
    while (kr_media_reader_next(r, &f) == KR_OK) {
        const uint8_t *px0 = f.img.px + (size_t)(H / 2) * f.img.stride + (W / 2) * 3;
        CU_ASSERT(abs((int)px0[0] - (40 * n + 20)) <= 3 && abs((int)px0[2] - (40 * n + 20)) <= 3);
        n++;
    }
    CU_ASSERT_EQUAL(n, 5);
    kr_media_reader_destroy(r);
    remove(p);
}

/* Writes 90 frames with the writer's B-frames set to bframes; returns how many packets of
 * the file come before one shown earlier (coded out of presentation order: B-frames), or
 * -1 when the file cannot be written or read. */
static int reordered_packets(const char *path, int bframes)
{
    kr_media_writer_config cfg;
    kr_media_writer_config_default(&cfg);
    cfg.bframes = bframes;
    kr_media_writer_t *w = NULL;
    if (kr_media_writer_create2(path, W, H, 30, 1, &cfg, &w) != KR_OK)
        return -1;
    kr_image_t img = {W, H, W * 3, 3, px};
    kr_status st = KR_OK;
    for (int i = 0; i < 90 && st == KR_OK; i++) {
        draw_frame(i);
        st = kr_media_writer_write(w, &img, (int64_t)i * 1000000 / 30);
    }
    if (st == KR_OK)
        st = kr_media_writer_close(w);
    kr_media_writer_destroy(w);
    AVFormatContext *fc = NULL;
    if (st != KR_OK || avformat_open_input(&fc, path, NULL, NULL) < 0)
        return -1;
    AVPacket *pkt = av_packet_alloc();
    int reordered = 0, n = 0;
    int64_t last = INT64_MIN;
    while (pkt && av_read_frame(fc, pkt) >= 0) {
        if (pkt->pts < last)
            reordered++;
        if (pkt->pts > last)
            last = pkt->pts;
        n++;
        av_packet_unref(pkt);
    }
    av_packet_free(&pkt);
    avformat_close_input(&fc);
    remove(path);
    return n == 90 ? reordered : -1;
}

static void test_writer_bframes(void)
{
    char p[128];
    path_in_dir(p, sizeof p, "bframes.mp4");
    CU_ASSERT(reordered_packets(p, -1) > 0); /* the preset's B-frames */
    CU_ASSERT(reordered_packets(p, 2) > 0);
    CU_ASSERT_EQUAL(reordered_packets(p, 0), 0); /* as phones record: coded as shown */
    kr_media_writer_config cfg;
    kr_media_writer_config_default(&cfg);
    CU_ASSERT_EQUAL(cfg.bframes, -1);
    cfg.bframes = 17;
    kr_media_writer_t *w = (kr_media_writer_t *)&w;
    CU_ASSERT_EQUAL(kr_media_writer_create2(p, W, H, 30, 1, &cfg, &w), KR_ERR_INVALID);
    CU_ASSERT_PTR_NULL(w);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_media_writer_error(NULL), "17 B-frames"));
    CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
}

static void test_writer_rejects_bad_input(void)
{
    kr_media_writer_t *w = (kr_media_writer_t *)&w;
    CU_ASSERT_EQUAL(kr_media_writer_create("/nonexistent-dir/sub/clip.mp4", W, H, 30, 1, 23, &w), KR_ERR_IO);
    CU_ASSERT_PTR_NULL(w);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_media_writer_error(NULL), "/nonexistent-dir/sub/clip.mp4"));
    char p[128];
    path_in_dir(p, sizeof p, "odd.mp4");
    CU_ASSERT_EQUAL(kr_media_writer_create(p, 321, H, 30, 1, 23, &w), KR_ERR_INVALID);
    CU_ASSERT_EQUAL(kr_media_writer_create(p, W, H, 0, 1, 23, &w), KR_ERR_INVALID);
    /* times must increase; wrong sizes are refused */
    CU_ASSERT_EQUAL_FATAL(kr_media_writer_create(p, W, H, 30, 1, 23, &w), KR_OK);
    kr_image_t img = {W, H, W * 3, 3, px}, small = {W / 2, H, W * 3, 3, px};
    CU_ASSERT_EQUAL(kr_media_writer_write(w, &img, 1000), KR_OK);
    CU_ASSERT_EQUAL(kr_media_writer_write(w, &img, 1000), KR_ERR_INVALID);
    CU_ASSERT_EQUAL(kr_media_writer_write(w, &small, 50000), KR_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_media_writer_error(w), p));
    kr_media_writer_destroy(w);
    CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
}


/* ---- kr_cv draw (overlays) and resize ------------------------------------------- */
static void test_draw_shapes_text_and_blending(void)
{
    enum { DW = 200, DH = 120 };
    static uint8_t buf[DW * DH * 3];
    memset(buf, 0, sizeof buf);
    kr_image_t img = {DW, DH, DW * 3, 3, buf};
    const uint8_t white[3] = {255, 255, 255}, red[3] = {0, 0, 255};
    /* opaque polygon: inside takes the colour, outside stays black */
    double tri[6] = {20, 20, 80, 20, 20, 80};
    CU_ASSERT_EQUAL(kr_cv_draw_polygon_fill(&img, tri, 3, red, 1.0), KR_OK);
    const uint8_t *in = buf + (30 * DW + 30) * 3, *out = buf + (70 * DW + 70) * 3;
    CU_ASSERT(in[2] == 255 && in[0] == 0);
    CU_ASSERT(out[2] == 0);
    /* half-transparent rectangle over black: about half the colour */
    CU_ASSERT_EQUAL(kr_cv_draw_rect_fill(&img, 100, 10, 50, 30, white, 0.5), KR_OK);
    const uint8_t *half = buf + (20 * DW + 120) * 3;
    CU_ASSERT(abs((int)half[1] - 128) <= 2);
    CU_ASSERT_EQUAL(buf[(20 * DW + 99) * 3 + 1], 0); /* just left of it: untouched */
    /* text: ink inside the measured box, none far outside it */
    int tw = 0, th = 0;
    CU_ASSERT_EQUAL(kr_cv_text_size("A 91.702 s", 16, 1, &tw, &th), KR_OK);
    CU_ASSERT(tw > 40 && tw < 200 && th >= 14 && th < 30);
    memset(buf, 0, sizeof buf);
    CU_ASSERT_EQUAL(kr_cv_draw_text(&img, "A 91.702 s", 10, 60, 16, white, 1, NULL, 0), KR_OK);
    int ink_in = 0, ink_out = 0;
    for (int y = 0; y < DH; y++)
        for (int x = 0; x < DW; x++) {
            int lit = buf[(y * DW + x) * 3] > 60;
            int inside = x >= 8 && x <= 12 + tw && y >= 58 && y <= 62 + th;
            ink_in += lit && inside;
            ink_out += lit && !inside;
        }
    CU_ASSERT(ink_in > 50);
    CU_ASSERT_EQUAL(ink_out, 0);
    /* lines and circles clip at the border instead of failing */
    CU_ASSERT_EQUAL(kr_cv_draw_line(&img, -50, -50, 500, 300, white, 2), KR_OK);
    CU_ASSERT_EQUAL(kr_cv_draw_circle(&img, 190, 110, 30, red, 0), KR_OK);
    CU_ASSERT_EQUAL(buf[(115 * DW + 195) * 3 + 2], 255);
    /* grey images take the colour's luma */
    static uint8_t g[64 * 64];
    memset(g, 0, sizeof g);
    kr_image_t gi = {64, 64, 64, 1, g};
    CU_ASSERT_EQUAL(kr_cv_draw_rect_fill(&gi, 0, 0, 64, 64, red, 1.0), KR_OK);
    CU_ASSERT(abs((int)g[100] - 76) <= 1); /* 0.299 * 255 */
    /* bad arguments are refused, not drawn */
    CU_ASSERT_EQUAL(kr_cv_draw_polygon_fill(&img, tri, 2, red, 1.0), KR_ERR_INVALID);
    CU_ASSERT_EQUAL(kr_cv_draw_rect_fill(&img, 0, 0, 5, 5, red, 1.5), KR_ERR_INVALID);
    CU_ASSERT_EQUAL(kr_cv_draw_line(&img, 0, 0, 5, 5, red, 0), KR_ERR_INVALID);
}

static void test_resize_into_subview_touches_only_it(void)
{
    static uint8_t src_px[40 * 40 * 3], dst_px[100 * 100 * 3];
    memset(src_px, 200, sizeof src_px);
    memset(dst_px, 0, sizeof dst_px);
    kr_image_t src = {40, 40, 40 * 3, 3, src_px};
    kr_image_t cell = {20, 20, 100 * 3, 3, dst_px + (10 * 100 + 30) * 3}; /* at (30,10) */
    CU_ASSERT_EQUAL(kr_cv_resize(&src, &cell), KR_OK);
    int inside_ok = 1, outside_ok = 1;
    for (int y = 0; y < 100; y++)
        for (int x = 0; x < 100; x++) {
            int v = dst_px[(y * 100 + x) * 3];
            int in = x >= 30 && x < 50 && y >= 10 && y < 30;
            if (in && v != 200)
                inside_ok = 0;
            if (!in && v != 0)
                outside_ok = 0;
        }
    CU_ASSERT(inside_ok);
    CU_ASSERT(outside_ok);
}

/* ---- karuta-ref clip (kr_cmd_clip, run in process) ---------------------------- */
static int run_clip(const char *a0, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;
    va_start(ap, a0);
    for (const char *a = a0; a && argc < 31; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    return kr_cmd_clip(argc, argv);
}

/* Reads a clip back: frame count, first/last time, and which source frame the first shows. */
static int read_clip(const char *p, int *n, int64_t *first_t, int64_t *last_t, int *first_shown,
                     int64_t *duration_us)
{
    kr_media_reader_t *r = NULL;
    if (kr_media_reader_open(p, &r) != KR_OK)
        return 0;
    kr_media_info_t info;
    kr_media_reader_info(r, &info);
    *duration_us = info.duration_us;
    kr_frame_t f;
    *n = 0;
    while (kr_media_reader_next(r, &f) == KR_OK) {
        if (*n == 0) {
            *first_t = f.t_us;
            *first_shown = frame_shown(&f.img);
        }
        *last_t = f.t_us;
        (*n)++;
    }
    kr_media_reader_destroy(r);
    return 1;
}

static void test_clip_window_frames_and_sheet(void)
{
    char src[128], out[128], png[128];
    path_in_dir(src, sizeof src, "match.mp4");
    path_in_dir(out, sizeof out, "clip.mp4");
    path_in_dir(png, sizeof png, "clip.png");
    CU_ASSERT_EQUAL_FATAL(write_clip(src, 90, NULL), KR_OK); /* 3 s at 30 fps */
    CU_ASSERT_EQUAL_FATAL(run_clip("clip", src, "--at", "1.5", "--before", "0.5", "--after", "1.0", "-o", out,
                                   (char *)NULL), 0);
    int n = 0, shown = -1;
    int64_t t0 = -1, t1 = -1, dur = 0;
    CU_ASSERT_FATAL(read_clip(out, &n, &t0, &t1, &shown, &dur));
    /* [1.0, 2.5) s: source frames 30 .. 74 */
    CU_ASSERT_EQUAL(n, 45);
    CU_ASSERT_EQUAL(t0, 0);
    CU_ASSERT(llabs(t1 - 44 * 1000000 / 30) <= 1);
    CU_ASSERT(llabs(dur - 1500000) <= 1000);
    CU_ASSERT(abs(shown - square_x(30)) <= 1);
    kr_image_t sheet;
    uint8_t *px_sheet = NULL;
    CU_ASSERT_EQUAL(kr_cv_read_image(png, &sheet, &px_sheet), KR_OK);
    /* 4 x 2 cells of the source size (320 x 240, 4 px apart, 30 px label strips), all filled */
    CU_ASSERT_EQUAL(sheet.w, 4 * 320 + 5 * 4);
    CU_ASSERT_EQUAL(sheet.h, 2 * (240 + 30) + 3 * 4);
    int filled = 0;
    for (int k = 0; k < 8; k++) {
        int x = 4 + (k % 4) * 324 + 160, y = 4 + (k / 4) * 274 + 120;
        const uint8_t *p = px_sheet + (size_t)y * sheet.stride + (size_t)x * 3;
        filled += p[0] != 32 || p[1] != 32 || p[2] != 32; /* 32: the empty background */
    }
    CU_ASSERT_EQUAL(filled, 8);
    free(px_sheet);
    remove(out);
    remove(png);

    /* slowed down 4 times: same frames, 4 times the duration */
    CU_ASSERT_EQUAL_FATAL(run_clip("clip", src, "--at", "1.5", "--before", "0.5", "--after", "1.0", "--slow", "4",
                                   "-o", out, (char *)NULL), 0);
    CU_ASSERT_FATAL(read_clip(out, &n, &t0, &t1, &shown, &dur));
    CU_ASSERT_EQUAL(n, 45);
    CU_ASSERT(llabs(t1 - 4 * 44 * 1000000 / 30) <= 4);
    CU_ASSERT(llabs(dur - 6000000) <= 4000);
    remove(out);
    remove(png);
    remove(src);
}

static void test_clip_marks_contacts(void)
{
    char src[128], out[128], png[128], ev[128];
    path_in_dir(src, sizeof src, "m2.mp4");
    path_in_dir(out, sizeof out, "c2.mp4");
    path_in_dir(png, sizeof png, "c2.png");
    path_in_dir(ev, sizeof ev, "events.jsonl");
    CU_ASSERT_EQUAL_FATAL(write_clip(src, 60, NULL), KR_OK);
    FILE *f = fopen(ev, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"type\":\"match\",\"format\":\"karuta-match/1\"}\n"
          "{\"type\":\"kami_start\",\"seq\":1,\"card\":17,\"t_us\":100000}\n"
          "{\"type\":\"touch\",\"id\":\"e1\",\"t_us\":1010000,\"player\":\"B\",\"hand\":\"right\",\"card\":17,"
          "\"territory\":\"A\"}\n", f);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(run_clip("clip", src, "--at", "1.0", "--before", "0.5", "--after", "0.5", "--events", ev,
                                   "-o", out, (char *)NULL), 0);
    /* the first frame at or after the touch (t = 1.0333 s, clip frame 16) has a B-coloured
     * (orange) border, the frame before it has not */
    kr_media_reader_t *r = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_reader_open(out, &r), KR_OK);
    kr_frame_t fr;
    int k = 0, orange_before = -1, orange_at = -1;
    while (kr_media_reader_next(r, &fr) == KR_OK) {
        const uint8_t *p = fr.img.px + (size_t)(fr.img.h / 2) * fr.img.stride + 1 * 3;
        int orange = p[2] > 180 && p[0] < 120;
        if (k == 15)
            orange_before = orange;
        if (k == 16)
            orange_at = orange;
        k++;
    }
    kr_media_reader_destroy(r);
    CU_ASSERT_EQUAL(orange_before, 0);
    CU_ASSERT_EQUAL(orange_at, 1);
    remove(out);
    remove(png);

    /* a broken events file names its line and leaves nothing */
    f = fopen(ev, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"type\":\"touch\",\"t_us\":1}\n{\"type\":\"touch\"\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(run_clip("clip", src, "--at", "1.0", "--events", ev, "-o", out, (char *)NULL), 1);
    CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
    remove(ev);
    remove(src);
}

/* Mean absolute difference between the middle frames of two clips. */
static double clip_diff(const char *a, const char *b)
{
    kr_media_reader_t *ra = NULL, *rb = NULL;
    double diff = -1;
    if (kr_media_reader_open(a, &ra) == KR_OK && kr_media_reader_open(b, &rb) == KR_OK &&
        kr_media_reader_seek(ra, 500000) == KR_OK && kr_media_reader_seek(rb, 500000) == KR_OK) {
        kr_frame_t fa, fb;
        if (kr_media_reader_next(ra, &fa) == KR_OK && kr_media_reader_next(rb, &fb) == KR_OK) {
            double sum = 0;
            for (int y = 0; y < fa.img.h; y++)
                for (int x = 0; x < fa.img.w * 3; x++)
                    sum += abs((int)fa.img.px[y * fa.img.stride + x] - (int)fb.img.px[y * fb.img.stride + x]);
            diff = sum / (fa.img.w * fa.img.h * 3.0);
        }
    }
    kr_media_reader_destroy(ra);
    kr_media_reader_destroy(rb);
    return diff;
}

static void test_clip_calibration_layer(void)
{
    char src[128], out[128], out2[128], png[128], png2[128], cal[128], cal2[128];
    path_in_dir(src, sizeof src, "m4.mp4");
    path_in_dir(out, sizeof out, "plain.mp4");
    path_in_dir(png, sizeof png, "plain.png");
    path_in_dir(out2, sizeof out2, "lines.mp4");
    path_in_dir(png2, sizeof png2, "lines.png");
    path_in_dir(cal, sizeof cal, "calib.json");
    path_in_dir(cal2, sizeof cal2, "calib640.json");
    CU_ASSERT_EQUAL_FATAL(write_clip(src, 45, NULL), KR_OK);
    /* a camera looking straight down: 0.3 px per mat mm, field centre at the image centre */
    const double hom[9] = {0.3, 0, W / 2.0, 0, 0.3, H / 2.0, 0, 0, 1};
    kr_calib_t *c = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_create_from_model(W, H, 500, 500, W / 2.0, H / 2.0, NULL, hom, &c), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_calib_save(c, cal), KR_OK);
    kr_calib_destroy(c);
    CU_ASSERT_EQUAL_FATAL(kr_calib_create_from_model(640, 480, 500, 500, 320, 240, NULL, hom, &c), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_calib_save(c, cal2), KR_OK);
    kr_calib_destroy(c);

    CU_ASSERT_EQUAL_FATAL(run_clip("clip", src, "--at", "0.7", "-o", out, (char *)NULL), 0);
    CU_ASSERT_EQUAL_FATAL(run_clip("clip", src, "--at", "0.7", "--calib", cal, "-o", out2, (char *)NULL), 0);
    /* the layer drew something (field lines) on the frames */
    CU_ASSERT(clip_diff(out, out2) > 0.5);
    /* with the layout, a contact is marked on its card: card 17 lies at the field centre
     * (image centre); A's touch at 0.7 s tints it blue on the frame that first shows it */
    char ev[128];
    path_in_dir(ev, sizeof ev, "ev4.jsonl");
    FILE *f = fopen(ev, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"type\":\"layout\",\"t_us\":0,\"cards\":[{\"card\":17,\"owner\":\"A\",\"x_mm\":0,\"y_mm\":0}]}\n"
          "{\"type\":\"touch\",\"t_us\":700000,\"player\":\"A\",\"hand\":\"right\",\"card\":17,"
          "\"territory\":\"A\"}\n", f);
    fclose(f);
    char out3[128], png3[128];
    path_in_dir(out3, sizeof out3, "marked.mp4");
    path_in_dir(png3, sizeof png3, "marked.png");
    CU_ASSERT_EQUAL_FATAL(run_clip("clip", src, "--at", "0.7", "--calib", cal, "--events", ev, "-o", out3,
                                   (char *)NULL), 0);
    /* blue minus red over the card (152..167 x 110..129 px), marked clip minus unmarked */
    double tint[2][2] = {{0, 0}, {0, 0}}; /* [clip][frame 20 / 21] */
    for (int which = 0; which < 2; which++) {
        kr_media_reader_t *r = NULL;
        CU_ASSERT_EQUAL_FATAL(kr_media_reader_open(which ? out3 : out2, &r), KR_OK);
        kr_frame_t fr;
        for (int k = 0; k <= 21 && kr_media_reader_next(r, &fr) == KR_OK; k++) {
            if (k < 20)
                continue;
            double sum = 0;
            for (int y = 110; y < 130; y++)
                for (int x = 152; x < 168; x++) {
                    const uint8_t *p = fr.img.px + (size_t)y * fr.img.stride + (size_t)x * 3;
                    sum += (int)p[0] - (int)p[2];
                }
            tint[which][k - 20] = sum / (20 * 16);
        }
        kr_media_reader_destroy(r);
    }
    CU_ASSERT(tint[1][1] - tint[0][1] > 30); /* the frame that first shows the touch */
    CU_ASSERT(tint[1][0] - tint[0][0] < 5);  /* the frame before it: no mark */
    remove(out3);
    remove(png3);
    remove(ev);
    /* a calibration for another image size is refused */
    remove(out2);
    remove(png2);
    CU_ASSERT_EQUAL(run_clip("clip", src, "--at", "0.7", "--calib", cal2, "-o", out2, (char *)NULL), 1);
    CU_ASSERT_NOT_EQUAL(access(out2, F_OK), 0);
    remove(out);
    remove(png);
    remove(cal);
    remove(cal2);
    remove(src);
}

static void test_clip_bad_input_leaves_nothing(void)
{
    char src[128], out[128];
    path_in_dir(src, sizeof src, "m3.mp4");
    path_in_dir(out, sizeof out, "c3.mp4");
    CU_ASSERT_EQUAL_FATAL(write_clip(src, 30, NULL), KR_OK); /* 1 s */
    int before = dir_entries();
    CU_ASSERT_EQUAL(run_clip("clip", src, "--at", "5", "-o", out, (char *)NULL), 1);     /* after the end */
    CU_ASSERT_EQUAL(run_clip("clip", src, "--at", "-1", "-o", out, (char *)NULL), 1);    /* before the start */
    CU_ASSERT_EQUAL(run_clip("clip", src, "--at", "0.5", "--before", "0", "--after", "0", "-o", out,
                             (char *)NULL), 1);                                           /* empty window */
    CU_ASSERT_EQUAL(run_clip("clip", src, "--at", "0.5", "--before", "-1", "-o", out, (char *)NULL), 1);
    CU_ASSERT_EQUAL(run_clip("clip", src, "--at", "0.5", "-o", "/nonexistent-dir/c.mp4", (char *)NULL), 1);
    CU_ASSERT_EQUAL(run_clip("clip", src, "--at", "abc", "-o", out, (char *)NULL), 2);   /* usage */
    CU_ASSERT_EQUAL(run_clip("clip", src, "-o", out, (char *)NULL), 2);                  /* no --at */
    CU_ASSERT_EQUAL(run_clip("clip", src, "--at", "0.5", "--slow", "0", "-o", out, (char *)NULL), 2);
    CU_ASSERT_EQUAL(dir_entries(), before); /* no output, no temporary */
    remove(src);

    /* a source cut short: the clip holds what could be read of the window */
    char full[128], png[128];
    path_in_dir(full, sizeof full, "m5.mp4");
    path_in_dir(png, sizeof png, "c3.png");
    CU_ASSERT_EQUAL_FATAL(write_clip(full, 60, NULL), KR_OK);
    FILE *in = fopen(full, "rb"), *cut = fopen(src, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cut);
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    fseek(in, 0, SEEK_SET);
    for (long i = 0; i < size * 3 / 4; i++)
        fputc(fgetc(in), cut);
    fclose(in);
    fclose(cut);
    remove(full);
    CU_ASSERT_EQUAL(run_clip("clip", src, "--at", "1.0", "--before", "0.5", "--after", "1.0", "-o", out,
                             (char *)NULL), 0);
    int n = 0, shown = -1;
    int64_t t0 = -1, t1 = -1, dur = 0;
    CU_ASSERT_FATAL(read_clip(out, &n, &t0, &t1, &shown, &dur));
    CU_ASSERT(n > 5 && n < 45); /* from 0.5 s to where the file breaks (~1.5 s) */
    CU_ASSERT(abs(shown - square_x(15)) <= 1);
    remove(out);
    remove(png);
    remove(src);
}

static int suite_init(void)
{
    snprintf(dir, sizeof dir, "/tmp/kr_media_XXXXXX");
    return mkdtemp(dir) ? 0 : 1;
}

static int suite_clean(void)
{
    return rmdir(dir) == 0 ? 0 : 1; /* fails if a test left a file behind */
}

/* A 4:2:0 frame of w x h with texture in every plane (noise, ramps, sharp steps between
 * dark and bright, some samples at 0 and 255). */
static AVFrame *textured_420(int w, int h, unsigned seed)
{
    AVFrame *f = av_frame_alloc();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    f->format = AV_PIX_FMT_YUV420P;
    f->width = w;
    f->height = h;
    CU_ASSERT_EQUAL_FATAL(av_frame_get_buffer(f, 0), 0);
    unsigned r = seed;
    for (int p = 0; p < 3; p++)
        for (int y = 0; y < (p ? h / 2 : h); y++)
            for (int x = 0; x < (p ? w / 2 : w); x++) {
                r = r * 1103515245u + 12345u;
                int v = ((x / 9 + y / 5) % 2 ? 200 : 40) + (x * 3 + y) % 37 + (int)((r >> 16) % 17) + 10 * p;
                if ((r >> 8) % 50 == 0)
                    v = (r >> 12) % 2 ? 0 : 255;
                f->data[p][y * f->linesize[p] + x] = (uint8_t)(v > 255 ? 255 : v);
            }
    return f;
}

/* The samples of two 4:2:0 frames of w x h that differ. */
static long differing_420(const AVFrame *a, const AVFrame *b, int w, int h)
{
    long off = 0;
    for (int p = 0; p < 3; p++)
        for (int y = 0; y < (p ? h / 2 : h); y++)
            for (int x = 0; x < (p ? w / 2 : w); x++)
                off += a->data[p][y * a->linesize[p] + x] != b->data[p][y * b->linesize[p] + x];
    return off;
}

/* kr_media_scale_420 halves a frame (the tracker's size for 1200 columns and more) without
 * swscale, with the very samples swscale's bilinear filter gives (its fixed-point rounding,
 * the edges, its last rows written by its C code): every sample of every plane the same as
 * sws_scale_frame's, on one thread or several, at sizes with and without SIMD tails (on
 * x86-64, where that is swscale's arithmetic; elsewhere its own rounding may differ). One
 * grey level on one sample in twenty flipped fast blurred hands (thirtieth session). Any
 * other size still goes through swscale. */
static void test_halving_is_swscales_to_the_bit(void)
{
    const int sizes[][2] = {{1280, 720}, {1216, 688}, {200, 104}, {72, 40}, {1920, 1080}};
    kr_media_sws ys = {0};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        AVFrame *in = textured_420(w, h, 7 + (unsigned)k), *mid = NULL;
        const char *what = "";
        CU_ASSERT_EQUAL_FATAL(kr_media_scale_420(&ys, &mid, in, 1, w / 2, h / 2, &what), 0);
        CU_ASSERT_PTR_NULL(ys.ctx); /* (swscale not used) */
        for (int threads = 1; threads <= 2; threads++) {
            AVFrame *ref = av_frame_alloc();
            CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
            ref->format = in->format;
            ref->width = w / 2;
            ref->height = h / 2;
            CU_ASSERT_EQUAL_FATAL(av_frame_get_buffer(ref, 0), 0);
            kr_media_sws sc = {0};
            CU_ASSERT_EQUAL_FATAL(
                kr_media_sws_prepare(&sc, in, w / 2, h / 2, in->format, SWS_BILINEAR, threads, 0, 0), 0);
            CU_ASSERT_FATAL(sws_scale_frame(sc.ctx, ref, in) >= 0);
            long off = differing_420(mid, ref, w / 2, h / 2);
            if (getenv("KR_TEST_VERBOSE"))
                printf("halving %dx%d (swscale on %d threads): %ld samples differ\n", w, h, threads, off);
#if defined(__x86_64__)
            CU_ASSERT_EQUAL(off, 0);
#else
            CU_ASSERT(off < (long)w * h / 40);
#endif
            kr_media_sws_free(&sc);
            av_frame_free(&ref);
        }
        av_frame_free(&in);
        av_frame_free(&mid);
    }
    /* another ratio: swscale's own output */
    AVFrame *in = textured_420(200, 104, 3), *mid = NULL, *ref = av_frame_alloc();
    const char *what = "";
    CU_ASSERT_EQUAL_FATAL(kr_media_scale_420(&ys, &mid, in, 1, 120, 64, &what), 0);
    CU_ASSERT_PTR_NOT_NULL(ys.ctx);
    ref->format = in->format;
    ref->width = 120;
    ref->height = 64;
    CU_ASSERT_EQUAL_FATAL(av_frame_get_buffer(ref, 0), 0);
    kr_media_sws sc = {0};
    CU_ASSERT_EQUAL_FATAL(kr_media_sws_prepare(&sc, in, 120, 64, in->format, SWS_BILINEAR, 1, 0, 0), 0);
    CU_ASSERT_FATAL(sws_scale_frame(sc.ctx, ref, in) >= 0);
    CU_ASSERT_EQUAL(differing_420(mid, ref, 120, 64), 0);
    CU_ASSERT_EQUAL(kr_media_half_420(&ys, mid, in), 0); /* (not half its size: nothing done) */
    kr_media_sws_free(&sc);
    kr_media_sws_free(&ys);
    av_frame_free(&in);
    av_frame_free(&mid);
    av_frame_free(&ref);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("media", suite_init, suite_clean);
    CU_add_test(s, "roundtrip_counts_sizes_times", test_roundtrip_counts_sizes_times);
    CU_add_test(s, "variable_rate_times_survive", test_variable_rate_times_survive);
    CU_add_test(s, "keyframes_marked", test_keyframes_marked);
    CU_add_test(s, "seek_lands_on_first_frame_at_or_after", test_seek_lands_on_first_frame_at_or_after);
    CU_add_test(s, "gray_and_downscaled_output", test_gray_and_downscaled_output);
    CU_add_test(s, "yuv_frames_equal_bgr_frames", test_yuv_frames_equal_bgr_frames);
    CU_add_test(s, "decode_ahead_same_as_inline", test_decode_ahead_same_as_inline);
    CU_add_test(s, "decode_ahead_scales_in_place", test_decode_ahead_scales_in_place);
    CU_add_test(s, "truncated_file_reports_where", test_truncated_file_reports_where);
    CU_add_test(s, "corrupt_middle_stops_or_keeps_going", test_corrupt_middle_stops_or_keeps_going);
    CU_add_test(s, "garbage_and_missing_files_fail_cleanly", test_garbage_and_missing_files_fail_cleanly);
    CU_add_test(s, "writer_destroy_without_close_leaves_nothing",
                test_writer_destroy_without_close_leaves_nothing);
    CU_add_test(s, "writer_takes_grey_frames", test_writer_takes_grey_frames);
    CU_add_test(s, "writer_rejects_bad_input", test_writer_rejects_bad_input);
    CU_add_test(s, "writer_bframes", test_writer_bframes); /* session 43 */
    CU_add_test(s, "draw_shapes_text_and_blending", test_draw_shapes_text_and_blending);
    CU_add_test(s, "resize_into_subview_touches_only_it", test_resize_into_subview_touches_only_it);
    CU_add_test(s, "clip_window_frames_and_sheet", test_clip_window_frames_and_sheet);
    CU_add_test(s, "clip_marks_contacts", test_clip_marks_contacts);
    CU_add_test(s, "clip_calibration_layer", test_clip_calibration_layer);
    CU_add_test(s, "clip_bad_input_leaves_nothing", test_clip_bad_input_leaves_nothing);
    CU_add_test(s, "halving_is_swscales_to_the_bit", test_halving_is_swscales_to_the_bit);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    return fails != 0;
}
