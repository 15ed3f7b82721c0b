/* kr_json.c - cJSON reading and writing of match-log records and rulings.
 * Every check on a line's shape (fields, types, names) lives here.
 * SPDX-License-Identifier: MIT */
#include "kr_json.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int kr_json_is_blank(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '\n')
            return 0;
    return 1;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct reader {
    const cJSON     *obj;
    const char      *type; /* for messages */
    char            *err;
    size_t           cap;
    bool             failed;
} reader;

static void rfail(reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void rfail(reader *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = true;
    if (!r->err || r->cap == 0)
        return;
    int n = snprintf(r->err, r->cap, "%s: ", r->type);
    if (n < 0 || (size_t)n >= r->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->cap - (size_t)n, fmt, ap);
    va_end(ap);
}

static const cJSON *field(reader *r, const char *name, bool required)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(r->obj, name);
    if (!it && required)
        rfail(r, "missing \"%s\"", name);
    return it;
}

static bool as_int(const cJSON *it, int64_t lo, int64_t hi, int64_t *out)
{
    if (!cJSON_IsNumber(it))
        return false;
    double d = it->valuedouble;
    if (!(d >= -9.0e18 && d <= 9.0e18))
        return false;
    int64_t v = (int64_t)d;
    if ((double)v != d || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Integer field; absent and optional leaves *out alone and returns false. */
static bool get_int(reader *r, const char *name, bool required, int64_t lo, int64_t hi, int64_t *out)
{
    const cJSON *it = field(r, name, required);
    if (!it)
        return false;
    if (!as_int(it, lo, hi, out)) {
        rfail(r, "\"%s\" must be an integer between %lld and %lld", name, (long long)lo, (long long)hi);
        return false;
    }
    return true;
}

static bool get_num(reader *r, const cJSON *obj, const char *name, double lo, double hi, double *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!it || cJSON_IsNull(it))
        return false;
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= lo && it->valuedouble <= hi)) {
        rfail(r, "\"%s\" must be a number between %g and %g", name, lo, hi);
        return false;
    }
    *out = it->valuedouble;
    return true;
}

/* One of names[1 ..] (index returned), 0 when absent and optional. */
static int get_enum(reader *r, const cJSON *obj, const char *name, bool required,
                    const char *const *names, int n, const char *what)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!it || (cJSON_IsNull(it) && !required)) {
        if (required)
            rfail(r, "missing \"%s\"", name);
        return 0;
    }
    if (cJSON_IsString(it))
        for (int i = 1; i < n; i++)
            if (!strcmp(it->valuestring, names[i]))
                return i;
    rfail(r, "\"%s\" must be %s", name, what);
    return 0;
}

static const char *const side_names[] = {"", "A", "B"};
static const char *const hand_names[] = {"", "left", "right"};
static const char *const row_names[] = {"", "upper", "middle", "lower"};
static const char *const kind_names[] = {"", "grab", "other"};

static kr_rules_side get_side(reader *r, const cJSON *obj, const char *name, bool required)
{
    return (kr_rules_side)get_enum(r, obj, name, required, side_names, 3, "\"A\" or \"B\"");
}

static kr_rules_hand get_hand(reader *r, const cJSON *obj, const char *name, bool required)
{
    return (kr_rules_hand)get_enum(r, obj, name, required, hand_names, 3, "\"left\" or \"right\"");
}

static void get_string(reader *r, const cJSON *obj, const char *name, char *dst, size_t cap)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!it || cJSON_IsNull(it))
        return;
    if (!cJSON_IsString(it)) {
        rfail(r, "\"%s\" must be a string", name);
        return;
    }
    size_t n = strlen(it->valuestring);
    if (n + 1 > cap) {
        rfail(r, "\"%s\" is longer than %zu bytes", name, cap - 1);
        return;
    }
    memcpy(dst, it->valuestring, n + 1);
}

