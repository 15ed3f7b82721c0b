/* kr_rules.h - the pure rules engine: match-log records in, rulings out.
 * No I/O, no allocation, no clock: the caller owns all state (STYLE.md section 6).
 * SPDX-License-Identifier: MIT                                                   */
#ifndef KR_RULES_H
#define KR_RULES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started (one match):
 *   kr_rules_config cfg;  kr_rules_config_default(&cfg);  cfg.tie_us = ...;
 *   kr_rules_state st;   (plain struct, about 5 KB; no allocation anywhere)
 *   kr_rules_reset(&st, &cfg);
 *   for each record (kr_json_read_record() fills a kr_rules_record):
 *       if (kr_rules_feed(&st, &rec) != KR_RULES_OK)  report kr_rules_last_error(&st)
 *       while (kr_rules_next(&st, &out))  write out (a ruling or the match end)
 *   kr_rules_finish(&st);  while (kr_rules_next(&st, &out)) write out
 * The same records always give the same rulings. One state per match; a state
 * may be used from one thread at a time. Specs: docs/spec/match-log.md,
 * docs/spec/rulings.md (clauses 1-9 and the conventions).                      */

#define KR_RULES_CARDS       100 /* card ids are 1 ... 100 (poem number) */
#define KR_RULES_ID_MAX      32  /* bytes of an evidence id, NUL included; longer ids are rejected */
#define KR_RULES_NAME_MAX    64  /* bytes of a player name / format string, NUL included */
#define KR_RULES_KANA_MAX    64  /* bytes of a kimariji in UTF-8 (up to 21 kana), NUL included */
#define KR_RULES_MAX_REVIEW  8   /* review reasons kept per ruling */
#define KR_RULES_MAX_EVIDENCE 8  /* evidence ids kept per ruling */
#define KR_RULES_MAX_SENDS   8   /* send records kept per player and reading (more are ignored) */
#define KR_RULES_ERR_MAX     160 /* bytes of the last-error text */
#define KR_RULES_MAX_T_US    INT64_C(4000000000000000) /* |t_us|, t_err_us limit (about 127 years) */
#define KR_RULES_MAX_CONFIG_US INT64_C(1000000000)     /* tie_us, mora_us limit (1000 s) */

/* ---- poems and kimariji ------------------------------------------------ */

/* One poem of models/hyakunin-isshu.json. Strings are static UTF-8 kana. */
typedef struct kr_rules_poem {
    int32_t     no;       /* 1 ... 100, the card id */
    const char *poet;
    const char *kami;     /* upper verse as the reader pronounces it */
    const char *shimo;    /* lower verse */
    const char *kimariji; /* opening kimariji (nothing read yet) */
} kr_rules_poem;

/* The poem with number no, or NULL if no is outside 1 ... 100. Static data. */
const kr_rules_poem *kr_rules_poem_get(int32_t no);

/* Dynamic kimariji: the shortest prefix of card's kami that no other card with
 * unread[other] true shares, compared by sound (おう and おお alike: a う or お
 * after an o-vowel kana sounds as a long o). unread is indexed by card id
 * (unread[0] unused, KR_RULES_CARDS + 1 entries); card itself is ignored in it.
 * Writes the prefix (UTF-8, NUL-terminated) to out (cap bytes, may be NULL) and
 * returns its length in kana, or 0 if card is out of range or cap too small. */
int kr_rules_kimariji(int32_t card, const bool unread[KR_RULES_CARDS + 1], char *out, size_t cap);

/* Number of leading kana that cards a and b share by sound (0 if out of range). */
int kr_rules_common_sound(int32_t a, int32_t b);

/* ---- records (match-log.md) --------------------------------------------- */

typedef enum {
    KR_SIDE_NONE = 0, /* no player / territory; a location "dead" */
    KR_SIDE_A = 1,
    KR_SIDE_B = 2
} kr_rules_side;

