/* kr_cv.h - the only door to OpenCV: coarse image operations on kr_image_t views
 * and plain arrays. Implemented in kr_cv.cpp (image files: kr_cv_image.c, libpng and
 * libjpeg); no C++ type crosses this header.
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
/* PNG/JPEG writing for overlays and stills (kr_cv_image.c: libpng, libjpeg; not OpenCV).
 * The format is the path's extension: .png (lossless, fast compression) or .jpg / .jpeg
 * (quality 95); any other is KR_ERR_INVALID. img: 1 (grey) or 3 channels (BGR), any
 * stride. KR_ERR_IO when the file cannot be written (nothing is left behind). */
kr_status kr_cv_write_image(const char *path, const kr_image_t *img);
/* Reads a PNG or JPEG file (told by its signature) into a malloc'd 8-bit BGR buffer
 * (*px caller-freed with free(); out->px == *px, stride w * 3): grey replicated, palette
 * expanded, 16-bit samples reduced to their high byte, alpha dropped. KR_ERR_IO when the
 * file cannot be opened, KR_ERR_FORMAT when it is neither or is damaged (*px NULL). */
kr_status kr_cv_read_image(const char *path, kr_image_t *out, uint8_t **px);

/* Resizes src into dst (its own size and channels; dst may be a sub-view of a larger
 * image, e.g. a contact-sheet cell). Area averaging when shrinking, bilinear when
 * growing. 1 <-> 3 channel conversion included. */
kr_status kr_cv_resize(const kr_image_t *src, kr_image_t *dst);
/* Same channels only, bilinear whatever the ratio: for shrinking by less than 2x per
 * frame (a replay, a preview), where area averaging takes a slow general path (960x540
 * -> 640x360: 3.1 ms area, 0.7 ms bilinear, OpenCV 4.6 on this machine). */
kr_status kr_cv_resize_linear(const kr_image_t *src, kr_image_t *dst);

/* ---- synth (rendering helpers) ---------------------------------------- */
/* Precomputed bilinear remap (the synthetic camera: mat-space canvas -> image).
 * map_x/map_y: w*h floats each, the source px for every destination px (copied).
 * *out caller-owned: kr_cv_synth_remap_destroy (NULL-safe). */
typedef struct kr_cv_synth_remap kr_cv_synth_remap_t;
kr_status kr_cv_synth_remap_create(const float *map_x, const float *map_y, int w, int h,
                                   kr_cv_synth_remap_t **out);
void      kr_cv_synth_remap_destroy(kr_cv_synth_remap_t *m);
/* dst = src sampled at the maps (bilinear); outside src -> border (BGR). dst: the
 * maps' size, same channels as src, caller-owned. */
kr_status kr_cv_synth_remap(const kr_cv_synth_remap_t *m, const kr_image_t *src, kr_image_t *dst,
                            const uint8_t border[3]);
/* The same for dst's rows y0 .. y1-1 only (0 <= y0 < y1 <= maps' height); the other rows
 * are left as they are. Each row comes out as kr_cv_synth_remap makes it (a rolling
 * shutter: bands of rows sampled from canvases of different times). */
kr_status kr_cv_synth_remap_rows(const kr_cv_synth_remap_t *m, const kr_image_t *src, kr_image_t *dst,
                                 int y0, int y1, const uint8_t border[3]);
/* Anti-aliased filled polygons in place (1 or 3 channels): n_poly polygons, polygon
 * k has counts[k] points; xy: all points (px, sub-pixel), ox/oy subtracted first. */
kr_status kr_cv_synth_fill_polys(kr_image_t *img, const double *xy, const int *counts, int n_poly,
                                 double ox, double oy, const uint8_t color[3]);
/* Gaussian blur in place, sigma in px (<= 0: nothing). */
kr_status kr_cv_synth_blur(kr_image_t *img, double sigma);

/* ---- calib ------------------------------------------------------------ */
/* Bright quadrilateral (card) candidates: adaptive mean threshold, external contours,
 * convex hull, 4-corner polygon (or min-area rectangle when the polygon is not 4-sided). */
typedef struct kr_cv_quad_params {
    int    block_px;           /* threshold neighbourhood, px (made odd, >= 3) */
    double offset;             /* grey levels above the neighbourhood mean to count as card */
    double min_area_px;        /* contour area bounds, px^2 */
    double max_area_px;
    double min_aspect;         /* long / short side of the min-area rectangle */
    double max_aspect;
    double max_strip_aspect;   /* longer outlines up to this aspect are kept too (cards laid
                                  edge to edge), with areas up to max_area_px * 8 */
    double min_fill;           /* contour area / min-area-rectangle area, 0..1 */
} kr_cv_quad_params;
/* grey: 1-channel image (borrowed). quads: caller-owned, 8 * max doubles: corners
 * x0 y0 .. x3 y3 (px) per candidate, in outline order. *n: candidates stored (<= max). */
kr_status kr_cv_calib_find_quads(const kr_image_t *grey, const kr_cv_quad_params *p,
                                 double *quads, int max, int *n);
/* BGR or grey -> grey; dst caller-owned, same size, 1 channel. */
kr_status kr_cv_calib_grey(const kr_image_t *src, kr_image_t *dst);
/* Drawing for the calibration overlay (img: BGR, modified in place). xy: n points (px). */
kr_status kr_cv_calib_polyline(kr_image_t *img, const double *xy, int n, int closed,
                               const uint8_t bgr[3], int thickness);
