/* test_cv.c - the cv module's image files: PNG / JPEG written and read back, checked
 * against FFmpeg's own decoders, bad paths and files, and OpenCV's imgcodecs not loaded.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "kr_cv.h"

#include <CUnit/Basic.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 67 /* odd sizes: no row is a multiple of 4 bytes */
#define H 41
#define PAD 13 /* stride padding of the source view */

static char dir[64];

static void path_in_dir(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", dir, name); }

/* A BGR test picture: gradients, a red and a blue block (channel order shows), noise. */
static void fill_picture(uint8_t *px, int stride)
{
    unsigned s = 12345;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = px + (size_t)y * stride + (size_t)x * 3;
            s = s * 1103515245u + 12345u;
            p[0] = (uint8_t)(x * 3 + (s >> 28));
            p[1] = (uint8_t)(y * 5);
            p[2] = (uint8_t)(x + y);
            if (x < 10 && y < 10) { /* red block */
                p[0] = 0; p[1] = 0; p[2] = 250;
            }
            if (x >= W - 10 && y < 10) { /* blue block */
                p[0] = 250; p[1] = 0; p[2] = 0;
            }
        }
}

/* Decodes the first picture of an image file with FFmpeg (image2 demuxer, its own PNG /
 * MJPEG decoder) into packed BGR24 (w x h, stride w * 3). Returns malloc'd pixels or NULL. */
static uint8_t *ffmpeg_decode(const char *path, int *w, int *h)
{
    AVFormatContext *fc = NULL;
    AVCodecContext *cc = NULL;
    AVPacket *pkt = av_packet_alloc();
    AVFrame *fr = av_frame_alloc();
    uint8_t *out = NULL;
    if (!pkt || !fr || avformat_open_input(&fc, path, NULL, NULL) < 0 || avformat_find_stream_info(fc, NULL) < 0)
        goto fail;
    const AVCodec *dec = avcodec_find_decoder(fc->streams[0]->codecpar->codec_id);
    if (!dec || !(cc = avcodec_alloc_context3(dec)) ||
        avcodec_parameters_to_context(cc, fc->streams[0]->codecpar) < 0 || avcodec_open2(cc, dec, NULL) < 0)
        goto fail;
    if (av_read_frame(fc, pkt) < 0 || avcodec_send_packet(cc, pkt) < 0)
        goto fail;
    avcodec_send_packet(cc, NULL);
    if (avcodec_receive_frame(cc, fr) < 0)
        goto fail;
    *w = fr->width;
    *h = fr->height;
    out = malloc((size_t)fr->width * fr->height * 3);
    struct SwsContext *sws = sws_getContext(fr->width, fr->height, fr->format, fr->width, fr->height,
                                            AV_PIX_FMT_BGR24, SWS_POINT | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT,
                                            NULL, NULL, NULL);
    if (!out || !sws) {
        free(out);
        out = NULL;
        sws_freeContext(sws);
        goto fail;
    }
    uint8_t *dst[4] = {out, NULL, NULL, NULL};
    int dst_stride[4] = {fr->width * 3, 0, 0, 0};
    sws_scale(sws, (const uint8_t *const *)fr->data, fr->linesize, 0, fr->height, dst, dst_stride);
    sws_freeContext(sws);
fail:
    av_packet_free(&pkt);
    av_frame_free(&fr);
    avcodec_free_context(&cc);
    avformat_close_input(&fc);
    return out;
}

