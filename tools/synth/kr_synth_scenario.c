/* kr_synth_scenario.c - scenario JSON (samples/scenarios/README.md) -> scene model:
 * players, camera, look, layout (placed + seeded random fill), readings, actions.
 * SPDX-License-Identifier: MIT                                                    */
#include "kr_synth_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)

static double num(const cJSON *o, const char *k, double def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

static bool bad_type(const cJSON *o, const char *k, int want_number)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!v || cJSON_IsNull(v))
        return false;
    return want_number ? !cJSON_IsNumber(v) : !cJSON_IsString(v);
}

static int player_of(const char *s)
{
    if (!strcmp(s, "A")) return 0;
    if (!strcmp(s, "B")) return 1;
    return -1;
}

static int side_of(const char *s)
{
    if (!strcmp(s, "left")) return 0;
    if (!strcmp(s, "right")) return 1;
    return -1;
}

static int row_of(const char *s)
{
    if (!strcmp(s, "upper")) return 0;
    if (!strcmp(s, "middle")) return 1;
    if (!strcmp(s, "lower")) return 2;
    return -1;
}

static const struct { const char *name; double bgr[3]; } skins[] = {
    {"light", {165, 190, 232}}, {"fair", {150, 178, 225}}, {"medium", {118, 150, 200}},
    {"tan", {95, 128, 182}}, {"olive", {105, 140, 176}}, {"dark", {60, 82, 120}},
};

static bool colour(const cJSON *v, double out[3])
{
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 3) {
        for (int i = 0; i < 3; i++) {
            cJSON *e = cJSON_GetArrayItem(v, i);
            if (!cJSON_IsNumber(e))
                return false;
            out[i] = e->valuedouble;
        }
        return true;
    }
    if (cJSON_IsString(v)) {
        for (size_t i = 0; i < sizeof skins / sizeof skins[0]; i++)
            if (!strcmp(v->valuestring, skins[i].name)) {
                memcpy(out, skins[i].bgr, sizeof skins[i].bgr);
                return true;
            }
    }
    return false;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (t && fread(t, 1, (size_t)n, f) != (size_t)n) {
        free(t);
        t = NULL;
    }
    if (t)
        t[n] = 0;
    fclose(f);
    return t;
}

static const double row_y[3] = {51.5, 134.5, 217.5};

/* Layout: each row gets a left and a right group packed from the side lines inward
 * (the usual competition arrangement); placed cards take the slot nearest their
 * x_mm and keep that x exactly; the rest are drawn from the unused poems. */
