/* kr_serve_review.c - the judge's review page: one self-contained index.html
 * (inline CSS/JS/SVG) from a match log, its rulings and the dispute clips.
 * SPDX-License-Identifier: MIT                                               */
#include "kr_serve.h"
#include "kr_serve_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct clip_entry {
    int32_t seq, slow;
    char   *video, *sheet; /* owned */
    double  fps;
    int64_t start_us;
} clip_entry;

struct kr_serve_review {
    cJSON      *log;       /* owned array of match-log records, file order */
    cJSON      *rulings;   /* owned array of "ruling" records */
    cJSON      *match_end; /* owned "match_end" record or NULL */
    char       *source;    /* owned */
    cJSON      *summary;   /* owned summary.json object (karuta-summary/1) or NULL */
    clip_entry *clips;     /* owned */
    size_t      n_clips, cap_clips;
    char        err[512];
};

static void set_err(kr_serve_review_t *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void set_err(kr_serve_review_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kr_error_setv(r->err, sizeof r->err, KR_OK, fmt, ap);
    va_end(ap);
}

kr_status kr_serve_review_create(kr_serve_review_t **out)
{
    *out = NULL;
    kr_serve_review_t *r = calloc(1, sizeof *r);
    if (!r)
        return KR_ERR_NOMEM;
    r->log = cJSON_CreateArray();
    r->rulings = cJSON_CreateArray();
    if (!r->log || !r->rulings) {
        kr_serve_review_destroy(r);
        return KR_ERR_NOMEM;
    }
    *out = r;
    return KR_OK;
}

void kr_serve_review_destroy(kr_serve_review_t *r)
{
    if (!r)
        return;
    cJSON_Delete(r->log);
    cJSON_Delete(r->rulings);
    cJSON_Delete(r->match_end);
    cJSON_Delete(r->summary);
    for (size_t i = 0; i < r->n_clips; i++) {
        free(r->clips[i].video);
        free(r->clips[i].sheet);
    }
    free(r->clips);
    free(r->source);
    free(r);
}

const char *kr_serve_review_error(const kr_serve_review_t *r)
{
    return r ? r->err : "no review object";
}

/* Reads a whole file into a NUL-terminated malloc'd buffer (caller frees). */
static kr_status read_all(kr_serve_review_t *r, const char *path, char **out)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        set_err(r, "%s: %s", path, strerror(errno));
        return KR_ERR_IO;
    }
    size_t cap = 1 << 16, n = 0;
    char  *buf = malloc(cap);
    kr_status st = KR_OK;
    if (!buf) {
        st = KR_ERR_NOMEM;
        goto fail;
    }
    for (;;) {
        if (cap - n < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                st = KR_ERR_NOMEM;
                goto fail;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        set_err(r, "%s: read error", path);
        st = KR_ERR_IO;
        goto fail;
    }
    buf[n] = '\0';
    fclose(f);
    *out = buf;
    return KR_OK;
fail:
    free(buf);
    fclose(f);
    return st;
}

/* Parses JSON Lines; calls take(r, record) for each (record ownership passes). */
static kr_status parse_lines(kr_serve_review_t *r, const char *name, const char *text,
                             kr_status (*take)(kr_serve_review_t *, cJSON *, const char *, int))
{
    int         line = 0;
    const char *p = text;
    char       *buf = NULL;
    size_t      cap = 0;
    kr_status   st = KR_OK;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t      len = e ? (size_t)(e - p) : strlen(p);
        line++;
        const char *q = p;
        p = e ? e + 1 : p + len;
        size_t k = 0;
        while (k < len && (q[k] == ' ' || q[k] == '\t' || q[k] == '\r'))
            k++;
        if (k == len)
            continue;
        if (len + 1 > cap) {
            char *nb = realloc(buf, len + 1);
            if (!nb) {
                st = KR_ERR_NOMEM;
                goto fail;
            }
            buf = nb;
            cap = len + 1;
        }
        memcpy(buf, q, len);
        buf[len] = '\0';
        cJSON *rec = cJSON_Parse(buf);
        if (!rec || !cJSON_IsObject(rec)) {
            cJSON_Delete(rec);
            set_err(r, "%s:%d: not a JSON object", name, line);
            st = KR_ERR_FORMAT;
            goto fail;
        }
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(rec, "type"))) {
            cJSON_Delete(rec);
            set_err(r, "%s:%d: record without a \"type\"", name, line);
            st = KR_ERR_FORMAT;
            goto fail;
        }
        st = take(r, rec, name, line);
        if (st != KR_OK)
            goto fail;
    }
fail:
    free(buf);
    return st;
}

static kr_status take_log(kr_serve_review_t *r, cJSON *rec, const char *name, int line)
{
    (void)name;
    (void)line;
    cJSON_AddItemToArray(r->log, rec);
    return KR_OK;
}

static kr_status take_ruling(kr_serve_review_t *r, cJSON *rec, const char *name, int line)
{
    const char *type = cJSON_GetObjectItemCaseSensitive(rec, "type")->valuestring;
    if (!strcmp(type, "ruling")) {
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(rec, "seq"))) {
            cJSON_Delete(rec);
            set_err(r, "%s:%d: ruling without a \"seq\"", name, line);
            return KR_ERR_FORMAT;
        }
        cJSON_AddItemToArray(r->rulings, rec);
    } else if (!strcmp(type, "match_end")) {
        cJSON_Delete(r->match_end);
        r->match_end = rec;
    } else {
        cJSON_Delete(rec);
        set_err(r, "%s:%d: unknown rulings record type \"%s\"", name, line, type);
        return KR_ERR_FORMAT;
    }
    return KR_OK;
}

