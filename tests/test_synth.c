/* test_synth.c - karuta-synth: kimariji, truth consistency of every scenario, hand
 * pixels over the card at a touch, determinism, bad input.
 * SPDX-License-Identifier: MIT                                                   */
#include "kr_synth_internal.h"
#include "kr_json.h"
#include "kr_rules.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[64];

static kr_synth_t *make(const char *path, int w, int h, int fps)
{
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.w = w;
    o.h = h;
    o.fps_num = fps;
    char err[600];
    kr_synth_t *s = NULL;
    kr_status st = kr_synth_create(path, &o, &s, err, sizeof err);
    if (st != KR_OK)
        fprintf(stderr, "\n%s\n", err);
    return s;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

/* The opening kimariji by sound split 7/42/37/6/2/6 and equal the data's. */
static void test_opening_kimariji(void)
{
    static kr_synth_poem poems[101];
    char err[256];
    CU_ASSERT_EQUAL_FATAL(kr_synth_poems_load("models/hyakunin-isshu.json", poems, err, sizeof err), KR_OK);
    bool unread[101];
    for (int c = 0; c <= 100; c++)
        unread[c] = c > 0;
    int hist[8] = {0};
    for (int c = 1; c <= 100; c++) {
        int n = kr_synth_kimariji_len(poems, c, unread);
        int cp[16];
        int want = kr_synth_utf8_decode(poems[c].kimariji0, cp, 16);
        CU_ASSERT_EQUAL(n, want);
        if (n >= 1 && n <= 6)
            hist[n]++;
    }
    CU_ASSERT_EQUAL(hist[1], 7);
    CU_ASSERT_EQUAL(hist[2], 42);
    CU_ASSERT_EQUAL(hist[3], 37);
    CU_ASSERT_EQUAL(hist[4], 6);
    CU_ASSERT_EQUAL(hist[5], 2);
    CU_ASSERT_EQUAL(hist[6], 6);
    /* dynamic: あさぼらけあ (31) needs 6 kana while あさぼらけう (64) is unread, 1 once it is read */
    for (int c = 1; c <= 100; c++)
        unread[c] = false;
    unread[31] = unread[64] = true; /* あさぼらけあ / あさぼらけう */
    CU_ASSERT_EQUAL(kr_synth_kimariji_len(poems, 31, unread), 6);
    unread[64] = false;
    CU_ASSERT_EQUAL(kr_synth_kimariji_len(poems, 31, unread), 1);
}

static const kr_synth_event *find(const kr_synth_event *ev, int n, int from, kr_synth_ev_type type, int player,
                                  int card, int *idx)
{
    for (int i = from; i < n; i++)
        if (ev[i].type == type && (player < 0 || ev[i].player == player) && (card <= 0 || ev[i].card == card)) {
            if (idx)
                *idx = i;
            return &ev[i];
        }
    return NULL;
}

static int count(const kr_synth_event *ev, int n, kr_synth_ev_type type)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += ev[i].type == type;
    return k;
}

/* Every touch: the hand is at height exactly 0 with a footprint point inside the
 * card outline at t_us, and was not (in contact with that card) 1 us earlier. */
static void check_touch_physics(kr_synth_t *s)
{
    const kr_synth_event *ev;
    int n;
    kr_synth_events(s, &ev, &n);
    for (int i = 0; i < n; i++) {
        if (ev[i].type != KR_SYNTH_EV_TOUCH)
            continue;
        const kr_synth_hand *hd = &s->hands[ev[i].player * 2 + ev[i].hand];
        for (int k = 0; k < 2; k++) {
            int64_t tu = ev[i].t_us - k;
            double p[3], v[3], d[2], fp[KR_SYNTH_FOOT_N][2], mm[8];
            kr_synth_hand_eval(hd, (double)tu / 1e6, p, v);
            kr_synth_hand_dir(hd, p, v, d);
            kr_synth_footprint(hd, p, d, fp);
            CU_ASSERT_EQUAL_FATAL(kr_synth_card_outline(s, ev[i].card, tu, mm, NULL), KR_OK);
            bool inside = false;
            for (int j = 0; j < KR_SYNTH_FOOT_N; j++) {
                /* point in convex quad: same side of all four edges */
                int pos = 0, neg = 0;
                for (int e = 0; e < 4; e++) {
                    double ax = mm[2 * e], ay = mm[2 * e + 1], bx = mm[(2 * e + 2) % 8], by = mm[(2 * e + 3) % 8];
                    double cr = (bx - ax) * (fp[j][1] - ay) - (by - ay) * (fp[j][0] - ax);
                    pos += cr >= 0;
                    neg += cr <= 0;
                }
                inside = inside || pos == 4 || neg == 4;
            }
            if (k == 0) {
                CU_ASSERT_EQUAL(p[2], 0.0);
                CU_ASSERT(inside);
            } else {
                CU_ASSERT(p[2] > 0.0 || !inside);
            }
        }
    }
}