static void get_card(reader *r, bool null_ok, int32_t *card)
{
    const cJSON *it = field(r, "card", true);
    if (!it)
        return;
    if (cJSON_IsNull(it)) {
        if (!null_ok)
            rfail(r, "\"card\" must be a card number 1 ... 100, not null");
        *card = 0;
        return;
    }
    int64_t v;
    if (!as_int(it, 1, KR_RULES_CARDS, &v)) {
        rfail(r, "\"card\" must be a card number 1 ... 100%s", null_ok ? " or null" : "");
        return;
    }
    *card = (int32_t)v;
}

static void read_match(reader *r, kr_rules_record *rec)
{
    get_string(r, r->obj, "format", rec->format, sizeof rec->format);
    if (!r->failed && rec->format[0] && strcmp(rec->format, "karuta-match/1") != 0)
        rfail(r, "unsupported format \"%s\" (expected \"karuta-match/1\")", rec->format);
    const cJSON *players = field(r, "players", false);
    if (!players || cJSON_IsNull(players))
        return;
    if (!cJSON_IsObject(players)) {
        rfail(r, "\"players\" must be an object");
        return;
    }
    for (int p = 0; p < 2; p++) {
        const cJSON *pl = cJSON_GetObjectItemCaseSensitive(players, side_names[p + 1]);
        if (!pl || cJSON_IsNull(pl))
            continue;
        if (!cJSON_IsObject(pl)) {
            rfail(r, "\"players.%s\" must be an object", side_names[p + 1]);
            return;
        }
        get_string(r, pl, "name", rec->name[p], sizeof rec->name[p]);
        rec->declared[p] = get_hand(r, pl, "hand", false);
    }
}

static void read_layout(reader *r, kr_rules_record *rec)
{
    const cJSON *cards = field(r, "cards", true);
    if (!cards)
        return;
    if (!cJSON_IsArray(cards)) {
        rfail(r, "\"cards\" must be an array");
        return;
    }
    int n = cJSON_GetArraySize(cards);
    if (n > KR_RULES_CARDS) {
        rfail(r, "%d cards (at most 100)", n);
        return;
    }
    int i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cards)
    {
        kr_rules_layout_card *lc = &rec->cards[i];
        int64_t v;
        if (!cJSON_IsObject(c)) {
            rfail(r, "cards[%d] must be an object", i);
            return;
        }
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "card");
        if (!id) {
            rfail(r, "cards[%d]: missing \"card\"", i);
            return;
        }
        if (!as_int(id, 1, KR_RULES_CARDS, &v)) {
            rfail(r, "cards[%d]: \"card\" must be a card number 1 ... 100", i);
            return;
        }
        lc->card = (int32_t)v;
        lc->owner = get_side(r, c, "owner", true);
        lc->row = (kr_rules_row)get_enum(r, c, "row", false, row_names, 4,
                                         "\"upper\", \"middle\" or \"lower\"");
        bool hx = get_num(r, c, "x_mm", -1e6, 1e6, &lc->x_mm);
        bool hy = get_num(r, c, "y_mm", -1e6, 1e6, &lc->y_mm);
        if (hx != hy && !r->failed)
            rfail(r, "cards[%d]: give both \"x_mm\" and \"y_mm\" or neither", i);
        lc->has_pos = hx && hy;
        if (r->failed)
            return;
        i++;
    }
    rec->n_cards = i;
}