static kr_status build_layout(kr_synth_t *s, const cJSON *lay, const bool read_card[101], kr_synth_rng *rng,
                              const char *fn, char *err, size_t errlen)
{
    int per_side = (int)num(lay, "per_side", 25);
    if (per_side < 0 || per_side > 45)
        FAIL("%s: layout.per_side: must be 0..45", fn);
    typedef struct { double x; int card; } slot;
    slot slots[2][3][16];
    int nslot[2][3];
    bool used[101] = {false};
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(lay, "exclude"), *e;
    cJSON_ArrayForEach(e, ex) {
        if (cJSON_IsNumber(e) && e->valueint >= 1 && e->valueint <= 100)
            used[e->valueint] = true;
    }
    for (int c = 1; c <= 100; c++)
        if (read_card[c])
            used[c] = true;
    for (int p = 0; p < 2; p++) {
        int up = (int)lround(per_side * 9.0 / 25.0), mid = (int)lround(per_side * 9.0 / 25.0);
        int cnt[3] = {up, mid, per_side - up - mid};
        if (cnt[2] > 15) { cnt[0] += cnt[2] - 15; cnt[2] = 15; }
        for (int r = 0; r < 3; r++) {
            int n = cnt[r];
            if (n > 15)
                n = 15;
            int nl = n / 2 + (n > 1 ? (int)(kr_synth_rng_u64(rng) % 3) - 1 : 0);
            if (nl < 0) nl = 0;
            if (nl > n) nl = n;
            int k = 0;
            double x = -KR_FIELD_HALF_W + KR_CARD_W / 2 + kr_synth_rng_range(rng, 0, 3);
            for (int i = 0; i < nl; i++, k++) {
                slots[p][r][k].x = x;
                slots[p][r][k].card = 0;
                x += KR_CARD_W + kr_synth_rng_range(rng, 2, 9);
            }
            x = KR_FIELD_HALF_W - KR_CARD_W / 2 - kr_synth_rng_range(rng, 0, 3);
            for (int i = 0; i < n - nl; i++, k++) {
                slots[p][r][k].x = x;
                slots[p][r][k].card = 0;
                x -= KR_CARD_W + kr_synth_rng_range(rng, 2, 9);
            }
            nslot[p][r] = k;
        }
    }
    const cJSON *place = cJSON_GetObjectItemCaseSensitive(lay, "place");
    int idx = 0;
    cJSON_ArrayForEach(e, place) {
        const cJSON *jc = cJSON_GetObjectItemCaseSensitive(e, "card");
        const cJSON *jo = cJSON_GetObjectItemCaseSensitive(e, "owner");
        const cJSON *jr = cJSON_GetObjectItemCaseSensitive(e, "row");
        if (!cJSON_IsNumber(jc) || jc->valueint < 1 || jc->valueint > 100)
            FAIL("%s: layout.place[%d].card: need a card id 1..100", fn, idx);
        if (!cJSON_IsString(jo) || player_of(jo->valuestring) < 0)
            FAIL("%s: layout.place[%d].owner: need \"A\" or \"B\"", fn, idx);
        if (!cJSON_IsString(jr) || row_of(jr->valuestring) < 0)
            FAIL("%s: layout.place[%d].row: need upper/middle/lower", fn, idx);
        int c = jc->valueint, p = player_of(jo->valuestring), r = row_of(jr->valuestring);
        if (s->cards[c].id)
            FAIL("%s: layout.place[%d].card: card %d placed twice", fn, idx, c);
        if (bad_type(e, "x_mm", 1))
            FAIL("%s: layout.place[%d].x_mm: need a number", fn, idx);
        double want = num(e, "x_mm", NAN);
        int best = -1;
        double bd = 1e9;
        for (int k = 0; k < nslot[p][r]; k++) {
            if (slots[p][r][k].card)
                continue;
            double d = isnan(want) ? (double)k : fabs(slots[p][r][k].x - want);
            if (d < bd) { bd = d; best = k; }
        }
        if (best < 0) {
            /* add a slot if the row is not full */
            if (nslot[p][r] >= 15 || isnan(want))
                FAIL("%s: layout.place[%d]: no free slot in that row", fn, idx);
            best = nslot[p][r]++;
        }
        slots[p][r][best].card = c;
        if (!isnan(want))
            slots[p][r][best].x = want;
        used[c] = true;
        s->cards[c].id = c; /* mark */
        idx++;
    }
    /* fill the remaining slots with unused cards, in seeded random order */
    int pool[100], np = 0;
    for (int c = 1; c <= 100; c++)
        if (!used[c])
            pool[np++] = c;
    for (int i = np - 1; i > 0; i--) {
        int j = (int)(kr_synth_rng_u64(rng) % (uint64_t)(i + 1));
        int t = pool[i]; pool[i] = pool[j]; pool[j] = t;
    }
    int pi = 0;
    s->n_cards = 0;
    for (int p = 0; p < 2; p++)
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < nslot[p][r]; k++) {
                slot *sl = &slots[p][r][k];
                if (!sl->card) {
                    if (pi >= np)
                        FAIL("%s: layout: not enough cards to fill", fn);
                    sl->card = pool[pi++];
                }
                kr_synth_card *c = &s->cards[sl->card];
                memset(c, 0, sizeof *c);
                c->id = sl->card;
                c->owner = p;
                c->row = r;
                double sign = p == 0 ? -1.0 : 1.0;
                c->pose0.x = sl->x + kr_synth_rng_range(rng, -1.2, 1.2);
                c->pose0.y = sign * row_y[r] + kr_synth_rng_range(rng, -1.2, 1.2);
                c->pose0.a = (p == 0 ? 0.0 : KR_PI) + kr_synth_rng_range(rng, -0.025, 0.025);
                c->tint = kr_synth_rng_range(rng, -1, 1);
                c->seg[0].mode = KR_CARD_REST;
                c->seg[0].t0 = -1e9;
                c->seg[0].p0 = c->pose0;
                c->n_seg = 1;
                s->card_ids[s->n_cards++] = c->id;
            }
    return KR_OK;
fail:
    return KR_ERR_FORMAT;
}