static void test_scenarios_truth(void)
{
    static const char *names[] = {"own_take", "opp_take_send", "race_5ms", "race_20ms", "race_60ms",
                                  "dead_no_fault", "dead_fault", "dead_fault_two", "fault_way_back", "double",
                                  "both_fault", "hand_contact_fault", "early_entry", "rearrange", "push_out",
                                  "reading_void"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[256];
        snprintf(path, sizeof path, "samples/scenarios/%s.json", names[k]);
        kr_synth_t *s = make(path, 320, 180, 30);
        CU_ASSERT_PTR_NOT_NULL(s);
        if (!s) {
            fprintf(stderr, "scenario %s failed\n", names[k]);
            continue;
        }
        const kr_synth_event *ev, *a, *b;
        int n, i = 0, j = 0;
        kr_synth_events(s, &ev, &n);
        for (int q = 1; q < n; q++)
            CU_ASSERT(ev[q].t_us >= ev[q - 1].t_us);
        check_touch_physics(s);
        const kr_synth_event *kami = find(ev, n, 0, KR_SYNTH_EV_KAMI_START, -1, 0, NULL);
        const kr_synth_event *kim = find(ev, n, 0, KR_SYNTH_EV_KIMARIJI, -1, 0, NULL);
        const kr_synth_event *settle = find(ev, n, 0, KR_SYNTH_EV_SETTLE, -1, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(kami);
        CU_ASSERT_PTR_NOT_NULL_FATAL(settle);
        int len = s->readings[0].kim_len;
        if (strcmp(names[k], "reading_void") != 0) { /* a reading voided early has no kimariji */
            CU_ASSERT_PTR_NOT_NULL_FATAL(kim);
            CU_ASSERT_EQUAL(kim->t_us - kami->t_us, (int64_t)len * 250000);
        } else {
            CU_ASSERT_PTR_NULL(kim);
        }
        const char *nm = names[k];
        int read = kami->card;
        /* the first touch of the read card, by whom, where */
        a = find(ev, n, 0, KR_SYNTH_EV_TOUCH, -1, read, &i);
        if (!strcmp(nm, "own_take") || !strcmp(nm, "rearrange")) {
            CU_ASSERT(a && a->player == 0 && a->territory == 0);
            CU_ASSERT_PTR_NOT_NULL(find(ev, n, 0, KR_SYNTH_EV_PUSH_OUT, 0, read, NULL));
        } else if (!strcmp(nm, "opp_take_send")) {
            CU_ASSERT(a && a->player == 1 && a->territory == 0);
            b = find(ev, n, 0, KR_SYNTH_EV_SEND, -1, 0, NULL);
            CU_ASSERT(b && b->from == 1 && b->t_us > settle->t_us);
        } else if (!strncmp(nm, "race_", 5)) {
            int want = atoi(nm + 5) * 1000;
            b = find(ev, n, 0, KR_SYNTH_EV_TOUCH, 1, read, &j);
            CU_ASSERT(a && b && a->player == 0);
            if (a && b)
                CU_ASSERT_EQUAL(b->t_us - a->t_us, want);
        } else if (!strcmp(nm, "dead_no_fault")) {
            CU_ASSERT_EQUAL(count(ev, n, KR_SYNTH_EV_TOUCH), 0);
        } else if (!strcmp(nm, "dead_fault") || !strcmp(nm, "dead_fault_two")) {
            CU_ASSERT_PTR_NULL(a);
            b = find(ev, n, 0, KR_SYNTH_EV_TOUCH, 0, 0, NULL);
            CU_ASSERT(b && b->t_us < settle->t_us && b->t_us > kim->t_us - 1000000);
            if (!strcmp(nm, "dead_fault_two")) {
                bool terr[2] = {false, false};
                for (int q = 0; q < n; q++)
                    if (ev[q].type == KR_SYNTH_EV_TOUCH && ev[q].player == 0 && ev[q].t_us < settle->t_us)
                        terr[ev[q].territory] = true;
                CU_ASSERT(terr[0] && terr[1]);
            }
        } else if (!strcmp(nm, "fault_way_back")) {
            CU_ASSERT(a && a->player == 0 && a->territory == 1);
            b = find(ev, n, i + 1, KR_SYNTH_EV_TOUCH, 0, 0, NULL);
            CU_ASSERT(b && b->territory == 0 && b->t_us < settle->t_us);
        } else if (!strcmp(nm, "double")) {
            CU_ASSERT(a && a->player == 0 && a->territory == 1);
            b = find(ev, n, 0, KR_SYNTH_EV_TOUCH, 1, 0, NULL);
            CU_ASSERT(b && b->territory == 0 && b->t_us < settle->t_us);
            CU_ASSERT_EQUAL(count(ev, n, KR_SYNTH_EV_SEND), 2);
        } else if (!strcmp(nm, "both_fault")) {
            CU_ASSERT_PTR_NULL(a);
            a = find(ev, n, 0, KR_SYNTH_EV_TOUCH, 0, 0, NULL);
            b = find(ev, n, 0, KR_SYNTH_EV_TOUCH, 1, 0, NULL);
            CU_ASSERT(a && b && a->territory == 1 && b->territory == 0);
        } else if (!strcmp(nm, "hand_contact_fault")) {
            const kr_synth_event *hc = find(ev, n, 0, KR_SYNTH_EV_HAND_CONTACT, -1, 0, NULL);
            b = find(ev, n, 0, KR_SYNTH_EV_TOUCH, 0, 0, NULL);
            CU_ASSERT(hc && b && hc->t_us < b->t_us && b->territory == 1);
        } else if (!strcmp(nm, "early_entry")) {
            b = find(ev, n, 0, KR_SYNTH_EV_EARLY_ENTRY, 0, 0, NULL);
            CU_ASSERT(b && b->t_us < kami->t_us);
            CU_ASSERT(a && a->player == 0);
        } else if (!strcmp(nm, "push_out")) {
            /* taken by pushing out: the read card leaves the field before anyone touches it */
            b = find(ev, n, 0, KR_SYNTH_EV_PUSH_OUT, -1, read, NULL);
            CU_ASSERT_PTR_NOT_NULL(b);
            CU_ASSERT(b && (!a || a->t_us > b->t_us));
        }
        if (!strcmp(nm, "rearrange"))
            CU_ASSERT_PTR_NOT_NULL(find(ev, n, 0, KR_SYNTH_EV_REARRANGE, 0, 0, NULL));
        if (!strcmp(nm, "reading_void")) {
            b = find(ev, n, 0, KR_SYNTH_EV_READING_VOID, -1, 0, NULL);
            a = find(ev, n, 0, KR_SYNTH_EV_TOUCH, 0, 0, NULL);
            CU_ASSERT(b && a && a->t_us < b->t_us && b->t_us < kami->t_us + (int64_t)len * 250000);
        }
        kr_synth_destroy(s);
    }
}

/* Rules the scenario's truth.jsonl with the project's rules engine; returns the number
 * of rulings stored in out (at most max). */
static int rule_truth(kr_synth_t *s, const char *name, kr_ruling *out, int max)
{
    char dir[160], path[200];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
    mkdir(dir, 0700);
    CU_ASSERT_EQUAL_FATAL(kr_synth_write_logs(s, dir), KR_OK);
    snprintf(path, sizeof path, "%s/truth.jsonl", dir);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static kr_rules_state st;
    kr_rules_reset(&st, NULL);
    char *line = NULL, err[KR_JSON_ERR_MAX];
    size_t cap = 0;
    ssize_t len;
    int n = 0, lineno = 0;
    kr_rules_output o;
    while ((len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (kr_json_is_blank(line, (size_t)len))
            continue;
        kr_rules_record rec;
        if (kr_json_read_record(line, (size_t)len, &rec, err, sizeof err) != KR_OK) {
            fprintf(stderr, "\n%s:%d: %s\n", path, lineno, err);
            CU_FAIL("truth line does not parse");
            break;
        }
        if (kr_rules_feed(&st, &rec) != KR_RULES_OK) {
            fprintf(stderr, "\n%s:%d: %s\n", path, lineno, kr_rules_last_error(&st));
            CU_FAIL("rules engine rejects the truth");
            break;
        }
        while (kr_rules_next(&st, &o))
            if (o.type == KR_OUT_RULING && n < max)
                out[n++] = o.ruling;
    }
    kr_rules_finish(&st);
    while (kr_rules_next(&st, &o))
        if (o.type == KR_OUT_RULING && n < max)
            out[n++] = o.ruling;
    free(line);
    fclose(f);
    return n;
}

/* The rules engine rules each scenario's truth as the scenario intends. */
static void test_scenarios_rulings(void)
{
    static const struct {
        const char *name;
        int take;      /* 0 none, 1 A, 2 B */
        int how;       /* kr_rules_how or 0 */
        int margin;    /* us, -1 unchecked */
        int faults;    /* number of faulting players */
        int send_from; /* 0 none, 1 A, 2 B */
        int send_count;
        int dbl;       /* double_fault */
        int voided;    /* voided takes */
        int est;       /* the reading is established */
    } want[] = {
        {"own_take", 1, KR_TAKE_TOUCH, -1, 0, 0, 0, 0, 0, 1},
        {"opp_take_send", 2, KR_TAKE_TOUCH, -1, 0, 2, 1, 0, 0, 1},
        {"push_out", 1, KR_TAKE_PUSH_OUT, -1, 0, 0, 0, 0, 0, 1},
        {"race_5ms", 1, KR_TAKE_TOUCH, 5000, 0, 1, 1, 0, 0, 1},
        {"race_20ms", 1, KR_TAKE_TOUCH, 20000, 0, 1, 1, 0, 0, 1},
        {"race_60ms", 1, KR_TAKE_TOUCH, 60000, 0, 1, 1, 0, 0, 1},
        {"dead_no_fault", 0, 0, -1, 0, 0, 0, 0, 0, 1},
        {"dead_fault", 0, 0, -1, 1, 2, 1, 0, 0, 1},
        {"dead_fault_two", 0, 0, -1, 1, 2, 2, 0, 0, 1},
        {"fault_way_back", 1, KR_TAKE_TOUCH, -1, 1, 0, 0, 0, 0, 1},
        {"double", 1, KR_TAKE_TOUCH, -1, 1, 1, 2, 0, 0, 1},
        {"both_fault", 0, 0, -1, 2, 0, 0, 1, 0, 1},
        {"hand_contact_fault", 1, KR_TAKE_TOUCH, -1, 1, 0, 0, 1, 0, 1},
        {"early_entry", 2, KR_TAKE_AWARDED, -1, 0, 2, 1, 0, 1, 1},
        {"rearrange", 1, KR_TAKE_TOUCH, -1, 0, 0, 0, 0, 0, 1},
        {"reading_void", 0, 0, -1, 0, 0, 0, 0, 0, 0},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        char path[256];
        snprintf(path, sizeof path, "samples/scenarios/%s.json", want[k].name);
        kr_synth_t *s = make(path, 320, 180, 30);
        CU_ASSERT_PTR_NOT_NULL(s);
        if (!s)
            continue;
        kr_ruling r[4];
        int n = rule_truth(s, want[k].name, r, 4);
        CU_ASSERT_EQUAL(n, 1);
        if (n >= 1) {
            bool ok = r[0].established == (want[k].est != 0) && r[0].has_take == (want[k].take != 0) &&
                      (!want[k].take || ((int)r[0].take_player == want[k].take && (int)r[0].take_how == want[k].how)) &&
                      (want[k].margin < 0 || (r[0].has_margin && r[0].margin_us == want[k].margin)) &&
                      r[0].n_faults == want[k].faults && (int)r[0].send_from == want[k].send_from &&
                      (!want[k].send_from || r[0].send_count == want[k].send_count) &&
                      r[0].double_fault == (want[k].dbl != 0) && r[0].n_voided == want[k].voided;
            if (!ok)
                fprintf(stderr, "\n%s: ruled take %d/%d faults %d send %d x%d double %d voided %d\n", want[k].name,
                        r[0].has_take ? (int)r[0].take_player : 0, (int)r[0].take_how, r[0].n_faults,
                        (int)r[0].send_from, r[0].send_count, r[0].double_fault, r[0].n_voided);
            CU_ASSERT(ok);
            /* players make the sends they owe: a script that leaves one unmade renders a match
             * no real one looks like (its counts and the detector's "send owed" review) */
            if (r[0].sends_missing)
                fprintf(stderr, "\n%s: %d owed send(s) never made\n", want[k].name, r[0].sends_missing);
            CU_ASSERT_EQUAL(r[0].sends_missing, 0);
        }
        kr_synth_destroy(s);
    }
}

/* chroma distance to the player's skin */
static int skin_pixels_in_card(kr_synth_t *s, int frame, int card, int player, int64_t card_t, int *total)
{
    kr_image_t img;
    CU_ASSERT_EQUAL_FATAL(kr_synth_render_frame(s, frame, &img), KR_OK);
    double px[8];
    kr_synth_card_outline(s, card, card_t, NULL, px);
    double cx = (px[0] + px[2] + px[4] + px[6]) / 4, cy = (px[1] + px[3] + px[5] + px[7]) / 4;
    for (int i = 0; i < 4; i++) { /* shrink by 20 % */
        px[2 * i] = cx + (px[2 * i] - cx) * 0.8;
        px[2 * i + 1] = cy + (px[2 * i + 1] - cy) * 0.8;
    }
    uint8_t sk[3];
    kr_synth_skin_bgr(s, player, sk);
    double ss = sk[0] + sk[1] + sk[2];
    int hits = 0, all = 0;
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++) {
            int pos = 0;
            for (int e = 0; e < 4; e++) {
                double ax = px[2 * e], ay = px[2 * e + 1], bx = px[(2 * e + 2) % 8], by = px[(2 * e + 3) % 8];
                pos += (bx - ax) * (y - ay) - (by - ay) * (x - ax) >= 0;
            }
            if (pos != 4 && pos != 0)
                continue;
            all++;
            const uint8_t *p = img.px + (size_t)y * img.stride + 3 * (size_t)x;
            double sum = p[0] + p[1] + p[2] + 1e-9, dist = 0;
            for (int c = 0; c < 3; c++)
                dist += pow(p[c] / sum - sk[c] / ss, 2);
            hits += sqrt(dist) < 0.03 && sum > 120;
        }
    *total = all;
    return hits;
}

static const char *press_scn =
    "{\"name\":\"t_press\",\"seed\":5,\"players\":{\"A\":{\"hand\":\"right\",\"skin\":\"tan\"},"
    "\"B\":{\"hand\":\"right\",\"skin\":\"tan\"}},"
    "\"layout\":{\"per_side\":25,\"place\":[{\"card\":48,\"owner\":\"B\",\"row\":\"upper\",\"x_mm\":0},"
    "{\"card\":9,\"owner\":\"A\",\"row\":\"upper\",\"x_mm\":409}]},"
    "\"readings\":[{\"card\":48,\"actions\":[{\"do\":\"press\",\"player\":\"A\",\"card\":48,\"t\":0.3,\"hold_s\":0.2}]},"
    "{\"card\":9,\"kami_s\":4.0,\"shimo_after_s\":2.0,\"actions\":[{\"do\":\"sweep\",\"player\":\"A\",\"card\":9,\"t\":0.3}]}]}";

static void test_hand_over_card_at_touch(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/press.json", tmpdir);
    write_file(path, press_scn);
    kr_synth_t *s = make(path, 640, 360, 120);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    const kr_synth_event *ev;
    int n;
    kr_synth_events(s, &ev, &n);
    int checked = 0;
    for (int i = 0; i < n; i++) {
        if (ev[i].type != KR_SYNTH_EV_TOUCH || ev[i].player != 0)
            continue;
        bool press = ev[i].card == 48;
        /* the frame nearest the touch (a press: the first at or after it), the card
         * outline as it lay at the touch */
        int f = 0;
        while (f < kr_synth_frame_count(s) && kr_synth_frame_t_us(s, f) < ev[i].t_us)
            f++;
        if (!press && f > 0 && ev[i].t_us - kr_synth_frame_t_us(s, f - 1) < kr_synth_frame_t_us(s, f) - ev[i].t_us)
            f--;
        int total, hits = skin_pixels_in_card(s, f, ev[i].card, 0, ev[i].t_us, &total);
        CU_ASSERT(total > 100);
        if (hits * 100 < total * 8)
            fprintf(stderr, "\ncard %d at frame %d: %d of %d skin pixels\n", ev[i].card, f, hits, total);
        CU_ASSERT(hits * 100 >= total * 8);
        if (press) {
            int before = f - (int)(0.6 * 120);
            int hb = skin_pixels_in_card(s, before, ev[i].card, 0, kr_synth_frame_t_us(s, before), &total);
            CU_ASSERT(hb * 100 <= total);
        }
        checked++;
    }
    CU_ASSERT_EQUAL(checked, 2);
    kr_synth_destroy(s);
}

static uint64_t fnv(const uint8_t *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t file_hash(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    uint8_t buf[4096];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0)
        h = fnv(buf, k, h);
    fclose(f);
    return h;
}

static void test_deterministic(void)
{
    uint64_t fh[2], th[2], mh[2];
    for (int run = 0; run < 2; run++) {
        kr_synth_t *s = make("samples/scenarios/opp_take_send.json", 320, 180, 30);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        uint64_t h = 0xcbf29ce484222325ull;
        static const double at[] = {0.0, 1.78, 1.80, 3.9};
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
            kr_image_t img;
            CU_ASSERT_EQUAL_FATAL(kr_synth_render_frame(s, (int)(at[k] * 30), &img), KR_OK);
            for (int y = 0; y < img.h; y++)
                h = fnv(img.px + (size_t)y * img.stride, (size_t)img.w * 3, h);
        }
        fh[run] = h;
        char dir[128], p[160];
        snprintf(dir, sizeof dir, "%s/run%d", tmpdir, run);
        mkdir(dir, 0700);
        CU_ASSERT_EQUAL(kr_synth_write_logs(s, dir), KR_OK);
        snprintf(p, sizeof p, "%s/truth.jsonl", dir);
        th[run] = file_hash(p);
        snprintf(p, sizeof p, "%s/meta.json", dir);
        mh[run] = file_hash(p);
        CU_ASSERT_NOT_EQUAL(th[run], 0);
        kr_synth_destroy(s);
    }
    CU_ASSERT_EQUAL(fh[0], fh[1]);
    CU_ASSERT_EQUAL(th[0], th[1]);
    CU_ASSERT_EQUAL(mh[0], mh[1]);
    /* a different seed changes the pixels */
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.w = 320; o.h = 180; o.fps_num = 30; o.seed = 999; o.seed_set = true;
    kr_synth_t *s = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_synth_create("samples/scenarios/opp_take_send.json", &o, &s, NULL, 0), KR_OK);
    kr_image_t img;
    CU_ASSERT_EQUAL(kr_synth_render_frame(s, 0, &img), KR_OK);
    uint64_t h = 0xcbf29ce484222325ull;
    for (int y = 0; y < img.h; y++)
        h = fnv(img.px + (size_t)y * img.stride, (size_t)img.w * 3, h);
    kr_synth_destroy(s);
    CU_ASSERT_NOT_EQUAL(h, 0);
}

