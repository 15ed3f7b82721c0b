/* kr_clip_events.c - what a clip draws from a match log / events file: contacts (touch,
 * push_out, hand_contact, early_entry), the card layout, later rearrange and send records.
 * SPDX-License-Identifier: MIT */
#include "kr_clip.h"
#include "kr_clip_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wanted_type(const char *t)
{
    return !strcmp(t, "touch") || !strcmp(t, "push_out") || !strcmp(t, "hand_contact") ||
           !strcmp(t, "early_entry");
}

/* Card place from a layout card or a rearrange record; 0 if it has none. */
static int read_place(const cJSON *rec, int *card, double *x, double *y)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(rec, "card");
    const cJSON *jx = cJSON_GetObjectItemCaseSensitive(rec, "x_mm");
    const cJSON *jy = cJSON_GetObjectItemCaseSensitive(rec, "y_mm");
    if (!cJSON_IsNumber(c) || !cJSON_IsNumber(jx) || !cJSON_IsNumber(jy) || c->valueint < 1 ||
        c->valueint > KR_CLIP_MAX_CARD)
        return 0;
    *card = c->valueint;
    *x = jx->valuedouble;
    *y = jy->valuedouble;
    return 1;
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 1;
    size_t nc = *cap ? 2 * *cap : 64;
    void *q = realloc(*p, nc * size);
    if (!q)
        return 0;
    *p = q;
    *cap = nc;
    return 1;
}

static int cmp_contact(const void *a, const void *b)
{
    const kr_clip_contact *x = a, *y = b;
    return x->t_us < y->t_us ? -1 : x->t_us > y->t_us;
}