kr_status kr_serve_review_load_log_text(kr_serve_review_t *r, const char *name, const char *text)
{
    return parse_lines(r, name, text, take_log);
}

kr_status kr_serve_review_load_rulings_text(kr_serve_review_t *r, const char *name,
                                            const char *text)
{
    return parse_lines(r, name, text, take_ruling);
}

/* A file read whole and given to one of the _text loads, named by its path. */
static kr_status load_file(kr_serve_review_t *r, const char *path,
                           kr_status (*load_text)(kr_serve_review_t *, const char *, const char *))
{
    char     *text;
    kr_status st = read_all(r, path, &text);
    if (st != KR_OK)
        return st;
    st = load_text(r, path, text);
    free(text);
    return st;
}

kr_status kr_serve_review_load_log(kr_serve_review_t *r, const char *path)
{
    return load_file(r, path, kr_serve_review_load_log_text);
}

kr_status kr_serve_review_load_rulings(kr_serve_review_t *r, const char *path)
{
    return load_file(r, path, kr_serve_review_load_rulings_text);
}

kr_status kr_serve_review_load_summary_text(kr_serve_review_t *r, const char *name, const char *text)
{
    if (!r || !name || !text)
        return KR_ERR_INVALID;
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(text, &end, 1);
    if (!j || !cJSON_IsObject(j)) {
        /* the line of the first byte cJSON could not take */
        int line = 1;
        for (const char *c = text; end && c < end && *c; c++)
            line += *c == '\n';
        set_err(r, "%s:%d: %s", name, line, j ? "not a JSON object" : "malformed JSON");
        cJSON_Delete(j);
        return KR_ERR_FORMAT;
    }
    cJSON_Delete(r->summary);
    r->summary = j;
    return KR_OK;
}

kr_status kr_serve_review_load_summary(kr_serve_review_t *r, const char *path)
{
    return load_file(r, path, kr_serve_review_load_summary_text);
}

kr_status kr_serve_review_set_source(kr_serve_review_t *r, const char *name)
{
    char *d = kr_strdup(name);
    if (name && !d)
        return KR_ERR_NOMEM;
    free(r->source);
    r->source = d;
    return KR_OK;
}

kr_status kr_serve_review_add_clip(kr_serve_review_t *r, const kr_serve_clip_t *c)
{
    if (!c || !c->video || !(c->fps > 0)) {
        set_err(r, "clip of reading %d: no video or no frame rate", c ? (int)c->seq : -1);
        return KR_ERR_INVALID;
    }
    clip_entry e = {c->seq, c->slow > 0 ? c->slow : 1, kr_strdup(c->video), kr_strdup(c->sheet),
                    c->fps, c->start_us};
    if (!e.video || (c->sheet && !e.sheet)) {
        free(e.video);
        free(e.sheet);
        return KR_ERR_NOMEM;
    }
    for (size_t i = 0; i < r->n_clips; i++)
        if (r->clips[i].seq == c->seq) {
            free(r->clips[i].video);
            free(r->clips[i].sheet);
            r->clips[i] = e;
            return KR_OK;
        }
    if (r->n_clips == r->cap_clips) {
        size_t      nc = r->cap_clips ? r->cap_clips * 2 : 16;
        clip_entry *n = realloc(r->clips, nc * sizeof *n);
        if (!n) {
            free(e.video);
            free(e.sheet);
            return KR_ERR_NOMEM;
        }
        r->clips = n;
        r->cap_clips = nc;
    }
    r->clips[r->n_clips++] = e;
    return KR_OK;
}

/* ---- JSON accessors ------------------------------------------------------ */

static const cJSON *jget(const cJSON *o, const char *k)
{
    return o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}