/* --look-seed draws the look anew (the pixels change) and keeps the layout and the play:
 * every card lies where it did and every record of the truth comes at the same time. */
static void test_look_seed(void)
{
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.w = 320; o.h = 180; o.fps_num = 30;
    kr_synth_t *s[2] = {NULL, NULL};
    uint64_t h[2];
    CU_ASSERT_EQUAL_FATAL(kr_synth_create("samples/scenarios/dead_fault.json", &o, &s[0], NULL, 0), KR_OK);
    o.look_seed = 7001;
    o.look_seed_set = true;
    CU_ASSERT_EQUAL_FATAL(kr_synth_create("samples/scenarios/dead_fault.json", &o, &s[1], NULL, 0), KR_OK);
    for (int k = 0; k < 2; k++) {
        kr_image_t img;
        CU_ASSERT_EQUAL_FATAL(kr_synth_render_frame(s[k], 0, &img), KR_OK);
        h[k] = 0xcbf29ce484222325ull;
        for (int y = 0; y < img.h; y++)
            h[k] = fnv(img.px + (size_t)y * img.stride, (size_t)img.w * 3, h[k]);
    }
    CU_ASSERT_NOT_EQUAL(h[0], h[1]);
    const kr_synth_event *e[2];
    int n[2], touches = 0, cards = 0;
    kr_synth_events(s[0], &e[0], &n[0]);
    kr_synth_events(s[1], &e[1], &n[1]);
    CU_ASSERT_EQUAL_FATAL(n[0], n[1]);
    for (int i = 0; i < n[0]; i++) {
        CU_ASSERT_EQUAL(e[0][i].type, e[1][i].type);
        CU_ASSERT_EQUAL(e[0][i].t_us, e[1][i].t_us);
        CU_ASSERT_EQUAL(e[0][i].card, e[1][i].card);
        touches += e[0][i].type == KR_SYNTH_EV_TOUCH;
    }
    CU_ASSERT(touches >= 2);
    for (int id = 1; id <= 100; id++) {
        double mm[2][8], px[8];
        kr_status st0 = kr_synth_card_outline(s[0], id, 0, mm[0], px);
        CU_ASSERT_EQUAL(kr_synth_card_outline(s[1], id, 0, mm[1], px), st0);
        if (st0 != KR_OK)
            continue;
        cards++;
        for (int k = 0; k < 8; k++)
            CU_ASSERT_DOUBLE_EQUAL(mm[0][k], mm[1][k], 1e-9);
    }
    CU_ASSERT_EQUAL(cards, 50);
    kr_synth_destroy(s[0]);
    kr_synth_destroy(s[1]);
}

