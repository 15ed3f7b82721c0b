/* kr_cv_image.c - kr_cv_write_image / kr_cv_read_image with libpng and libjpeg(-turbo),
 * so that OpenCV's imgcodecs (about 140 shared libraries, 0.25 s of start-up) is not linked.
 * SPDX-License-Identifier: MIT */
#include "kr_cv.h"

#include "kr_cv_internal.h"

#include <jpeglib.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define JPEG_QUALITY 95 /* as OpenCV's imwrite default */

typedef enum { FMT_NONE, FMT_PNG, FMT_JPEG } img_format;

/* The format a path's extension names (case-insensitive). */
static img_format format_of_path(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return FMT_NONE;
    if (!strcasecmp(dot, ".png"))
        return FMT_PNG;
    if (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg") || !strcasecmp(dot, ".jpe"))
        return FMT_JPEG;
    return FMT_NONE;
}

/* ---- PNG ---- */

typedef struct png_err {
    char msg[200];
} png_err;

static void png_on_error(png_structp png, png_const_charp msg)
{
    png_err *e = (png_err *)png_get_error_ptr(png);
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static kr_status write_png(FILE *f, const kr_image_t *img)
{
    png_err e = {""};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &e, png_on_error, png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        kr_cv_set_error_("PNG: out of memory");
        return KR_ERR_NOMEM;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        kr_cv_set_error_("PNG: %s", e.msg);
        return KR_ERR_IO;
    }
    png_init_io(png, f);
    /* OpenCV's default: fastest compression, run-length strategy */
    png_set_compression_level(png, 1);
    png_set_compression_strategy(png, 3 /* Z_RLE */);
    png_set_IHDR(png, info, (png_uint_32)img->w, (png_uint_32)img->h, 8,
                 img->channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (img->channels == 3)
        png_set_bgr(png);
    for (int y = 0; y < img->h; y++)
        png_write_row(png, img->px + (size_t)y * (size_t)img->stride);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return KR_OK;
}

/* Reads a PNG as 8-bit BGR (grey replicated, palette expanded, 16-bit reduced, alpha dropped). */
static kr_status read_png(FILE *f, kr_image_t *out, uint8_t **px)
{
    png_err e = {""};
    uint8_t *volatile buf = NULL;
    png_bytep *volatile rows = NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &e, png_on_error, png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        kr_cv_set_error_("PNG: out of memory");
        return KR_ERR_NOMEM;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_free(png, rows);
        png_destroy_read_struct(&png, &info, NULL);
        free(buf);
        kr_cv_set_error_("PNG: %s", e.msg);
        return KR_ERR_FORMAT;
    }
    png_init_io(png, f);
    png_read_info(png, info);
    png_set_expand(png);     /* palette -> RGB, grey < 8 bits -> 8 bits, tRNS -> alpha */
    png_set_strip_16(png);   /* 16 -> 8 bits (the high byte) */
    png_set_strip_alpha(png);
    png_set_gray_to_rgb(png);
    png_set_bgr(png);
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE)
        png_set_interlace_handling(png);
    png_read_update_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if (png_get_channels(png, info) != 3 || png_get_bit_depth(png, info) != 8 || w > 65536 || h > 65536) {
        snprintf(e.msg, sizeof e.msg, "unsupported layout (%u x %u, %d channels)", (unsigned)w, (unsigned)h,
                 (int)png_get_channels(png, info));
        png_longjmp(png, 1);
    }
    size_t stride = (size_t)w * 3;
    buf = malloc(stride * h + 1);
    if (!buf) {
        snprintf(e.msg, sizeof e.msg, "out of memory");
        png_longjmp(png, 1);
    }
    rows = png_malloc(png, sizeof(png_bytep) * (h ? h : 1));
    for (png_uint_32 y = 0; y < h; y++)
        rows[y] = buf + y * stride;
    png_read_image(png, rows);
    png_free(png, rows);
    rows = NULL;
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    out->w = (int32_t)w;
    out->h = (int32_t)h;
    out->stride = (int32_t)stride;
    out->channels = 3;
    out->px = buf;
    *px = buf;
    return KR_OK;
}

/* ---- JPEG ---- */

typedef struct jpeg_err {
    struct jpeg_error_mgr mgr;
    jmp_buf jb;
    char msg[JMSG_LENGTH_MAX];
} jpeg_err;

static void jpeg_on_error(j_common_ptr c)
{
    jpeg_err *e = (jpeg_err *)c->err;
    c->err->format_message(c, e->msg);
    longjmp(e->jb, 1);
}

static void jpeg_on_message(j_common_ptr c, int level)
{
    (void)c;
    (void)level; /* warnings (corrupt data that could be decoded) are not reported */
}

