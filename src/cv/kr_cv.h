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

/* ---- draw (overlays) -------------------------------------------------- */

#ifdef __cplusplus
}
#endif
#endif /* KR_CV_H */