/* A fractional rate (59.94 = 60000/1001) gives its own frame times; rates outside 1..480
 * frames per second are refused by name. */
static void test_fractional_rate(void)
{
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.w = 320; o.h = 180; o.fps_num = 60000; o.fps_den = 1001;
    kr_synth_t *s = NULL;
    char err[600];
    CU_ASSERT_EQUAL_FATAL(kr_synth_create("samples/scenarios/own_take.json", &o, &s, err, sizeof err), KR_OK);
    int num = 0, den = 0;
    kr_synth_fps(s, &num, &den);
    CU_ASSERT_EQUAL(num, 60000);
    CU_ASSERT_EQUAL(den, 1001);
    CU_ASSERT_EQUAL(kr_synth_frame_t_us(s, 1), 16683);   /* 1001/60000 s, rounded */
    CU_ASSERT_EQUAL(kr_synth_frame_t_us(s, 60), 1001000); /* 60 frames: 1.001 s exactly */
    kr_synth_destroy(s);
    /* the scenario's own rate as [numerator, denominator] */
    char path[128];
    snprintf(path, sizeof path, "%s/ntsc.json", tmpdir);
    write_file(path, "{\"fps\":[60000,1001],\"layout\":{\"per_side\":25,\"place\":[{\"card\":17,\"owner\":\"A\","
                     "\"row\":\"upper\",\"x_mm\":0}]},\"readings\":[{\"card\":17,\"actions\":[]}]}");
    CU_ASSERT_EQUAL_FATAL(kr_synth_create(path, NULL, &s, err, sizeof err), KR_OK);
    kr_synth_fps(s, &num, &den);
    CU_ASSERT_EQUAL(num, 60000);
    CU_ASSERT_EQUAL(den, 1001);
    kr_synth_destroy(s);
    write_file(path, "{\"fps\":\"59.94\",\"readings\":[{\"card\":17,\"actions\":[]}]}");
    CU_ASSERT_EQUAL(kr_synth_create(path, NULL, &s, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "fps: need a number or [numerator, denominator]"));
    o.fps_num = 30; o.fps_den = 1001; /* 0.03 frames per second */
    CU_ASSERT_EQUAL(kr_synth_create("samples/scenarios/own_take.json", &o, &s, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "fps 30/1001"));
    o.fps_num = 481; o.fps_den = 1;
    CU_ASSERT_EQUAL(kr_synth_create("samples/scenarios/own_take.json", &o, &s, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "need 1..480"));
}

/* --phase moves every action (so every touch) by that share of a frame period and leaves
 * the readings' times alone: contacts written on round times fall between frames. */
/* race_20ms at 320x180 and fps frames a second, into *s0 with the default options and into
 * *s1 with those set by change (both caller-owned). */
static void race_pair(int fps, void (*change)(kr_synth_opts *), kr_synth_t **s0, kr_synth_t **s1)
{
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.w = 320; o.h = 180; o.fps_num = fps;
    char err[600];
    *s0 = *s1 = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_synth_create("samples/scenarios/race_20ms.json", &o, s0, err, sizeof err), KR_OK);
    change(&o);
    CU_ASSERT_EQUAL_FATAL(kr_synth_create("samples/scenarios/race_20ms.json", &o, s1, err, sizeof err), KR_OK);
}

/* The two renders' truth has the same events at the same times (frame timing alone
 * differs); both are destroyed. */
static void same_truth_then_destroy(kr_synth_t *s0, kr_synth_t *s1)
{
    const kr_synth_event *e0, *e1;
    int m0, m1;
    kr_synth_events(s0, &e0, &m0);
    kr_synth_events(s1, &e1, &m1);
    CU_ASSERT_EQUAL(m0, m1);
    for (int i = 0; i < m0 && i < m1; i++)
        CU_ASSERT_EQUAL(e0[i].t_us, e1[i].t_us);
    kr_synth_destroy(s0);
    kr_synth_destroy(s1);
}

static void half_phase(kr_synth_opts *o) { o->phase = 0.5; }
static void phone_rate(kr_synth_opts *o) { o->jitter = 0.3; o->drop = 0.1; }

static void test_phase(void)
{
    kr_synth_t *s0, *s1;
    race_pair(60, half_phase, &s0, &s1);
    const kr_synth_event *e0, *e1;
    int n0, n1, touches = 0, kamis = 0;
    kr_synth_events(s0, &e0, &n0);
    kr_synth_events(s1, &e1, &n1);
    CU_ASSERT_EQUAL_FATAL(n0, n1);
    for (int i = 0; i < n0; i++) {
        CU_ASSERT_EQUAL(e0[i].type, e1[i].type);
        if (e0[i].type == KR_SYNTH_EV_TOUCH) {
            CU_ASSERT(llabs(e1[i].t_us - e0[i].t_us - 8333) <= 1); /* half of 1/60 s */
            touches++;
        } else if (e0[i].type == KR_SYNTH_EV_KAMI_START) {
            CU_ASSERT_EQUAL(e1[i].t_us, e0[i].t_us);
            kamis++;
        }
    }
    CU_ASSERT(touches >= 2);
    CU_ASSERT_EQUAL(kamis, 1);
    kr_synth_destroy(s0);
    kr_synth_destroy(s1);
}