static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = jget(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}
static bool jhas_num(const cJSON *o, const char *k)
{
    return cJSON_IsNumber(jget(o, k));
}
static double jnum(const cJSON *o, const char *k, double def)
{
    const cJSON *v = jget(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}
static int64_t jus(const cJSON *o, const char *k, int64_t def)
{
    const cJSON *v = jget(o, k);
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : def;
}
static bool jtrue(const cJSON *o, const char *k)
{
    return cJSON_IsTrue(jget(o, k));
}

static const clip_entry *find_clip(const kr_serve_review_t *r, int32_t seq)
{
    for (size_t i = 0; i < r->n_clips; i++)
        if (r->clips[i].seq == seq)
            return &r->clips[i];
    return NULL;
}

/* First record of `type` for reading seq in the log, or NULL. */
static const cJSON *find_reading(const kr_serve_review_t *r, const char *type, int32_t seq)
{
    const cJSON *rec;
    cJSON_ArrayForEach(rec, r->log)
    {
        const char *t = jstr(rec, "type");
        if (t && !strcmp(t, type) && jnum(rec, "seq", -1) == seq)
            return rec;
    }
    return NULL;
}

/* The source-time window [*a, *b) of reading seq: kami_start to the next kami_start. */
static void reading_window(const kr_serve_review_t *r, const cJSON *ruling, int64_t *a, int64_t *b)
{
    int32_t      seq = (int32_t)jnum(ruling, "seq", 0);
    const cJSON *ks = find_reading(r, "kami_start", seq);
    *a = ks ? jus(ks, "t_us", INT64_MIN) : INT64_MIN;
    *b = INT64_MAX;
    if (*a == INT64_MIN) {
        const cJSON *take = jget(ruling, "take");
        if (jhas_num(take, "t_us")) {
            *a = jus(take, "t_us", 0) - 3000000;
            *b = jus(take, "t_us", 0) + 3000000;
        }
        return;
    }
    const cJSON *rec;
    cJSON_ArrayForEach(rec, r->log)
    {
        const char *t = jstr(rec, "type");
        int64_t     tu = jus(rec, "t_us", INT64_MIN);
        if (t && !strcmp(t, "kami_start") && jnum(rec, "seq", -1) != seq && tu > *a && tu < *b)
            *b = tu;
    }
}

static bool wants_clip(const cJSON *ruling)
{
    const cJSON *faults = jget(ruling, "faults");
    return jtrue(ruling, "needs_review") || cJSON_IsObject(jget(ruling, "take")) ||
           (cJSON_IsArray(faults) && cJSON_GetArraySize(faults) > 0);
}

/* The contact that decides a ruling: the take, else the first fault, else the
 * earliest cited evidence, else the reading's settle or kimariji. */
static int64_t decisive_us(const kr_serve_review_t *r, const cJSON *ruling)
{
    const cJSON *take = jget(ruling, "take");
    if (jhas_num(take, "t_us"))
        return jus(take, "t_us", 0);
    const cJSON *f;
    int64_t      best = INT64_MAX;
    cJSON_ArrayForEach(f, jget(ruling, "faults")) if (jhas_num(f, "t_us") && jus(f, "t_us", 0) < best)
        best = jus(f, "t_us", 0);
    if (best != INT64_MAX)
        return best;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, jget(ruling, "evidence"))
    {
        if (!cJSON_IsString(ev))
            continue;
        const cJSON *rec;
        cJSON_ArrayForEach(rec, r->log)
        {
            const char *id = jstr(rec, "id");
            if (id && !strcmp(id, ev->valuestring) && jhas_num(rec, "t_us") && jus(rec, "t_us", 0) < best)
                best = jus(rec, "t_us", 0);
        }
    }
    if (best != INT64_MAX)
        return best;
    int64_t a, b;
    reading_window(r, ruling, &a, &b);
    const cJSON *rec;
    cJSON_ArrayForEach(rec, r->log)
    {
        const char *t = jstr(rec, "type");
        int64_t     tu = jus(rec, "t_us", INT64_MIN);
        if (t && !strcmp(t, "settle") && tu >= a && tu < b)
            return tu;
    }
    const cJSON *km = find_reading(r, "kimariji", (int32_t)jnum(ruling, "seq", 0));
    if (km && jhas_num(km, "t_us"))
        return jus(km, "t_us", 0);
    return a != INT64_MIN ? a + 2000000 : 0;
}

size_t kr_serve_review_clip_wants(const kr_serve_review_t *r, kr_serve_clip_want_t *out, size_t cap)
{
    size_t       n = 0;
    const cJSON *ru;
    cJSON_ArrayForEach(ru, r->rulings)
    {
        if (!wants_clip(ru))
            continue;
        if (out && n < cap) {
            out[n].seq = (int32_t)jnum(ru, "seq", 0);
            out[n].at_us = decisive_us(r, ru);
            if (out[n].at_us < 0)
                out[n].at_us = 0;
        }
        n++;
    }
    return n;
}

/* ---- HTML writing -------------------------------------------------------- */

