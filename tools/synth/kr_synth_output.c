/* kr_synth_output.c - writers: match.jsonl (what analyze is given), truth.jsonl (the
 * full true karuta-match/1 log), meta.json (camera truth) and truth_frames.jsonl.
 * SPDX-License-Identifier: MIT                                                     */
#include "kr_synth_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *PL[2] = {"A", "B"};
static const char *HANDS[2] = {"left", "right"};
static const char *ROWS[3] = {"upper", "middle", "lower"};

static double r2(double v) { return round(v * 100.0) / 100.0; }

static cJSON *num_array(const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(r2(v[i])));
    return a;
}

static cJSON *raw_array(const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

static bool put_line(FILE *f, cJSON *o)
{
    if (!o)
        return false;
    char *t = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!t)
        return false;
    bool ok = fputs(t, f) >= 0 && fputc('\n', f) != EOF;
    free(t);
    return ok;
}

static cJSON *match_header(const kr_synth_t *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "match");
    cJSON_AddStringToObject(o, "format", "karuta-match/1");
    cJSON *pl = cJSON_AddObjectToObject(o, "players");
    for (int p = 0; p < 2; p++) {
        cJSON *x = cJSON_AddObjectToObject(pl, PL[p]);
        cJSON_AddStringToObject(x, "name", s->players[p].name);
    }
    if (s->description[0])
        cJSON_AddStringToObject(o, "note", s->description);
    return o;
}

static cJSON *layout_rec(const kr_synth_t *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "layout");
    cJSON_AddNumberToObject(o, "t_us", 0);
    cJSON *a = cJSON_AddArrayToObject(o, "cards");
    for (int i = 0; i < s->n_cards; i++) {
        const kr_synth_card *c = &s->cards[s->card_ids[i]];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "card", c->id);
        cJSON_AddStringToObject(x, "owner", PL[c->owner]);
        cJSON_AddStringToObject(x, "row", ROWS[c->row]);
        cJSON_AddNumberToObject(x, "x_mm", r2(c->pose0.x));
        cJSON_AddNumberToObject(x, "y_mm", r2(c->pose0.y));
        cJSON_AddItemToArray(a, x);
    }
    return o;
}

static bool is_reading(kr_synth_ev_type t)
{
    return t == KR_SYNTH_EV_KAMI_START || t == KR_SYNTH_EV_KIMARIJI || t == KR_SYNTH_EV_READING_VOID ||
           t == KR_SYNTH_EV_SHIMO_START;
}

static cJSON *event_rec(const kr_synth_event *e, int id)
{
    static const char *names[] = {"kami_start", "kimariji", "reading_void", "shimo_start", "touch", "push_out",
                                  "hand_contact", "early_entry", "settle", "send", "rearrange"};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", names[e->type]);
    if (!is_reading(e->type) && e->type != KR_SYNTH_EV_SETTLE) {
        char b[16];
        snprintf(b, sizeof b, "s%d", id);
        cJSON_AddStringToObject(o, "id", b);
    }
    if (is_reading(e->type))
        cJSON_AddNumberToObject(o, "seq", e->seq);
    if (e->type == KR_SYNTH_EV_KAMI_START)
        cJSON_AddNumberToObject(o, "card", e->card);
    cJSON_AddNumberToObject(o, "t_us", (double)e->t_us);
    switch (e->type) {
    case KR_SYNTH_EV_TOUCH:
        cJSON_AddStringToObject(o, "player", PL[e->player]);
        cJSON_AddStringToObject(o, "hand", HANDS[e->hand]);
        cJSON_AddNumberToObject(o, "card", e->card);
        cJSON_AddStringToObject(o, "territory", PL[e->territory]);
        break;
    case KR_SYNTH_EV_PUSH_OUT:
        cJSON_AddStringToObject(o, "player", PL[e->player]);
        cJSON_AddNumberToObject(o, "card", e->card);
        cJSON_AddStringToObject(o, "territory", PL[e->territory]);
        break;
    case KR_SYNTH_EV_EARLY_ENTRY:
        cJSON_AddStringToObject(o, "player", PL[e->player]);
        cJSON_AddStringToObject(o, "hand", HANDS[e->hand]);
        break;
    case KR_SYNTH_EV_SEND:
        cJSON_AddStringToObject(o, "from", PL[e->from]);
        cJSON_AddNumberToObject(o, "card", e->card);
        break;
    case KR_SYNTH_EV_REARRANGE:
        cJSON_AddStringToObject(o, "player", PL[e->player]);
        cJSON_AddNumberToObject(o, "card", e->card);
        cJSON_AddNumberToObject(o, "x_mm", r2(e->x_mm));
        cJSON_AddNumberToObject(o, "y_mm", r2(e->y_mm));
        break;
    default:
        break;
    }
    return o;
}