/* --jitter and --drop (or the scenario's frame_jitter, frame_drop): frame times move by
 * up to that share of a period and a share of the frames is left out, as in a phone's
 * variable-rate file; the first frame stays at 0, times keep their order, the truth does
 * not change, and bad values are refused by name. */
static void test_variable_rate(void)
{
    kr_synth_t *s0, *s1;
    race_pair(30, phone_rate, &s0, &s1);
    const int n0 = kr_synth_frame_count(s0), n1 = kr_synth_frame_count(s1);
    const double period = 1e6 / 30;
    CU_ASSERT_EQUAL(kr_synth_frame_t_us(s1, 0), 0);
    int off_grid = 0, gaps = 0;
    for (int f = 1; f < n1; f++) {
        int64_t t = kr_synth_frame_t_us(s1, f), d = t - kr_synth_frame_t_us(s1, f - 1);
        CU_ASSERT(d >= (int64_t)(0.4 * period)); /* in order: at most 0.3 early and 0.3 late */
        double i = t / period, frac = fabs(i - floor(i + 0.5));
        CU_ASSERT(frac <= 0.3 + 1e-4);          /* within jitter of a nominal time */
        off_grid += frac > 0.01;
        gaps += d > 1.7 * period;               /* a frame left out */
    }
    CU_ASSERT(off_grid > n1 / 2);
    CU_ASSERT(n1 < n0 && n1 > n0 * 8 / 10);      /* about a tenth left out */
    CU_ASSERT(gaps > 0);
    same_truth_then_destroy(s0, s1);
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.jitter = 0.5;
    char err[600];
    CU_ASSERT_EQUAL(kr_synth_create("samples/scenarios/race_20ms.json", &o, &s1, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "frame_jitter"));
}

/* --ramp (or the scenario's frame_ramp): a slow-motion stretch. Inside it the frames come
 * at the ramp's rate, outside at the scenario's, with real-time presentation times; the rate
 * eases in and out (no interval more than half again its neighbour's), jittered frames keep
 * their order, the truth does not change, and a bad ramp is refused by name. */
static void slow_motion(kr_synth_opts *o)
{
    o->ramp[0] = 1.6; o->ramp[1] = 2.4; o->ramp[2] = 240; o->ramp[3] = 0.15;
    o->jitter = 0.45;
}

static void test_slow_motion_ramp(void)
{
    kr_synth_t *s0, *s1;
    race_pair(30, slow_motion, &s0, &s1);
    const int n1 = kr_synth_frame_count(s1);
    int inside = 0, outside = 0;
    for (int f = 1; f < n1; f++) {
        int64_t t = kr_synth_frame_t_us(s1, f), d = t - kr_synth_frame_t_us(s1, f - 1);
        CU_ASSERT(d > 0);
        if (t > 1650000 && t < 2350000) { /* 240 fps, jittered by up to 0.45 of it each side */
            CU_ASSERT(d >= 4166 * 0.1 - 1 && d <= 4166 * 1.9 + 1);
            inside++;
        } else if (t < 1400000 || t > 2600000) {
            CU_ASSERT(d >= 33333 * 0.1 - 1 && d <= 33333 * 1.9 + 1);
            outside++;
        }
    }
    CU_ASSERT(inside > 0.7 * 240 * 0.7 && inside < 1.0 * 240 * 0.7 + 2); /* about 168 frames */
    CU_ASSERT(outside > 100);
    kr_synth_destroy(s1);
    /* without jitter: eased, each interval within half again of the one before */
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.w = 320; o.h = 180; o.fps_num = 30;
    o.ramp[0] = 1.6; o.ramp[1] = 2.4; o.ramp[2] = 240; o.ramp[3] = 0.15;
    char err[600];
    CU_ASSERT_EQUAL_FATAL(kr_synth_create("samples/scenarios/race_20ms.json", &o, &s1, err, sizeof err), KR_OK);
    int short_ones = 0;
    for (int f = 2; f < kr_synth_frame_count(s1); f++) {
        double a = (double)(kr_synth_frame_t_us(s1, f - 1) - kr_synth_frame_t_us(s1, f - 2));
        double b = (double)(kr_synth_frame_t_us(s1, f) - kr_synth_frame_t_us(s1, f - 1));
        CU_ASSERT(b <= 1.5 * a + 1 && a <= 1.5 * b + 1);
        short_ones += b < 4200;
    }
    CU_ASSERT(short_ones > 150);
    same_truth_then_destroy(s0, s1);
    o.ramp[1] = 1.0; /* ends before it starts */
    CU_ASSERT_EQUAL(kr_synth_create("samples/scenarios/race_20ms.json", &o, &s1, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "frame_ramp"));
}

/* A card received by a send and sent back: the second send picks it up where the first
 * put it down (hands are planned one at a time; the later hand once took the card from its
 * layout place, the card never moved, yet the truth had the send). */
static void test_card_sent_back(void)
{
    kr_synth_t *s = make("samples/scenarios/send_back.json", 320, 180, 30);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    const kr_synth_card *c = &s->cards[61];
    int carries = 0;
    kr_synth_pose before = {0, 0, 0}, after;
    for (int k = 1; k < c->n_seg; k++) {
        const kr_synth_seg *g = &c->seg[k];
        CU_ASSERT(g->t0 >= c->seg[k - 1].t0); /* moves in time order */
        if (g->mode != KR_CARD_CARRY)
            continue;
        /* at the grab the fingertip is on the card as it lay just before */
        kr_synth_card_pose(s, c, g->t0 - 0.01, &before, NULL);
        double hp[3];
        kr_synth_hand_eval(&s->hands[g->hand], g->t0, hp, NULL);
        CU_ASSERT(hypot(hp[0] - before.x, hp[1] - before.y) < 45.0);
        CU_ASSERT(hp[2] < 1.0);
        /* and it lands where the scenario sends it: A's middle row, then back to B's */
        kr_synth_card_pose(s, c, g->t_rel + 0.05, &after, NULL);
        double want_x = carries == 0 ? -40 : 40, want_y = carries == 0 ? -134.5 : 134.5;
        CU_ASSERT(hypot(after.x - want_x, after.y - want_y) < 1.0);
        carries++;
    }
    CU_ASSERT_EQUAL(carries, 2);
    CU_ASSERT(before.y < 0); /* the second grab is in A's territory, where the first send put it */
    kr_synth_destroy(s);
}

/* A press striking the card (land_speed) comes straight down its last 30 mm at that speed
 * and lands exactly at t; one without slows to rest on it. Out of range, or on another
 * action, it is refused. */