/* Adds what f (closed here) holds; path names it in errors. */
static kr_status add_stream(kr_clip_events_t *ev, FILE *f, const char *path, int want_contacts, char *err,
                            size_t cap)
{
    char *line = NULL;
    size_t lcap = 0, cap_c = ev->n_contacts, cap_m = ev->n_moves, cap_s = ev->n_sends;
    ssize_t len;
    long lineno = 0;
    kr_status st = KR_OK;
    int had_layout = ev->n_cards > 0;
    /* the place of each card as the file says so far (contacts get their card's place) */
    double px[KR_CLIP_MAX_CARD + 1], py[KR_CLIP_MAX_CARD + 1];
    int known[KR_CLIP_MAX_CARD + 1];
    memset(known, 0, sizeof known);
    for (int k = 0; k < ev->n_cards; k++) {
        known[ev->cards[k].id] = 1;
        px[ev->cards[k].id] = ev->cards[k].x_mm;
        py[ev->cards[k].id] = ev->cards[k].y_mm;
    }
    while ((len = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        const char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            continue;
        cJSON *j = cJSON_ParseWithLength(line, (size_t)len);
        if (!j || !cJSON_IsObject(j)) {
            cJSON_Delete(j);
            st = kr_error_set(err, cap, KR_ERR_FORMAT, "%s:%ld: not a JSON object (invalid or truncated line)",
                              path, lineno);
            break;
        }
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "type");
        const char *ty = cJSON_IsString(type) ? type->valuestring : "";
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "t_us");
        int card;
        double x, y;
        if (!strcmp(ty, "layout")) {
            const cJSON *cards = cJSON_GetObjectItemCaseSensitive(j, "cards"), *cd;
            cJSON_ArrayForEach(cd, cards)
            {
                if (!read_place(cd, &card, &x, &y))
                    continue;
                known[card] = 1;
                px[card] = x;
                py[card] = y;
                if (had_layout || ev->n_cards >= KR_CLIP_MAX_CARD)
                    continue;
                const cJSON *own = cJSON_GetObjectItemCaseSensitive(cd, "owner");
                kr_clip_card *c = &ev->cards[ev->n_cards++];
                c->id = card;
                c->owner = cJSON_IsString(own) && !strcmp(own->valuestring, "B") ? 1 : 0;
                c->x_mm = x;
                c->y_mm = y;
            }
            had_layout = had_layout || ev->n_cards > 0;
        } else if (!strcmp(ty, "rearrange") && read_place(j, &card, &x, &y)) {
            known[card] = 1;
            px[card] = x;
            py[card] = y;
            if (!grow((void **)&ev->moves, &cap_m, ev->n_moves, sizeof *ev->moves)) {
                st = kr_error_set(err, cap, KR_ERR_NOMEM, "%s: out of memory", path);
                cJSON_Delete(j);
                break;
            }
            kr_clip_move *m = &ev->moves[ev->n_moves++];
            m->t_us = cJSON_IsNumber(t) ? (int64_t)t->valuedouble : 0;
            m->card = card;
            m->x_mm = x;
            m->y_mm = y;
        } else if (!strcmp(ty, "send")) {
            const cJSON *from = cJSON_GetObjectItemCaseSensitive(j, "from");
            const cJSON *cd = cJSON_GetObjectItemCaseSensitive(j, "card");
            if (cJSON_IsNumber(cd) && cd->valueint >= 1 && cd->valueint <= KR_CLIP_MAX_CARD && cJSON_IsString(from) &&
                (!strcmp(from->valuestring, "A") || !strcmp(from->valuestring, "B"))) {
                if (!grow((void **)&ev->sends, &cap_s, ev->n_sends, sizeof *ev->sends)) {
                    st = kr_error_set(err, cap, KR_ERR_NOMEM, "%s: out of memory", path);
                    cJSON_Delete(j);
                    break;
                }
                kr_clip_send *sd = &ev->sends[ev->n_sends++];
                sd->t_us = cJSON_IsNumber(t) ? (int64_t)t->valuedouble : 0;
                sd->card = cd->valueint;
                sd->from = !strcmp(from->valuestring, "B");
                known[sd->card] = 0; /* its place is no longer known */
            }
        } else if (want_contacts && wanted_type(ty)) {
            if (!cJSON_IsNumber(t) || t->valuedouble < 0 || t->valuedouble > 9.0e15) {
                st = kr_error_set(err, cap, KR_ERR_FORMAT, "%s:%ld: %s without a valid \"t_us\"", path, lineno, ty);
                cJSON_Delete(j);
                break;
            }
            if (!grow((void **)&ev->contacts, &cap_c, ev->n_contacts, sizeof *ev->contacts)) {
                st = kr_error_set(err, cap, KR_ERR_NOMEM, "%s: out of memory", path);
                cJSON_Delete(j);
                break;
            }
            kr_clip_contact *e = &ev->contacts[ev->n_contacts++];
            memset(e, 0, sizeof *e);
            e->t_us = (int64_t)t->valuedouble;
            snprintf(e->type, sizeof e->type, "%s", ty);
            const cJSON *who = cJSON_GetObjectItemCaseSensitive(j, "player");
            if (cJSON_IsString(who))
                snprintf(e->player, sizeof e->player, "%s", who->valuestring);
            const cJSON *cd = cJSON_GetObjectItemCaseSensitive(j, "card");
            e->card = cJSON_IsNumber(cd) ? cd->valueint : -1;
            if (e->card >= 1 && e->card <= KR_CLIP_MAX_CARD && known[e->card]) {
                e->has_pos = 1;
                e->x_mm = px[e->card];
                e->y_mm = py[e->card];
            }
        }
        cJSON_Delete(j);
    }
    if (st == KR_OK && ferror(f))
        st = kr_error_set(err, cap, KR_ERR_IO, "%s: read error", path);
    free(line);
    fclose(f);
    if (ev->n_contacts > 1)
        qsort(ev->contacts, ev->n_contacts, sizeof *ev->contacts, cmp_contact);
    return st;
}