static kr_status write_logs(const kr_synth_t *s, const char *path, bool truth)
{
    kr_outfile_t of;
    kr_status st = kr_outfile_open(path, &of);
    if (st != KR_OK)
        return st;
    bool ok = put_line(of.fp, match_header(s)) && put_line(of.fp, layout_rec(s));
    int id = 0;
    for (int i = 0; ok && i < s->n_events; i++) {
        const kr_synth_event *e = &s->events[i];
        if (!truth && !is_reading(e->type))
            continue;
        if (!is_reading(e->type) && e->type != KR_SYNTH_EV_SETTLE)
            id++;
        ok = put_line(of.fp, event_rec(e, id));
    }
    if (!ok) {
        kr_outfile_abort(&of);
        return KR_ERR_IO;
    }
    return kr_outfile_commit(&of);
}

static kr_status write_meta(const kr_synth_t *s, const char *path)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return KR_ERR_NOMEM;
    cJSON_AddStringToObject(o, "format", "karuta-synth-meta/1");
    cJSON_AddStringToObject(o, "scenario", s->name);
    cJSON_AddStringToObject(o, "description", s->description);
    cJSON_AddBoolToObject(o, "holdout", s->holdout);
    cJSON_AddNumberToObject(o, "seed", (double)s->seed);
    cJSON_AddNumberToObject(o, "look_seed", (double)s->look_seed);
    cJSON *fps = cJSON_AddArrayToObject(o, "fps");
    cJSON_AddItemToArray(fps, cJSON_CreateNumber(s->fps_num));
    cJSON_AddItemToArray(fps, cJSON_CreateNumber(s->fps_den));
    cJSON *size = cJSON_AddArrayToObject(o, "size");
    cJSON_AddItemToArray(size, cJSON_CreateNumber(s->w));
    cJSON_AddItemToArray(size, cJSON_CreateNumber(s->h));
    cJSON_AddNumberToObject(o, "frames", s->n_frames);
    cJSON_AddStringToObject(o, "frame_times",
                            "frame i is at t_us = round(i * 1e6 * fps[1] / fps[0]) when frame_jitter and frame_drop "
                            "are 0; else each nominal frame is left out with probability frame_drop and the kept "
                            "ones are moved by up to frame_jitter of a period (uniform); with a frame_ramp the "
                            "nominal frames follow the ramp's rate from from_s to to_s (eased over ease_s) and the "
                            "shutter its period: truth_frames.jsonl has every time; its exposure is centred on t_us "
                            "and lasts shutter_us (motion blur integrates over it); with a rolling shutter "
                            "(readout_us > 0) t_us is the middle row's time: see row_times");
    cJSON_AddNumberToObject(o, "frame_jitter", s->frame_jitter);
    cJSON_AddNumberToObject(o, "frame_drop", s->frame_drop);
    if (s->ramp_fps > 0) {
        cJSON *r = cJSON_AddObjectToObject(o, "frame_ramp");
        cJSON_AddNumberToObject(r, "from_s", s->ramp_from);
        cJSON_AddNumberToObject(r, "to_s", s->ramp_to);
        cJSON_AddNumberToObject(r, "fps", s->ramp_fps);
        cJSON_AddNumberToObject(r, "ease_s", s->ramp_ease);
    }
    cJSON_AddNumberToObject(o, "shutter_us", round(1e6 * s->fps_den / s->fps_num * s->look.shutter));
    /* rolling shutter (look.readout): how the rows of a frame are timed (kr_synth_render_do) */
    double period = (double)s->fps_den / s->fps_num;
    cJSON_AddNumberToObject(o, "readout_us", round(1e6 * period * s->look.readout));
    cJSON_AddNumberToObject(o, "readout_bands", kr_synth_readout_bands(s, period * s->look.readout));
    cJSON_AddStringToObject(o, "row_times",
                            "image row y (0 = top, of size[1] rows) is exposed centred on t_us + ((y + 0.5) / size[1] "
                            "- 0.5) * readout_us (the middle row at t_us, the top earlier, the bottom later), "
                            "lasting shutter_us; readout_us 0: every row at t_us (a global shutter). Rendered in "
                            "readout_bands bands of equal height, every row of a band at the band's mean row time, "
                            "so a row's picture is off its time by at most readout_us / readout_bands / 2 (bands: "
                            "readout in ms rounded up, at most 32, at least 8 rows each); the exposure gain "
                            "(flicker) is each row's own. readout_us and readout_bands are at the nominal rate (a frame_ramp's "
                            "frames read out in that share of their own period)");
    cJSON_AddNumberToObject(o, "mora_us", round(s->mora * 1e6));
    cJSON_AddStringToObject(o, "a_side", "bottom");
    const kr_synth_camera *c = &s->cam;
    cJSON *cam = cJSON_AddObjectToObject(o, "camera");
    cJSON_AddStringToObject(cam, "model",
                            "OpenCV pinhole + radial distortion: x' = x(1 + k1 r^2 + k2 r^4) on normalised "
                            "coordinates, pixel = K [x' y' 1]; dist = [k1, k2, p1, p2, k3] with p1 = p2 = k3 = 0. "
                            "World = mat mm, z up; camera point = R (X - C).");
    cJSON_AddItemToObject(cam, "K", raw_array(c->K, 9));
    double dist[5] = {c->k1, c->k2, 0, 0, 0};
    cJSON_AddItemToObject(cam, "dist", raw_array(dist, 5));
    cJSON_AddItemToObject(cam, "R", raw_array(c->R, 9));
    cJSON_AddItemToObject(cam, "C_mm", raw_array(c->C, 3));
    cJSON_AddItemToObject(o, "homography", raw_array(c->H, 9));
    cJSON_AddStringToObject(o, "homography_is",
                            "3x3 row-major, mat mm (z = 0) -> undistorted pixel; apply the distortion for raw pixels");
    cJSON *grid = cJSON_AddArrayToObject(o, "grid");
    for (int y = -275; y <= 275; y += 50)
        for (int x = -450; x <= 450; x += 50) {
            cJSON *g = cJSON_CreateObject();
            double mm[2] = {x, y}, px[2];
            kr_synth_cam_project(c, x, y, 0, px);
            px[0] = round(px[0] * 1000) / 1000;
            px[1] = round(px[1] * 1000) / 1000;
            cJSON_AddItemToObject(g, "mm", raw_array(mm, 2));
            cJSON_AddItemToObject(g, "px", raw_array(px, 2));
            cJSON_AddItemToArray(grid, g);
        }
    cJSON_AddNumberToObject(o, "rms_mm", 0);
    cJSON *pls = cJSON_AddObjectToObject(o, "players");
    for (int p = 0; p < 2; p++) {
        cJSON *x = cJSON_AddObjectToObject(pls, PL[p]);
        cJSON_AddStringToObject(x, "name", s->players[p].name);
        cJSON_AddStringToObject(x, "hand", HANDS[s->players[p].hand]);
        cJSON_AddItemToObject(x, "skin_bgr", num_array(s->players[p].skin, 3));
        cJSON_AddItemToObject(x, "sleeve_bgr", num_array(s->players[p].sleeve, 3));
        cJSON_AddNumberToObject(x, "hand_scale", r2(s->players[p].size));
    }
    static const char *fonts[4] = {"IPAMincho", "IPAGothic", "Noto Serif CJK", "Noto Sans CJK"};
    cJSON *lk = cJSON_AddObjectToObject(o, "look");
    cJSON_AddStringToObject(lk, "font", fonts[s->look.font]);
    cJSON_AddNumberToObject(lk, "vignette", s->look.vignette);
    cJSON_AddNumberToObject(lk, "noise_sigma", s->look.noise);
    cJSON_AddNumberToObject(lk, "flicker", s->look.flicker);
    cJSON_AddNumberToObject(lk, "flicker_hz", s->look.flicker_hz);
    cJSON_AddStringToObject(lk, "flicker_wave", s->look.flicker_square ? "square" : "sine");
    cJSON_AddNumberToObject(lk, "crf", s->look.crf);
    cJSON_AddNumberToObject(lk, "gop_s", s->look.gop_s10 / 10.0);
    cJSON_AddNumberToObject(lk, "bframes", s->look.bframes);
    cJSON_AddItemToObject(lk, "tatami_bgr", num_array(s->look.tatami_bgr, 3));
    cJSON_AddItemToObject(lk, "shadow_offset_per_mm", num_array(s->look.light_dir, 2));
    cJSON_AddStringToObject(o, "contact_model",
                            "a hand touches a card only at height exactly 0, when one of its 6 footprint points "
                            "(distal pads of the index, middle and ring fingers, 6 mm and 24 mm from the tips) lies inside the card outline; "
                            "tip_mm is the middle fingertip; a hand moving faster than 150 mm/s pushes the card");
    cJSON *cards = cJSON_AddArrayToObject(o, "cards");
    for (int i = 0; i < s->n_cards; i++) {
        const kr_synth_card *k = &s->cards[s->card_ids[i]];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "card", k->id);
        cJSON_AddStringToObject(x, "owner", PL[k->owner]);
        cJSON_AddStringToObject(x, "row", ROWS[k->row]);
        cJSON_AddNumberToObject(x, "x_mm", r2(k->pose0.x));
        cJSON_AddNumberToObject(x, "y_mm", r2(k->pose0.y));
        cJSON_AddNumberToObject(x, "angle_deg", round(k->pose0.a * 180 / KR_PI * 1000) / 1000);
        double mm[8], px[8];
        kr_synth_card_corners(&k->pose0, mm);
        for (int j = 0; j < 4; j++)
            kr_synth_cam_project(c, mm[2 * j], mm[2 * j + 1], 0, &px[2 * j]);
        cJSON_AddItemToObject(x, "corners_mm", num_array(mm, 8));
        cJSON_AddItemToObject(x, "corners_px", num_array(px, 8));
        cJSON_AddItemToArray(cards, x);
    }
    cJSON *rd = cJSON_AddArrayToObject(o, "readings");
    for (int r = 0; r < s->n_readings; r++) {
        const kr_synth_reading *x = &s->readings[r];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "seq", r + 1);
        cJSON_AddNumberToObject(j, "card", x->card);
        cJSON_AddStringToObject(j, "location", s->cards[x->card].id ? PL[s->cards[x->card].owner] : "dead");
        cJSON_AddNumberToObject(j, "kimariji_len", x->kim_len);
        cJSON_AddNumberToObject(j, "kami_start_us", (double)llround(x->kami * 1e6));
        cJSON_AddNumberToObject(j, "kimariji_us", (double)llround(x->kim * 1e6));
        cJSON_AddNumberToObject(j, "shimo_start_us", (double)llround(x->shimo * 1e6));
        cJSON_AddItemToArray(rd, j);
    }
    char *t = cJSON_Print(o);
    cJSON_Delete(o);
    if (!t)
        return KR_ERR_NOMEM;
    kr_outfile_t of;
    kr_status st = kr_outfile_open(path, &of);
    if (st == KR_OK) {
        if (fputs(t, of.fp) < 0 || fputc('\n', of.fp) == EOF) {
            kr_outfile_abort(&of);
            st = KR_ERR_IO;
        } else {
            st = kr_outfile_commit(&of);
        }
    }
    free(t);
    return st;
}