static void test_press_striking_the_card(void)
{
    char path[128], err[600];
    snprintf(path, sizeof path, "%s/strike.json", tmpdir);
    const double speed[2] = {0.0, 2.0};
    for (int k = 0; k < 2; k++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"seed\":5,\"layout\":{\"per_side\":25,\"place\":[{\"card\":48,\"owner\":\"B\",\"row\":\"upper\","
                 "\"x_mm\":0}]},\"readings\":[{\"card\":48,\"actions\":[{\"do\":\"press\",\"player\":\"A\","
                 "\"card\":48,\"t\":0.3,\"land_speed\":%g}]}]}",
                 speed[k]);
        write_file(path, text);
        kr_synth_t *s = make(path, 320, 180, 60);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        const kr_synth_event *ev;
        int n;
        kr_synth_events(s, &ev, &n);
        const kr_synth_event *t = find(ev, n, 0, KR_SYNTH_EV_TOUCH, 0, 48, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        const kr_synth_hand *hd = &s->hands[t->player * 2 + t->hand];
        double p[3], v[3], q[3];
        kr_synth_hand_eval(hd, t->t_us / 1e6 - 0.002, p, v);
        kr_synth_hand_eval(hd, t->t_us / 1e6, q, NULL);
        CU_ASSERT_EQUAL(q[2], 0.0);
        if (k == 0) {
            CU_ASSERT(p[2] < 0.1); /* 2 ms before: all but touching, slowing */
            CU_ASSERT(v[2] > -100);
        } else {
            CU_ASSERT_DOUBLE_EQUAL(p[2], 4.0, 0.05); /* 2 ms at 2 m/s */
            CU_ASSERT_DOUBLE_EQUAL(v[2], -2000.0, 1.0);
        }
        kr_synth_hand_eval(hd, t->t_us / 1e6 + 0.05, p, NULL);
        CU_ASSERT_EQUAL(p[2], 0.0); /* and it stays on the card */
        check_touch_physics(s);
        kr_synth_destroy(s);
    }
    write_file(path, "{\"layout\":{\"per_side\":25,\"place\":[{\"card\":48,\"owner\":\"B\",\"row\":\"upper\",\"x_mm\":0}]},"
                     "\"readings\":[{\"card\":48,\"actions\":[{\"do\":\"press\",\"player\":\"A\",\"card\":48,"
                     "\"t\":0.3,\"land_speed\":-1}]}]}");
    kr_synth_t *s = NULL;
    CU_ASSERT_EQUAL(kr_synth_create(path, NULL, &s, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "land_speed"));
    write_file(path, "{\"layout\":{\"per_side\":25,\"place\":[{\"card\":48,\"owner\":\"B\",\"row\":\"upper\",\"x_mm\":0}]},"
                     "\"readings\":[{\"card\":48,\"actions\":[{\"do\":\"sweep\",\"player\":\"A\",\"card\":48,"
                     "\"t\":0.3,\"land_speed\":1}]}]}");
    CU_ASSERT_EQUAL(kr_synth_create(path, NULL, &s, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "only a press"));
}

/* A rolling shutter (look.readout): image row y is exposed at t + ((y + 0.5) / H - 0.5) *
 * readout * period. A hand crossing the view at 3 m/s, readout the whole period at 60 fps
 * (16.7 ms): each row shows the hand where it is at that row's time, so against the global
 * shutter's frame a band of rows above the middle has it back along its path by the speed
 * times the band's time and one below ahead (a shear). The truth for a band: the global
 * shutter's picture at the band's time (the same scene with the actions moved by --phase).
 * With no motion the two frames are the same up to the exposure gain, each row's own;
 * readout 0 is the global shutter's frame byte for byte; out of 0..1 it is refused. */
static const char *rolling_scn =
    "{\"name\":\"t_rolling\",\"seed\":5,\"players\":{\"A\":{\"hand\":\"right\",\"skin\":\"tan\"},"
    "\"B\":{\"hand\":\"right\",\"skin\":\"tan\"}},"
    "\"camera\":{\"tilt_deg\":0,\"pan_deg\":0,\"roll_deg\":0,\"k1\":0,\"k2\":0},"
    "\"look\":{\"noise\":0,\"flicker\":0,\"vignette\":0,\"shutter\":0.1%s},"
    "\"layout\":{\"per_side\":0},"
    "\"readings\":[{\"card\":48,\"actions\":[{\"do\":\"path\",\"player\":\"A\",\"t\":0,"
    "\"path\":[[0,-450,150,60],[0.1,-150,150,60],[0.2,150,150,60],[0.3,450,150,60]]}]}]}";

/* rolling_scn with look_extra written to tmpdir/file (its path into path, pathlen bytes)
 * and made with o (NULL: the defaults); on failure *out NULL and err set. *out
 * caller-owned (kr_synth_destroy). */
static kr_status rolling_scn_make(const char *file, const char *look_extra, const kr_synth_opts *o, char *path,
                                  size_t pathlen, char *err, size_t errlen, kr_synth_t **out)
{
    char text[1024];
    snprintf(path, pathlen, "%s/%s", tmpdir, file);
    snprintf(text, sizeof text, rolling_scn, look_extra);
    write_file(path, text);
    *out = NULL;
    return kr_synth_create(path, o, out, err, errlen);
}

/* the scene at 1280x720, 60 fps, actions moved phase of a period later; *px (malloc'ed, w*3
 * a row) gets frame `frame` */
static kr_synth_t *rolling_make(const char *look_extra, double phase, int frame, uint8_t **px)
{
    char path[128], err[600];
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.w = 1280; o.h = 720; o.fps_num = 60; o.phase = phase;
    kr_synth_t *s = NULL;
    if (rolling_scn_make("rolling.json", look_extra, &o, path, sizeof path, err, sizeof err, &s) != KR_OK) {
        fprintf(stderr, "\n%s\n", err);
        return NULL;
    }
    kr_image_t img;
    CU_ASSERT_EQUAL_FATAL(kr_synth_render_frame(s, frame, &img), KR_OK);
    *px = malloc((size_t)img.w * img.h * 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*px);
    for (int y = 0; y < img.h; y++)
        memcpy(*px + (size_t)y * img.w * 3, img.px + (size_t)y * img.stride, (size_t)img.w * 3);
    return s;
}

/* mean x of A's skin pixels in row y; -1: too few */
static double skin_row_x(const kr_synth_t *s, const uint8_t *px, int y)
{
    uint8_t sk[3];
    kr_synth_skin_bgr(s, 0, sk);
    double ss = sk[0] + sk[1] + sk[2], sx = 0;
    int n = 0;
    for (int x = 0; x < 1280; x++) {
        const uint8_t *p = px + ((size_t)y * 1280 + x) * 3;
        double sum = p[0] + p[1] + p[2] + 1e-9, dist = 0;
        for (int c = 0; c < 3; c++)
            dist += pow(p[c] / sum - sk[c] / ss, 2);
        if (sqrt(dist) < 0.03 && sum > 120) {
            sx += x;
            n++;
        }
    }
    return n >= 12 ? sx / n : -1;
}