void kr_serve_html_escape(FILE *out, const char *s)
{
    if (!s)
        return;
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

static void esc(FILE *o, const char *s)
{
    kr_serve_html_escape(o, s);
}

/* m:ss.mmm of a source time; "-" for none. */
static const char *fmt_time(char buf[32], int64_t us)
{
    if (us == INT64_MIN || us == INT64_MAX) {
        snprintf(buf, 32, "-");
        return buf;
    }
    const char *sign = us < 0 ? "-" : "";
    int64_t     a = us < 0 ? -us : us;
    int64_t     ms = a / 1000;
    snprintf(buf, 32, "%s%" PRId64 ":%02" PRId64 ".%03" PRId64, sign, ms / 60000, (ms / 1000) % 60,
             ms % 1000);
    return buf;
}

/* "Sato (A)" or "A". */
static void player(FILE *o, const kr_serve_review_t *r, const char *p)
{
    if (!p) {
        fputs("?", o);
        return;
    }
    const cJSON *rec;
    const char  *name = NULL;
    cJSON_ArrayForEach(rec, r->log)
    {
        const char *t = jstr(rec, "type");
        if (t && !strcmp(t, "match")) {
            name = jstr(jget(jget(rec, "players"), p), "name");
            break;
        }
    }
    fputs("<span class=\"pl pl-", o);
    esc(o, p);
    fputs("\">", o);
    if (name) {
        esc(o, name);
        fputs(" (", o);
        esc(o, p);
        fputs(")", o);
    } else {
        esc(o, p);
    }
    fputs("</span>", o);
}

static const char *how_words(const char *how)
{
    if (!how)
        return "?";
    if (!strcmp(how, "touch"))
        return "touch";
    if (!strcmp(how, "push_out"))
        return "pushed out";
    if (!strcmp(how, "simultaneous"))
        return "simultaneous touch, to the owner";
    if (!strcmp(how, "awarded"))
        return "awarded (taker's take void)";
    if (!strcmp(how, "force_majeure"))
        return "force majeure, to the owner";
    return how;
}

static void location(FILE *o, const char *loc)
{
    if (!loc)
        fputs("?", o);
    else if (!strcmp(loc, "dead"))
        fputs("dead card (空札)", o);
    else {
        fputs("in ", o);
        esc(o, loc);
        fputs("'s territory", o);
    }
}

static void take_text(FILE *o, const kr_serve_review_t *r, const cJSON *ru)
{
    char         tb[32];
    const cJSON *take = jget(ru, "take");
    if (jget(ru, "established") && !jtrue(ru, "established")) {
        fputs("reading not established", o);
        return;
    }
    if (!cJSON_IsObject(take)) {
        fputs("nobody took", o);
        return;
    }
    player(o, r, jstr(take, "player"));
    fputs(" took: ", o);
    esc(o, how_words(jstr(take, "how")));
    if (jhas_num(take, "t_us"))
        fprintf(o, " at %s", fmt_time(tb, jus(take, "t_us", 0)));
    if (jhas_num(take, "margin_us"))
        fprintf(o, ", ahead by %.0f ms", jnum(take, "margin_us", 0) / 1000.0);
}

static void faults_text(FILE *o, const kr_serve_review_t *r, const cJSON *ru)
{
    const cJSON *f;
    int          n = 0;
    char         tb[32];
    cJSON_ArrayForEach(f, jget(ru, "faults"))
    {
        if (n++)
            fputs("; ", o);
        player(o, r, jstr(f, "player"));
        fputs(" faulted", o);
        const cJSON *terr = jget(f, "territories");
        if (cJSON_GetArraySize(terr) > 0) {
            fputs(" in ", o);
            const cJSON *t;
            int          k = 0;
            cJSON_ArrayForEach(t, terr)
            {
                if (k++)
                    fputs(" and ", o);
                esc(o, cJSON_IsString(t) ? t->valuestring : "?");
            }
        }
        if (jhas_num(f, "card"))
            fprintf(o, " (card %d)", (int)jnum(f, "card", 0));
        if (jhas_num(f, "t_us"))
            fprintf(o, " at %s", fmt_time(tb, jus(f, "t_us", 0)));
    }
    if (jtrue(ru, "double_fault")) {
        fputs(n ? "; " : "", o);
        fputs("<b>double fault</b>", o);
        n++;
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, jget(ru, "voided"))
    {
        if (n++)
            fputs("; ", o);
        player(o, r, jstr(v, "player"));
        fputs("'s take void: ", o);
        esc(o, jstr(v, "reason"));
    }
    if (!n)
        fputs("<span class=\"dim\">none</span>", o);
}

static void send_text(FILE *o, const kr_serve_review_t *r, const cJSON *ru)
{
    const cJSON *s = jget(ru, "send");
    if (!cJSON_IsObject(s)) {
        fputs("<span class=\"dim\">-</span>", o);
        return;
    }
    player(o, r, jstr(s, "from"));
    fprintf(o, " sends %d", (int)jnum(s, "count", 0));
}

static void counts_text(FILE *o, const cJSON *ru)
{
    const cJSON *c = jget(ru, "counts");
    if (!cJSON_IsObject(c)) {
        fputs("-", o);
        return;
    }
    fprintf(o, "<span class=\"pl-A\">%d</span>&thinsp;&ndash;&thinsp;<span class=\"pl-B\">%d</span>",
            (int)jnum(c, "A", 0), (int)jnum(c, "B", 0));
}

static void reasons_list(FILE *o, const cJSON *ru)
{
    const cJSON *why;
    fputs("<ul class=\"reasons\">", o);
    int n = 0;
    cJSON_ArrayForEach(why, jget(ru, "review"))
    {
        fputs("<li>", o);
        esc(o, cJSON_IsString(why) ? why->valuestring : "?");
        fputs("</li>", o);
        n++;
    }
    if (!n)
        fputs("<li>flagged for review (no reason given)</li>", o);
    fputs("</ul>", o);
}

static void card_title(FILE *o, const cJSON *ru)
{
    fprintf(o, "Reading %d &middot; card %d", (int)jnum(ru, "seq", 0), (int)jnum(ru, "card", 0));
    const char *km = jstr(ru, "kimariji");
    if (km) {
        fputs(" <span class=\"kana\">", o);
        esc(o, km);
        fputs("</span>", o);
    }
}

/* What the analysis said about the footage (summary.json, kr_serve_review_load_summary),
 * in words for the judge: a video that broke off, a poor calibration, frames missing, an
 * interlaced camera, a rolling shutter timed by rows, lamps flickering, a noisy picture.
 * Nothing to say: no section. */
static void footage_notes(FILE *o, const cJSON *su)
{
    if (!su)
        return;
    int n = 0;
    const cJSON *cal = jget(su, "calibration"), *light = jget(su, "light"), *noise = jget(su, "noise");
#define NOTE_START() fputs(n++ ? "<li>" : "<section id=\"footage\"><h2>About the footage</h2><ul class=\"notes\"><li>", o)
    if (cJSON_IsFalse(jget(su, "complete"))) {
        NOTE_START();
        fputs("The video broke off: ", o);
        esc(o, jstr(su, "error") ? jstr(su, "error") : "unreadable");
        fputs(". What was read before it is ruled.</li>", o);
    }
    if (cal && cJSON_IsFalse(jget(cal, "ok"))) {
        NOTE_START();
        fprintf(o, "The calibration is poor (%.1f mm RMS): every ruling needs review.</li>", jnum(cal, "rms_mm", 0));
    }
    double fps = jnum(su, "fps", 0), gap_ms = jnum(su, "max_frame_gap_us", 0) / 1000.0;
    if (fps > 0 && gap_ms > 1500.0 / fps) {
        NOTE_START();
        fprintf(o, "Frames are missing: the longest gap between two frames is %.0f ms (%.1f frames).</li>", gap_ms,
                gap_ms * fps / 1000.0);
    }
    if (jtrue(su, "interlaced")) {
        NOTE_START();
        fputs("Interlaced video: each frame's two fields are read together, so contact times are no finer than a "
              "frame.</li>", o);
    }
    if (cal && jnum(cal, "readout_us", 0) > 0) {
        const char *from = jstr(cal, "readout_from") ? jstr(cal, "readout_from") : "";
        NOTE_START();
        fprintf(o, "Rolling shutter: the camera reads its rows over %.1f ms (%s); each contact is timed by its "
                   "row.</li>",
                jnum(cal, "readout_us", 0) / 1000.0,
                !strcmp(from, "flicker")       ? "measured from the lamps' flicker"
                : !strcmp(from, "calibration") ? "from the calibration"
                                               : "as given");
    }
    if (light && jnum(light, "steadied_frames", 0) > 0) {
        NOTE_START();
        fprintf(o, "The light flickers (up to %.1f %% RMS): the picture was steadied against it on %.0f frames. "
                   "Presses there are timed less surely.</li>",
                100 * jnum(light, "flicker_rms", 0), jnum(light, "steadied_frames", 0));
    }
    if (noise && jtrue(noise, "noisy")) {
        NOTE_START();
        fprintf(o, "The picture is noisy (the still mat changes by up to %.0f levels between frames): the hands' "
                   "changes were counted beyond it on %.0f frames. Presses there are timed less surely.</li>",
                jnum(noise, "level_max", 0), jnum(noise, "noisy_frames", 0));
    }
#undef NOTE_START
    if (n)
        fputs("</ul></section>\n", o);
}

/* Initial counts from the layout; false if the log has no layout. */
static bool initial_counts(const kr_serve_review_t *r, int *a, int *b)
{
    const cJSON *rec;
    cJSON_ArrayForEach(rec, r->log)
    {
        const char *t = jstr(rec, "type");
        if (!t || strcmp(t, "layout"))
            continue;
        *a = *b = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, jget(rec, "cards"))
        {
            const char *ow = jstr(c, "owner");
            if (ow && !strcmp(ow, "A"))
                (*a)++;
            else if (ow && !strcmp(ow, "B"))
                (*b)++;
        }
        return true;
    }
    return false;
}

