/* kr_app.h - the karuta-ref subcommands; each lives in kr_cmd_<name>.c.
 * Every command returns the process exit status: 0 ok, 1 bad input or failed
 * run, 2 usage error (../../README.md, spec cli.md).
 * SPDX-License-Identifier: MIT                                          */
#ifndef KR_APP_H
#define KR_APP_H

#include <stdio.h>

#include "kr_core.h"

int kr_cmd_rule(int argc, char **argv);
int kr_cmd_calibrate(int argc, char **argv);
int kr_cmd_analyze(int argc, char **argv);
int kr_cmd_review(int argc, char **argv);
int kr_cmd_clip(int argc, char **argv);
int kr_cmd_live(int argc, char **argv);
int kr_cmd_layout(int argc, char **argv);
int kr_cmd_enroll(int argc, char **argv);

/* Reads the layout from the frame at at_s seconds of video (< 0: the recog default),
 * a moment of the memorisation period, with kr_recog's default model, into *out (caller-owned) as a `layout` record at t_us 0. calib_path may be NULL
 * (calibrate from the video). Refuses, with one line on stderr naming the cards, on
 * any problem (not 50 cards, blank, cut off, look-alikes): returns 1; 0 on success. */
struct kr_rules_record;
int kr_app_layout_from_video(const char *video, const char *calib_path, double at_s,
                             struct kr_rules_record *out);

/* As kr_app_layout_from_video, from one full-size camera frame already in memory (live:
 * the source's first frame). bgr: borrowed; calib_path as there (NULL: calibrate from
 * the frame); what names the source in messages. The frame goes through a lossless
 * temporary PNG (kr_recog reads scenes from files). Refuses on any doubt with one line
 * on stderr: returns 1; 0 on success (*out caller-owned, a `layout` record at t_us 0). */
struct kr_image;
int kr_app_layout_from_frame(const struct kr_image *bgr, const char *calib_path, const char *what,
                             struct kr_rules_record *out);

/* The calibration from one camera frame (raw px, borrowed; t_us its time) when none is
 * given. A camera turned half a turn (or a quarter) fits the field as well with player A
 * at the bottom of the picture; the layout tells the sides apart: when some of its placed
 * cards do not lie on the card outlines seen, A at the top, left and right are tried too,
 * and the side putting most of them on outlines is kept (A at the bottom on a tie; the
 * result's a_side names it, and a debug line says why). layout: a `layout` record, or NULL
 * (A at the bottom).
 * *out caller-owned (kr_calib_destroy). Errors as kr_calib_create_from_frame's, with
 * kr_calib_error() set. */
struct kr_calib;
kr_status kr_app_calibrate(const struct kr_image *img, int64_t t_us, const struct kr_rules_record *layout,
                           struct kr_calib **out);

/* A rolling shutter's readout measured from the lights' flicker (kr_calib_flicker) over the
 * first 48 frames within 2 s: first (borrowed; NULL when none was read yet), then frames
 * read from rd. ro->found 0 when the bands are not seen or no frames are read. */
struct kr_media_reader;
struct kr_frame;
struct kr_calib_readout;
void kr_app_readout_from_flicker(struct kr_media_reader *rd, const struct kr_frame *first,
                                 struct kr_calib_readout *ro);

/* The same measurement a frame at a time, for a source that cannot be read ahead (live):
 * fl from kr_app_flicker_create (NULL on failure; kr_calib_flicker_destroy), *t0 set to
 * INT64_MIN before the first frame. Returns 1 while it wants more frames, 0 once *ro holds
 * the result (found or not). img borrowed for the call. */
struct kr_calib_flicker;
struct kr_image;
struct kr_calib_flicker *kr_app_flicker_create(int w, int h);
int kr_app_flicker_feed(struct kr_calib_flicker *fl, int64_t *t0, const struct kr_image *img, int64_t t_us,
                        struct kr_calib_readout *ro);

/* The summary.json members analyze and live write alike about the footage, each a line
 * ending in a comma: "light" (the lamps' flicker, the frames steadied) and "noise" (the
 * sensor's, kr_pipe_noisy). ps borrowed. */
struct kr_pipe_stats;
void kr_app_summary_footage(FILE *f, const struct kr_pipe_stats *ps);

/* Where the camera stands (kr_calib_camera_pose: the mat point below it, its height and
 * tilt; the focal length guessed from the picture's size without a lens file), as a JSON
 * object, or null when the calibration gives none (calib NULL, or no camera over the mat).
 * No comma or newline: analyze writes it in "calibration", live at the top. calib borrowed. */
struct kr_calib;
void kr_app_summary_camera(FILE *f, const struct kr_calib *calib);

#endif /* KR_APP_H */
