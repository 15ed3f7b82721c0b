/* kr_recog_model.c - card models: feature templates per card id, their file format
 * ("karuta-recog/1" JSON Lines, features as base64 int8) and template scoring.
 * SPDX-License-Identifier: MIT                                                       */
#include "kr_recog.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define KR_RECOG_FORMAT "karuta-recog/1"

typedef struct kr_recog_tmpl {
    int   id;
    char  source[48];
    float v[KR_RECOG_FEAT_N];
} kr_recog_tmpl;

struct kr_recog_model {
    kr_recog_tmpl *t; /* owned array of n (capacity cap) */
    int            n, cap;
    int            per_id[KR_RECOG_MAX_ID + 1];
};

void kr_recog_config_default(kr_recog_config *cfg)
{
    cfg->max_shift_cells = 1;
    cfg->both_orientations = 1;
    cfg->min_contrast = 12.0;
    cfg->min_ink = 0.004;
    cfg->min_score = 0.30;
    cfg->min_margin = 0.07;
    cfg->conf_scale = 0.04;
}

kr_status kr_recog_model_create(kr_recog_model_t **out)
{
    if (!out)
        return KR_ERR_INVALID;
    *out = calloc(1, sizeof **out);
    return *out ? KR_OK : KR_ERR_NOMEM;
}

void kr_recog_model_destroy(kr_recog_model_t *m)
{
    if (!m)
        return;
    free(m->t);
    free(m);
}

kr_status kr_recog_model_add_feat(kr_recog_model_t *m, int id, const char *source,
                                  const kr_recog_feat *f)
{
    if (!m || !f || id < 1 || id > KR_RECOG_MAX_ID)
        return KR_ERR_INVALID;
    if (m->n == m->cap) {
        int            cap = m->cap ? m->cap * 2 : 128;
        kr_recog_tmpl *t = realloc(m->t, (size_t)cap * sizeof *t);
        if (!t)
            return KR_ERR_NOMEM;
        m->t = t;
        m->cap = cap;
    }
    kr_recog_tmpl *t = &m->t[m->n++];
    t->id = id;
    snprintf(t->source, sizeof t->source, "%s", source ? source : "");
    for (char *c = t->source; *c; c++) /* keep labels one token */
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 32)
            *c = '_';
    memcpy(t->v, f->v, sizeof t->v);
    m->per_id[id]++;
    return KR_OK;
}

kr_status kr_recog_model_add_patch(kr_recog_model_t *m, int id, const char *source,
                                   const uint8_t *patch)
{
    kr_recog_feat f;
    kr_status     s = kr_recog_features(patch, &f);
    if (s != KR_OK)
        return s;
    if (f.contrast < 8 || f.ink <= 0)
        return KR_ERR_INVALID;
    return kr_recog_model_add_feat(m, id, source, &f);
}

kr_status kr_recog_model_merge(kr_recog_model_t *m, const kr_recog_model_t *src)
{
    if (!m || !src)
        return KR_ERR_INVALID;
    for (int i = 0; i < src->n; i++) {
        kr_recog_feat f;
        memcpy(f.v, src->t[i].v, sizeof f.v);
        kr_status s = kr_recog_model_add_feat(m, src->t[i].id, src->t[i].source, &f);
        if (s != KR_OK)
            return s;
    }
    return KR_OK;
}

int kr_recog_model_count(const kr_recog_model_t *m) { return m ? m->n : 0; }

int kr_recog_model_has(const kr_recog_model_t *m, int id)
{
    return (m && id >= 1 && id <= KR_RECOG_MAX_ID) ? m->per_id[id] : 0;
}

/* ---- scoring ---------------------------------------------------------------- */

/* Correlation of f with template t shifted by (dx, dy) cells, over the overlap. Both
 * vectors are zero-mean unit-norm over the full grid, so this is their normalised
 * cross-correlation with the part shifted out counted as zero. */