typedef enum { KR_HAND_NONE = 0, KR_HAND_LEFT, KR_HAND_RIGHT } kr_rules_hand;
typedef enum { KR_ROW_NONE = 0, KR_ROW_UPPER, KR_ROW_MIDDLE, KR_ROW_LOWER } kr_rules_row;
typedef enum { KR_KIND_NONE = 0, KR_KIND_GRAB, KR_KIND_OTHER } kr_rules_kind;

typedef enum {
    KR_REC_NONE = 0,
    KR_REC_MATCH,
    KR_REC_LAYOUT,
    KR_REC_KAMI_START,
    KR_REC_KIMARIJI,
    KR_REC_READING_VOID,
    KR_REC_SHIMO_START,
    KR_REC_TOUCH,
    KR_REC_PUSH_OUT,
    KR_REC_HAND_CONTACT,
    KR_REC_EARLY_ENTRY,
    KR_REC_SETTLE,
    KR_REC_SEND,
    KR_REC_REARRANGE,
    KR_REC_FORCE_MAJEURE,
    KR_REC_INTERFERENCE,
    KR_REC_COUNT_
} kr_rules_rec_type;

/* "touch" -> KR_REC_TOUCH ...; KR_REC_NONE for an unknown name (s may be NULL). */
kr_rules_rec_type kr_rules_rec_type_from_name(const char *s);
const char *kr_rules_rec_type_name(kr_rules_rec_type t); /* static; "?" if invalid */

typedef struct kr_rules_layout_card {
    int32_t       card;    /* 1 ... 100 */
    kr_rules_side owner;   /* territory holding it: A or B */
    kr_rules_row  row;     /* optional (NONE) */
    bool          has_pos; /* x_mm, y_mm given */
    double        x_mm, y_mm; /* mat coordinates (geometry.md) */
} kr_rules_layout_card;

/* One match-log line. Zero it (or kr_rules_record_init) before filling.
 * Which fields a type uses (others are ignored by the engine):
 *   match          format, name[], declared[]
 *   layout         cards[], n_cards (t_us optional)
 *   kami_start     seq, card          kimariji / reading_void / shimo_start: seq
 *   touch          player, hand, card (0 = null), territory
 *   push_out       player, card, territory (optional)
 *   hand_contact   -                  early_entry: player, hand (optional)
 *   settle         -                  send: player (= "from"), card
 *   rearrange      player, card, has_pos/x_mm/y_mm
 *   force_majeure  card               interference: player, kind (optional)
 * All but match and layout need t_us. id, confidence, t_err_us are optional
 * on every observation.                                                       */
typedef struct kr_rules_record {
    kr_rules_rec_type type;
    bool          has_t;
    int64_t       t_us;       /* microseconds on the match clock */
    int32_t       seq;        /* reading number, from 1 */
    int32_t       card;       /* 1 ... 100; 0 = null / absent */
    kr_rules_side player;     /* for send: the sender ("from") */
    kr_rules_hand hand;
    kr_rules_side territory;
    kr_rules_kind kind;
    char          id[KR_RULES_ID_MAX]; /* "" = absent */
    double        confidence; /* 0 ... 1; 1 when absent */
    int64_t       t_err_us;   /* timing uncertainty (us); 0 when absent */
    bool          has_pos;
    double        x_mm, y_mm; /* rearrange target */
    /* match */
    char          format[KR_RULES_NAME_MAX];
    char          name[2][KR_RULES_NAME_MAX]; /* [0] = A, [1] = B; "" = absent */
    kr_rules_hand declared[2];                /* pre-declared valid hands */
    /* layout */
    int32_t       n_cards;
    kr_rules_layout_card cards[KR_RULES_CARDS];
} kr_rules_record;

/* Zeroes rec, sets type and the optional-field defaults (confidence 1). */
void kr_rules_record_init(kr_rules_record *rec, kr_rules_rec_type type);

/* ---- rulings (rulings.md) ------------------------------------------------ */

typedef enum {
    KR_TAKE_TOUCH = 1,
    KR_TAKE_PUSH_OUT,
    KR_TAKE_SIMULTANEOUS,
    KR_TAKE_AWARDED,
    KR_TAKE_FORCE_MAJEURE
} kr_rules_how;
const char *kr_rules_how_name(kr_rules_how h); /* "touch" ...; static */