static kr_status parse_action(kr_synth_t *s, const cJSON *a, int reading, double anchor, const char *where,
                              char *err, size_t errlen)
{
    if (s->n_actions >= KR_SYNTH_MAX_ACTIONS)
        FAIL("%s: too many actions", where);
    kr_synth_action *ac = &s->actions[s->n_actions];
    memset(ac, 0, sizeof *ac);
    ac->reading = reading;
    const cJSON *jdo = cJSON_GetObjectItemCaseSensitive(a, "do");
    const cJSON *jp = cJSON_GetObjectItemCaseSensitive(a, "player");
    const cJSON *jh = cJSON_GetObjectItemCaseSensitive(a, "hand");
    if (!cJSON_IsString(jdo))
        FAIL("%s.do: need sweep/press/hover/send/rearrange/enter/path/remove", where);
    static const char *kinds[] = {"sweep", "press", "hover", "send", "rearrange", "enter", "path", "remove"};
    int k = -1;
    for (int i = 0; i < 8; i++)
        if (!strcmp(jdo->valuestring, kinds[i]))
            k = i;
    if (k < 0)
        FAIL("%s.do: unknown action '%s'", where, jdo->valuestring);
    ac->kind = (kr_act_kind)k;
    if (!cJSON_IsString(jp) || player_of(jp->valuestring) < 0)
        FAIL("%s.player: need \"A\" or \"B\"", where);
    ac->player = player_of(jp->valuestring);
    ac->side = s->players[ac->player].hand;
    if (jh) {
        if (!cJSON_IsString(jh) || side_of(jh->valuestring) < 0)
            FAIL("%s.hand: need \"left\" or \"right\"", where);
        ac->side = side_of(jh->valuestring);
    }
    for (const char **f = (const char *[]){"t", "speed", "height_mm", "hold_s", "approach_s", "card", "follow_mm", "land_speed", NULL}; *f; f++)
        if (bad_type(a, *f, 1))
            FAIL("%s.%s: need a number", where, *f);
    const cJSON *jt = cJSON_GetObjectItemCaseSensitive(a, "t");
    if (!cJSON_IsNumber(jt) && ac->kind != KR_ACT_PATH)
        FAIL("%s.t: need the action time in seconds", where);
    ac->t = floor((anchor + num(a, "t", 0.0)) * 1e6 + 0.5) / 1e6; /* whole microseconds */
    ac->card = (int)num(a, "card", 0);
    if (ac->card < 0 || ac->card > 100)
        FAIL("%s.card: need a card id 1..100", where);
    if (ac->card && !s->cards[ac->card].id)
        FAIL("%s.card: card %d is not on the field", where, ac->card);
    const cJSON *jat = cJSON_GetObjectItemCaseSensitive(a, "at");
    if (jat) {
        if (!cJSON_IsArray(jat) || cJSON_GetArraySize(jat) != 2)
            FAIL("%s.at: need [x_mm, y_mm]", where);
        ac->tx = cJSON_GetArrayItem(jat, 0)->valuedouble;
        ac->ty = cJSON_GetArrayItem(jat, 1)->valuedouble;
        ac->has_point = true;
    }
    if (!ac->card && !ac->has_point && ac->kind != KR_ACT_PATH)
        FAIL("%s: need \"card\" or \"at\"", where);
    ac->speed = num(a, "speed", 3.0) * 1000.0;
    ac->hover = num(a, "height_mm", 25.0);
    ac->hold = num(a, "hold_s", 0.25);
    ac->follow = num(a, "follow_mm", 60.0);
    ac->approach = num(a, "approach_s", 0.0);
    ac->land = num(a, "land_speed", 0.0) * 1000.0;
    if (ac->land != 0 && (ac->land < 100 || ac->land > 10000)) /* its last 30 mm within 300 ms */
        FAIL("%s.land_speed: need 0 or 0.1..10 m/s", where);
    if (ac->land != 0 && ac->kind != KR_ACT_PRESS)
        FAIL("%s.land_speed: only a press lands", where);
    const cJSON *jex = cJSON_GetObjectItemCaseSensitive(a, "exact");
    ac->exact = jex ? cJSON_IsTrue(jex) : (ac->card != 0 && (ac->kind == KR_ACT_SWEEP || ac->kind == KR_ACT_PRESS));
    ac->dir = NAN;
    const cJSON *jd = cJSON_GetObjectItemCaseSensitive(a, "dir");
    if (cJSON_IsNumber(jd))
        ac->dir = jd->valuedouble * KR_PI / 180.0;
    else if (cJSON_IsString(jd)) {
        if (!strcmp(jd->valuestring, "left")) ac->dir = KR_PI;
        else if (!strcmp(jd->valuestring, "right")) ac->dir = 0;
        else if (!strcmp(jd->valuestring, "up")) ac->dir = KR_PI / 2;
        else if (!strcmp(jd->valuestring, "down")) ac->dir = -KR_PI / 2;
        else FAIL("%s.dir: need left/right/up/down or degrees", where);
    } else if (jd)
        FAIL("%s.dir: need left/right/up/down or degrees", where);
    const cJSON *jto = cJSON_GetObjectItemCaseSensitive(a, "to");
    if (ac->kind == KR_ACT_REMOVE) {
        /* put a taken card aside: by default just outside the lines on the player's side */
        if (!ac->card)
            FAIL("%s: remove needs \"card\"", where);
        const kr_synth_card *c = &s->cards[ac->card];
        double side = ac->player == 0 ? -1.0 : 1.0;
        ac->to_x = fmax(-320.0, fmin(320.0, c->pose0.x));
        ac->to_y = side * (KR_FIELD_HALF_H + 75.0);
        if (cJSON_IsArray(jto) && cJSON_GetArraySize(jto) == 2) {
            ac->to_x = cJSON_GetArrayItem(jto, 0)->valuedouble;
            ac->to_y = cJSON_GetArrayItem(jto, 1)->valuedouble;
        }
    }
    if (ac->kind == KR_ACT_SEND || ac->kind == KR_ACT_REARRANGE) {
        if (!cJSON_IsArray(jto) || cJSON_GetArraySize(jto) != 2 || !ac->card)
            FAIL("%s: send/rearrange need \"card\" and \"to\": [x_mm, y_mm]", where);
        ac->to_x = cJSON_GetArrayItem(jto, 0)->valuedouble;
        ac->to_y = cJSON_GetArrayItem(jto, 1)->valuedouble;
    }
    if (ac->kind == KR_ACT_PATH) {
        const cJSON *jk = cJSON_GetObjectItemCaseSensitive(a, "path"), *e;
        if (!cJSON_IsArray(jk) || cJSON_GetArraySize(jk) < 2 || cJSON_GetArraySize(jk) > 32)
            FAIL("%s.path: need 2..32 keys [t, x_mm, y_mm, h_mm]", where);
        cJSON_ArrayForEach(e, jk) {
            if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 4)
                FAIL("%s.path: each key is [t, x_mm, y_mm, h_mm]", where);
            for (int i = 0; i < 4; i++)
                ac->path[ac->n_path][i] = cJSON_GetArrayItem(e, i)->valuedouble;
            ac->path[ac->n_path][0] += anchor;
            ac->n_path++;
        }
        ac->t = ac->path[0][0];
    }
    ac->play = !(ac->kind == KR_ACT_SEND || ac->kind == KR_ACT_REARRANGE || ac->kind == KR_ACT_REMOVE);
    const cJSON *jpl = cJSON_GetObjectItemCaseSensitive(a, "play");
    if (jpl)
        ac->play = cJSON_IsTrue(jpl);
    s->n_actions++;
    return KR_OK;