/* e's manager: errors jump to e->jb with their message in e->msg, warnings are dropped. */
static struct jpeg_error_mgr *jpeg_err_init(jpeg_err *e)
{
    struct jpeg_error_mgr *m = jpeg_std_error(&e->mgr);
    m->error_exit = jpeg_on_error;
    m->emit_message = jpeg_on_message;
    return m;
}

static kr_status write_jpeg(FILE *f, const kr_image_t *img)
{
    struct jpeg_compress_struct c;
    jpeg_err e;
    memset(&c, 0, sizeof c);
    c.err = jpeg_err_init(&e);
    if (setjmp(e.jb)) {
        jpeg_destroy_compress(&c);
        kr_cv_set_error_("JPEG: %s", e.msg);
        return KR_ERR_IO;
    }
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = (JDIMENSION)img->w;
    c.image_height = (JDIMENSION)img->h;
    c.input_components = img->channels;
#ifdef JCS_EXTENSIONS
    c.in_color_space = img->channels == 3 ? JCS_EXT_BGR : JCS_GRAYSCALE;
#else
#error "libjpeg-turbo with JCS_EXTENSIONS (BGR input) is required"
#endif
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, JPEG_QUALITY, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(img->px + (size_t)c.next_scanline * (size_t)img->stride);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    return KR_OK;
}

static kr_status read_jpeg(FILE *f, kr_image_t *out, uint8_t **px)
{
    struct jpeg_decompress_struct c;
    jpeg_err e;
    uint8_t *volatile buf = NULL;
    memset(&c, 0, sizeof c);
    c.err = jpeg_err_init(&e);
    if (setjmp(e.jb)) {
        jpeg_destroy_decompress(&c);
        free(buf);
        kr_cv_set_error_("JPEG: %s", e.msg);
        return KR_ERR_FORMAT;
    }
    jpeg_create_decompress(&c);
    jpeg_stdio_src(&c, f);
    jpeg_read_header(&c, TRUE);
    c.out_color_space = JCS_EXT_BGR; /* grey and YCbCr alike; CMYK is refused by libjpeg */
    jpeg_start_decompress(&c);
    size_t stride = (size_t)c.output_width * 3;
    buf = malloc(stride * c.output_height + 1);
    if (!buf) {
        jpeg_destroy_decompress(&c);
        kr_cv_set_error_("JPEG: out of memory");
        return KR_ERR_NOMEM;
    }
    while (c.output_scanline < c.output_height) {
        JSAMPROW row = (JSAMPROW)(buf + (size_t)c.output_scanline * stride);
        jpeg_read_scanlines(&c, &row, 1);
    }
    jpeg_finish_decompress(&c);
    out->w = (int32_t)c.output_width;
    out->h = (int32_t)c.output_height;
    out->stride = (int32_t)stride;
    out->channels = 3;
    out->px = buf;
    *px = buf;
    jpeg_destroy_decompress(&c);
    return KR_OK;
}

/* ---- the API ---- */

kr_status kr_cv_write_image(const char *path, const kr_image_t *img)
{
    if (!path || !img || !img->px || img->w <= 0 || img->h <= 0 || (img->channels != 1 && img->channels != 3) ||
        img->stride < img->w * img->channels) {
        kr_cv_set_error_("write image: invalid image");
        return KR_ERR_INVALID;
    }
    img_format fmt = format_of_path(path);
    if (fmt == FMT_NONE) {
        kr_cv_set_error_("%s: unsupported image format (use .png or .jpg)", path);
        return KR_ERR_INVALID;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        kr_cv_set_error_("%s: could not open for writing", path);
        return KR_ERR_IO;
    }
    kr_status st = fmt == FMT_PNG ? write_png(f, img) : write_jpeg(f, img);
    if (fclose(f) != 0 && st == KR_OK) {
        kr_cv_set_error_("%s: write failed", path);
        st = KR_ERR_IO;
    }
    if (st != KR_OK)
        remove(path); /* complete or absent */
    return st;
}

kr_status kr_cv_read_image(const char *path, kr_image_t *out, uint8_t **px)
{
    if (!px)
        return KR_ERR_INVALID;
    *px = NULL;
    if (!path || !out)
        return KR_ERR_INVALID;
    FILE *f = fopen(path, "rb");
    if (!f) {
        kr_cv_set_error_("%s: could not open", path);
        return KR_ERR_IO;
    }
    unsigned char sig[8] = {0};
    size_t got = fread(sig, 1, sizeof sig, f);
    rewind(f);
    kr_status st;
    if (got == 8 && !png_sig_cmp(sig, 0, 8))
        st = read_png(f, out, px);
    else if (got >= 3 && sig[0] == 0xff && sig[1] == 0xd8 && sig[2] == 0xff)
        st = read_jpeg(f, out, px);
    else {
        kr_cv_set_error_("%s: not a PNG or JPEG file", path);
        st = KR_ERR_FORMAT;
    }
    fclose(f);
    return st;
}