static void write_chart(FILE *o, const kr_serve_review_t *r)
{
    int n = cJSON_GetArraySize(r->rulings);
    int a0 = 0, b0 = 0;
    bool has0 = initial_counts(r, &a0, &b0);
    int ymax = has0 ? (a0 > b0 ? a0 : b0) : 1;
    const cJSON *ru;
    cJSON_ArrayForEach(ru, r->rulings)
    {
        const cJSON *c = jget(ru, "counts");
        int ca = (int)jnum(c, "A", 0), cb = (int)jnum(c, "B", 0);
        if (ca > ymax)
            ymax = ca;
        if (cb > ymax)
            ymax = cb;
    }
    ymax = ((ymax + 4) / 5) * 5;
    if (ymax < 5)
        ymax = 5;
    const double W = 960, H = 280, ml = 44, mr = 16, mt = 16, mb = 36;
    double       dx = (W - ml - mr) / (n > 0 ? n : 1);
#define XP(i) (ml + (i) * dx)
#define YP(v) (mt + (H - mt - mb) * (1.0 - (double)(v) / ymax))
    fprintf(o, "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"cards left per player\">", W, H);
    /* review bands first, under everything */
    int i = 0;
    cJSON_ArrayForEach(ru, r->rulings)
    {
        i++;
        if (jtrue(ru, "needs_review"))
            fprintf(o, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>reading %d needs review</title></rect>",
                    XP(i) - dx / 2 > ml ? XP(i) - dx / 2 : ml, mt, dx, H - mt - mb, (int)jnum(ru, "seq", 0));
    }
    for (int v = 0; v <= ymax; v += 5) {
        fprintf(o, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", ml, W - mr, YP(v), YP(v));
        fprintf(o, "<text class=\"ax\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d</text>", ml - 6, YP(v) + 4, v);
    }
    int step = n > 40 ? 10 : (n > 16 ? 5 : 1);
    for (int k = 0; k <= n; k += step)
        fprintf(o, "<text class=\"ax\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>", XP(k), H - mb + 16, k);
    fprintf(o, "<text class=\"ax\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">reading</text>", (ml + W - mr) / 2, H - 4);
    for (int side = 0; side < 2; side++) {
        const char *p = side ? "B" : "A";
        fprintf(o, "<polyline class=\"line line-%s\" points=\"", p);
        if (has0)
            fprintf(o, "%.1f,%.1f ", XP(0), YP(side ? b0 : a0));
        i = 0;
        cJSON_ArrayForEach(ru, r->rulings)
        {
            i++;
            const cJSON *c = jget(ru, "counts");
            if (cJSON_IsObject(c))
                fprintf(o, "%.1f,%.1f ", XP(i), YP(jnum(c, p, 0)));
        }
        fputs("\"/>", o);
        i = 0;
        cJSON_ArrayForEach(ru, r->rulings)
        {
            i++;
            const cJSON *c = jget(ru, "counts");
            if (!cJSON_IsObject(c))
                continue;
            fprintf(o, "<circle class=\"dot dot-%s%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"><title>reading %d: %s has %d</title></circle>",
                    p, jtrue(ru, "needs_review") ? " rv" : "", XP(i), YP(jnum(c, p, 0)),
                    jtrue(ru, "needs_review") ? "5" : "3.5", (int)jnum(ru, "seq", 0), p, (int)jnum(c, p, 0));
        }
    }
    fputs("</svg>", o);
#undef XP
#undef YP
}

static void write_evidence(FILE *o, const kr_serve_review_t *r, const cJSON *ru, bool with_clip)
{
    int64_t a, b;
    char    tb[32];
    reading_window(r, ru, &a, &b);
    const cJSON *ev_ids = jget(ru, "evidence");
    fputs("<table class=\"ev\"><thead><tr><th>time</th><th>event</th><th>player</th><th>hand</th>"
          "<th>card</th><th>territory</th><th>conf.</th><th>id</th></tr></thead><tbody>", o);
    const cJSON *rec;
    int          rows = 0;
    cJSON_ArrayForEach(rec, r->log)
    {
        const char *type = jstr(rec, "type");
        const char *id = jstr(rec, "id");
        if (!type || !strcmp(type, "match") || !strcmp(type, "layout"))
            continue;
        bool cited = false;
        const cJSON *e;
        if (id)
            cJSON_ArrayForEach(e, ev_ids) if (cJSON_IsString(e) && !strcmp(e->valuestring, id)) cited = true;
        int64_t t = jus(rec, "t_us", INT64_MIN);
        bool    in = t != INT64_MIN && t >= a && t < b;
        if (!in && !cited)
            continue;
        rows++;
        fprintf(o, "<tr class=\"%s\"", cited ? "cited" : "");
        if (t != INT64_MIN)
            fprintf(o, " data-t-us=\"%" PRId64 "\"", t);
        fputs("><td class=\"num\">", o);
        if (with_clip && t != INT64_MIN)
            fprintf(o, "<button class=\"seek\" title=\"show this moment in the clip\">%s</button>", fmt_time(tb, t));
        else
            fputs(fmt_time(tb, t), o);
        fputs("</td><td>", o);
        esc(o, type);
        if (jhas_num(rec, "seq"))
            fprintf(o, " #%d", (int)jnum(rec, "seq", 0));
        if (cited)
            fputs(" <span class=\"tag\">evidence</span>", o);
        fputs("</td><td>", o);
        const char *pl = jstr(rec, "player") ? jstr(rec, "player") : jstr(rec, "from");
        if (pl)
            player(o, r, pl);
        fputs("</td><td>", o);
        esc(o, jstr(rec, "hand"));
        esc(o, jstr(rec, "kind"));
        fputs("</td><td class=\"num\">", o);
        if (jhas_num(rec, "card"))
            fprintf(o, "%d", (int)jnum(rec, "card", 0));
        else if (cJSON_IsNull(jget(rec, "card")))
            fputs("<span class=\"warn\">unknown</span>", o);
        fputs("</td><td>", o);
        esc(o, jstr(rec, "territory"));
        fputs("</td><td class=\"num\">", o);
        if (jhas_num(rec, "confidence")) {
            double c = jnum(rec, "confidence", 1);
            fprintf(o, "<span class=\"%s\">%.2f</span>", c < 0.9 ? "warn" : "", c);
        }
        if (jhas_num(rec, "t_err_us"))
            fprintf(o, " <span class=\"dim\">&plusmn;%.1f ms</span>", jnum(rec, "t_err_us", 0) / 1000.0);
        fputs("</td><td class=\"mono\">", o);
        esc(o, id);
        fputs("</td></tr>", o);
    }
    if (!rows)
        fputs("<tr><td colspan=\"8\" class=\"dim\">no events recorded for this reading</td></tr>", o);
    fputs("</tbody></table>", o);
}

static void write_detail(FILE *o, const kr_serve_review_t *r, const cJSON *ru)
{
    int32_t           seq = (int32_t)jnum(ru, "seq", 0);
    const clip_entry *c = find_clip(r, seq);
    bool              rv = jtrue(ru, "needs_review");
    fprintf(o, "<article class=\"detail%s\" id=\"r%d\" data-detail-seq=\"%d\"><h3>", rv ? " rv" : "", seq, seq);
    card_title(o, ru);
    if (rv)
        fputs(" <span class=\"badge rv\">needs review</span>", o);
    fputs("</h3><p class=\"sum\">", o);
    take_text(o, r, ru);
    fputs(" &middot; card lay ", o);
    location(o, jstr(ru, "location"));
    fputs(" &middot; counts ", o);
    counts_text(o, ru);
    fputs("</p><p class=\"sum\"><b>Faults:</b> ", o);
    faults_text(o, r, ru);
    fputs(" &middot; <b>Send:</b> ", o);
    send_text(o, r, ru);
    fprintf(o, " &middot; <b>Confidence:</b> %.2f</p>", jnum(ru, "confidence", 1));
    if (rv)
        reasons_list(o, ru);
    fputs("<div class=\"media\">", o);
    if (c) {
        fprintf(o, "<div class=\"player\" tabindex=\"0\" data-fps=\"%.6g\" data-start-us=\"%" PRId64 "\" data-slow=\"%d\">",
                c->fps, c->start_us, c->slow);
        fputs("<video preload=\"auto\" muted playsinline src=\"", o);
        esc(o, c->video);
        fputs("\"></video><div class=\"ctl\">"
              "<button data-act=\"-1\" title=\"one frame back (&larr;)\">&#9664;&#9646; frame</button>"
              "<button data-act=\"play\" title=\"play / pause (space)\">&#9654; play</button>"
              "<button data-act=\"1\" title=\"one frame forward (&rarr;)\">frame &#9646;&#9654;</button>"
              "<select data-act=\"rate\" title=\"playback speed\"><option value=\"1\">1&times;</option>"
              "<option value=\"0.5\">&frac12;&times;</option><option value=\"0.25\">&frac14;&times;</option>"
              "<option value=\"0.1\">0.1&times;</option></select>"
              "<span class=\"tc\">frame 0</span></div>", o);
        if (c->slow > 1)
            fprintf(o, "<div class=\"dim small\">clip slowed %d&times;; times shown are match times</div>", c->slow);
        fputs("<a class=\"dim small\" href=\"", o);
        esc(o, c->video);
        fputs("\">open clip file</a></div>", o);
        if (c->sheet) {
            fputs("<figure class=\"sheet\"><a href=\"", o);
            esc(o, c->sheet);
            fputs("\"><img alt=\"contact sheet\" src=\"", o);
            esc(o, c->sheet);
            fputs("\"></a><figcaption>Contact sheet: frames around the contact</figcaption></figure>", o);
        }
    } else {
        fputs("<p class=\"dim\">No clip for this reading.</p>", o);
    }
    fputs("</div><h4>Evidence</h4>", o);
    write_evidence(o, r, ru, c != NULL);
    fputs("</article>\n", o);
}

static void write_timeline(FILE *o, const kr_serve_review_t *r)
{
    char tb[32];
    fputs("<table class=\"tl\"><thead><tr><th>#</th><th>time</th><th>card</th><th>kimariji</th>"
          "<th>location</th><th>take</th><th>faults</th><th>send</th><th>counts A&ndash;B</th>"
          "<th>conf.</th><th>review</th></tr></thead><tbody>\n", o);
    const cJSON *ru;
    cJSON_ArrayForEach(ru, r->rulings)
    {
        int32_t      seq = (int32_t)jnum(ru, "seq", 0);
        bool         rv = jtrue(ru, "needs_review");
        bool         detail = wants_clip(ru) || rv;
        const cJSON *ks = find_reading(r, "kami_start", seq);
        fprintf(o, "<tr id=\"t%d\" data-ruling-seq=\"%d\" class=\"%s%s\"><td class=\"num\">", seq, seq,
                rv ? "rv" : "", jtrue(ru, "final") || !jget(ru, "final") ? "" : " prov");
        if (detail)
            fprintf(o, "<a href=\"#r%d\">%d</a>", seq, seq);
        else
            fprintf(o, "%d", seq);
        fprintf(o, "</td><td class=\"num\">%s</td><td class=\"num\">%d</td><td class=\"kana\">",
                fmt_time(tb, ks ? jus(ks, "t_us", INT64_MIN) : INT64_MIN), (int)jnum(ru, "card", 0));
        esc(o, jstr(ru, "kimariji"));
        fputs("</td><td>", o);
        const char *loc = jstr(ru, "location");
        if (loc && !strcmp(loc, "dead"))
            fputs("<span class=\"dim\">dead</span>", o);
        else if (loc) {
            fputs("<span class=\"pl-", o);
            esc(o, loc);
            fputs("\">", o);
            esc(o, loc);
            fputs("</span>", o);
        }
        fputs("</td><td>", o);
        take_text(o, r, ru);
        fputs("</td><td>", o);
        faults_text(o, r, ru);
        fputs("</td><td>", o);
        send_text(o, r, ru);
        fputs("</td><td class=\"num\">", o);
        counts_text(o, ru);
        double conf = jnum(ru, "confidence", 1);
        fprintf(o, "</td><td class=\"num\"><span class=\"%s\">%.2f</span></td><td>", conf < 0.9 ? "warn" : "", conf);
        if (rv) {
            fputs("<span class=\"badge rv\" title=\"", o);
            const cJSON *why;
            int          k = 0;
            cJSON_ArrayForEach(why, jget(ru, "review"))
            {
                if (k++)
                    fputs("; ", o);
                esc(o, cJSON_IsString(why) ? why->valuestring : "");
            }
            fputs("\">review</span>", o);
        }
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table>\n", o);
}

kr_status kr_serve_review_write(const kr_serve_review_t *r, FILE *o)
{
    const cJSON *match = NULL, *rec, *ru;
    cJSON_ArrayForEach(rec, r->log)
    {
        const char *t = jstr(rec, "type");
        if (t && !strcmp(t, "match")) {
            match = rec;
            break;
        }
    }
    const char *na = jstr(jget(jget(match, "players"), "A"), "name");
    const char *nb = jstr(jget(jget(match, "players"), "B"), "name");
    int n = 0, n_rv = 0, n_take = 0, n_fault = 0;
    cJSON_ArrayForEach(ru, r->rulings)
    {
        n++;
        n_rv += jtrue(ru, "needs_review");
        n_take += cJSON_IsObject(jget(ru, "take"));
        n_fault += cJSON_GetArraySize(jget(ru, "faults"));
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
          "<meta name=\"generator\" content=\"karuta-ref review\"><title>Karuta review: ", o);
    esc(o, na ? na : "A");
    fputs(" vs ", o);
    esc(o, nb ? nb : "B");
    fputs("</title><style>\n", o);
    fputs(kr_serve_res_review_css, o);
    fputs("</style></head><body>\n<header><div class=\"wrap\"><h1>Match review</h1><p class=\"players\">", o);
    player(o, r, "A");
    fputs(" <span class=\"vs\">vs</span> ", o);
    player(o, r, "B");
    fputs("</p><p class=\"meta\">", o);
    if (r->source) {
        fputs("source <span class=\"mono\">", o);
        esc(o, r->source);
        fputs("</span> &middot; ", o);
    }
    fprintf(o, "%d reading%s &middot; %d take%s &middot; %d fault%s</p>", n, n == 1 ? "" : "s", n_take,
            n_take == 1 ? "" : "s", n_fault, n_fault == 1 ? "" : "s");
    fputs("<div class=\"result\">", o);
    if (r->match_end) {
        const cJSON *c = jget(r->match_end, "counts");
        fputs("Winner: ", o);
        player(o, r, jstr(r->match_end, "winner"));
        fprintf(o, " &middot; final counts <span class=\"pl-A\">%d</span>&thinsp;&ndash;&thinsp;<span class=\"pl-B\">%d</span>",
                (int)jnum(c, "A", 0), (int)jnum(c, "B", 0));
    } else if (n) {
        fputs("No result yet &middot; counts after the last reading ", o);
        const cJSON *last = cJSON_GetArrayItem(r->rulings, n - 1);
        counts_text(o, last);
    } else {
        fputs("No rulings", o);
    }
    fprintf(o, "</div><div class=\"rvcount %s\">%d need%s review</div></div></header>\n",
            n_rv ? "on" : "off", n_rv, n_rv == 1 ? "s" : "");
    fprintf(o, "<nav class=\"wrap\"><a href=\"#review\">Needs review (%d)</a><a href=\"#chart\">Counts chart</a>"
               "<a href=\"#timeline\">Timeline</a><a href=\"#clips\">Clips &amp; evidence</a>"
               "<span class=\"keys\">keys: &larr; &rarr; one frame &middot; space play/pause</span></nav>\n<main class=\"wrap\">", n_rv);

    /* 0. what the analysis said about the footage; 1. rulings needing review */
    footage_notes(o, r->summary);
    fputs("<section id=\"review\"><h2>Needs review</h2>", o);
    if (!n_rv)
        fputs("<p class=\"ok\">No ruling needs review.</p>", o);
    cJSON_ArrayForEach(ru, r->rulings)
    {
        if (!jtrue(ru, "needs_review"))
            continue;
        int seq = (int)jnum(ru, "seq", 0);
        fprintf(o, "<div class=\"rvcard\" data-review-seq=\"%d\"><h3><a href=\"#r%d\">", seq, seq);
        card_title(o, ru);
        fprintf(o, "</a></h3><p class=\"sum\">");
        take_text(o, r, ru);
        fputs(" &middot; counts ", o);
        counts_text(o, ru);
        fprintf(o, " &middot; confidence %.2f</p>", jnum(ru, "confidence", 1));
        reasons_list(o, ru);
        fprintf(o, "<a class=\"go\" href=\"#r%d\">clip and evidence &darr;</a></div>", seq);
    }
    fputs("</section>\n", o);

    /* 2. chart */
    fputs("<section id=\"chart\"><h2>Cards left</h2><div class=\"legend\"><span class=\"sw A\"></span>", o);
    player(o, r, "A");
    fputs("<span class=\"sw B\"></span>", o);
    player(o, r, "B");
    fputs("<span class=\"sw R\"></span>needs review</div>", o);
    write_chart(o, r);
    fputs("</section>\n", o);

    /* 3. timeline */
    fputs("<section id=\"timeline\"><h2>Timeline</h2>", o);
    write_timeline(o, r);
    fputs("</section>\n", o);

    /* 4. details: review ones first, then the other decisive ones, reading order */
    fputs("<section id=\"clips\"><h2>Clips &amp; evidence</h2>", o);
    for (int pass = 0; pass < 2; pass++)
        cJSON_ArrayForEach(ru, r->rulings)
        {
            bool rv = jtrue(ru, "needs_review");
            if ((pass == 0) != rv || (!rv && !wants_clip(ru)))
                continue;
            write_detail(o, r, ru);
        }
    fputs("</section></main>\n<footer class=\"wrap\">Written by karuta-ref review. Times are match times "
          "(m:ss.mmm from the start of the source).</footer>\n"
          "<pre id=\"kr-selftest\" hidden></pre>\n<script>\n", o);
    fputs(kr_serve_res_review_js, o);
    fputs("</script></body></html>\n", o);
    return ferror(o) ? KR_ERR_IO : KR_OK;
}

kr_status kr_serve_review_write_file(const kr_serve_review_t *r, const char *path)
{
    kr_outfile_t of;
    kr_status    st = kr_outfile_open(path, &of);
    if (st != KR_OK) {
        set_err((kr_serve_review_t *)r, "%s: cannot write: %s", path, strerror(errno));
        return st;
    }
    st = kr_serve_review_write(r, of.fp);
    if (st != KR_OK) {
        kr_outfile_abort(&of);
        return st;
    }
    st = kr_outfile_commit(&of);
    if (st != KR_OK)
        set_err((kr_serve_review_t *)r, "%s: cannot write", path);
    return st;
}