kr_status kr_json_read_record(const char *line, size_t len, kr_rules_record *rec, char *err,
                              size_t err_cap)
{
    kr_status st = KR_ERR_FORMAT;
    cJSON *root = NULL;
    reader r = {NULL, "record", err, err_cap, false};
    if (err && err_cap)
        err[0] = '\0';
    if (!line || !rec) {
        rfail(&r, "no line");
        return KR_ERR_INVALID;
    }
    kr_rules_record_init(rec, KR_REC_NONE);
    const char *end = NULL;
    root = cJSON_ParseWithLengthOpts(line, len, &end, 0);
    if (!root) {
        size_t col = (end && end >= line && end <= line + len) ? (size_t)(end - line) + 1 : 1;
        rfail(&r, "malformed JSON (column %zu)", col);
        goto fail;
    }
    if (end && !kr_json_is_blank(end, len - (size_t)(end - line))) {
        rfail(&r, "malformed JSON: text after the object (column %zu)", (size_t)(end - line) + 1);
        goto fail;
    }
    if (!cJSON_IsObject(root)) {
        rfail(&r, "a line must hold one JSON object");
        goto fail;
    }
    r.obj = root;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    if (!type) {
        rfail(&r, "missing \"type\"");
        goto fail;
    }
    if (!cJSON_IsString(type)) {
        rfail(&r, "\"type\" must be a string");
        goto fail;
    }
    rec->type = kr_rules_rec_type_from_name(type->valuestring);
    if (rec->type == KR_REC_NONE) {
        r.type = "record";
        rfail(&r, "unknown record type \"%.40s\"", type->valuestring);
        goto fail;
    }
    r.type = kr_rules_rec_type_name(rec->type);

    int64_t v;
    bool t_required = rec->type != KR_REC_MATCH && rec->type != KR_REC_LAYOUT;
    if (rec->type != KR_REC_MATCH &&
        get_int(&r, "t_us", t_required, INT64_C(-4000000000000000), INT64_C(4000000000000000), &v)) {
        rec->has_t = true;
        rec->t_us = v;
    }
    /* optional on every observation */
    get_string(&r, root, "id", rec->id, sizeof rec->id);
    get_num(&r, root, "confidence", 0.0, 1.0, &rec->confidence);
    if (get_int(&r, "t_err_us", false, 0, INT64_C(4000000000000000), &v))
        rec->t_err_us = v;

    switch (rec->type) {
    case KR_REC_MATCH:
        read_match(&r, rec);
        break;
    case KR_REC_LAYOUT:
        read_layout(&r, rec);
        break;
    case KR_REC_KAMI_START:
        if (get_int(&r, "seq", true, 1, 1000000, &v))
            rec->seq = (int32_t)v;
        get_card(&r, false, &rec->card);
        break;
    case KR_REC_KIMARIJI:
    case KR_REC_READING_VOID:
    case KR_REC_SHIMO_START:
        if (get_int(&r, "seq", true, 1, 1000000, &v))
            rec->seq = (int32_t)v;
        break;
    case KR_REC_TOUCH:
        rec->player = get_side(&r, root, "player", true);
        rec->hand = get_hand(&r, root, "hand", true);
        get_card(&r, true, &rec->card);
        rec->territory = get_side(&r, root, "territory", true);
        break;
    case KR_REC_PUSH_OUT:
        rec->player = get_side(&r, root, "player", true);
        get_card(&r, false, &rec->card);
        rec->territory = get_side(&r, root, "territory", false);
        break;
    case KR_REC_EARLY_ENTRY:
        rec->player = get_side(&r, root, "player", true);
        rec->hand = get_hand(&r, root, "hand", false);
        break;
    case KR_REC_SEND:
        rec->player = get_side(&r, root, "from", true);
        get_card(&r, false, &rec->card);
        break;
    case KR_REC_REARRANGE: {
        rec->player = get_side(&r, root, "player", true);
        get_card(&r, false, &rec->card);
        bool hx = get_num(&r, root, "x_mm", -1e6, 1e6, &rec->x_mm);
        bool hy = get_num(&r, root, "y_mm", -1e6, 1e6, &rec->y_mm);
        if (hx != hy)
            rfail(&r, "give both \"x_mm\" and \"y_mm\" or neither");
        rec->has_pos = hx && hy;
        break;
    }
    case KR_REC_FORCE_MAJEURE:
        get_card(&r, false, &rec->card);
        break;
    case KR_REC_INTERFERENCE:
        rec->player = get_side(&r, root, "player", true);
        rec->kind = (kr_rules_kind)get_enum(&r, root, "kind", false, kind_names, 3,
                                            "\"grab\" or \"other\"");
        break;
    default:
        break;
    }
    if (r.failed)
        goto fail;
    st = KR_OK;
fail:
    cJSON_Delete(root);
    return st;
}

/* ---- writing ------------------------------------------------------------- */