static long file_size(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void test_png_round_trip_is_exact(void)
{
    static uint8_t src[H * (W * 3 + PAD)];
    memset(src, 0x5a, sizeof src);
    fill_picture(src, W * 3 + PAD);
    kr_image_t img = {W, H, W * 3 + PAD, 3, src};
    char p[128];
    path_in_dir(p, sizeof p, "a.png");
    CU_ASSERT_EQUAL_FATAL(kr_cv_write_image(p, &img), KR_OK);
    kr_image_t back;
    uint8_t *px = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_cv_read_image(p, &back, &px), KR_OK);
    CU_ASSERT_PTR_EQUAL(back.px, px);
    CU_ASSERT_EQUAL(back.w, W);
    CU_ASSERT_EQUAL(back.h, H);
    CU_ASSERT_EQUAL(back.channels, 3);
    CU_ASSERT_EQUAL(back.stride, W * 3);
    int diff = 0;
    for (int y = 0; y < H; y++)
        diff += memcmp(px + (size_t)y * W * 3, src + (size_t)y * img.stride, (size_t)W * 3) != 0;
    CU_ASSERT_EQUAL(diff, 0);
    free(px);
    /* another decoder reads the same pixels (the channel order is not swapped both ways) */
    int fw = 0, fh = 0;
    uint8_t *ff = ffmpeg_decode(p, &fw, &fh);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
    CU_ASSERT_EQUAL(fw, W);
    CU_ASSERT_EQUAL(fh, H);
    diff = 0;
    for (int y = 0; y < H; y++)
        diff += memcmp(ff + (size_t)y * W * 3, src + (size_t)y * img.stride, (size_t)W * 3) != 0;
    CU_ASSERT_EQUAL(diff, 0);
    CU_ASSERT_EQUAL(ff[2], 250); /* top-left is red: R is the third byte of BGR */
    CU_ASSERT_EQUAL(ff[0], 0);
    free(ff);
}

static void test_grey_png_reads_back_as_bgr(void)
{
    static uint8_t g[H * (W + 3)];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            g[y * (W + 3) + x] = (uint8_t)(x * 3 + y);
    kr_image_t img = {W, H, W + 3, 1, g};
    char p[128];
    path_in_dir(p, sizeof p, "g.png");
    CU_ASSERT_EQUAL_FATAL(kr_cv_write_image(p, &img), KR_OK);
    kr_image_t back;
    uint8_t *px = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_cv_read_image(p, &back, &px), KR_OK);
    CU_ASSERT_EQUAL(back.channels, 3);
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 3; c++)
                bad += px[(size_t)y * W * 3 + x * 3 + c] != g[y * (W + 3) + x];
    CU_ASSERT_EQUAL(bad, 0);
    free(px);
}

static void test_jpeg_round_trip_is_close(void)
{
    static uint8_t src[H * W * 3];
    /* smooth picture (JPEG keeps it well): only the gradients, blocks of colour */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = src + (size_t)y * W * 3 + x * 3;
            p[0] = (uint8_t)(40 + x * 2);
            p[1] = (uint8_t)(60 + y * 2);
            p[2] = (uint8_t)(x < W / 2 ? 200 : 50);
        }
    kr_image_t img = {W, H, W * 3, 3, src};
    char p[128];
    path_in_dir(p, sizeof p, "a.JPG"); /* the extension in any case */
    CU_ASSERT_EQUAL_FATAL(kr_cv_write_image(p, &img), KR_OK);
    FILE *f = fopen(p, "rb");
    unsigned char sig[3] = {0};
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fread(sig, 1, 3, f), 3);
    fclose(f);
    CU_ASSERT(sig[0] == 0xff && sig[1] == 0xd8 && sig[2] == 0xff);
    kr_image_t back;
    uint8_t *px = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_cv_read_image(p, &back, &px), KR_OK);
    CU_ASSERT_EQUAL(back.w, W);
    CU_ASSERT_EQUAL(back.h, H);
    int fw = 0, fh = 0;
    uint8_t *ff = ffmpeg_decode(p, &fw, &fh);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
    double err = 0, err_ff = 0;
    for (int i = 0; i < W * H * 3; i++) {
        err += abs(px[i] - src[i]);
        err_ff += abs(ff[i] - src[i]);
    }
    err /= W * H * 3;
    err_ff /= W * H * 3;
    CU_ASSERT(err < 3.0);    /* quality 95 */
    CU_ASSERT(err_ff < 3.0); /* (FFmpeg's chroma upsampling differs a little) */
    /* red on the left, blue-ish on the right, in both decoders */
    CU_ASSERT(px[(20 * W + 5) * 3 + 2] > 180 && ff[(20 * W + 5) * 3 + 2] > 180);
    CU_ASSERT(px[(20 * W + W - 5) * 3 + 2] < 70 && ff[(20 * W + W - 5) * 3 + 2] < 70);
    free(px);
    free(ff);
}