static double dot_shift(const float *f, const float *t, int dx, int dy)
{
    double s = 0;
    int    y0 = dy < 0 ? -dy : 0, y1 = KR_RECOG_FEAT_H - (dy > 0 ? dy : 0);
    int    x0 = dx < 0 ? -dx : 0, x1 = KR_RECOG_FEAT_W - (dx > 0 ? dx : 0);
    for (int y = y0; y < y1; y++) {
        const float *fr = f + y * KR_RECOG_FEAT_W;
        const float *tr = t + (y + dy) * KR_RECOG_FEAT_W + dx;
        float        r = 0;
        for (int x = x0; x < x1; x++)
            r += fr[x] * tr[x];
        s += r;
    }
    return s;
}

static double best_shift(const float *f, const float *t, int max_shift)
{
    double best = -2;
    for (int dy = -max_shift; dy <= max_shift; dy++)
        for (int dx = -max_shift; dx <= max_shift; dx++) {
            double s = dot_shift(f, t, dx, dy);
            if (s > best)
                best = s;
        }
    return best;
}

/* Centring on the model's mean feature: every card shares the two-column structure,
 * which dominates a raw correlation; subtracting the mean of all templates leaves what
 * tells cards apart. centre() makes a zero-mean unit-norm copy of f minus mean. */
static void centre(const float *f, const float *mean, float *out)
{
    double norm = 0, mu = 0;
    for (int i = 0; i < KR_RECOG_FEAT_N; i++) {
        out[i] = f[i] - (mean ? mean[i] : 0.f);
        mu += out[i];
    }
    mu /= KR_RECOG_FEAT_N;
    for (int i = 0; i < KR_RECOG_FEAT_N; i++) {
        out[i] -= (float)mu;
        norm += (double)out[i] * out[i];
    }
    norm = norm > 1e-18 ? 1.0 / sqrt(norm) : 0;
    for (int i = 0; i < KR_RECOG_FEAT_N; i++)
        out[i] = (float)(out[i] * norm);
}

/* Templates centred on their mean, prepared once per identify call. */
typedef struct prepared {
    float *tv;                  /* owned: n * KR_RECOG_FEAT_N */
    float  mean[KR_RECOG_FEAT_N];
} prepared;

static kr_status prepare(const kr_recog_model_t *m, prepared *p)
{
    memset(p->mean, 0, sizeof p->mean);
    p->tv = malloc(((size_t)m->n + 1) * KR_RECOG_FEAT_N * sizeof *p->tv);
    if (!p->tv)
        return KR_ERR_NOMEM;
    for (int i = 0; i < m->n; i++)
        for (int k = 0; k < KR_RECOG_FEAT_N; k++)
            p->mean[k] += m->t[i].v[k] / (float)m->n;
    for (int i = 0; i < m->n; i++)
        centre(m->t[i].v, p->mean, p->tv + (size_t)i * KR_RECOG_FEAT_N);
    return KR_OK;
}

/* Scores f (and, if asked, f turned 180 degrees) against every id: best[id], flip[id].
 * Two passes: every template unshifted, then the shift search only for the templates
 * of the KR_RECOG_REFINE best ids (the shifts only ever raise a score a little, so a
 * card far down the list after the first pass cannot win the second). */
#define KR_RECOG_REFINE 12
static void score_all(const kr_recog_model_t *m, const prepared *pp, const kr_recog_config *cfg,
                      const kr_recog_feat *f, double *best, int *flip)
{
    float fc[KR_RECOG_FEAT_N], tc[KR_RECOG_FEAT_N];
    int   shift = cfg->max_shift_cells < 0 ? 0 : cfg->max_shift_cells > 3 ? 3 : cfg->max_shift_cells;
    centre(f->v, pp->mean, fc);
    centre(f->v180, pp->mean, tc);
    for (int id = 0; id <= KR_RECOG_MAX_ID; id++) {
        best[id] = -2;
        flip[id] = 0;
    }
    for (int pass = 0; pass < (shift ? 2 : 1); pass++) {
        char refine[KR_RECOG_MAX_ID + 1] = {0};
        if (pass) { /* the KR_RECOG_REFINE best ids so far */
            for (int k = 0; k < KR_RECOG_REFINE; k++) {
                int bi = 0;
                for (int id = 1; id <= KR_RECOG_MAX_ID; id++)
                    if (!refine[id] && (bi == 0 || best[id] > best[bi]))
                        bi = id;
                if (bi)
                    refine[bi] = 1;
            }
        }
        for (int i = 0; i < m->n; i++) {
            const float *t = pp->tv + (size_t)i * KR_RECOG_FEAT_N;
            int          id = m->t[i].id;
            if (pass && !refine[id])
                continue;
            int    sh = pass ? shift : 0;
            double s = best_shift(fc, t, sh);
            if (s > best[id]) {
                best[id] = s;
                flip[id] = 0;
            }
            if (cfg->both_orientations) {
                s = best_shift(tc, t, sh);
                if (s > best[id]) {
                    best[id] = s;
                    flip[id] = 1;
                }
            }
        }
    }
}

