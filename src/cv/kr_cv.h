/* kr_cv.h - the only door to OpenCV: coarse image operations on kr_image_t views
 * and plain arrays. Implemented in kr_cv.cpp; no C++ type crosses this header.
 * SPDX-License-Identifier: MIT                                                  */
#ifndef KR_CV_H
#define KR_CV_H
#include "kr_core.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started: every function takes views (kr_image_t) over caller-owned
 * buffers, returns kr_status, and on KR_ERR_CV leaves OpenCV's message in
 * kr_cv_last_error() (thread-local, valid until the next kr_cv call). */
const char *kr_cv_last_error(void);

/* ---- general ---------------------------------------------------------- */
/* PNG/JPEG writing for overlays and stills. img: 1 or 3 channels (BGR). */
kr_status kr_cv_write_image(const char *path, const kr_image_t *img);
/* Reads an image file into a malloc'd BGR buffer (*px caller-freed with free()). */
kr_status kr_cv_read_image(const char *path, kr_image_t *out, uint8_t **px);

/* ---- synth (rendering helpers) ---------------------------------------- */

/* ---- calib ------------------------------------------------------------ */

/* ---- track ------------------------------------------------------------ */
/* Debug drawing for the tracker's overlay, in place on img (BGR). Coordinates in img px. */
kr_status kr_cv_track_polyline(kr_image_t *img, const double *xy, int n_pts, int closed,
                               uint8_t b, uint8_t g, uint8_t r, int thickness);
kr_status kr_cv_track_circle(kr_image_t *img, double x, double y, double radius,
                             uint8_t b, uint8_t g, uint8_t r, int thickness); /* thickness<0: filled */
kr_status kr_cv_track_text(kr_image_t *img, double x, double y, const char *text, double scale,
                           uint8_t b, uint8_t g, uint8_t r);
/* Nearest-neighbour upscale of src by an integer factor into dst (dst sized w*f x h*f). */
kr_status kr_cv_track_upscale(const kr_image_t *src, kr_image_t *dst, int factor);

/* ---- draw (overlays) -------------------------------------------------- */

#ifdef __cplusplus
}
#endif
#endif /* KR_CV_H */
