/* kr_calib_video.c - calibration from a video file: a few frames around the chosen
 * time, a stillness check, their per-pixel median, then the frame calibration.
 * SPDX-License-Identifier: MIT */
#include "kr_calib.h"
#include "kr_calib_internal.h"
#include "kr_media.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 9

void kr_calib_video_config_default(kr_calib_video_config *vcfg)
{
    vcfg->at_us = -1;
    vcfg->frames = 5;
    vcfg->span_us = 800000;
    vcfg->max_moving = 0.03;
}

/* Share of pixels (every 2nd row and column) whose grey level differs by more than 40. */
static double changed_share(const uint8_t *a, const uint8_t *b, int w, int h)
{
    long n = 0, changed = 0;
    for (int y = 0; y < h; y += 2)
        for (int x = 0; x < w; x += 2) {
            const uint8_t *p = a + ((size_t)y * w + x) * 3, *q = b + ((size_t)y * w + x) * 3;
            int ga = (p[0] * 29 + p[1] * 150 + p[2] * 77) >> 8;
            int gb = (q[0] * 29 + q[1] * 150 + q[2] * 77) >> 8;
            changed += abs(ga - gb) > 40;
            n++;
        }
    return n ? (double)changed / n : 0;
}

static kr_status from_video_at(const kr_calib_config *cfg, const kr_calib_video_config *vcfg_in,
                               const char *path, kr_calib_t **out, kr_image_t *frame,
                               uint8_t **frame_px, int *moving /* out: 1 moving scene, 2 outside the video */)
{
    kr_calib_video_config vc;
    kr_media_reader_t *r = NULL;
    kr_media_info_t info;
    uint8_t *buf[MAX_FRAMES] = {NULL};
    int64_t times[MAX_FRAMES];
    uint8_t *med = NULL;
    int got = 0;
    kr_status st;
    *out = NULL;
    if (frame_px)
        *frame_px = NULL;
    if (vcfg_in)
        vc = *vcfg_in;
    else
        kr_calib_video_config_default(&vc);
    if (vc.frames < 1)
        vc.frames = 1;
    if (vc.frames > MAX_FRAMES)
        vc.frames = MAX_FRAMES;
    if ((st = kr_media_reader_open(path, &r)) != KR_OK) {
        kr_calib_set_error("%s", kr_media_reader_error(NULL));
        return st;
    }
    if ((st = kr_media_reader_info(r, &info)) != KR_OK) {
        kr_calib_set_error("%s", kr_media_reader_error(r));
        goto fail;
    }
    int64_t at = vc.at_us;
    if (at < 0)
        at = (info.duration_us > 0 && info.duration_us < 4000000) ? info.duration_us / 2 : 2000000;
    if (info.duration_us > 0 && at > info.duration_us) {
        *moving = 2;
        kr_calib_set_error("%s: --at %.2f s is outside the video (it lasts %.2f s)", path, at / 1e6,
                           info.duration_us / 1e6);
        st = KR_ERR_INVALID;
        goto fail;
    }
    /* frame k is the first at or after t0 + k * step (clamped to the video's start) */
    int64_t half = vc.frames > 1 ? vc.span_us / 2 : 0;
    int64_t t0 = at - half < 0 ? 0 : at - half;
    int64_t step = vc.frames > 1 ? (2 * half) / (vc.frames - 1) : 0;
    if ((st = kr_media_reader_seek(r, t0)) != KR_OK) {
        kr_calib_set_error("%s", kr_media_reader_error(r));
        goto fail;
    }
    size_t fsize = 0;
    int w = 0, h = 0;
    while (got < vc.frames) {
        kr_frame_t f;
        st = kr_media_reader_next(r, &f);
        if (st == KR_ERR_EOF)
            break;
        if (st != KR_OK) {
            kr_calib_set_error("%s", kr_media_reader_error(r));
            goto fail;
        }
        if (f.t_us < t0 + got * step)
            continue;
        if (f.img.channels != 3 || f.img.w < 16 || f.img.h < 16) {
            kr_calib_set_error("%s: unreadable frame at %.2f s", path, f.t_us / 1e6);
            st = KR_ERR_FORMAT;
            goto fail;
        }
        if (!got) {
            w = f.img.w;
            h = f.img.h;
            fsize = (size_t)w * (size_t)h * 3;
        }
        if (!(buf[got] = malloc(fsize))) {
            st = KR_ERR_NOMEM;
            goto fail;
        }
        for (int y = 0; y < h; y++)
            memcpy(buf[got] + (size_t)y * w * 3, f.img.px + (size_t)y * (size_t)f.img.stride,
                   (size_t)w * 3);
        times[got++] = f.t_us;
    }
    if (got == 0) {
        *moving = 2;
        kr_calib_set_error("%s: --at %.2f s is outside the video (no frame there)", path, at / 1e6);
        st = KR_ERR_INVALID;
        goto fail;
    }
    kr_media_reader_destroy(r);
    r = NULL;
    if (got > 1) {
        double share = changed_share(buf[0], buf[got - 1], w, h);
        if (share > vc.max_moving) {
            *moving = 1;
            kr_calib_set_error("%s: moving scene: %.1f%% of the picture changes between %.2f s and "
                               "%.2f s; choose a still moment with --at", path, 100 * share,
                               times[0] / 1e6, times[got - 1] / 1e6);
            st = KR_ERR_INVALID;
            goto fail;
        }
    }
    if (got >= 3) {
        if (!(med = malloc(fsize))) {
            st = KR_ERR_NOMEM;
            goto fail;
        }
        uint8_t v[MAX_FRAMES];
        for (size_t i = 0; i < fsize; i++) {
            for (int k = 0; k < got; k++) { /* insertion sort: at most 9 values */
                uint8_t x = buf[k][i];
                int j = k;
                for (; j > 0 && v[j - 1] > x; j--)
                    v[j] = v[j - 1];
                v[j] = x;
            }
            med[i] = v[got / 2];
        }
    } else {
        med = buf[0];
        buf[0] = NULL;
    }
    kr_image_t img = {w, h, w * 3, 3, med};
    st = kr_calib_create_from_frame(cfg, &img, times[got / 2], out);
    if (st != KR_OK) {
        char msg[320];
        snprintf(msg, sizeof msg, "%s", kr_calib_error());
        kr_calib_set_error("%s at %.2f s: %s", path, times[got / 2] / 1e6, msg);
        goto fail;
    }
    snprintf((*out)->source, sizeof (*out)->source, "%s", path);
    if (frame && frame_px) {
        *frame = img;
        *frame_px = med;
        med = NULL;
    }
fail:
    for (int k = 0; k < MAX_FRAMES; k++)
        free(buf[k]);
    free(med);
    kr_media_reader_destroy(r);
    return st;
}

kr_status kr_calib_create_from_video(const kr_calib_config *cfg, const kr_calib_video_config *vcfg,
                                     const char *path, kr_calib_t **out, kr_image_t *frame,
                                     uint8_t **frame_px)
{
    kr_calib_video_config vc;
    if (vcfg)
        vc = *vcfg;
    else
        kr_calib_video_config_default(&vc);
    int moving = 0;
    if (vc.at_us >= 0)
        return from_video_at(cfg, &vc, path, out, frame, frame_px, &moving);
    /* no time given: the default moment, then others while the scene moves there */
    static const int64_t tries[] = {-1, 1000000, 500000, 4000000, 8000000, 16000000};
    char first[320] = "";
    kr_status st = KR_ERR_INVALID;
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        vc.at_us = tries[i];
        moving = 0;
        st = from_video_at(cfg, &vc, path, out, frame, frame_px, &moving);
        if (st == KR_OK || (i == 0 && moving != 1) || (i > 0 && !moving))
            return st;
        if (i == 0)
            snprintf(first, sizeof first, "%s", kr_calib_error());
    }
    kr_calib_set_error("%s; also moving or past the end at 0.5, 1, 4, 8 and 16 s", first);
    return KR_ERR_INVALID;
}