double kr_recog_score(const kr_recog_model_t *m, const kr_recog_config *cfg,
                      const kr_recog_feat *f, int id, int *flipped)
{
    if (!m || !cfg || !f || id < 1 || id > KR_RECOG_MAX_ID || !m->per_id[id])
        return -2;
    double   best[KR_RECOG_MAX_ID + 1];
    int      flip[KR_RECOG_MAX_ID + 1];
    prepared pp;
    if (prepare(m, &pp) != KR_OK)
        return -2;
    score_all(m, &pp, cfg, f, best, flip);
    free(pp.tv);
    if (flipped)
        *flipped = flip[id];
    return best[id];
}

kr_status kr_recog_identify(const kr_recog_model_t *m, const kr_recog_config *cfg,
                            const kr_recog_feat *feat, int n, kr_recog_result *res,
                            double *scores)
{
    enum { NID = KR_RECOG_MAX_ID + 1 };
    if (!m || !cfg || (n > 0 && (!feat || !res)) || n < 0)
        return KR_ERR_INVALID;
    kr_status s = KR_OK;
    int      *rows = NULL, *cols = NULL, *assign = NULL, *alt = NULL, *flips = NULL;
    double   *w = NULL;
    int       nr = 0, nc = 0;
    prepared  pp = {0};
    if ((s = prepare(m, &pp)) != KR_OK)
        return s;
    for (int id = 1; id <= KR_RECOG_MAX_ID; id++)
        nc += m->per_id[id] > 0;
    rows = malloc(((size_t)n + 1) * sizeof *rows);
    cols = malloc(((size_t)nc + 1) * sizeof *cols);
    assign = malloc(((size_t)n + 1) * sizeof *assign);
    alt = malloc(((size_t)n + 1) * sizeof *alt);
    flips = malloc(((size_t)n * NID + 1) * sizeof *flips);
    w = malloc(((size_t)n * (size_t)(nc ? nc : 1) + 1) * sizeof *w);
    if (!rows || !cols || !assign || !alt || !flips || !w) {
        s = KR_ERR_NOMEM;
        goto fail;
    }
    nc = 0;
    for (int id = 1; id <= KR_RECOG_MAX_ID; id++)
        if (m->per_id[id])
            cols[nc++] = id;
    for (int i = 0; i < n; i++) {
        memset(&res[i], 0, sizeof res[i]);
        res[i].rival = -1;
        double best[NID];
        score_all(m, &pp, cfg, &feat[i], best, flips + (size_t)i * NID);
        if (scores)
            memcpy(scores + (size_t)i * NID, best, sizeof best);
        if (feat[i].contrast < cfg->min_contrast || feat[i].ink < cfg->min_ink) {
            res[i].verdict = KR_RECOG_BLANK;
            continue;
        }
        for (int c = 0; c < nc; c++)
            w[(size_t)nr * nc + c] = best[cols[c]];
        rows[nr++] = i;
    }
    if (nr == 0)
        goto fail; /* s == KR_OK: nothing to assign */
    if (nr > nc) {
        s = KR_ERR_INVALID;
        goto fail;
    }
    double total;
    s = kr_recog_assign(w, nr, nc, assign, &total);
    if (s != KR_OK)
        goto fail;
    for (int r = 0; r < nr; r++) {
        kr_recog_result *o = &res[rows[r]];
        int              c = assign[r];
        o->id = cols[c];
        o->score = w[(size_t)r * nc + c];
        o->flipped = flips[(size_t)rows[r] * NID + o->id];
        /* Second-best joint assignment: forbid this card's id and solve again. The
         * margin is what the whole layout loses; the runner-up is what this card gets. */
        double alt_total = 0;
        w[(size_t)r * nc + c] = -1e12;
        kr_status s2 = kr_recog_assign(w, nr, nc, alt, &alt_total);
        w[(size_t)r * nc + c] = o->score;
        if (s2 == KR_OK) {
            o->runner_up = cols[alt[r]];
            o->margin = total - alt_total;
            if (o->margin < 0)
                o->margin = 0;
            for (int k = 0; k < nr; k++)
                if (k != r && alt[k] == c)
                    o->rival = rows[k];
        } else {
            o->margin = 2.0; /* no alternative at all */
        }
        o->confidence = 1.0 - exp(-o->margin / (cfg->conf_scale > 0 ? cfg->conf_scale : 0.04));
        if (o->score < cfg->min_score)
            o->verdict = KR_RECOG_UNKNOWN;
        else if (o->margin < cfg->min_margin)
            o->verdict = KR_RECOG_AMBIGUOUS;
        else
            o->verdict = KR_RECOG_OK;
    }
fail:
    free(pp.tv);
    free(rows);
    free(cols);
    free(assign);
    free(alt);
    free(flips);
    free(w);
    return s;
}

