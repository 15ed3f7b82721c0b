/* kr_cmd_enroll.c - karuta-ref enroll: teach the program a physical card set. From a
 * recorded memorisation period and a layout file that says which card lies where, it
 * stores one template per card (models/README.md) in a new or extended model file.
 * SPDX-License-Identifier: MIT                                                       */
#include "kr_app.h"
#include "kr_core.h"
#include "kr_recog.h"
#include "kr_recog_scene.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: karuta-ref enroll VIDEO --layout LAYOUT.jsonl [--at SECONDS] [--calib CALIB.json]\n"
            "                         [--append MODEL.krm] -o MODEL.krm\n"
            "  Builds card models for YOUR card set: lay the cards out (any number, face up,\n"
            "  portrait, upright for their owner), film them, and give a layout file (a\n"
            "  karuta-match/1 `layout` record, e.g. typed by hand or a corrected output of\n"
            "  karuta-ref layout) saying which card lies where. Each card's image becomes\n"
            "  a template. Run it again with --append for the rest of the set (100 cards\n"
            "  do not fit in one field). Then: karuta-ref layout ... --model MODEL.krm\n"
            "  --layout   the layout record saying which id lies where (mm, geometry.md)\n"
            "  --at       time of the still moment, seconds (default 2 or mid-video)\n"
            "  --calib    camera calibration (default: calibrate from the video)\n"
            "  --append   start from this model's templates (may be the -o file itself)\n");
}

/* Reads the first `layout` record of path: ids and centres. Returns the card count,
 * or -1 with msg set (one line naming file and line). */
static int read_layout_file(const char *path, int *ids, double (*xy)[2], int max, char *msg, size_t len)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(msg, len, "--layout %s: cannot open", path);
        return -1;
    }
    char  *line = NULL;
    size_t cap = 0;
    long   lineno = 0;
    int    n = -1;
    while (n < 0 && getline(&line, &cap, fp) > 0) {
        lineno++;
        cJSON *j = cJSON_Parse(line);
        if (!j) {
            if (strspn(line, " \t\r\n") == strlen(line))
                continue;
            snprintf(msg, len, "%s:%ld: not JSON", path, lineno);
            break;
        }
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "type");
        if (!cJSON_IsString(type) || strcmp(type->valuestring, "layout")) {
            cJSON_Delete(j);
            continue;
        }
        const cJSON *cards = cJSON_GetObjectItemCaseSensitive(j, "cards"), *c;
        if (!cJSON_IsArray(cards)) {
            snprintf(msg, len, "%s:%ld: layout without \"cards\" array", path, lineno);
            cJSON_Delete(j);
            break;
        }
        int k = 0, bad = 0;
        cJSON_ArrayForEach(c, cards)
        {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "card");
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(c, "x_mm");
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(c, "y_mm");
            if (!cJSON_IsNumber(id) || id->valueint < 1 || id->valueint > 100 || !cJSON_IsNumber(x) ||
                !cJSON_IsNumber(y)) {
                snprintf(msg, len, "%s:%ld: card %d: need \"card\" 1..100, \"x_mm\", \"y_mm\"", path,
                         lineno, k + 1);
                bad = 1;
                break;
            }
            for (int q = 0; q < k && !bad; q++)
                if (ids[q] == id->valueint) {
                    snprintf(msg, len, "%s:%ld: card %d appears twice", path, lineno, id->valueint);
                    bad = 1;
                }
            if (bad)
                break;
            if (k == max) {
                snprintf(msg, len, "%s:%ld: more than %d cards", path, lineno, max);
                bad = 1;
                break;
            }
            ids[k] = id->valueint;
            xy[k][0] = x->valuedouble;
            xy[k][1] = y->valuedouble;
            k++;
        }
        cJSON_Delete(j);
        if (bad)
            break;
        if (k == 0) {
            snprintf(msg, len, "%s:%ld: the layout has no cards", path, lineno);
            break;
        }
        n = k;
    }
    if (n < 0 && !msg[0])
        snprintf(msg, len, "--layout %s: no `layout` record", path);
    free(line);
    fclose(fp);
    return n;
}

/* A mislabelled card or a bad outline would poison the model silently: rank each
 * enrolled card's label among the default font model's scores and warn (one line) about
 * those ranked below 5th. Real brush-written sets rank lower than printed ones, so this
 * only warns. */
static void check_labels(const kr_recog_scene *sc, const int *ids, const int *which, int n)
{
    enum { NID = KR_RECOG_MAX_ID + 1 };
    kr_recog_model_t *fm = NULL;
    char              err[256];
    if (kr_recog_model_load(kr_recog_default_model(), &fm, err, sizeof err) != KR_OK)
        return;
    kr_recog_feat   *feat = malloc(sizeof *feat * (size_t)n);
    kr_recog_result *res = malloc(sizeof *res * (size_t)n);
    double          *sc_ = malloc(sizeof *sc_ * (size_t)n * NID);
    kr_recog_config  cfg;
    kr_recog_config_default(&cfg);
    if (feat && res && sc_) {
        for (int k = 0; k < n; k++)
            feat[k] = sc->cards[which[k]].feat;
        if (kr_recog_identify(fm, &cfg, feat, n, res, sc_) == KR_OK) {
            char msg[1024] = "";
            int  bad = 0;
            for (int k = 0; k < n; k++) {
                const double *row = sc_ + (size_t)k * NID;
                int           rank = 1;
                for (int id = 1; id <= KR_RECOG_MAX_ID; id++)
                    rank += id != ids[k] && row[id] > row[ids[k]];
                if (rank > 5) {
                    size_t used = strlen(msg);
                    snprintf(msg + used, sizeof msg - used, "%scard %d at (%.0f, %.0f) mm ranks %d", bad++ ? "; " : "",
                             ids[k], sc->cards[which[k]].x_mm, sc->cards[which[k]].y_mm, rank);
                }
            }
            if (bad)
                kr_log(KR_LOG_WARN, "enroll: %d card(s) do not look like their label in %s: %s (check the "
                       "layout file; ignore for brush-written sets)", bad, kr_recog_default_model(), msg);
        }
    }
    free(feat);
    free(res);
    free(sc_);
    kr_recog_model_destroy(fm);
}