kr_status kr_clip_events_add(kr_clip_events_t *ev, const char *path, int want_contacts, char *err, size_t cap)
{
    if (!ev || !path)
        return kr_error_set(err, cap, KR_ERR_INVALID, "clip: no events file given");
    FILE *f = fopen(path, "r");
    if (!f)
        return kr_error_set(err, cap, KR_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    return add_stream(ev, f, path, want_contacts, err, cap);
}

kr_status kr_clip_events_load_text(const char *name, const char *text, size_t n, int want_contacts,
                                   kr_clip_events_t **out, char *err, size_t cap)
{
    if (!out || (!text && n))
        return KR_ERR_INVALID;
    *out = NULL;
    kr_clip_events_t *ev = calloc(1, sizeof *ev);
    if (!ev)
        return kr_error_set(err, cap, KR_ERR_NOMEM, "%s: out of memory", name ? name : "clip");
    if (n) {
        FILE *f = fmemopen((void *)(uintptr_t)text, n, "r");
        kr_status st = f ? add_stream(ev, f, name ? name : "(text)", want_contacts, err, cap)
                         : kr_error_set(err, cap, KR_ERR_NOMEM, "%s: out of memory", name ? name : "clip");
        if (st != KR_OK) {
            kr_clip_events_destroy(ev);
            return st;
        }
    }
    *out = ev;
    return KR_OK;
}

kr_status kr_clip_events_load(const char *path, int want_contacts, kr_clip_events_t **out, char *err,
                              size_t cap)
{
    if (!out)
        return KR_ERR_INVALID;
    *out = NULL;
    kr_clip_events_t *ev = calloc(1, sizeof *ev);
    if (!ev)
        return kr_error_set(err, cap, KR_ERR_NOMEM, "%s: out of memory", path ? path : "clip");
    kr_status st = kr_clip_events_add(ev, path, want_contacts, err, cap);
    if (st != KR_OK) {
        kr_clip_events_destroy(ev);
        return st;
    }
    *out = ev;
    return KR_OK;
}

void kr_clip_events_destroy(kr_clip_events_t *ev)
{
    if (!ev)
        return;
    free(ev->contacts);
    free(ev->moves);
    free(ev->sends);
    free(ev);
}

size_t kr_clip_events_contacts(const kr_clip_events_t *ev, const kr_clip_contact **out)
{
    if (out)
        *out = ev ? ev->contacts : NULL;
    return ev ? ev->n_contacts : 0;
}

int kr_clip_events_n_cards(const kr_clip_events_t *ev) { return ev ? ev->n_cards : 0; }

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211u;
    return h;
}

uint64_t kr_clip_events_places_digest(const kr_clip_events_t *ev, int64_t t_us)
{
    uint64_t h = 14695981039346656037u;
    if (!ev)
        return h;
    for (int k = 0; k < ev->n_cards; k++) {
        const kr_clip_card *c = &ev->cards[k];
        h = fnv(h, &c->id, sizeof c->id);
        h = fnv(h, &c->owner, sizeof c->owner);
        h = fnv(h, &c->x_mm, sizeof c->x_mm);
        h = fnv(h, &c->y_mm, sizeof c->y_mm);
    }
    for (size_t m = 0; m < ev->n_moves; m++)
        if (ev->moves[m].t_us <= t_us) {
            const kr_clip_move *v = &ev->moves[m];
            h = fnv(h, "m", 1);
            h = fnv(h, &v->t_us, sizeof v->t_us);
            h = fnv(h, &v->card, sizeof v->card);
            h = fnv(h, &v->x_mm, sizeof v->x_mm);
            h = fnv(h, &v->y_mm, sizeof v->y_mm);
        }
    for (size_t m = 0; m < ev->n_sends; m++)
        if (ev->sends[m].t_us <= t_us) {
            const kr_clip_send *d = &ev->sends[m];
            h = fnv(h, "s", 1);
            h = fnv(h, &d->t_us, sizeof d->t_us);
            h = fnv(h, &d->card, sizeof d->card);
            h = fnv(h, &d->from, sizeof d->from);
        }
    return h;
}