/* ---- file format ------------------------------------------------------------ */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_encode(const uint8_t *in, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = b64[(v >> 18) & 63];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? b64[v & 63] : '=';
    }
    out[o] = 0;
}

/* Returns the number of bytes decoded, or -1 on a bad character. */
static long b64_decode(const char *in, uint8_t *out, size_t cap)
{
    size_t   o = 0;
    uint32_t acc = 0;
    int      bits = 0;
    for (const char *c = in; *c && *c != '='; c++) {
        const char *p = strchr(b64, *c);
        if (!p)
            return -1;
        acc = (acc << 6) | (uint32_t)(p - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o >= cap)
                return -1;
            out[o++] = (uint8_t)((acc >> bits) & 0xff);
        }
    }
    return (long)o;
}

/* one-line error text into the caller's err[errlen] (NULL-safe): kr_core's helper */
#define set_err(err, errlen, ...) ((void)kr_error_set((err), (errlen), KR_OK, __VA_ARGS__))

kr_status kr_recog_model_save(const kr_recog_model_t *m, const char *path)
{
    if (!m || !path)
        return KR_ERR_INVALID;
    kr_outfile_t of;
    kr_status    s = kr_outfile_open(path, &of);
    if (s != KR_OK)
        return s;
    char b[((KR_RECOG_FEAT_N + 2) / 3) * 4 + 1];
    fprintf(of.fp,
            "{\"format\":\"%s\",\"feature\":\"columns2\",\"grid\":[%d,%d],\"margin_mm\":%d,"
            "\"px_per_mm\":%d,\"templates\":%d}\n",
            KR_RECOG_FORMAT, KR_RECOG_FEAT_W, KR_RECOG_FEAT_H,
            KR_RECOG_MARGIN_MM, KR_RECOG_PX_PER_MM, m->n);
    for (int i = 0; i < m->n; i++) {
        const kr_recog_tmpl *t = &m->t[i];
        float                amax = 1e-9f;
        for (int k = 0; k < KR_RECOG_FEAT_N; k++)
            amax = fabsf(t->v[k]) > amax ? fabsf(t->v[k]) : amax;
        uint8_t q[KR_RECOG_FEAT_N];
        for (int k = 0; k < KR_RECOG_FEAT_N; k++)
            q[k] = (uint8_t)(int8_t)lrintf(t->v[k] / amax * 127.0f);
        b64_encode(q, KR_RECOG_FEAT_N, b);
        fprintf(of.fp, "{\"card\":%d,\"source\":\"%s\",\"scale\":%.9g,\"q\":\"%s\"}\n", t->id,
                t->source, (double)amax / 127.0, b);
    }
    if (ferror(of.fp)) {
        kr_outfile_abort(&of);
        return KR_ERR_IO;
    }
    return kr_outfile_commit(&of);
}