int kr_cmd_enroll(int argc, char **argv)
{
    const char *video = NULL, *out = NULL, *calib_path = NULL, *layout_path = NULL, *append = NULL;
    double      at_s = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--out")) && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(a, "--calib") && i + 1 < argc) {
            calib_path = argv[++i];
        } else if (!strcmp(a, "--layout") && i + 1 < argc) {
            layout_path = argv[++i];
        } else if (!strcmp(a, "--append") && i + 1 < argc) {
            append = argv[++i];
        } else if (!strcmp(a, "--at") && i + 1 < argc) {
            char *end;
            at_s = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(at_s >= 0)) {
                kr_log(KR_LOG_ERROR, "enroll: --at '%s': want seconds >= 0", argv[i]);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            kr_log(KR_LOG_ERROR, "enroll: unknown or incomplete option '%s'", a);
            return 2;
        } else if (!video) {
            video = a;
        } else {
            kr_log(KR_LOG_ERROR, "enroll: unexpected argument '%s'", a);
            return 2;
        }
    }
    if (!video || !out || !layout_path) {
        kr_log(KR_LOG_ERROR, "enroll: need VIDEO, --layout LAYOUT.jsonl and -o MODEL.krm (see --help)");
        return 2;
    }
    int               rc = 1, ids[100];
    double            xy[100][2];
    char              msg[1024] = "";
    kr_recog_model_t *m = NULL;
    kr_recog_scene    sc = {0};
    int               n = read_layout_file(layout_path, ids, xy, 100, msg, sizeof msg);
    if (n < 0) {
        kr_log(KR_LOG_ERROR, "enroll: %s", msg);
        return 1;
    }
    if (append) {
        if (kr_recog_model_load(append, &m, msg, sizeof msg) != KR_OK) {
            kr_log(KR_LOG_ERROR, "enroll: --append %s", msg);
            return 1;
        }
    } else if (kr_recog_model_create(&m) != KR_OK) {
        return 1;
    }
    kr_recog_config cfg;
    kr_recog_config_default(&cfg);
    if (kr_recog_scene_read(video, at_s, calib_path, NULL, &cfg, &sc, msg, sizeof msg) != KR_OK) {
        kr_log(KR_LOG_ERROR, "enroll: %s", msg);
        goto fail;
    }
    const char *base = strrchr(video, '/');
    char        source[96];
    snprintf(source, sizeof source, "enroll:%.60s@%.1fs", base ? base + 1 : video, sc.t_us / 1e6);
    int *used = calloc((size_t)(sc.n ? sc.n : 1), sizeof *used);
    int *which = calloc((size_t)n, sizeof *which); /* scene card of layout entry k */
    if (!used || !which) {
        free(used);
        free(which);
        goto fail;
    }
    for (int k = 0; k < n; k++) {
        int    best = -1;
        double bd = 1e300;
        for (int i = 0; i < sc.n; i++) {
            double d = hypot(sc.cards[i].x_mm - xy[k][0], sc.cards[i].y_mm - xy[k][1]);
            if (d < bd) {
                bd = d;
                best = i;
            }
        }
        const kr_recog_layout_card *c = best >= 0 ? &sc.cards[best] : NULL;
        const char                 *why = NULL;
        if (!c || bd > 26.0)
            why = "no card seen within 26 mm";
        else if (used[best])
            why = "the card seen there is already taken by another layout entry";
        else if (c->cut_off)
            why = "the card seen there is cut off by the frame";
        else if (c->landscape)
            why = "the card seen there lies across";
        else if (c->feat.contrast < cfg.min_contrast || c->feat.ink < cfg.min_ink)
            why = "the card seen there is face down or blank";
        if (why) {
            kr_log(KR_LOG_ERROR, "enroll: %s: card %d at (%.0f, %.0f) mm: %s (%s at %.2f s)", layout_path,
                   ids[k], xy[k][0], xy[k][1], why, video, sc.t_us / 1e6);
            free(used);
            free(which);
            goto fail;
        }
        used[best] = 1;
        which[k] = best;
        if (kr_recog_model_add_feat(m, ids[k], source, &c->feat) != KR_OK) {
            free(used);
            free(which);
            goto fail;
        }
    }
    check_labels(&sc, ids, which, n);
    free(which);
    int extra = 0;
    for (int i = 0; i < sc.n; i++)
        extra += !used[i];
    free(used);
    if (extra)
        kr_log(KR_LOG_WARN, "enroll: %d card(s) seen in %s are not in %s; not enrolled", extra, video,
               layout_path);
    if (kr_recog_model_save(m, out) != KR_OK) {
        kr_log(KR_LOG_ERROR, "enroll: -o %s: cannot write", out);
        goto fail;
    }
    int ncards = 0;
    for (int id = 1; id <= 100; id++)
        ncards += kr_recog_model_has(m, id) > 0;
    fprintf(stderr, "enroll: %d cards enrolled from %s; %s now has %d templates for %d card ids\n", n,
            video, out, kr_recog_model_count(m), ncards);
    rc = 0;
fail:
    kr_recog_scene_free(&sc);
    kr_recog_model_destroy(m);
    return rc;
}