kr_status kr_cv_calib_text(kr_image_t *img, double x, double y, const char *text,
                           double scale, const uint8_t bgr[3]);
/* Fixed-point remap tables from float maps (w x h each, source px; outside -> black):
 * xy: 2*w*h int16, frac: w*h uint16, both caller-owned. */
kr_status kr_cv_calib_remap_tables(const float *map_x, const float *map_y, int w, int h,
                                   int16_t *xy, uint16_t *frac);
/* dst(c, r) = bilinear src at the table's point; dst caller-owned, table size, same
 * channels as src. No allocation for 1- and 3-channel 8-bit images. */
kr_status kr_cv_calib_remap(const kr_image_t *src, const int16_t *xy, const uint16_t *frac,
                            kr_image_t *dst);
/* ChArUco board (OpenCV aruco, dictionary DICT_5X5_100): squares_x x squares_y squares
 * of square_mm with markers of marker_mm in the white squares. Inner corner id k sits at
 * board mm ((k % (squares_x-1) + 1) * square_mm, (k / (squares_x-1) + 1) * square_mm)
 * from the board's top-left corner (x right, y down as printed). */
typedef struct kr_cv_charuco {
    int    squares_x, squares_y;
    double square_mm, marker_mm;
} kr_cv_charuco;
/* Renders the board at px_per_mm inside a white margin of margin_mm: *out views a
 * malloc'd grey image, *px owns it (caller frees with free()). */
kr_status kr_cv_calib_charuco_draw(const kr_cv_charuco *b, double px_per_mm, double margin_mm,
                                   kr_image_t *out, uint8_t **px);
/* Finds the board's inner corners in img (BGR or grey): ids and sub-pixel positions (px)
 * into caller arrays of max entries; *n found (0 if the board is not seen). */
kr_status kr_cv_calib_charuco_detect(const kr_cv_charuco *b, const kr_image_t *img, int *ids,
                                     double *xy, int max, int *n);
/* Camera intrinsics from views of a planar target: view v has counts[v] points, plane
 * coordinates obj (x y, mm) and image points img (px), concatenated over views.
 * K: 3x3 row-major; dist: k1 k2 p1 p2 k3; *rms_px: reprojection RMS. */
kr_status kr_cv_calib_camera(int n_views, const int *counts, const double *obj,
                             const double *img, int w, int h, double K[9], double dist[5],
                             double *rms_px);

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
/* Overlay drawing, in place on a 3-channel BGR (or 1-channel grey: the colour's
 * luma is used) view. Coordinates are image px, sub-pixel (drawn anti-aliased with
 * 1/16 px precision); thickness in px; alpha in [0,1] blends the shape over the
 * image (1 = opaque). Shapes may extend outside the image (clipped). bgr: 3 bytes. */
kr_status kr_cv_draw_line(kr_image_t *img, double x0, double y0, double x1, double y1,
                          const uint8_t bgr[3], int thickness);
/* xy: n points (x0,y0,x1,y1,...); closed != 0 joins the last point to the first. */
kr_status kr_cv_draw_polyline(kr_image_t *img, const double *xy, int n, int closed,
                              const uint8_t bgr[3], int thickness);
/* Filled polygon (n >= 3 points) blended with alpha. */
kr_status kr_cv_draw_polygon_fill(kr_image_t *img, const double *xy, int n, const uint8_t bgr[3],
                                  double alpha);
/* Circle of radius r px: thickness > 0 outline, thickness <= 0 filled. */
kr_status kr_cv_draw_circle(kr_image_t *img, double cx, double cy, double r, const uint8_t bgr[3],
                            int thickness);
/* Axis-aligned filled rectangle blended with alpha (label backgrounds, dimming). */
kr_status kr_cv_draw_rect_fill(kr_image_t *img, int x, int y, int w, int h, const uint8_t bgr[3],
                               double alpha);
/* ASCII text (Hershey simplex, cv::putText) whose capital letters are about
 * height_px tall, top-left corner of its box at (x, y). bg: NULL for none, else a
 * box of that colour blended at bg_alpha behind the text (with a 3 px margin). */
kr_status kr_cv_draw_text(kr_image_t *img, const char *ascii, int x, int y, double height_px,
                          const uint8_t bgr[3], int thickness, const uint8_t *bg, double bg_alpha);
/* Size in px of the box kr_cv_draw_text would fill (without the bg margin). */
kr_status kr_cv_text_size(const char *ascii, double height_px, int thickness, int *w, int *h);
/* dst = dst * (1 - alpha) + src * alpha; same size and channels. */
kr_status kr_cv_draw_blend(kr_image_t *dst, const kr_image_t *src, double alpha);
/* Outlines of the regions of a 1-channel label image (e.g. kr_track's class image) whose
 * pixels equal `value`: outer contours of regions of at least min_area_px pixels, largest
 * first, each simplified to within eps_px (Douglas-Peucker). Points are label-image px
 * (pixel centres at +0.5). xy: caller-owned, room for 2 * max_pts doubles; counts:
 * caller-owned, room for max_polys ints; *n_polys: polygons stored (points beyond
 * max_pts are dropped with their polygon). Scratch buffers are kept per thread and only
 * grow, so repeated calls on same-size images do not allocate in the caller's loop. */
kr_status kr_cv_draw_label_outlines(const kr_image_t *labels, uint8_t value, double min_area_px,
                                    double eps_px, double *xy, int max_pts, int *counts,
                                    int max_polys, int *n_polys);

#ifdef __cplusplus
}
#endif
#endif /* KR_CV_H */