kr_status kr_recog_model_load(const char *path, kr_recog_model_t **out, char *err, size_t errlen)
{
    kr_status         s = KR_OK;
    FILE             *fp = NULL;
    char             *line = NULL;
    size_t            cap = 0;
    cJSON            *j = NULL;
    kr_recog_model_t *m = NULL;
    long              lineno = 0;
    if (!path || !out)
        return KR_ERR_INVALID;
    *out = NULL;
    fp = fopen(path, "r");
    if (!fp) {
        set_err(err, errlen, "%s: %s", path, strerror(errno));
        return KR_ERR_IO;
    }
    if ((s = kr_recog_model_create(&m)) != KR_OK)
        goto fail;
    int header = 0;
    while (getline(&line, &cap, fp) > 0) {
        lineno++;
        if (line[0] == '\n' || line[0] == 0)
            continue;
        cJSON_Delete(j);
        j = cJSON_Parse(line);
        if (!j || !cJSON_IsObject(j)) {
            set_err(err, errlen, "%s:%ld: not a JSON object", path, lineno);
            s = KR_ERR_FORMAT;
            goto fail;
        }
        if (!header) {
            const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(j, "format");
            const cJSON *grid = cJSON_GetObjectItemCaseSensitive(j, "grid");
            const cJSON *feat = cJSON_GetObjectItemCaseSensitive(j, "feature");
            const cJSON *marg = cJSON_GetObjectItemCaseSensitive(j, "margin_mm");
            if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, KR_RECOG_FORMAT)) {
                set_err(err, errlen, "%s:%ld: not a %s model (format)", path, lineno, KR_RECOG_FORMAT);
                s = KR_ERR_FORMAT;
                goto fail;
            }
            if (!cJSON_IsArray(grid) || cJSON_GetArraySize(grid) != 2 ||
                cJSON_GetArrayItem(grid, 0)->valuedouble != KR_RECOG_FEAT_W ||
                cJSON_GetArrayItem(grid, 1)->valuedouble != KR_RECOG_FEAT_H ||
                !cJSON_IsString(feat) || strcmp(feat->valuestring, "columns2") ||
                !cJSON_IsNumber(marg) || marg->valuedouble != KR_RECOG_MARGIN_MM) {
                set_err(err, errlen, "%s:%ld: feature differs from this program's (columns2, %dx%d cells)",
                        path, lineno, KR_RECOG_FEAT_W, KR_RECOG_FEAT_H);
                s = KR_ERR_FORMAT;
                goto fail;
            }
            header = 1;
            continue;
        }
        const cJSON *card = cJSON_GetObjectItemCaseSensitive(j, "card");
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(j, "source");
        const cJSON *scale = cJSON_GetObjectItemCaseSensitive(j, "scale");
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(j, "q");
        uint8_t      buf[KR_RECOG_FEAT_N + 4];
        if (!cJSON_IsNumber(card) || card->valuedouble < 1 || card->valuedouble > KR_RECOG_MAX_ID ||
            card->valuedouble != (int)card->valuedouble) {
            set_err(err, errlen, "%s:%ld: \"card\" must be an id 1..100", path, lineno);
            s = KR_ERR_FORMAT;
            goto fail;
        }
        if (!cJSON_IsNumber(scale) || !(scale->valuedouble > 0) || !cJSON_IsString(q) ||
            b64_decode(q->valuestring, buf, sizeof buf) != KR_RECOG_FEAT_N) {
            set_err(err, errlen, "%s:%ld: bad \"scale\" or \"q\" (want %d base64 bytes)", path,
                    lineno, KR_RECOG_FEAT_N);
            s = KR_ERR_FORMAT;
            goto fail;
        }
        kr_recog_feat f;
        for (int k = 0; k < KR_RECOG_FEAT_N; k++)
            f.v[k] = (float)((int8_t)buf[k] * scale->valuedouble);
        s = kr_recog_model_add_feat(m, (int)card->valuedouble,
                                    cJSON_IsString(src) ? src->valuestring : NULL, &f);
        if (s != KR_OK)
            goto fail;
    }
    if (!header) {
        set_err(err, errlen, "%s: empty model file", path);
        s = KR_ERR_FORMAT;
        goto fail;
    }
    if (ferror(fp)) {
        set_err(err, errlen, "%s: read error", path);
        s = KR_ERR_IO;
        goto fail;
    }
    *out = m;
    m = NULL;
fail:
    cJSON_Delete(j);
    free(line);
    fclose(fp);
    kr_recog_model_destroy(m);
    return s;
}
