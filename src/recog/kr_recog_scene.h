/* kr_recog_scene.h - a layout read from a video: one still frame of the memorisation
 * period, its calibration and card outlines, identified cards, and the layout record.
 * SPDX-License-Identifier: MIT                                                        */
#ifndef KR_RECOG_SCENE_H
#define KR_RECOG_SCENE_H
#include "kr_calib.h"
#include "kr_core.h"
#include "kr_recog.h"

#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started:
 *   kr_recog_model_load(kr_recog_default_model(), &m, err, n)
 *   kr_recog_scene_read(video, at_s, calib_path_or_NULL, m, &cfg, &sc, err, n)
 *   kr_recog_layout_problem(sc.cards, sc.n, 50, msg, n)     refuse on problems
 *   kr_recog_layout_write(fp, sc.cards, sc.n, 0, 1)         one `layout` JSON line
 *   kr_recog_scene_free(&sc)
 * Used by karuta-ref layout / enroll, and by analyze / review / live when the match
 * file has no layout. */

typedef struct kr_recog_scene {
    int64_t               t_us;   /* time of the frame read, us */
    int                   n;      /* cards found */
    kr_recog_layout_card *cards;  /* owned: n cards */
    kr_calib_t           *calib;  /* owned: the calibration used */
    uint8_t              *px;     /* owned: the frame's pixels */
    kr_image_t            frame;  /* view of px (BGR) */
    int64_t               read_us;  /* wall time of the whole read (decode, calibration,
                                       outlines, recognition), us; for reports */
    int64_t               recog_us; /* of which sampling, features and assignment, us */
} kr_recog_scene;

/* Path of the default model: models/cards.krm of the source tree this was built from. */
const char *kr_recog_default_model(void);

/* Reads the frame at at_s seconds of video (at_s < 0: the calib module's default, 2 s
 * or the middle of a shorter video). Without calib_path, calibrates from the video
 * (kr_calib_create_from_video: median of a few frames around that time, so a passing
 * hand disappears) and reads the cards from that combined frame; with it, loads the
 * calibration and uses the single frame. Then finds the card outlines (cards laid edge
 * to edge are split),  and reads the layout with model m.
 * m may be NULL: outlines, positions and features only (no identification).
 * On failure err holds one line naming the file/time. *out owned by the caller
 * (kr_recog_scene_free). */
kr_status kr_recog_scene_read(const char *video, double at_s, const char *calib_path,
                              const kr_recog_model_t *m, const kr_recog_config *cfg,
                              kr_recog_scene *out, char *err, size_t errlen);

/* The same from one frame already in memory (a live source): bgr is borrowed and copied,
 * t_us is its time, what names the source in errors (NULL: "the frame"). Without
 * calib_path, calibrates from this frame alone (kr_calib_create_from_frame). */
kr_status kr_recog_scene_from_frame(const kr_image_t *bgr, int64_t t_us, const char *what, const char *calib_path,
                                    const kr_recog_model_t *m, const kr_recog_config *cfg, kr_recog_scene *out,
                                    char *err, size_t errlen);
void kr_recog_scene_free(kr_recog_scene *s); /* NULL-safe; leaves *s zeroed */

/* Writes the `layout` record (match-log.md) as one JSON line to fp: cards sorted by
 * owner, row, x; per card "card", "owner", "row", "x_mm", "y_mm", plus "confidence",
 * "runner_up", "score" and, when ambiguous and mark_confirm, "confirm":true. */
kr_status kr_recog_layout_write(FILE *fp, const kr_recog_layout_card *cards, int n, int64_t t_us,
                                int mark_confirm);

#ifdef __cplusplus
}
#endif
#endif /* KR_RECOG_SCENE_H */