static void test_rolling_shutter(void)
{
    const int frame = 114;             /* 1.9 s: the hand at x = 0 mid-way through its 3 m/s */
    const double period = 1e6 / 60;    /* us; the readout is all of it */
    uint8_t *g = NULL, *rs = NULL, *z = NULL;
    kr_synth_t *s0 = rolling_make("", 0, frame, &g), *s1 = rolling_make(",\"readout\":1.0", 0, frame, &rs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s1);
    const int64_t t = kr_synth_frame_t_us(s1, frame);
    CU_ASSERT_EQUAL(t, 1900000);
    double a[2], b[2];
    kr_synth_hand_state(s1, 0, 1, t - 1000, NULL, NULL, a);
    kr_synth_hand_state(s1, 0, 1, t + 1000, NULL, NULL, b);
    double v = (b[0] - a[0]) / 2000.0; /* the tip's speed in the image, px/us */
    CU_ASSERT(v > 0.002);
    /* a band of rows above the middle (row 250, its time t - 2.54 ms) and one below (470,
     * t + 2.55 ms); the global shutter's frame at each band's time */
    const int yc[2] = {250, 470};
    double shift[2], truth[2], dt[2];
    for (int k = 0; k < 2; k++) {
        dt[k] = ((yc[k] + 0.5) / 720 - 0.5) * period;
        /* frame f at t_f with the actions moved p periods later shows the scene at t_f - p period */
        int f = dt[k] < 0 ? frame : frame + 1;
        double p = (kr_synth_frame_t_us(s0, f) - (t + dt[k])) / period;
        uint8_t *gk = NULL;
        kr_synth_t *sk = rolling_make("", p, f, &gk);
        CU_ASSERT_PTR_NOT_NULL_FATAL(sk);
        double q[2], want[2];
        kr_synth_hand_state(sk, 0, 1, kr_synth_frame_t_us(sk, f), NULL, NULL, q);
        kr_synth_hand_state(s0, 0, 1, (int64_t)llround(t + dt[k]), NULL, NULL, want);
        CU_ASSERT(fabs(q[0] - want[0]) < 0.01); /* it is the scene at t + dt */
        double m = 0, w = 0;
        int rows = 0;
        for (int y = yc[k] - 8; y < yc[k] + 8; y++) {
            double x0 = skin_row_x(s0, g, y), x1 = skin_row_x(s1, rs, y), xk = skin_row_x(sk, gk, y);
            if (x0 < 0 || x1 < 0 || xk < 0)
                continue;
            m += x1 - x0;
            w += xk - x0;
            rows++;
        }
        CU_ASSERT_FATAL(rows >= 12);
        shift[k] = m / rows;
        truth[k] = w / rows;
        kr_synth_destroy(sk);
        free(gk);
    }
    fprintf(stderr, "\nrolling shutter: the hand moved %.1f px in the band at %+.2f ms (truth %.1f, tip %.1f), "
                    "%.1f px at %+.2f ms (truth %.1f, tip %.1f)\n",
            shift[0], dt[0] / 1e3, truth[0], v * dt[0], shift[1], dt[1] / 1e3, truth[1], v * dt[1]);
    for (int k = 0; k < 2; k++) {
        /* the band's time is quantised to half a band (16.7 ms / 17 / 2 = 0.5 ms, 1.5 px) */
        CU_ASSERT(fabs(shift[k] - truth[k]) < 1.5 + 0.5);
        CU_ASSERT(fabs(truth[k]) > 0.5 * fabs(v * dt[k])); /* a real move, the tip's way */
        CU_ASSERT(truth[k] * dt[k] > 0);
    }
    /* top to bottom band: the speed times the time between them (the arm turning about the
     * shoulder moves the lower rows a little less than the tip) */
    CU_ASSERT(shift[1] - shift[0] > 0.7 * v * (dt[1] - dt[0]) && shift[1] - shift[0] < 1.1 * v * (dt[1] - dt[0]));
    /* away from the moving hand the bands are the global shutter's picture (the exposure
     * gain, each row's own, may round one grey level apart) */
    long differ = 0;
    for (int y = 0; y < 720; y++)
        for (int x = 0; x < 1280 * 3; x++) {
            int d = abs((int)g[(size_t)y * 1280 * 3 + x] - (int)rs[(size_t)y * 1280 * 3 + x]);
            if (x / 3 < 320 || x / 3 >= 960)
                CU_ASSERT_FATAL(d <= 1);
            differ += d > 1;
        }
    CU_ASSERT(differ > 1000);
    /* meta.json: the readout and how rows are timed */
    char dir[128], path[160];
    snprintf(dir, sizeof dir, "%s/rolling", tmpdir);
    mkdir(dir, 0700);
    CU_ASSERT_EQUAL(kr_synth_write_logs(s1, dir), KR_OK);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char meta[1 << 16];
    size_t n = fread(meta, 1, sizeof meta - 1, f);
    meta[n] = 0;
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(meta, "\"readout_us\":\t16667"));
    CU_ASSERT_PTR_NOT_NULL(strstr(meta, "\"readout_bands\":\t17"));
    CU_ASSERT_PTR_NOT_NULL(strstr(meta, "\"row_times\""));
    kr_synth_destroy(s1);
    /* readout 0 is the global shutter, byte for byte */
    kr_synth_t *s2 = rolling_make(",\"readout\":0", 0, frame, &z);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
    CU_ASSERT_EQUAL(memcmp(g, z, (size_t)1280 * 720 * 3), 0);
    kr_synth_destroy(s2);
    kr_synth_destroy(s0);
    free(g);
    free(rs);
    free(z);
    /* out of range or not a number: refused, naming the file and the member */
    static const char *bad[] = {",\"readout\":1.5", ",\"readout\":-0.1", ",\"readout\":\"half\""};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char err[600];
        kr_synth_t *s = NULL;
        CU_ASSERT_EQUAL(rolling_scn_make("rolling.json", bad[k], NULL, path, sizeof path, err, sizeof err, &s),
                        KR_ERR_FORMAT);
        CU_ASSERT_PTR_NULL(s);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "look.readout"));
    }
}

/* The lamps' waveform (look.flicker_wave): a sine is the light at the instant; lamps that
 * switch (square) are averaged over the exposure, so a short shutter sees them on or off
 * (steps of 2 x flicker) and one as long as a frame at 60 fps (16.7 ms, over 1.7 periods
 * of 100 Hz) sees little of them. Anything else is refused, naming the member. Their
 * frequency (look.flicker_hz, --flicker-hz) sets the light's period. The gain's
 * range over 0.1 s (10 lamp periods) at 60 fps, lamps of 0.2 (--flicker), the look's
 * flicker_wave given by look (and wave, >= 0: --flicker-wave), its shutter by shutter. */
static double lamps_gain_range(const char *look, int wave, double shutter, double *mean)
{
    char path[128], err[600];
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.fps_num = 60;
    o.flicker = 0.2;
    o.flicker_wave = wave;
    o.shutter = shutter;
    kr_synth_t *s = NULL;
    if (rolling_scn_make("lamps.json", look, &o, path, sizeof path, err, sizeof err, &s) != KR_OK) {
        fprintf(stderr, "\n%s\n", err);
        return -1;
    }
    double lo = 1e9, hi = -1e9, sum = 0;
    for (int i = 0; i < 1000; i++) {
        double g = kr_synth_gain_at(s, 1.0 + i * 1e-4);
        lo = fmin(lo, g);
        hi = fmax(hi, g);
        sum += g;
    }
    kr_synth_destroy(s);
    *mean = sum / 1000;
    return hi - lo;
}

static void test_lamps_that_switch(void)
{
    const char *square = ",\"flicker_wave\":\"square\"";
    double mean;
    CU_ASSERT_DOUBLE_EQUAL(lamps_gain_range("", -1, -1, &mean), 0.4, 0.03); /* a sine, 1 +- 0.2 */
    CU_ASSERT_DOUBLE_EQUAL(lamps_gain_range(square, -1, 0.02, &mean), 0.4, 0.03); /* 0.3 ms: on or off */
    CU_ASSERT_DOUBLE_EQUAL(mean, 1.0, 0.03);
    /* a frame-long exposure (1.67 lamp periods): on for 0.4 to 0.6 of it, 1 +- 0.04 */
    double range = lamps_gain_range(square, -1, 1.0, &mean);
    CU_ASSERT_TRUE(range > 0.06 && range < 0.1);
    /* the command line's --flicker-wave sine replaces the look's square */
    CU_ASSERT_DOUBLE_EQUAL(lamps_gain_range(square, 0, 1.0, &mean), 0.4, 0.03);
    char path[128], err[600];
    kr_synth_t *s = NULL;
    /* --flicker-hz 120 (mains at 60 Hz): the light repeats every 1/120 s, half-way through
     * it swings the other way (the slow drift of the exposure aside) */
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.flicker = 0.2;
    o.flicker_hz = 120;
    CU_ASSERT_EQUAL_FATAL(rolling_scn_make("lamps.json", "", &o, path, sizeof path, err, sizeof err, &s), KR_OK);
    for (double t = 1.0; t < 1.01; t += 0.001) {
        double g = kr_synth_gain_at(s, t), g1 = kr_synth_gain_at(s, t + 1.0 / 120), gh = kr_synth_gain_at(s, t + 1.0 / 240);
        CU_ASSERT_DOUBLE_EQUAL(g1, g, 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(gh - 1, -(g - 1), 2e-2);
    }
    kr_synth_destroy(s);
    s = NULL;
    CU_ASSERT_EQUAL(rolling_scn_make("lamps.json", ",\"flicker_wave\":\"pulse\"", NULL, path, sizeof path, err,
                                     sizeof err, &s),
                    KR_ERR_FORMAT);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "look.flicker_wave"));
}

/* A scenario whose root starts with codec_json, made with the command line's gop_s and
 * bframes (kr_synth_opts) */
static kr_status codec_scn_make(const char *codec_json, double opt_gop, int opt_bframes, kr_synth_t **out,
                                char *err, size_t errlen)
{
    char path[128], body[1024], text[1100];
    snprintf(path, sizeof path, "%s/codec.json", tmpdir);
    snprintf(body, sizeof body, rolling_scn, "");
    snprintf(text, sizeof text, "{%s%s", codec_json, body + 1); /* codec_json at the root, first */
    write_file(path, text);
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.gop_s = opt_gop;
    o.bframes = opt_bframes;
    *out = NULL;
    return kr_synth_create(path, &o, out, err, errlen);
}

