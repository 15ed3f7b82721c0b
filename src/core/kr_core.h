/* kr_core.h - shared status codes, error text, logging, image views and atomic output files.
 * Every other module includes this; it depends on nothing but libc.
 * SPDX-License-Identifier: MIT                                                  */
#ifndef KR_CORE_H
#define KR_CORE_H
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started:
 *   kr_status s = kr_x_something(...);  if (s != KR_OK) report kr_status_str(s)
 *   kr_log(KR_LOG_WARN, "...")          diagnostics on stderr (never results)
 *   kr_outfile_open() / fprintf(of->fp) / kr_outfile_commit()   complete-or-nothing output */

typedef enum {
    KR_OK = 0,
    KR_ERR_NOMEM,   /* allocation failed */
    KR_ERR_INVALID, /* bad argument or bad input data */
    KR_ERR_IO,      /* file or device error */
    KR_ERR_FORMAT,  /* malformed file content */
    KR_ERR_CODEC,   /* FFmpeg / GStreamer failure */
    KR_ERR_CV,      /* OpenCV failure */
    KR_ERR_EOF,     /* flow signal: no more data (not a failure) */
    KR_ERR_AGAIN    /* flow signal: try again later (not a failure) */
} kr_status;

const char *kr_status_str(kr_status s); /* static string, never NULL */

/* Image view: never owns its pixels. px points at row 0; rows are stride bytes
 * apart. channels is 1 (grey) or 3 (BGR, OpenCV's order). */
typedef struct kr_image {
    int32_t  w, h, stride, channels;
    uint8_t *px; /* borrowed */
} kr_image_t;

/* Planar YUV 4:2:0 view (FFmpeg's yuv420p / yuvj420p, GStreamer's I420): never owns
 * its planes. Chroma planes are (w+1)/2 x (h+1)/2. y == NULL means "no YUV view". */
typedef struct kr_yuv {
    int32_t        w, h;
    int32_t        stride_y, stride_c; /* bytes between rows of the luma / chroma planes */
    const uint8_t *y, *u, *v;          /* borrowed */
    int32_t        full_range;         /* 1: 0..255 (JPEG range), 0: 16..235 (MPEG range) */
    int32_t        bt709;              /* 1: BT.709 matrix, 0: BT.601 */
} kr_yuv_t;

/* Logging: messages go to stderr, prefixed by the program name set with
 * kr_log_set_program(). Level below the threshold are dropped. */
typedef enum { KR_LOG_DEBUG = 0, KR_LOG_INFO, KR_LOG_WARN, KR_LOG_ERROR } kr_log_level;
void kr_log_set_program(const char *name);     /* borrowed; must outlive logging */
void kr_log_set_level(kr_log_level min_level); /* messages below min_level are dropped */
void kr_log(kr_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#ifdef NDEBUG
#define KR_DEBUG(...) ((void)0)
#else
#define KR_DEBUG(...) kr_log(KR_LOG_DEBUG, __VA_ARGS__)
#endif

/* Atomic output file: writes go to "<path>.tmp.<pid>", which is renamed over
 * <path> by kr_outfile_commit() and removed by kr_outfile_abort(), so a reader
 * never sees a half-written file. */
typedef struct kr_outfile {
    FILE *fp;         /* owned; write through it */
    char *path;       /* owned copy of the final path */
    char *tmp_path;   /* owned */
} kr_outfile_t;
/* path: borrowed (copied into of->path). *of: caller's storage, filled here; on
 * failure (KR_ERR_INVALID empty path, KR_ERR_IO folder not writable, KR_ERR_NOMEM)
 * of->fp is NULL and nothing needs freeing. */
kr_status kr_outfile_open(const char *path, kr_outfile_t *of);
kr_status kr_outfile_commit(kr_outfile_t *of); /* flushes, fsyncs, renames; frees */
void      kr_outfile_abort(kr_outfile_t *of);  /* removes the temporary; NULL-safe */

/* Error text: formats fmt into buf (cap bytes, caller's storage, always
 * NUL-terminated, truncated if longer), turns any '\n' or '\r' into a space so
 * the message stays one line, and returns st unchanged, so a failure path can
 * read `return kr_error_set(x->err, sizeof x->err, KR_ERR_IO, "%s: ...", path);`.
 * buf NULL or cap 0: nothing is written. */
kr_status kr_error_setv(char *buf, size_t cap, kr_status st, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 0)))
#endif
    ;
kr_status kr_error_set(char *buf, size_t cap, kr_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Copy of s in a new malloc'd block (caller frees); NULL if s is NULL or on
 * allocation failure. */
char *kr_strdup(const char *s);

/* Monotonic wall clock in microseconds (for benchmarks and progress only,
 * never for match times, which always come from the source). */
int64_t kr_clock_us(void);

/* The median of v[0..n-1] (n >= 1; the mean of the middle two for even n). Sorts v in
 * place by insertion: meant for the few dozen values of a frame's readings. */
double kr_median(double *v, int n);

#ifdef __cplusplus
}
#endif
#endif /* KR_CORE_H */