fail:
    return KR_ERR_FORMAT;
}

kr_status kr_synth_scenario_parse(kr_synth_t *s, const char *path, const kr_synth_opts *o,
                                  char *err, size_t errlen)
{
    kr_status st = KR_ERR_FORMAT;
    const char *fn = path;
    char *text = slurp(path);
    cJSON *root = NULL;
    if (!text) {
        snprintf(err, errlen, "%s: cannot read scenario", path);
        return KR_ERR_IO;
    }
    root = cJSON_Parse(text);
    if (!cJSON_IsObject(root))
        FAIL("%s: not a JSON object (near byte %ld)", fn,
             cJSON_GetErrorPtr() ? (long)(cJSON_GetErrorPtr() - text) : 0L);
    snprintf(s->path, sizeof s->path, "%s", path);
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "name")) && cJSON_IsString(v))
        snprintf(s->name, sizeof s->name, "%s", v->valuestring);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "description")) && cJSON_IsString(v))
        snprintf(s->description, sizeof s->description, "%s", v->valuestring);
    s->holdout = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "holdout"));
    if (bad_type(root, "seed", 1) || bad_type(root, "mora_ms", 1))
        FAIL("%s: seed and mora_ms must be numbers", fn);
    s->seed = o->seed_set ? o->seed : (uint64_t)num(root, "seed", 1);
    s->look_seed = o->look_seed_set ? o->look_seed : s->seed;
    s->fps_num = 60;
    s->fps_den = 1;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "fps"))) { /* N or [N, D] (59.94: [60000, 1001]) */
        if (cJSON_IsNumber(v))
            s->fps_num = (int)v->valuedouble;
        else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(v, 0)) &&
                 cJSON_IsNumber(cJSON_GetArrayItem(v, 1))) {
            s->fps_num = (int)cJSON_GetArrayItem(v, 0)->valuedouble;
            s->fps_den = (int)cJSON_GetArrayItem(v, 1)->valuedouble;
        } else
            FAIL("%s: fps: need a number or [numerator, denominator]", fn);
    }
    if (o->fps_num > 0) {
        s->fps_num = o->fps_num;
        s->fps_den = o->fps_den > 0 ? o->fps_den : 1;
    }
    s->w = 1280;
    s->h = 720;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "size"))) {
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
            FAIL("%s: size: need [width, height]", fn);
        s->w = cJSON_GetArrayItem(v, 0)->valueint;
        s->h = cJSON_GetArrayItem(v, 1)->valueint;
    }
    if (o->w > 0 && o->h > 0) {
        s->w = o->w;
        s->h = o->h;
    }
    if (s->w < 64 || s->h < 36 || s->w > 4096 || s->h > 4096 || (s->w & 1) || (s->h & 1))
        FAIL("%s: size %dx%d: need even sizes 64x36 .. 4096x4096", fn, s->w, s->h);
    if (s->fps_den < 1 || s->fps_num < s->fps_den || s->fps_num > 480LL * s->fps_den)
        FAIL("%s: fps %d/%d: need 1..480 frames per second", fn, s->fps_num, s->fps_den);
    s->mora = num(root, "mora_ms", 250) / 1000.0;
    if (bad_type(root, "frame_jitter", 1) || bad_type(root, "frame_drop", 1))
        FAIL("%s: frame_jitter and frame_drop must be numbers", fn);
    s->frame_jitter = o->jitter >= 0 ? o->jitter : num(root, "frame_jitter", 0);
    s->frame_drop = o->drop >= 0 ? o->drop : num(root, "frame_drop", 0);
    if (!(s->frame_jitter >= 0 && s->frame_jitter <= 0.45) || !(s->frame_drop >= 0 && s->frame_drop <= 0.5))
        FAIL("%s: frame_jitter %.3g, frame_drop %.3g: need 0..0.45 and 0..0.5", fn, s->frame_jitter,
             s->frame_drop);
    /* a slow-motion ramp: {"from_s", "to_s", "fps", "ease_s"} (--ramp replaces it) */
    double ramp[4] = {o->ramp[0], o->ramp[1], o->ramp[2], o->ramp[3]};
    if (ramp[2] <= 0 && (v = cJSON_GetObjectItemCaseSensitive(root, "frame_ramp"))) {
        if (!cJSON_IsObject(v) || bad_type(v, "from_s", 1) || bad_type(v, "to_s", 1) || bad_type(v, "fps", 1) ||
            bad_type(v, "ease_s", 1) || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(v, "fps")))
            FAIL("%s: frame_ramp: need {\"from_s\": S, \"to_s\": S, \"fps\": F, \"ease_s\": S} (numbers)", fn);
        ramp[0] = num(v, "from_s", 0);
        ramp[1] = num(v, "to_s", 0);
        ramp[2] = num(v, "fps", 0);
        ramp[3] = num(v, "ease_s", 0.1);
    }
    if (ramp[2] > 0) {
        if (!(ramp[0] >= 0 && ramp[1] > ramp[0] && ramp[2] >= 1 && ramp[2] <= 960 && ramp[3] >= 0 && ramp[3] <= 5))
            FAIL("%s: frame_ramp from %.3g to %.3g s at %.3g fps, eased over %.3g s: need 0 <= from < to, "
                 "1..960 fps, ease 0..5 s", fn, ramp[0], ramp[1], ramp[2], ramp[3]);
        s->ramp_from = ramp[0];
        s->ramp_to = ramp[1];
        s->ramp_fps = ramp[2];
        s->ramp_ease = ramp[3];
    }

    kr_synth_rng rng, prng; /* the look's; the play's (hand sizes: they decide which cards a hand touches) */
    kr_synth_rng_seed(&rng, s->look_seed, 1);
    kr_synth_rng_seed(&prng, s->seed, 1); /* drawn in step with rng: the same as it without --look-seed */

    /* players */
    const cJSON *jpl = cJSON_GetObjectItemCaseSensitive(root, "players");
    static const char *defname[2] = {"Sato", "Ito"};
    for (int p = 0; p < 2; p++) {
        kr_synth_player *pl = &s->players[p];
        snprintf(pl->name, sizeof pl->name, "%s", defname[p]);
        pl->hand = 1;
        const double *sk = skins[(kr_synth_rng_u64(&rng) % 5)].bgr;
        memcpy(pl->skin, sk, sizeof pl->skin);
        static const double sleeves[4][3] = {{235, 235, 238}, {70, 45, 35}, {40, 40, 42}, {150, 120, 95}};
        memcpy(pl->sleeve, sleeves[kr_synth_rng_u64(&rng) % 4], sizeof pl->sleeve);
        kr_synth_rng_u64(&prng);
        kr_synth_rng_u64(&prng);
        kr_synth_rng_range(&rng, 0.93, 1.05);
        pl->size = kr_synth_rng_range(&prng, 0.93, 1.05);
        const cJSON *jp = cJSON_GetObjectItemCaseSensitive(jpl, p ? "B" : "A");
        if (!jp)
            continue;
        if ((v = cJSON_GetObjectItemCaseSensitive(jp, "name")) && cJSON_IsString(v))
            snprintf(pl->name, sizeof pl->name, "%s", v->valuestring);
        if ((v = cJSON_GetObjectItemCaseSensitive(jp, "hand"))) {
            if (!cJSON_IsString(v) || side_of(v->valuestring) < 0)
                FAIL("%s: players.%c.hand: need left/right", fn, 'A' + p);
            pl->hand = side_of(v->valuestring);
        }
        if ((v = cJSON_GetObjectItemCaseSensitive(jp, "skin")) && !colour(v, pl->skin))
            FAIL("%s: players.%c.skin: need light/fair/medium/tan/olive/dark or [b,g,r]", fn, 'A' + p);
        if ((v = cJSON_GetObjectItemCaseSensitive(jp, "sleeve")) && !colour(v, pl->sleeve))
            FAIL("%s: players.%c.sleeve: need [b,g,r]", fn, 'A' + p);
        pl->size = num(jp, "hand_scale", pl->size);
    }

    /* camera */
    const cJSON *jc = cJSON_GetObjectItemCaseSensitive(root, "camera");
    double cam_h = num(jc, "height_mm", 1300), view = num(jc, "view_mm", 760);
    double tilt = num(jc, "tilt_deg", kr_synth_rng_range(&rng, -3, 3));
    double pan = num(jc, "pan_deg", kr_synth_rng_range(&rng, -2, 2));
    double roll = num(jc, "roll_deg", kr_synth_rng_range(&rng, -2, 2));
    double k1 = num(jc, "k1", -0.06), k2 = num(jc, "k2", 0.012);
    double offx = 0, offy = 0;
    if ((v = cJSON_GetObjectItemCaseSensitive(jc, "offset_mm")) && cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2) {
        offx = cJSON_GetArrayItem(v, 0)->valuedouble;
        offy = cJSON_GetArrayItem(v, 1)->valuedouble;
    }
    if (cam_h < 500 || cam_h > 5000 || view < 300 || view > 3000)
        FAIL("%s: camera: height_mm 500..5000 and view_mm 300..3000", fn);
    kr_synth_cam_build(&s->cam, s->w, s->h, cam_h, view, offx, offy, tilt, pan, roll, k1, k2,
                       kr_synth_rng_range(&rng, -0.01, 0.01) * s->w, kr_synth_rng_range(&rng, -0.01, 0.01) * s->h);

    /* look */
    kr_synth_look *lk = &s->look;
    const cJSON *jl = cJSON_GetObjectItemCaseSensitive(root, "look");
    lk->vignette = num(jl, "vignette", 0.28);
    lk->noise = o->noise >= 0 ? o->noise : num(jl, "noise", 2.2);
    lk->flicker = o->flicker >= 0 ? o->flicker : num(jl, "flicker", 0.012);
    lk->flicker_hz = o->flicker_hz > 0 ? o->flicker_hz : num(jl, "flicker_hz", 100);
    /* the lamps' waveform: "sine" (mains through a filament or a smoothed driver) or
     * "square" (lamps that switch: LED drivers, PWM dimmers) */
    const cJSON *jw = cJSON_GetObjectItemCaseSensitive(jl, "flicker_wave");
    if (bad_type(jl, "flicker_wave", 0) || (jw && cJSON_IsString(jw) && strcmp(jw->valuestring, "sine") &&
                                            strcmp(jw->valuestring, "square")))
        FAIL("%s: look.flicker_wave: need \"sine\" or \"square\"", fn);
    lk->flicker_square = o->flicker_wave >= 0 ? o->flicker_wave : jw && cJSON_IsString(jw) && !strcmp(jw->valuestring, "square");
    lk->exposure = num(jl, "exposure", 1.0);
    lk->blur = num(jl, "blur", 0.6);
    lk->shutter = o->shutter > 0 ? o->shutter : num(jl, "shutter", 0.5);
    /* rolling shutter: the time the sensor takes to read its rows, top to bottom, as a share
     * of the frame period (0: a global shutter, every row at once) */
    if (bad_type(jl, "readout", 1))
        FAIL("%s: look.readout: need a number 0..1 (share of the frame period)", fn);
    lk->readout = o->readout >= 0 ? o->readout : num(jl, "readout", 0);
    if (!(lk->readout >= 0 && lk->readout <= 1))
        FAIL("%s: look.readout %.3g: need 0..1 (share of the frame period)", fn, lk->readout);
    lk->bodies = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(jl, "bodies"));
    lk->crf = (int)num(root, "crf", 22);
    if (bad_type(root, "gop_s", 1))
        FAIL("%s: gop_s: need a number 0.1..10 (the keyframe interval in seconds)", fn);
    const double gop = o->gop_s > 0 ? o->gop_s : num(root, "gop_s", 2);
    if (!(gop >= 0.1 && gop <= 10))
        FAIL("%s: gop_s %.3g: need 0.1..10 (the keyframe interval in seconds)", fn, gop);
    lk->gop_s10 = (int)lround(gop * 10);
    const cJSON *bf = cJSON_GetObjectItemCaseSensitive(root, "bframes");
    if (bad_type(root, "bframes", 1) || (bf && cJSON_IsNumber(bf) && (bf->valuedouble != floor(bf->valuedouble) ||
                                                                      bf->valuedouble < -1 || bf->valuedouble > 16)))
        FAIL("%s: bframes: need a whole number -1..16 (B-frames between the video's references; -1 the encoder's)", fn);
    lk->bframes = o->bframes >= 0 ? o->bframes : (int)num(root, "bframes", -1);
    double warm = kr_synth_rng_range(&rng, -0.04, 0.04);
    lk->wb[0] = 1.0 - warm; lk->wb[1] = 1.0; lk->wb[2] = 1.0 + warm;
    if ((v = cJSON_GetObjectItemCaseSensitive(jl, "wb")) && !colour(v, lk->wb))
        FAIL("%s: look.wb: need [b,g,r] gains", fn);
    static const double tatami[3][3] = {{96, 168, 178}, {110, 178, 196}, {88, 150, 165}};
    memcpy(lk->tatami_bgr, tatami[kr_synth_rng_u64(&rng) % 3], sizeof lk->tatami_bgr);
    if ((v = cJSON_GetObjectItemCaseSensitive(jl, "tatami")) && !colour(v, lk->tatami_bgr))
        FAIL("%s: look.tatami: need [b,g,r]", fn);
    lk->tatami_var = num(jl, "tatami_variation", 0.06);
    lk->strand_pitch = num(jl, "strand_mm", 3.2);
    lk->strand_angle = num(jl, "strand_deg", 0) * KR_PI / 180.0;
    lk->light_dir[0] = num(jl, "light_dx", kr_synth_rng_range(&rng, -0.35, 0.35));
    lk->light_dir[1] = num(jl, "light_dy", kr_synth_rng_range(&rng, -0.35, 0.1));
    lk->shadow = num(jl, "shadow", 0.45);
    lk->font = 0;
    if ((v = cJSON_GetObjectItemCaseSensitive(jl, "font"))) {
        static const char *fonts[] = {"mincho", "gothic", "noto-serif", "noto-sans"};
        lk->font = -1;
        for (int i = 0; i < 4; i++)
            if (cJSON_IsString(v) && !strcmp(v->valuestring, fonts[i]))
                lk->font = i;
        if (lk->font < 0)
            FAIL("%s: look.font: need mincho/gothic/noto-serif/noto-sans", fn);
    }
    lk->card_bgr[0] = 212; lk->card_bgr[1] = 232; lk->card_bgr[2] = 240;
    lk->border_bgr[0] = 50; lk->border_bgr[1] = 78; lk->border_bgr[2] = 40;
    if ((v = cJSON_GetObjectItemCaseSensitive(jl, "card")) && !colour(v, lk->card_bgr))
        FAIL("%s: look.card: need [b,g,r]", fn);
    if ((v = cJSON_GetObjectItemCaseSensitive(jl, "card_border")) && !colour(v, lk->border_bgr))
        FAIL("%s: look.card_border: need [b,g,r]", fn);

    /* readings (cards first, for the layout's exclusions) */
    const cJSON *jr = cJSON_GetObjectItemCaseSensitive(root, "readings");
    if (jr && !cJSON_IsArray(jr))
        FAIL("%s: readings: need an array", fn);
    bool read_card[101] = {false};
    int ri = 0;
    cJSON_ArrayForEach(v, jr) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, "card");
        if (!cJSON_IsNumber(c) || c->valueint < 1 || c->valueint > 100)
            FAIL("%s: readings[%d].card: need a card id 1..100", fn, ri);
        if (read_card[c->valueint])
            FAIL("%s: readings[%d].card: card %d read twice", fn, ri, c->valueint);
        read_card[c->valueint] = true;
        if (ri >= KR_SYNTH_MAX_READINGS)
            FAIL("%s: readings: at most %d", fn, KR_SYNTH_MAX_READINGS);
        s->readings[ri].card = c->valueint;
        ri++;
    }
    s->n_readings = ri;

    kr_synth_rng lrng;
    const cJSON *jlay = cJSON_GetObjectItemCaseSensitive(root, "layout");
    kr_synth_rng_seed(&lrng, (uint64_t)num(jlay, "seed", (double)s->seed), 2);
    if (build_layout(s, jlay, read_card, &lrng, fn, err, errlen) != KR_OK)
        goto fail;

    /* reading times: dynamic kimariji against the unread cards */
    bool unread[101];
    for (int c = 0; c <= 100; c++)
        unread[c] = c > 0;
    double t = num(root, "start_s", 1.0);
    double pause = num(root, "pause_s", 1.0), gap = num(root, "kami_gap_s", 0.8);
    ri = 0;
    cJSON_ArrayForEach(v, jr) {
        kr_synth_reading *rd = &s->readings[ri];
        for (const char **f = (const char *[]){"kami_s", "shimo_after_s", "void_after_s", "settle_after_s",
                                               "next_after_s", NULL}; *f; f++)
            if (bad_type(v, *f, 1))
                FAIL("%s: readings[%d].%s: need a number", fn, ri, *f);
        rd->kami = num(v, "kami_s", t);
        rd->kami = floor(rd->kami * 1e6 + 0.5) / 1e6;
        rd->kim_len = kr_synth_kimariji_len(s->poems, rd->card, unread);
        rd->kami_len = s->poems[rd->card].kami_n;
        unread[rd->card] = false;
        rd->kim = rd->kami + rd->kim_len * s->mora;
        rd->shimo = rd->kami + num(v, "shimo_after_s", rd->kami_len * s->mora + gap);
        double vd = num(v, "void_after_s", NAN);
        rd->void_t = isnan(vd) ? NAN : rd->kami + vd;
        double se = num(v, "settle_after_s", NAN);
        rd->settle_given = !isnan(se);
        rd->settle = rd->settle_given ? rd->kim + se : NAN;
        t = rd->shimo + num(v, "next_after_s", 14 * s->mora + pause);
        ri++;
    }
    /* actions, anchored at each reading's kimariji moment (moved by the asked share of a
     * frame period, so that contacts written on round times fall between frames) */
    const double shift = o->phase * s->fps_den / s->fps_num;
    ri = 0;
    cJSON_ArrayForEach(v, jr) {
        const cJSON *ja = cJSON_GetObjectItemCaseSensitive(v, "actions"), *a;
        int ai = 0;
        cJSON_ArrayForEach(a, ja) {
            char where[96];
            snprintf(where, sizeof where, "%s: readings[%d].actions[%d]", fn, ri, ai);
            if (parse_action(s, a, ri, s->readings[ri].kim + shift, where, err, errlen) != KR_OK)
                goto fail;
            ai++;
        }
        ri++;
    }
    const cJSON *ja = cJSON_GetObjectItemCaseSensitive(root, "actions"), *a;
    int ai = 0;
    cJSON_ArrayForEach(a, ja) {
        char where[96];
        snprintf(where, sizeof where, "%s: actions[%d]", fn, ai++);
        if (parse_action(s, a, -1, shift, where, err, errlen) != KR_OK)
            goto fail;
    }
    double end = s->n_readings ? s->readings[s->n_readings - 1].shimo + 0.6 : 3.0;
    s->duration = num(root, "duration_s", end);
    if (o->max_duration_s > 0 && s->duration > o->max_duration_s)
        s->duration = o->max_duration_s;
    if (s->duration <= 0 || s->duration > 3600)
        FAIL("%s: duration_s: need 0..3600", fn);
    st = KR_OK;
fail:
    cJSON_Delete(root);
    free(text);
    return st;
}