typedef enum { KR_VOID_EARLY_ENTRY = 1, KR_VOID_INVALID_HAND, KR_VOID_INTERFERENCE } kr_rules_void_reason;
const char *kr_rules_void_reason_name(kr_rules_void_reason r); /* "early_entry" ...; static */

typedef struct kr_rules_fault {
    kr_rules_side player;
    uint8_t       territories; /* bit 0: A, bit 1: B */
    int64_t       t_us;        /* first fault touch */
    int32_t       card;        /* card of the first fault touch; 0 = null */
} kr_rules_fault;

typedef struct kr_rules_voided {
    kr_rules_side        player;
    kr_rules_void_reason reason;
} kr_rules_voided;

typedef struct kr_ruling {
    int32_t       seq;
    int32_t       card;                     /* as ruled (rule 8: the card it is treated as) */
    char          kimariji[KR_RULES_KANA_MAX];
    kr_rules_side location;                 /* NONE = "dead" */
    bool          established;
    bool          has_take;                 /* false: "take": null */
    kr_rules_side take_player;
    kr_rules_how  take_how;
    int64_t       take_t_us;
    bool          has_margin;
    int64_t       margin_us;
    int32_t       n_faults;                 /* 0 ... 2 */
    kr_rules_fault faults[2];
    bool          double_fault;
    int32_t       n_voided;                 /* 0 ... 4 */
    kr_rules_voided voided[4];
    int32_t       owed[2];                  /* [0] = A, [1] = B */
    kr_rules_side send_from;                /* NONE: "send": null */
    int32_t       send_count;
    int32_t       sends_missing;            /* of send_count, how many were not made by shimo_start
                                               (lost: the counts do not move; not in the JSON) */
    int32_t       sends_in_error;           /* sends made by shimo_start beyond what their player was
                                               owed (the first stands, rule 6; not in the JSON) */
    int32_t       counts[2];                /* cards in A's / B's territory once final */
    bool          final;
    double        confidence;               /* 0 ... 1 */
    bool          needs_review;
    int32_t       n_review;
    const char   *review[KR_RULES_MAX_REVIEW]; /* static strings */
    int32_t       n_evidence;
    char          evidence[KR_RULES_MAX_EVIDENCE][KR_RULES_ID_MAX];
    int64_t       t_us;                     /* when the ruling became final */
} kr_ruling;

typedef struct kr_rules_match_end {
    kr_rules_side winner;
    int32_t       counts[2];
    int64_t       t_us;
    bool          needs_review;
} kr_rules_match_end;

typedef enum { KR_OUT_RULING = 1, KR_OUT_MATCH_END } kr_rules_out_type;

typedef struct kr_rules_output {
    kr_rules_out_type  type;
    kr_ruling          ruling; /* type RULING */
    kr_rules_match_end end;    /* type MATCH_END */
} kr_rules_output;

/* ---- engine ---------------------------------------------------------------- */

typedef enum {
    KR_RULES_OK = 0,
    KR_RULES_ERR_INPUT, /* the record is invalid here; kr_rules_last_error() says why (bad input: exit 1) */
    KR_RULES_ERR_USAGE  /* NULL argument, feed after finish, outputs not drained (programmer error) */
} kr_rules_status;

typedef struct kr_rules_config {
    int64_t tie_us;  /* touches of both players within this (us) are simultaneous, given to the owner; 0 ... 1e9, default 0 */
    int64_t mora_us; /* duration of one kana (us) when a reading has no kimariji record; 1 ... 1e9, default 250000 */
    bool    provisional; /* also queue a provisional ruling (final = false) at each settle; default false */
} kr_rules_config;

void kr_rules_config_default(kr_rules_config *cfg);

/* Private parts of the state: fields may change between versions; use the functions. */
typedef struct kr_rules__mark {
    int64_t t;        /* first time; INT64_MAX = none */
    int64_t t_err;
    double  conf;
    int32_t card;     /* 0 = null */
    bool    nonnull;  /* at least one touch in this mark named its card */
    char    id[KR_RULES_ID_MAX];
} kr_rules__mark;

