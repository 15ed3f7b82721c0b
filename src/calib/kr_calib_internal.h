/* kr_calib_internal.h - helpers shared by the calib module's files (not public).
 * SPDX-License-Identifier: MIT */
#ifndef KR_CALIB_INTERNAL_H
#define KR_CALIB_INTERNAL_H
#include "kr_calib.h"

#include <stdarg.h>

#define KR_CALIB_PI 3.14159265358979323846

/* Sets the thread's kr_calib_error() text (printf format). */
void kr_calib_set_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* 3x3 row-major matrix helpers. Return 0 ok, -1 singular. */
int  kr_calib_mat3_inv(const double m[9], double out[9]);
void kr_calib_mat3_mul(const double a[9], const double b[9], double out[9]);

/* Normalised lens model on (undistorted px - c) / f: (x, y) -> (xd, yd). */
void kr_calib_lens_apply(const double dist[5], double x, double y, double *xd, double *yd);
/* Inverse by Newton; returns -1 if it does not converge or the lens folds there. */
int kr_calib_lens_invert(const double dist[5], double xd, double yd, double *x, double *y);

/* Recomputes Hinv, px_per_mm after H or the intrinsics changed. -1 if H is singular. */
int kr_calib_finish_model(kr_calib_t *c);

/* Allocates a zeroed calibration with defaults filled (t_us = -1). NULL on no memory. */
kr_calib_t *kr_calib_alloc(void);

/* Edge-based sub-pixel refinement of a coarse quad (8 doubles, in/out) on a grey image.
 * Returns 0 if refined, -1 if the edges were not found (quad left unchanged). */
int kr_calib_refine_quad(const kr_image_t *grey, double quad[8]);

#endif /* KR_CALIB_INTERNAL_H */
