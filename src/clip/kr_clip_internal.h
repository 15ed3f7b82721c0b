/* kr_clip_internal.h - kr_clip's shared internals (events store), not public API.
 * SPDX-License-Identifier: MIT */
#ifndef KR_CLIP_INTERNAL_H
#define KR_CLIP_INTERNAL_H
#include "kr_clip.h"

#define KR_CLIP_MAX_CARD 100 /* card ids 1 .. 100 */

typedef struct kr_clip_card {
    int    id, owner;  /* owner 0 = A, 1 = B */
    double x_mm, y_mm; /* centre in the layout */
} kr_clip_card;

typedef struct kr_clip_move {
    int64_t t_us;
    int     card;
    double  x_mm, y_mm; /* new centre */
} kr_clip_move;

typedef struct kr_clip_send {
    int64_t t_us;
    int     card;
    int     from; /* 0 = A, 1 = B: the card then lies in the other player's territory */
} kr_clip_send;

struct kr_clip_events {
    kr_clip_contact *contacts; /* owned, sorted by t_us */
    size_t           n_contacts;
    kr_clip_card     cards[KR_CLIP_MAX_CARD]; /* the first layout record */
    int              n_cards;
    kr_clip_move    *moves; /* owned, rearrange records in file order */
    size_t           n_moves;
    kr_clip_send    *sends; /* owned, send records in file order (their new place is not given) */
    size_t           n_sends;
};

/* A card whose contrast when first seen is below this is not there (taken earlier). */
#define KR_CLIP_MIN_CONTRAST 12

/* kr_clip_tracks readers (kr_clip.c). covers: 1 when s holds the frames of
 * [start_us, end_us]. get: the last record at or before t_us into *tf (its cards into
 * cards, room for KR_TRACK_MAX_CARDS; contrast 255 for a card seen, 0 for one not there)
 * and its hands' class image (1 A, 2 B, else 0) into cls (mat_w x mat_h bytes); 0 when
 * s has none. mat: the class image's size and its px -> mm mapping. */
int  kr_clip_tracks_covers(const kr_clip_tracks_t *s, int64_t start_us, int64_t end_us);
int  kr_clip_tracks_get(const kr_clip_tracks_t *s, int64_t t_us, kr_track_frame *tf, kr_track_card *cards,
                        uint8_t *cls);
void kr_clip_tracks_mat(const kr_clip_tracks_t *s, int *w, int *h, double *x0_mm, double *y0_mm, double *mm_per_px);

#endif /* KR_CLIP_INTERNAL_H */
