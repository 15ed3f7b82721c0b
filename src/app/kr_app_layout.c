/* kr_app_layout.c - the layout record read from the footage, for commands whose
 * match file has none (analyze, and review through it, from the file; live from a frame).
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_core.h"
#include "kr_cv.h"
#include "kr_recog.h"
#include "kr_recog_scene.h"
#include "kr_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the frame comes from: a video file at a time, or a frame in memory. */
typedef struct layout_src {
    const char       *video; /* NULL: bgr */
    double            at_s;
    const kr_image_t *bgr;
} layout_src;

static int layout_read(const layout_src *src, const char *what, const char *calib_path, kr_rules_record *out);

int kr_app_layout_from_video(const char *video, const char *calib_path, double at_s, kr_rules_record *out)
{
    layout_src src = {video, at_s, NULL};
    return layout_read(&src, video, calib_path, out);
}

int kr_app_layout_from_frame(const kr_image_t *bgr, const char *calib_path, const char *what, kr_rules_record *out)
{
    layout_src src = {NULL, 0, bgr};
    return layout_read(&src, what, calib_path, out);
}

static int layout_read(const layout_src *src, const char *what, const char *calib_path, kr_rules_record *out)
{
    char msg[512];
    kr_recog_model_t *m = NULL;
    const char *model = kr_recog_default_model();
    if (kr_recog_model_load(model, &m, msg, sizeof msg) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: the match file has no layout and the card model cannot be read: %s", what, msg);
        return 1;
    }
    kr_recog_config cfg;
    kr_recog_config_default(&cfg);
    kr_recog_scene sc;
    kr_status s = src->video ? kr_recog_scene_read(src->video, src->at_s, calib_path, m, &cfg, &sc, msg, sizeof msg)
                             : kr_recog_scene_from_frame(src->bgr, 0, what, calib_path, m, &cfg, &sc, msg, sizeof msg);
    kr_recog_model_destroy(m);
    if (s != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: the match file has no layout, and reading it from the footage failed: %s", what, msg);
        return 1;
    }
    /* Never invent a layout silently: any problem (count, blank, cut off, look-alike)
     * stops the run; `karuta-ref layout --force` lets a person confirm and supply one. */
    if (kr_recog_layout_problem(sc.cards, sc.n, 50, msg, sizeof msg) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: the match file has no layout, and the one read from the footage needs a person: %s "
                             "(run karuta-ref layout, check it, add it to the match file)", what, msg);
        kr_recog_scene_free(&sc);
        return 1;
    }
    kr_rules_record_init(out, KR_REC_LAYOUT);
    out->has_t = true;
    out->t_us = 0;
    out->n_cards = 0;
    for (int i = 0; i < sc.n && out->n_cards < (int)(sizeof out->cards / sizeof out->cards[0]); i++) {
        const kr_recog_layout_card *c = &sc.cards[i];
        kr_rules_layout_card *d = &out->cards[out->n_cards++];
        d->card = c->res.id;
        d->owner = c->owner == KR_RECOG_OWNER_B ? KR_SIDE_B : KR_SIDE_A;
        d->row = c->row == 1 ? KR_ROW_UPPER : c->row == 2 ? KR_ROW_MIDDLE : c->row == 3 ? KR_ROW_LOWER : KR_ROW_NONE;
        d->has_pos = true;
        d->x_mm = c->x_mm;
        d->y_mm = c->y_mm;
    }
    kr_log(KR_LOG_INFO, "%s: layout of %d cards read from the footage", what, out->n_cards);
    kr_recog_scene_free(&sc);
    return 0;
}

