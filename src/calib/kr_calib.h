/* kr_calib.h - camera-to-mat calibration: raw camera pixels <-> mat millimetres.
 * Fits a homography plus radial lens distortion to the card outlines of one still
 * frame, loads/saves the calib/ JSON format, and maps points or whole frames cheaply.
 * SPDX-License-Identifier: MIT                                                  */
#ifndef KR_CALIB_H
#define KR_CALIB_H
#include "kr_core.h" /* kr_status, kr_image_t */

#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started:
 *   kr_calib_config cfg; kr_calib_config_default(&cfg);
 *   kr_calib_t *c;
 *   kr_calib_create_from_frame(&cfg, &bgr, t_us, &c)   (or kr_calib_load(path, &c), or
 *       kr_calib_create_from_video(&cfg, NULL, path, &c, NULL, NULL): median of frames,
 *       still-scene check; with a lens from a board: kr_calib_config_set_lens() first)
 *       on failure kr_calib_error() holds a one-line reason ("found 9 card outlines, ...")
 *   if (!c->ok) refuse to rule: c->reason says why the fit is poor
 *   kr_calib_px_to_mm(c, px, py, &x, &y) / kr_calib_mm_to_px(c, x, y, &px, &py)
 *   kr_calib_save(c, "CALIB.json")                       atomic, with the `grid` member
 *   per frame, top-down mat image: kr_calib_warp_create(c, &wcfg, &w) once, then
 *       kr_calib_warp_apply(w, &frame, &mat_img) (no allocation), kr_calib_warp_destroy(w)
 *   kr_calib_destroy(c)
 * Frames: "raw px" are pixels of the camera image as decoded (with lens distortion,
 * origin top-left, x right, y down). "undistorted px" are the same camera's pixels
 * with distortion removed (same K matrix). Mat mm: geometry.md (origin at the field
 * centre, +x to A's right, +y from A to B). The camera is assumed not mirrored.
 * Threading: a kr_calib_t is read-only after creation; share it between threads freely. */

#define KR_CALIB_CARD_W_MM 52.0   /* card width, along mat x (portrait) */
#define KR_CALIB_CARD_H_MM 73.0   /* card depth, along mat y */
#define KR_CALIB_FIELD_HALF_W_MM 435.0
#define KR_CALIB_FIELD_HALF_H_MM 254.0
#define KR_CALIB_MAX_CARDS 128    /* card outlines kept per frame */
#define KR_CALIB_MAX_READOUT_US 100000 /* a rolling shutter reads a frame within its period: 41.7 ms at 24 fps */

/* Where player A's territory lies in the camera image. */
typedef enum {
    KR_CALIB_A_BOTTOM = 0, /* default; near-90-degree views tie-break to A on the left */
    KR_CALIB_A_TOP,
    KR_CALIB_A_LEFT,
    KR_CALIB_A_RIGHT
} kr_calib_a_side;
const char *kr_calib_a_side_str(kr_calib_a_side s);            /* "bottom", ... */
int         kr_calib_a_side_parse(const char *s, kr_calib_a_side *out); /* 0 ok, -1 unknown */

typedef struct kr_calib_config {
    int    min_cards;      /* fewer usable card outlines -> failure; default 12 (range 6..50) */
    int    poor_cards;     /* fewer -> quality "poor"; default 20 */
    double poor_rms_mm;    /* corner residual RMS above this -> "poor", mm; default 1.5 */
    double row_jitter_mm;  /* sigma of a card's y offset inside its row, mm; default 1.0 */
    double card_rot_deg;   /* sigma of a card's rotation on the mat, degrees; default 1.0 */
    double focal_px;       /* focal length used for the distortion radius, px; 0 = max(w,h) */
    int    fit_k2;         /* 1: fit k1 and k2; 0: k1 only; default 1 */
    kr_calib_a_side a_side;/* default KR_CALIB_A_BOTTOM */
    int    allow_cutoff;   /* 1: accept a field whose corners fall outside the image; default 0 */
    /* detection */
    double thresh_offset;  /* grey levels a card must exceed its neighbourhood mean; default 8 */
    double min_card_frac;  /* card long side >= this * max(w,h); default 0.02 */
    double max_card_frac;  /* card long side <= this * max(w,h); default 0.25 */
    /* lens known from a board (kr_calib_board_*): if intrinsics_known, fx..dist are used
     * as given and only the homography is fitted. Default 0. */
    int    intrinsics_known;
    double fx, fy, cx, cy; /* px */
    double dist[5];        /* k1 k2 p1 p2 k3 (OpenCV order) */
} kr_calib_config;
void kr_calib_config_default(kr_calib_config *cfg); /* fills caller's *cfg */

/* One card outline used by the fit. */
typedef struct kr_calib_card {
    double px[4][2];  /* detected corners in raw px (card_inset_mm inside the edge), in
                         the order of the mat corners below */
    double mm[4][2];  /* fitted mat corners of the whole card: (-w/2,-36.5) (w/2,-36.5)
                         (w/2,36.5) (-w/2,36.5) around the centre, rotated by rot_deg */
    double x_mm, y_mm;/* fitted centre */
    double rot_deg;   /* fitted rotation on the mat, counter-clockwise seen from above */
    double w_mm;      /* outline width along x: 52 for one card; wider for a strip of
                         cards laid edge to edge in a row, seen as one outline */
    int    row;       /* -3..-1 A lower/middle/upper, 1..3 B upper/middle/lower; 0 unknown */
    double resid_mm;  /* RMS of this card's corner residuals, mm */
} kr_calib_card_t;

/* The calibration. Read-only for users; fields documented in calib/README.md. */
typedef struct kr_calib {
    int32_t img_w, img_h;  /* camera image size, px */
    double  fx, fy, cx, cy;/* intrinsics, px (fx = fy = focal guess unless from a board) */
    double  dist[5];       /* k1 k2 p1 p2 k3 on (undistorted px - c) / f, OpenCV convention */
    int     intrinsics_known; /* 1 if fx..dist came from a board calibration */
    double  H[9];          /* mat mm -> undistorted px, row-major, H[8] = 1 */
    double  Hinv[9];       /* undistorted px -> mat mm */
    kr_calib_a_side a_side;/* where A's territory is in the image (dominant direction) */
    double  rms_mm;        /* RMS of card-corner residuals, mm (the file's rms_mm) */
    double  worst_mm;      /* worst corner residual, mm */
    double  rms_px;        /* RMS of card-corner residuals, raw px */
    double  px_per_mm;     /* mean image scale over the field, px per mm */
    double  card_inset_mm; /* detected card outlines lie this far inside the card edge
                              (the cards' coloured rim, edge blur), mm; fitted */
    int     n_found;       /* card-like outlines detected */
    int     n_cards;       /* outlines used by the fit (cards[0..n_cards-1]) */
    int     ok;            /* 1 good enough to rule on; 0 poor (reason says why) */
    char    reason[160];   /* "" when ok */
    int64_t t_us;          /* time of the source frame, us (-1 unknown) */
    char    source[256];   /* source video path or "" */
    int64_t readout_us;    /* rolling shutter: the time the camera takes to read its image from
                              the first row to the last, us (0: all rows at once, or unknown);
                              given (--readout-us) or measured from the lights' flicker
                              (kr_calib_flicker); not part of the geometric fit */
    kr_calib_card_t cards[KR_CALIB_MAX_CARDS];
} kr_calib_t;

/* A rolling shutter's readout measured from mains flicker (kr_calib_flicker.c): lamps on
 * mains power pulse at 100 or 120 Hz; a camera reading its rows one after another sees them
 * as level bands across the picture, flicker_hz x readout of them over its height, moving
 * from frame to frame. Fitted over the first frames (the memorisation period: a still
 * scene); a global shutter, steady light, or bands that stand still (a frame rate dividing
 * the flicker, or a camera's anti-banding exposure) give found = 0. */
typedef struct kr_calib_readout {
    int     found;      /* 1: bands seen and fitted (fit >= 0.5, amplitude >= 0.15 %) */
    int64_t readout_us; /* the best fit's readout, top row to bottom row (0 when none) */
    double  flicker_hz; /* 100 or 120 */
    double  amplitude;  /* the bands' swing of the level, a share (0.01 = 1 %) */
    double  fit;        /* share of the rows' level variation the bands explain (0..1) */
} kr_calib_readout;

typedef struct kr_calib_flicker kr_calib_flicker_t; /* opaque */
/* For frames of img_w x img_h (BGR or grey); keeps the first max_frames (8 ... 1024) added.
 * *out caller-owned (kr_calib_flicker_destroy, NULL-safe). */
kr_status kr_calib_flicker_create(int img_w, int img_h, int max_frames, kr_calib_flicker_t **out);
void      kr_calib_flicker_destroy(kr_calib_flicker_t *f);
/* One frame (borrowed for the call) at presentation time t_us, in time order. */
kr_status kr_calib_flicker_add(kr_calib_flicker_t *f, const kr_image_t *img, int64_t t_us);
int       kr_calib_flicker_count(const kr_calib_flicker_t *f); /* frames kept */
/* The fit over the frames added (fewer than 8: found = 0). KR_ERR_NOMEM. */
kr_status kr_calib_flicker_fit(const kr_calib_flicker_t *f, kr_calib_readout *out);

/* Last failure text of this thread's kr_calib_* call: one line naming what was seen
 * (e.g. "found 9 card outlines, need at least 12"). Never NULL. */
const char *kr_calib_error(void);

/* Detects card-like outlines in img (BGR or grey, raw px) and fits the calibration.
 * t_us is recorded as the frame time. *out owned by the caller (kr_calib_destroy).
 * KR_ERR_INVALID with kr_calib_error() set when too few cards, blank frame, field cut
 * off, inconsistent layout; KR_ERR_CV / KR_ERR_NOMEM otherwise. */
kr_status kr_calib_create_from_frame(const kr_calib_config *cfg, const kr_image_t *img,
                                     int64_t t_us, kr_calib_t **out);

/* Card outline detection alone. quads: caller-owned, room for 8 * max doubles, filled
 * with 4 refined corners (raw px, x0 y0 .. x3 y3, order along the outline) per card;
 * *n gets the count (<= max). Fails only on bad arguments or OpenCV errors. */
kr_status kr_calib_detect_cards(const kr_calib_config *cfg, const kr_image_t *img,
                                double *quads, int max, int *n);

/* The fit alone, from card corners (raw px, 8 doubles per card, any corner order) seen
 * in an img_w x img_h image. Same result and errors as kr_calib_create_from_frame. */
kr_status kr_calib_fit_cards(const kr_calib_config *cfg, int img_w, int img_h,
                             const double *quads, int n, int64_t t_us, kr_calib_t **out);

/* A calibration from explicit parameters (H: mat mm -> undistorted px, row-major;
 * dist: k1 k2 p1 p2 k3 or NULL). For tests and tools. *out caller-owned. */
kr_status kr_calib_create_from_model(int img_w, int img_h, double fx, double fy, double cx,
                                     double cy, const double dist[5], const double H[9],
                                     kr_calib_t **out);

/* Calibration from a video file: up to `frames` frames spread over span_us around at_us
 * are combined by a per-pixel median (a passing hand disappears), after checking the
 * scene is still. On success *out is caller-owned and, if frame is not NULL, *frame
 * views the combined BGR frame whose pixels *frame_px owns (caller frees with free()).
 * Failures (KR_ERR_INVALID / KR_ERR_IO / KR_ERR_FORMAT / KR_ERR_CODEC) leave a one-line
 * kr_calib_error() naming the file and time: unreadable video, --at outside the video,
 * moving scene, and everything kr_calib_create_from_frame refuses. */
typedef struct kr_calib_video_config {
    int64_t at_us;       /* centre time, us; < 0: default 2 s (the middle of videos shorter
                            than 4 s), and if the scene moves there 1, 0.5, 4, 8, 16 s */
    int     frames;      /* frames combined, 1..9; default 5 */
    int64_t span_us;     /* time they cover, us; default 800000 */
    double  max_moving;  /* share of pixels allowed to change between the first and last
                            frame (|grey difference| > 40); default 0.03 */
} kr_calib_video_config;
void kr_calib_video_config_default(kr_calib_video_config *vcfg); /* fills caller's *vcfg */
/* cfg, vcfg (NULL = defaults, see above) and path: borrowed. */
kr_status kr_calib_create_from_video(const kr_calib_config *cfg, const kr_calib_video_config *vcfg,
                                     const char *path, kr_calib_t **out, kr_image_t *frame,
                                     uint8_t **frame_px);

void kr_calib_destroy(kr_calib_t *c); /* NULL-safe */

/* ---- lens from a printed ChArUco board (optional precise path) -------------
 * Film the board (calib/charuco-board.png) moved and tilted under the camera for a
 * few seconds; kr_calib_lens_from_video() gives the lens; pass it in kr_calib_config
 * (intrinsics_known = 1, fx..dist) so the card fit only has to find the homography. */
typedef struct kr_calib_board {
    int    squares_x, squares_y; /* default 10 x 7 */
    double square_mm, marker_mm; /* default 25, 18 (as printed: 250 x 175 mm) */
} kr_calib_board;
void kr_calib_board_default(kr_calib_board *b); /* fills caller's *b */
/* The printable board at px_per_mm with a 10 mm white margin; *out views a malloc'd
 * grey image owned by *px (caller frees with free()). */
kr_status kr_calib_board_image(const kr_calib_board *b, double px_per_mm, kr_image_t *out,
                               uint8_t **px);

typedef struct kr_calib_lens {
    int32_t img_w, img_h;   /* px */
    double  fx, fy, cx, cy; /* px */
    double  dist[5];        /* k1 k2 p1 p2 k3, OpenCV convention */
    double  rms_px;         /* reprojection RMS of the board corners, px */
    int     views;          /* board views used */
} kr_calib_lens;
/* Frames every step_us through the video; views with at least 12 board corners are
 * used (needs 4 or more). KR_ERR_INVALID + kr_calib_error() when the board is not seen
 * often enough. */
kr_status kr_calib_lens_from_video(const kr_calib_board *b, const char *path, int64_t step_us,
                                   kr_calib_lens *out);
/* Same from views already decoded (BGR or grey, all the same size). */
kr_status kr_calib_lens_from_images(const kr_calib_board *b, const kr_image_t *imgs, int n,
                                    kr_calib_lens *out);
/* Lens file "karuta-lens/1" (calib/README.md); save is atomic. load also accepts a
 * calibration file (its intrinsics). */
kr_status kr_calib_lens_save(const kr_calib_lens *l, const char *path);
kr_status kr_calib_lens_load(const char *path, kr_calib_lens *out); /* *out: caller's storage */
/* Copies the lens into cfg (intrinsics_known = 1). */
void kr_calib_config_set_lens(kr_calib_config *cfg, const kr_calib_lens *l);

/* JSON (calib/README.md). save writes atomically (complete or absent). load validates
 * every field; KR_ERR_FORMAT / KR_ERR_IO with kr_calib_error() naming file and member. */
kr_status kr_calib_save(const kr_calib_t *c, const char *path);
kr_status kr_calib_load(const char *path, kr_calib_t **out); /* *out caller-owned (kr_calib_destroy) */

/* Point mapping. Return 0 on success, -1 when the point has no image (behind the
 * camera, or outside the range where the lens model is invertible). Thread-safe, no
 * allocation. */
int kr_calib_mm_to_px(const kr_calib_t *c, double x_mm, double y_mm, double *px, double *py);
int kr_calib_px_to_mm(const kr_calib_t *c, double px, double py, double *x_mm, double *y_mm);
/* Same as kr_calib_mm_to_px with a void * context: matches kr_track_map_fn. */
int kr_calib_map_mm_to_px(void *calib, double x_mm, double y_mm, double *px, double *py);
/* Lens only: raw px <-> undistorted px. */
void kr_calib_distort(const kr_calib_t *c, double ux, double uy, double *px, double *py);
int  kr_calib_undistort(const kr_calib_t *c, double px, double py, double *ux, double *uy);

/* Where the camera stands over the mat, from the homography and the intrinsics (H = K [r1 r2 t]
 * up to scale, the pose's rotation taken orthonormal): its centre in mat mm, z up. With the
 * focal length a guess (no board: fx = max(w, h)) the height is off by the guess's share and
 * the nadir by the tilt's part of it; a camera looking straight down has its nadir under the
 * principal point whatever the focal length. */
typedef struct kr_calib_camera {
    double x_mm, y_mm; /* the nadir: the mat point straight below the camera's centre */
    double height_mm;  /* the centre's height above the mat */
    double tilt_deg;   /* the optical axis' angle from straight down */
} kr_calib_camera;
/* *out: caller's storage. KR_ERR_INVALID when H does not factor as a camera over the mat
 * (degenerate, or the mat seen from below). */
kr_status kr_calib_camera_pose(const kr_calib_t *c, kr_calib_camera *out);

/* px -> mm lookup for a downscaled frame: fills table[2 * (r * grid_w + c)] with the
 * mat (x, y) mm seen at raw pixel ((c + 0.5) * step - 0.5, (r + 0.5) * step - 0.5), i.e. the
 * centre of cell (c, r) of a frame shrunk by step; NAN where no mat point is seen.
 * grid_w = ceil(img_w / step), grid_h = ceil(img_h / step). table: caller-owned,
 * 2 * grid_w * grid_h floats. Build once; per frame, look up without computing. */
kr_status kr_calib_px_grid_to_mm(const kr_calib_t *c, int step, float *table, int grid_w,
                                 int grid_h);

/* Top-down mat image. Output pixel (col, row) shows the mat point
 *   x = x_min_mm + (col + 0.5) / px_per_mm,  y = y_max_mm - (row + 0.5) / px_per_mm
 * (so B is at the top and A's right to the right, whatever the camera orientation). */
typedef struct kr_calib_warp_config {
    double px_per_mm;  /* output resolution, px per mm; default 1.0 (range 0.05..8) */
    double x_min_mm, x_max_mm, y_min_mm, y_max_mm; /* area; default field + 40 mm */
} kr_calib_warp_config;
void kr_calib_warp_config_default(kr_calib_warp_config *cfg); /* fills caller's *cfg */
typedef struct kr_calib_warp kr_calib_warp_t; /* opaque */
/* Builds the lookup (fixed-point remap tables). *out caller-owned. */
kr_status kr_calib_warp_create(const kr_calib_t *c, const kr_calib_warp_config *cfg,
                               kr_calib_warp_t **out);
/* Output image size of w in px (what kr_calib_warp_apply's dst must be). */
void kr_calib_warp_size(const kr_calib_warp_t *w, int *out_w, int *out_h);
/* src: raw camera frame (calibration image size, 1 or 3 channels). dst: caller-owned,
 * out_w x out_h, same channel count. Points outside the camera image are black.
 * No allocation; safe to call from one thread per warp object. */
kr_status kr_calib_warp_apply(const kr_calib_warp_t *w, const kr_image_t *src,
                              kr_image_t *dst);
void kr_calib_warp_destroy(kr_calib_warp_t *w); /* NULL-safe */

/* Overlay for a person to check: field outline, rows, competition lines, each card
 * outline as seen (green) and its fitted mat rectangle (magenta). Draws into img
 * (BGR, calibration image size). */
kr_status kr_calib_draw_overlay(const kr_calib_t *c, kr_image_t *img);

#ifdef __cplusplus
}
#endif
#endif /* KR_CALIB_H */