static void test_bad_paths_and_files(void)
{
    static uint8_t src[H * W * 3];
    kr_image_t img = {W, H, W * 3, 3, src};
    char p[128];
    /* an extension that is no format we write: refused, nothing written */
    path_in_dir(p, sizeof p, "x.tif");
    CU_ASSERT_EQUAL(kr_cv_write_image(p, &img), KR_ERR_INVALID);
    CU_ASSERT(access(p, F_OK) != 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_cv_last_error(), "x.tif"));
    path_in_dir(p, sizeof p, "noext");
    CU_ASSERT_EQUAL(kr_cv_write_image(p, &img), KR_ERR_INVALID);
    /* a folder that does not exist */
    path_in_dir(p, sizeof p, "no/such.png");
    CU_ASSERT_EQUAL(kr_cv_write_image(p, &img), KR_ERR_IO);
    /* an image that is not one */
    kr_image_t bad = {W, H, W, 3, src}; /* stride too small */
    path_in_dir(p, sizeof p, "b.png");
    CU_ASSERT_EQUAL(kr_cv_write_image(p, &bad), KR_ERR_INVALID);
    CU_ASSERT(access(p, F_OK) != 0);
    /* reading: missing file, a text file, a truncated PNG */
    kr_image_t back;
    uint8_t *px = (uint8_t *)1;
    path_in_dir(p, sizeof p, "missing.png");
    CU_ASSERT_EQUAL(kr_cv_read_image(p, &back, &px), KR_ERR_IO);
    CU_ASSERT_PTR_NULL(px);
    path_in_dir(p, sizeof p, "text.png");
    FILE *f = fopen(p, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("not an image\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(kr_cv_read_image(p, &back, &px), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NULL(px);
    fill_picture(src, W * 3);
    char full[128];
    path_in_dir(full, sizeof full, "full.png");
    CU_ASSERT_EQUAL_FATAL(kr_cv_write_image(full, &img), KR_OK);
    long n = file_size(full);
    CU_ASSERT_FATAL(n > 100);
    path_in_dir(p, sizeof p, "cut.png");
    FILE *in = fopen(full, "rb"), *out = fopen(p, "wb");
    CU_ASSERT_FATAL(in && out);
    for (long i = 0; i < n / 2; i++)
        fputc(fgetc(in), out);
    fclose(in);
    fclose(out);
    px = (uint8_t *)1;
    CU_ASSERT_EQUAL(kr_cv_read_image(p, &back, &px), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NULL(px);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_cv_last_error(), "PNG"));
}

static int find_imgcodecs(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "libopencv_imgcodecs"))
        *(int *)data = 1;
    return 0;
}

/* OpenCV's imgcodecs costs about 0.25 s of CPU at every start of karuta-ref (it pulls
 * GDAL, GDCM and some 140 libraries): the cv module must not need it. */
static void test_imgcodecs_not_loaded(void)
{
    int found = 0;
    dl_iterate_phdr(find_imgcodecs, &found);
    CU_ASSERT_EQUAL(found, 0);
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/kr_test_cv.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    av_log_set_level(AV_LOG_ERROR); /* (FFmpeg's JPEG decoder gives the deprecated yuvj420p) */
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("cv", NULL, NULL);
    CU_add_test(s, "png_round_trip_is_exact", test_png_round_trip_is_exact);
    CU_add_test(s, "grey_png_reads_back_as_bgr", test_grey_png_reads_back_as_bgr);
    CU_add_test(s, "jpeg_round_trip_is_close", test_jpeg_round_trip_is_close);
    CU_add_test(s, "bad_paths_and_files", test_bad_paths_and_files);
    CU_add_test(s, "imgcodecs_not_loaded", test_imgcodecs_not_loaded);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    remove_dir();
    return fails ? 1 : 0;
}