/* Adds with a check: cJSON_Add* return NULL on allocation failure. */
#define ADD(expr)          \
    do {                   \
        if (!(expr))       \
            goto fail;     \
    } while (0)

static cJSON *pair_obj(const int32_t v[2])
{
    cJSON *o = cJSON_CreateObject();
    if (o && (!cJSON_AddNumberToObject(o, "A", v[0]) || !cJSON_AddNumberToObject(o, "B", v[1]))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static const char *side_str(kr_rules_side s) { return s == KR_SIDE_A ? "A" : s == KR_SIDE_B ? "B" : NULL; }

static cJSON *record_json(const kr_rules_record *rec)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    ADD(cJSON_AddStringToObject(o, "type", kr_rules_rec_type_name(rec->type)));
    switch (rec->type) {
    case KR_REC_MATCH: {
        ADD(cJSON_AddStringToObject(o, "format", rec->format[0] ? rec->format : "karuta-match/1"));
        bool any = false;
        for (int p = 0; p < 2; p++)
            any = any || rec->name[p][0] || rec->declared[p];
        if (any) {
            cJSON *pl = cJSON_AddObjectToObject(o, "players");
            ADD(pl);
            for (int p = 0; p < 2; p++) {
                cJSON *x = cJSON_AddObjectToObject(pl, side_names[p + 1]);
                ADD(x);
                if (rec->name[p][0])
                    ADD(cJSON_AddStringToObject(x, "name", rec->name[p]));
                if (rec->declared[p] == KR_HAND_LEFT || rec->declared[p] == KR_HAND_RIGHT)
                    ADD(cJSON_AddStringToObject(x, "hand", hand_names[rec->declared[p]]));
            }
        }
        return o;
    }
    case KR_REC_LAYOUT: {
        if (rec->has_t)
            ADD(cJSON_AddNumberToObject(o, "t_us", (double)rec->t_us));
        cJSON *arr = cJSON_AddArrayToObject(o, "cards");
        ADD(arr);
        for (int i = 0; i < rec->n_cards && i < KR_RULES_CARDS; i++) {
            const kr_rules_layout_card *c = &rec->cards[i];
            cJSON *x = cJSON_CreateObject();
            ADD(x);
            cJSON_AddItemToArray(arr, x);
            ADD(cJSON_AddNumberToObject(x, "card", c->card));
            if (side_str(c->owner))
                ADD(cJSON_AddStringToObject(x, "owner", side_str(c->owner)));
            if (c->row >= KR_ROW_UPPER && c->row <= KR_ROW_LOWER)
                ADD(cJSON_AddStringToObject(x, "row", row_names[c->row]));
            if (c->has_pos) {
                ADD(cJSON_AddNumberToObject(x, "x_mm", c->x_mm));
                ADD(cJSON_AddNumberToObject(x, "y_mm", c->y_mm));
            }
        }
        return o;
    }
    default:
        break;
    }
    if (rec->type == KR_REC_KAMI_START || rec->type == KR_REC_KIMARIJI ||
        rec->type == KR_REC_READING_VOID || rec->type == KR_REC_SHIMO_START)
        ADD(cJSON_AddNumberToObject(o, "seq", rec->seq));
    if (rec->id[0])
        ADD(cJSON_AddStringToObject(o, "id", rec->id));
    if (rec->type == KR_REC_KAMI_START)
        ADD(cJSON_AddNumberToObject(o, "card", rec->card));
    ADD(cJSON_AddNumberToObject(o, "t_us", (double)rec->t_us));
    if (rec->t_err_us)
        ADD(cJSON_AddNumberToObject(o, "t_err_us", (double)rec->t_err_us));
    switch (rec->type) {
    case KR_REC_TOUCH:
    case KR_REC_PUSH_OUT:
    case KR_REC_EARLY_ENTRY:
    case KR_REC_REARRANGE:
    case KR_REC_INTERFERENCE:
        if (side_str(rec->player))
            ADD(cJSON_AddStringToObject(o, "player", side_str(rec->player)));
        break;
    case KR_REC_SEND:
        if (side_str(rec->player))
            ADD(cJSON_AddStringToObject(o, "from", side_str(rec->player)));
        break;
    default:
        break;
    }
    if ((rec->type == KR_REC_TOUCH || rec->type == KR_REC_EARLY_ENTRY) &&
        (rec->hand == KR_HAND_LEFT || rec->hand == KR_HAND_RIGHT))
        ADD(cJSON_AddStringToObject(o, "hand", hand_names[rec->hand]));
    switch (rec->type) {
    case KR_REC_TOUCH:
        if (rec->card)
            ADD(cJSON_AddNumberToObject(o, "card", rec->card));
        else
            ADD(cJSON_AddNullToObject(o, "card"));
        break;
    case KR_REC_PUSH_OUT:
    case KR_REC_SEND:
    case KR_REC_REARRANGE:
    case KR_REC_FORCE_MAJEURE:
        ADD(cJSON_AddNumberToObject(o, "card", rec->card));
        break;
    default:
        break;
    }
    if ((rec->type == KR_REC_TOUCH || rec->type == KR_REC_PUSH_OUT) && side_str(rec->territory))
        ADD(cJSON_AddStringToObject(o, "territory", side_str(rec->territory)));
    if (rec->type == KR_REC_REARRANGE && rec->has_pos) {
        ADD(cJSON_AddNumberToObject(o, "x_mm", rec->x_mm));
        ADD(cJSON_AddNumberToObject(o, "y_mm", rec->y_mm));
    }
    if (rec->type == KR_REC_INTERFERENCE && (rec->kind == KR_KIND_GRAB || rec->kind == KR_KIND_OTHER))
        ADD(cJSON_AddStringToObject(o, "kind", kind_names[rec->kind]));
    if (rec->confidence != 1.0)
        ADD(cJSON_AddNumberToObject(o, "confidence", rec->confidence));
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

static cJSON *ruling_json(const kr_ruling *r)
{
    cJSON *o = cJSON_CreateObject(), *x;
    if (!o)
        return NULL;
    ADD(cJSON_AddStringToObject(o, "type", "ruling"));
    ADD(cJSON_AddNumberToObject(o, "seq", r->seq));
    ADD(cJSON_AddNumberToObject(o, "card", r->card));
    ADD(cJSON_AddStringToObject(o, "kimariji", r->kimariji));
    ADD(cJSON_AddStringToObject(o, "location", side_str(r->location) ? side_str(r->location) : "dead"));
    ADD(cJSON_AddBoolToObject(o, "established", r->established));
    if (r->has_take && side_str(r->take_player)) {
        ADD(x = cJSON_AddObjectToObject(o, "take"));
        ADD(cJSON_AddStringToObject(x, "player", side_str(r->take_player)));
        ADD(cJSON_AddStringToObject(x, "how", kr_rules_how_name(r->take_how)));
        ADD(cJSON_AddNumberToObject(x, "t_us", (double)r->take_t_us));
        if (r->has_margin)
            ADD(cJSON_AddNumberToObject(x, "margin_us", (double)r->margin_us));
    } else {
        ADD(cJSON_AddNullToObject(o, "take"));
    }
    ADD(x = cJSON_AddArrayToObject(o, "faults"));
    for (int i = 0; i < r->n_faults && i < 2; i++) {
        const kr_rules_fault *f = &r->faults[i];
        cJSON *fo = cJSON_CreateObject(), *terr;
        ADD(fo);
        cJSON_AddItemToArray(x, fo);
        ADD(cJSON_AddStringToObject(fo, "player", side_str(f->player) ? side_str(f->player) : "?"));
        ADD(terr = cJSON_AddArrayToObject(fo, "territories"));
        for (int k = 0; k < 2; k++) {
            if (!(f->territories & (1u << k)))
                continue;
            cJSON *s = cJSON_CreateString(k ? "B" : "A");
            ADD(s);
            cJSON_AddItemToArray(terr, s);
        }
        ADD(cJSON_AddNumberToObject(fo, "t_us", (double)f->t_us));
        if (f->card)
            ADD(cJSON_AddNumberToObject(fo, "card", f->card));
        else
            ADD(cJSON_AddNullToObject(fo, "card"));
    }
    ADD(cJSON_AddBoolToObject(o, "double_fault", r->double_fault));
    ADD(x = cJSON_AddArrayToObject(o, "voided"));
    for (int i = 0; i < r->n_voided && i < 4; i++) {
        cJSON *vo = cJSON_CreateObject();
        ADD(vo);
        cJSON_AddItemToArray(x, vo);
        ADD(cJSON_AddStringToObject(vo, "player", side_str(r->voided[i].player) ? side_str(r->voided[i].player) : "?"));
        ADD(cJSON_AddStringToObject(vo, "reason", kr_rules_void_reason_name(r->voided[i].reason)));
    }
    ADD(x = pair_obj(r->owed));
    cJSON_AddItemToObject(o, "owed", x);
    if (side_str(r->send_from)) {
        ADD(x = cJSON_AddObjectToObject(o, "send"));
        ADD(cJSON_AddStringToObject(x, "from", side_str(r->send_from)));
        ADD(cJSON_AddNumberToObject(x, "count", r->send_count));
    } else {
        ADD(cJSON_AddNullToObject(o, "send"));
    }
    ADD(x = pair_obj(r->counts));
    cJSON_AddItemToObject(o, "counts", x);
    ADD(cJSON_AddBoolToObject(o, "final", r->final));
    ADD(cJSON_AddNumberToObject(o, "confidence", r->confidence));
    ADD(cJSON_AddBoolToObject(o, "needs_review", r->needs_review));
    ADD(x = cJSON_AddArrayToObject(o, "review"));
    for (int i = 0; i < r->n_review && i < KR_RULES_MAX_REVIEW; i++) {
        cJSON *s = cJSON_CreateString(r->review[i] ? r->review[i] : "");
        ADD(s);
        cJSON_AddItemToArray(x, s);
    }
    ADD(x = cJSON_AddArrayToObject(o, "evidence"));
    for (int i = 0; i < r->n_evidence && i < KR_RULES_MAX_EVIDENCE; i++) {
        cJSON *s = cJSON_CreateString(r->evidence[i]);
        ADD(s);
        cJSON_AddItemToArray(x, s);
    }
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

static cJSON *output_json(const kr_rules_output *out)
{
    if (out->type == KR_OUT_RULING)
        return ruling_json(&out->ruling);
    cJSON *o = cJSON_CreateObject(), *x;
    if (!o)
        return NULL;
    ADD(cJSON_AddStringToObject(o, "type", "match_end"));
    ADD(cJSON_AddStringToObject(o, "winner", side_str(out->end.winner) ? side_str(out->end.winner) : "?"));
    ADD(x = pair_obj(out->end.counts));
    cJSON_AddItemToObject(o, "counts", x);
    ADD(cJSON_AddNumberToObject(o, "t_us", (double)out->end.t_us));
    ADD(cJSON_AddBoolToObject(o, "needs_review", out->end.needs_review));
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

static char *print_and_free(cJSON *o)
{
    if (!o)
        return NULL;
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

char *kr_json_record_string(const kr_rules_record *rec)
{
    return rec ? print_and_free(record_json(rec)) : NULL;
}

char *kr_json_output_string(const kr_rules_output *out)
{
    return out ? print_and_free(output_json(out)) : NULL;
}

static kr_status write_line(FILE *fp, char *s)
{
    if (!s)
        return KR_ERR_NOMEM;
    kr_status st = (fputs(s, fp) < 0 || fputc('\n', fp) == EOF) ? KR_ERR_IO : KR_OK;
    cJSON_free(s);
    return st;
}

kr_status kr_json_write_record(FILE *fp, const kr_rules_record *rec)
{
    if (!fp || !rec)
        return KR_ERR_INVALID;
    return write_line(fp, kr_json_record_string(rec));
}

kr_status kr_json_write_output(FILE *fp, const kr_rules_output *out)
{
    if (!fp || !out)
        return KR_ERR_INVALID;
    return write_line(fp, kr_json_output_string(out));
}