/* A scenario whose root starts with codec_json is refused, naming its file and field */
static void codec_scn_refused(const char *codec_json, const char *field)
{
    char err[600];
    kr_synth_t *s = NULL;
    CU_ASSERT_EQUAL(codec_scn_make(codec_json, 0, -1, &s, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "codec.json"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, field));
}

/* The video's keyframe interval (where the codec draws the whole picture anew): the
 * scenario's gop_s (default 2 s), replaced by the command line's (kr_synth_opts.gop_s), in
 * tenths of a second as the writer takes it; out of 0.1..10 s, or not a number, the
 * scenario is refused naming its file and the field */
static void test_keyframe_interval(void)
{
    char err[600];
    kr_synth_t *s = NULL;
    CU_ASSERT_EQUAL_FATAL(codec_scn_make("", 0, -1, &s, err, sizeof err), KR_OK);
    CU_ASSERT_EQUAL(kr_synth_gop_s10(s), 20);
    kr_synth_destroy(s);
    CU_ASSERT_EQUAL_FATAL(codec_scn_make("\"gop_s\":0.5,", 0, -1, &s, err, sizeof err), KR_OK);
    CU_ASSERT_EQUAL(kr_synth_gop_s10(s), 5);
    kr_synth_destroy(s);
    CU_ASSERT_EQUAL_FATAL(codec_scn_make("\"gop_s\":0.5,", 1.3, -1, &s, err, sizeof err), KR_OK);
    CU_ASSERT_EQUAL(kr_synth_gop_s10(s), 13);
    kr_synth_destroy(s);
    const char *bad[3] = {"\"gop_s\":0,", "\"gop_s\":12,", "\"gop_s\":\"2\","};
    for (int k = 0; k < 3; k++)
        codec_scn_refused(bad[k], "gop_s");
}

/* B-frames between the video's references: the scenario's bframes (default -1, the
 * encoder preset's), replaced by the command line's (kr_synth_opts.bframes); not a whole
 * number of -1..16: refused naming the file and the field */
static void test_bframes(void)
{
    char err[600];
    kr_synth_t *s = NULL;
    CU_ASSERT_EQUAL_FATAL(codec_scn_make("", 0, -1, &s, err, sizeof err), KR_OK);
    CU_ASSERT_EQUAL(kr_synth_bframes(s), -1);
    kr_synth_destroy(s);
    CU_ASSERT_EQUAL_FATAL(codec_scn_make("\"bframes\":2,", 0, -1, &s, err, sizeof err), KR_OK);
    CU_ASSERT_EQUAL(kr_synth_bframes(s), 2);
    kr_synth_destroy(s);
    CU_ASSERT_EQUAL_FATAL(codec_scn_make("\"bframes\":2,", 0, 0, &s, err, sizeof err), KR_OK);
    CU_ASSERT_EQUAL(kr_synth_bframes(s), 0);
    kr_synth_destroy(s);
    const char *bad[4] = {"\"bframes\":1.5,", "\"bframes\":17,", "\"bframes\":-2,", "\"bframes\":\"0\","};
    for (int k = 0; k < 4; k++)
        codec_scn_refused(bad[k], "bframes");
}

/* The sensor's noise (look.noise, --noise: kr_synth_opts.noise): each channel of each pixel
 * moved by a Gaussian of that sigma, in grey levels. rolling_scn's look has none; a frame
 * made with --noise 10 differs from it by a deviation of 10 (the field is the same for
 * both: the same look seed), and one made with --noise 0 is it byte for byte. */
static double noise_sd(double noise, int *same)
{
    char path[128], err[600];
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    o.w = 320; o.h = 180; o.fps_num = 30;
    kr_synth_t *clean = NULL, *noisy = NULL;
    double sd = -1;
    *same = 0;
    CU_ASSERT_EQUAL(rolling_scn_make("noise0.json", "", &o, path, sizeof path, err, sizeof err, &clean), KR_OK);
    o.noise = noise;
    CU_ASSERT_EQUAL(rolling_scn_make("noise1.json", "", &o, path, sizeof path, err, sizeof err, &noisy), KR_OK);
    kr_image_t a, b;
    uint8_t *pa = malloc(320 * 180 * 3);
    if (clean && noisy && pa && kr_synth_render_frame(clean, 3, &a) == KR_OK) {
        for (int y = 0; y < a.h; y++)
            memcpy(pa + (size_t)y * a.w * 3, a.px + (size_t)y * a.stride, (size_t)a.w * 3);
        if (kr_synth_render_frame(noisy, 3, &b) == KR_OK) {
            double ss = 0;
            long n = 0, differ = 0;
            for (int y = 0; y < b.h; y++)
                for (int x = 0; x < b.w * 3; x++) {
                    const double d = (double)b.px[(size_t)y * b.stride + x] - pa[(size_t)y * a.w * 3 + x];
                    ss += d * d;
                    differ += d != 0;
                    n++;
                }
            sd = sqrt(ss / (double)n);
            *same = differ == 0;
        }
    }
    free(pa);
    kr_synth_destroy(clean);
    kr_synth_destroy(noisy);
    return sd;
}

static void test_sensor_noise(void)
{
    int same;
    CU_ASSERT_DOUBLE_EQUAL(noise_sd(10, &same), 10.0, 0.5);
    CU_ASSERT_FALSE(same);
    noise_sd(0, &same);
    CU_ASSERT_TRUE(same);
}

static void test_bad_scenario(void)
{
    char path[128], err[600];
    snprintf(path, sizeof path, "%s/bad.json", tmpdir);
    write_file(path, "{\"readings\":[{\"card\":17,\"actions\":[{\"do\":\"jump\",\"player\":\"A\",\"t\":0.1}]}]}");
    kr_synth_t *s = NULL;
    CU_ASSERT_EQUAL(kr_synth_create(path, NULL, &s, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "actions[0].do"));
    write_file(path, "{\"readings\":[{\"card\":17,\"actions\":[{\"do\":\"press\",\"player\":\"A\",\"card\":17,\"t\":0.1}]}]}");
    CU_ASSERT_EQUAL(kr_synth_create(path, NULL, &s, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not on the field"));
    write_file(path, "{\"readings\": [");
    CU_ASSERT_EQUAL(kr_synth_create(path, NULL, &s, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_EQUAL(kr_synth_create("/nonexistent/x.json", NULL, &s, err, sizeof err), KR_ERR_IO);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kr_synth_test_XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("synth", NULL, NULL);
    CU_add_test(s, "opening_kimariji", test_opening_kimariji);
    CU_add_test(s, "scenarios_truth", test_scenarios_truth);
    CU_add_test(s, "scenarios_rulings", test_scenarios_rulings);
    CU_add_test(s, "hand_over_card_at_touch", test_hand_over_card_at_touch);
    CU_add_test(s, "deterministic", test_deterministic);
    CU_add_test(s, "look_seed", test_look_seed);
    CU_add_test(s, "fractional_rate", test_fractional_rate);
    CU_add_test(s, "phase", test_phase);
    CU_add_test(s, "variable_rate", test_variable_rate);
    CU_add_test(s, "slow_motion_ramp", test_slow_motion_ramp);
    CU_add_test(s, "card_sent_back", test_card_sent_back);
    CU_add_test(s, "bad_scenario", test_bad_scenario);
    CU_add_test(s, "press_striking_the_card", test_press_striking_the_card);
    CU_add_test(s, "rolling_shutter", test_rolling_shutter);
    CU_add_test(s, "lamps_that_switch", test_lamps_that_switch); /* session 29 */
    CU_add_test(s, "keyframe_interval", test_keyframe_interval); /* session 42 */
    CU_add_test(s, "bframes", test_bframes); /* session 43 */
    CU_add_test(s, "sensor_noise", test_sensor_noise); /* session 47 */
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fails++;
    return fails != 0;
}