typedef struct kr_rules__reading {
    bool    active;       /* between kami_start and finalisation */
    bool    in_play;      /* before settle / shimo_start */
    int32_t seq;
    int32_t read_card;    /* as in kami_start */
    int32_t card;         /* as ruled (rule 8); 0 = no unread card matches */
    bool    reread;       /* rule 8 */
    int     kima_len;
    char    kimariji[KR_RULES_KANA_MAX];
    kr_rules_side location;
    int64_t kami_t;
    bool    has_kima_t;
    int64_t kima_t;
    bool    voided;       /* reading_void before the kimariji */
    bool    void_late;    /* reading_void at/after the kimariji */
    /* marks[player][hand-1][0 = read card, 1 = territory A, 2 = territory B] */
    kr_rules__mark marks[2][2][3];
    kr_rules__mark push[2];       /* push_out of the read card */
    kr_rules__mark null_read[2];  /* card:null touches in the read card's territory */
    kr_rules__mark contact;       /* first hand_contact */
    kr_rules__mark force;         /* force_majeure on the read card */
    kr_rules__mark early[2];      /* early entry before kami_start */
    uint8_t early_hands[2];       /* bit (1 << hand) */
    kr_rules__mark interf[2];     /* interference entries against a player */
    int32_t sends[2][KR_RULES_MAX_SENDS];
    int32_t n_sends[2];
    double  min_conf;             /* lowest confidence among ruling evidence (set at finalise) */
} kr_rules__reading;

typedef struct kr_rules_state {
    kr_rules_config cfg;
    bool    have_match, have_layout, ended, finished;
    int64_t last_t;
    int32_t last_seq;
    kr_rules_side loc[KR_RULES_CARDS + 1];  /* where each card lies; NONE = off the field */
    bool    unread[KR_RULES_CARDS + 1];
    kr_rules_hand valid[2];
    kr_rules__mark pend_early[2];         /* early entries waiting for the next kami_start */
    uint8_t pend_early_hands[2];
    kr_rules__reading rd;
    int32_t n_out, out_head;
    kr_rules_output out[4];
    char    err[KR_RULES_ERR_MAX];
} kr_rules_state;

/* Starts a match: clears st and copies cfg (NULL: defaults). Returns USAGE if
 * st is NULL or cfg is out of range (message in kr_rules_last_error). */
kr_rules_status kr_rules_reset(kr_rules_state *st, const kr_rules_config *cfg);

/* Feeds one record (borrowed; only read during the call). Records must come in
 * match-log order. On KR_RULES_ERR_INPUT the record is rejected and the state
 * is unchanged except for the error text; the caller normally stops there.
 * Rulings that became final are queued: drain them with kr_rules_next() after
 * every feed (at most 2 are queued per call). */
kr_rules_status kr_rules_feed(kr_rules_state *st, const kr_rules_record *rec);

/* End of input: finalises the open reading (its ruling, and the match end if a
 * territory is empty). Further feeds return USAGE. */
kr_rules_status kr_rules_finish(kr_rules_state *st);

/* Pops the oldest queued output into *out; false when the queue is empty. */
bool kr_rules_next(kr_rules_state *st, kr_rules_output *out);

/* Last error text (static buffer inside st; "" if none). Never NULL. */
const char *kr_rules_last_error(const kr_rules_state *st);

/* Cards currently in territory side (A or B) as the engine sees them. */
int32_t kr_rules_count(const kr_rules_state *st, kr_rules_side side);

/* Where card lies now (NONE: off the field, or out of range). */
kr_rules_side kr_rules_location(const kr_rules_state *st, int32_t card);

/* True while card (1 ... 100) has not been read (kimariji are counted against these). */
bool kr_rules_is_unread(const kr_rules_state *st, int32_t card);

/* The valid hand of player (NONE while not yet fixed). */
kr_rules_hand kr_rules_valid_hand(const kr_rules_state *st, kr_rules_side player);

#ifdef __cplusplus
}
#endif
#endif /* KR_RULES_H */