static kr_status write_frames(const kr_synth_t *s, const char *path)
{
    kr_outfile_t of;
    kr_status st = kr_outfile_open(path, &of);
    if (st != KR_OK)
        return st;
    static const char *modes[3] = {"rest", "slide", "carry"};
    bool ok = true;
    for (int f = 0; ok && f < s->n_frames; f++) {
        int64_t tu = kr_synth_frame_t_us(s, f);
        double t = (double)tu / 1e6;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "frame", f);
        cJSON_AddNumberToObject(o, "t_us", (double)tu);
        cJSON *hs = cJSON_AddArrayToObject(o, "hands");
        for (int hi = 0; hi < KR_SYNTH_N_HANDS; hi++) {
            const kr_synth_hand *hd = &s->hands[hi];
            if (!kr_synth_hand_visible(hd, t))
                continue;
            double p[3], v[3], d[2], px[2];
            kr_synth_hand_eval(hd, t, p, v);
            kr_synth_hand_dir(hd, p, v, d);
            kr_synth_cam_project(&s->cam, p[0], p[1], p[2], px);
            cJSON *h = cJSON_CreateObject();
            cJSON_AddStringToObject(h, "player", PL[hd->player]);
            cJSON_AddStringToObject(h, "hand", HANDS[hd->side]);
            cJSON_AddItemToObject(h, "tip_mm", num_array(p, 2));
            cJSON_AddNumberToObject(h, "h_mm", r2(p[2]));
            cJSON_AddItemToObject(h, "tip_px", num_array(px, 2));
            cJSON_AddItemToObject(h, "v_mm_s", num_array(v, 3));
            cJSON_AddItemToObject(h, "dir", num_array(d, 2));
            cJSON_AddItemToArray(hs, h);
        }
        cJSON *cs = cJSON_AddArrayToObject(o, "cards");
        for (int i = 0; i < s->n_cards; i++) {
            const kr_synth_card *c = &s->cards[s->card_ids[i]];
            kr_synth_pose p;
            double z;
            kr_card_mode m = kr_synth_card_pose(s, c, t, &p, &z);
            if (m == KR_CARD_REST && fabs(p.x - c->pose0.x) < 1e-9 && fabs(p.y - c->pose0.y) < 1e-9 &&
                fabs(p.a - c->pose0.a) < 1e-12)
                continue;
            double mm[8];
            kr_synth_card_corners(&p, mm);
            cJSON *x = cJSON_CreateObject();
            cJSON_AddNumberToObject(x, "card", c->id);
            cJSON_AddStringToObject(x, "state", modes[m]);
            cJSON_AddItemToObject(x, "corners_mm", num_array(mm, 8));
            cJSON_AddNumberToObject(x, "h_mm", r2(z));
            cJSON_AddItemToArray(cs, x);
        }
        ok = put_line(of.fp, o);
    }
    if (!ok) {
        kr_outfile_abort(&of);
        return KR_ERR_IO;
    }
    return kr_outfile_commit(&of);
}

kr_status kr_synth_write_logs(const kr_synth_t *s, const char *dir)
{
    char p[1024];
    kr_status st;
    snprintf(p, sizeof p, "%s/match.jsonl", dir);
    if ((st = write_logs(s, p, false)) != KR_OK)
        return st;
    snprintf(p, sizeof p, "%s/truth.jsonl", dir);
    if ((st = write_logs(s, p, true)) != KR_OK)
        return st;
    snprintf(p, sizeof p, "%s/meta.json", dir);
    if ((st = write_meta(s, p)) != KR_OK)
        return st;
    snprintf(p, sizeof p, "%s/truth_frames.jsonl", dir);
    return write_frames(s, p);
}
